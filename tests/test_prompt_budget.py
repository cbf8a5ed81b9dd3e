"""What a game's prompts cost and what a provider's cache can reuse, on a played triadic game.

The budget figures come from ``benchmarks/prompts.py`` (README, "Prompt tokens"): before the
prompts were cut, a triadic call carried on average 894 tokens (about 3,580 characters) of rules,
role, instruction and reply format, text with no game fact in it; the cut halved it.
"""

from __future__ import annotations

from collections import defaultdict

import pytest
from helpers import final_state, run
from inspect_ai.log import EvalSample, read_eval_log

from wolf_eval.agents.seat_call import call_messages, call_sections, logged_parts, logged_views
from wolf_eval.engine import Role

pytestmark = pytest.mark.slow  # every test here plays an Inspect eval

BEFORE_FIXED_CHARS = 894 * 4


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> EvalSample:
    log = run("triadic", log_dir=tmp_path_factory.mktemp("budget"), model_args={"words": 50},
              task_args={"games": 1, "max_days": 2, "seating": "fixed"})  # the game the budget was measured on
    assert log.status == "success"
    [sample] = read_eval_log(log.location, resolve_attachments=True).samples or []
    return sample


def calls(sample: EvalSample) -> list:
    return [e for e in sample.events
            if e.event == "model" and e.input and (e.input[-1].metadata or {}).get("wolf_eval")]


def test_the_text_that_carries_no_game_fact_is_half_what_it_was(game: EvalSample) -> None:
    state = final_state(game)
    fixed, decisions = [], 0
    for e in calls(game):
        meta = e.input[-1].metadata["wolf_eval"]
        parts = call_sections(logged_views(meta, state))
        fixed.append(sum(len(parts[name]) for name in ("rules", "role", "instruction", "reply in words")))
        decisions += len(logged_views(meta, state))
    assert len(fixed) > 200 and decisions > 500  # a two-day game, a seat's decisions of a wave in one call
    assert sum(fixed) / decisions <= BEFORE_FIXED_CHARS / 2  # per decision: one call asked one before joint calls


def test_a_seats_record_only_grows_block_by_block_so_its_earlier_prompt_is_a_cached_prefix(game: EvalSample) -> None:
    """Anthropic caches at content-block boundaries: each call must extend the blocks of the seat's
    previous call (all but its last, the instruction), and the system prompt must stay put."""
    state = final_state(game)
    blocks: dict[str, list[str]] = {}
    systems: dict[str, set[str]] = defaultdict(set)
    extended = 0
    for e in calls(game):
        seat = logged_views(e.input[-1].metadata["wolf_eval"], state)[0].seat
        system, user = e.input
        systems[seat].add(system.text)
        record = [c.text for c in user.content][:-1]
        if seat in blocks:
            assert record[:len(blocks[seat])] == blocks[seat], seat
            extended += len(record) > len(blocks[seat])
        blocks[seat] = record
    assert extended > 100
    wolves_dead = sum(1 for p in state.players if p.role is Role.WEREWOLF and not p.alive)
    for seat, texts in systems.items():
        allowed = 1 + (wolves_dead if state.player(seat).role is Role.WEREWOLF else 0)
        assert len(texts) <= allowed, seat


def test_without_a_response_schema_the_reply_is_spelled_out_once(game: EvalSample) -> None:

    e = next(e for e in calls(game)
             if [p["action"] for p in logged_parts(e.input[-1].metadata["wolf_eval"])] == ["vote"])
    [obs] = logged_views(e.input[-1].metadata["wolf_eval"], final_state(game))
    obs = obs.model_copy(update={"calls": "per_decision"})  # a vote's own layout, as the papers asked it
    with_schema = call_messages([obs])[-1].text
    without = call_messages([obs], structured=False)[-1].text
    assert "Reply with only a JSON object" not in with_schema
    assert without.count("Reply with only a JSON object") == 1
    assert '"vote": <The player you vote to exile.>' in without
