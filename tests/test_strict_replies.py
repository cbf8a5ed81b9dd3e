"""Every ``wolfbot`` reply is one a strict decoder could return: it validates against the response schema
its call was sent, as recorded in the call's model event.

So the offline path exercises what a provider with strict structured outputs returns (every field the
schema requires, none it does not name, a confidence or suspicion on the schema's 0.05 grid), and a
token or parsing figure measured on the bots is measured on replies a model could give. One game of
each task, on every scripted player between them, joint calls and one call per decision, and the
Jester's lessons. ``wolfbot/chaos`` is left out on purpose: its replies are hostile by design.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import learned, run
from jsonschema import Draft202012Validator

from wolf_eval.baseline.bots import on_grid, strict_reply

SHORT = {"games": 1, "max_debate_turns": 1, "max_days": 1, "seating": "fixed"}
#: (task, model, extra task args, model roles): between them every scripted player and both call shapes.
GAMES: list[tuple[str, str, dict[str, Any], dict[str, str]]] = [
    ("wolf", "wolfbot/cue", {"calls": "per_decision"}, {}),
    ("triadic", "wolfbot/faction", {"jester_learning": True}, {"jester": "wolfbot/random"}),
    ("dyadic", "wolfbot/tom", {"max_explanation_turns": 1}, {"werewolf": "wolfbot/random"}),
]


def schema_failures(sample: Any) -> tuple[int, list[str]]:
    """How many replies were sent a schema, and each that breaks it (the schema's name and the first error)."""
    checked, failures = 0, []
    for e in sample.events:
        if e.event != "model" or e.config.response_schema is None:
            continue
        schema = e.config.response_schema
        validator = Draft202012Validator(schema.json_schema.model_dump(exclude_none=True))
        checked += 1
        try:
            reply = json.loads(e.output.completion)
        except ValueError as err:
            failures.append(f"{schema.name}: not JSON ({err})")
            continue
        error = next(iter(validator.iter_errors(reply)), None)
        if error is not None:
            failures.append(f"{schema.name}: {error.message} at {list(error.absolute_path)}")
    return checked, failures


@pytest.mark.slow
@pytest.mark.parametrize("task,model,extra,roles", GAMES, ids=[g[0] for g in GAMES])
def test_every_bot_reply_validates_against_the_strict_schema_it_was_sent(task, model, extra, roles,
                                                                        tmp_path) -> None:  # type: ignore[no-untyped-def]
    if extra.get("jester_learning"):  # a learning run's game: one eval of wolf-eval learn's
        args = {k: v for k, v in SHORT.items() if k != "games"} | {"lessons_dir": str(tmp_path / "lessons")}
        [log] = learned(model, tmp_path / "logs", 1, task_args=args, model_roles=roles or None)
    else:
        log = run(task, model, tmp_path / "logs", task_args=SHORT | extra, model_roles=roles or None)
    assert log.status == "success", log.error
    checked, failures = schema_failures(log.samples[0])
    assert checked > 20
    assert failures == []


def test_the_grid_is_the_schemas_and_ties_go_down() -> None:
    assert [on_grid(x) for x in (0.0, 0.19, 0.974, 1.0, 0.126, 0.62)] == [0.0, 0.2, 0.95, 1.0, 0.15, 0.6]
    assert on_grid(0.125) == 0.1  # halfway (as floats have it): the lower value


def test_a_reply_keeps_the_schema_s_fields_only_in_its_order() -> None:
    """The flag the policies add is dropped, the notes they leave out are null, the scores are on the grid."""
    from wolf_eval.agents.observation import Observation
    from wolf_eval.engine import Action

    obs = Observation.model_construct(action=Action.PEER_ANALYSIS)
    reply = {"is_deceptive": True, "confidence": 0.19, "deception_type": "omission", "suspicion": 0.83,
             "reasoning": "A hunch."}
    assert list(strict_reply(obs, reply).items()) == [
        ("deception_type", "omission"), ("confidence", 0.2), ("suspicion", 0.85), ("reasoning", "A hunch.")]
    bid = Observation.model_construct(action=Action.BID)
    assert strict_reply(bid, {"bid": 7}) == {"bid": 7, "notes": None}
