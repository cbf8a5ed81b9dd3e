"""Hostile replies (``wolfbot/chaos``): full games absorb every one, and speech stays speech.

Each game's log is checked call by call: the reply is re-derived from the call's seed (so the
chaos kind of every reply is known), re-parsed, and must be a recorded fallback exactly when the
parser refuses it. Whatever got through is bounded, and a player's words reach other players only
inside that player's quoted speech.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from random import Random
from typing import Any

import pytest
from helpers import final_state, game_scores, run
from inspect_ai.log import resolve_sample_attachments

from wolf_eval.agents.call import MAX_RAW_CHARS
from wolf_eval.agents.observation import logged_observation
from wolf_eval.agents.seat_call import call_of, logged_parts, reply_fields
from wolf_eval.baseline.chaos import HOSTILE, INJECTIONS, chaos_reply
from wolf_eval.engine.game import MAX_WORD_CHARS, NOTE_WORDS
from wolf_eval.text import clean_text

pytestmark = pytest.mark.slow  # every test here plays an Inspect eval

ARGS = {"games": 1, "max_days": 3, "max_debate_turns": 3, "max_explanation_turns": 2, "seed": 7}


@pytest.fixture(scope="module", params=["wolf", "triadic", "dyadic"])
def chaos_game(request, tmp_path_factory):  # type: ignore[no-untyped-def]
    task = request.param
    log = run(task, "wolfbot/chaos", tmp_path_factory.mktemp(f"chaos-{task}"), task_args=ARGS)
    assert log.status == "success", log.error
    [sample] = log.samples
    return task, resolve_sample_attachments(sample), final_state(sample)


def calls(sample, game) -> list[tuple[Any, list[Any]]]:  # type: ignore[no-untyped-def]
    """(model event, its decisions' views) of every game call: one view, or a joint call's each."""
    out = []
    for e in sample.events:
        meta = (e.input[-1].metadata or {}).get("wolf_eval") if e.event == "model" and e.input else None
        parts = logged_parts(meta) if meta else []
        if parts and parts[0]["action"] != "lessons":
            out.append((e, [logged_observation(m, game) for m in parts], [m["seed"] for m in parts]))
    return out


def expected_reply(views, seeds) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    """What chaos answered: each decision's hostile reply from its own seed, joined as wolfbot joins a
    joint call's parts (a part that is not a JSON object stands for the whole reply)."""
    replies = [chaos_reply(v, Random(s)) for v, s in zip(views, seeds, strict=True)]
    return call_of(views).assemble([raw for raw, _ in replies], reply_fields(views[0])), [kind for _, kind in replies]


def refused_parts(raw, views, game, last: bool = True) -> list[Any]:  # type: ignore[no-untyped-def]
    """The views whose decision the reply could not make (each then a recorded fallback); unless ``last``, a
    decision the reply left unanswered is asked again, not refused."""
    call = call_of(views)
    try:
        decided = call.read(raw, game, last)
    except Exception:
        return list(views)
    return [v for v, d in zip(views, decided, strict=True) if d is not None and d.fallback is not None]


def test_every_hostile_reply_is_absorbed_and_every_refused_one_is_a_recorded_fallback(chaos_game) -> None:  # type: ignore[no-untyped-def]
    task, sample, game = chaos_game
    assert game.outcome is not None and game_scores(sample)["outcome"]["decisions"] > 100
    kinds: Counter[str] = Counter()
    refused: Counter[tuple[str, str, str]] = Counter()
    for e, views, seeds in calls(sample, game):
        raw = e.output.completion
        expected, its_kinds = expected_reply(views, seeds)
        assert raw == expected, "the reply re-derives from each decision's seed and the logged view"
        kinds.update(its_kinds)
        for v in refused_parts(raw, views, game, last=bool(e.input[-1].metadata["wolf_eval"].get("again"))):
            refused[(v.seat, v.action, clean_text(raw)[:MAX_RAW_CHARS])] += 1
    recorded = Counter((r.actor, r.data.action, r.data.raw) for r in game.records if r.kind == "fallback")
    assert recorded == refused
    assert game_scores(sample)["outcome"]["fallbacks"] == sum(refused.values())
    missing = sorted(set(HOSTILE) - set(kinds))
    assert set(kinds) == set(HOSTILE), f"{task}: every hostile kind was tried ({missing} missing)"


def test_what_gets_through_is_bounded(chaos_game) -> None:  # type: ignore[no-untyped-def]
    _, _, game = chaos_game
    limit = game.config.max_statement_words
    spoken = [r for r in game.records if r.kind in ("statement", "defence", "vote", "wolf_proposal") and r.text]
    notes = [r for r in game.records if r.kind == "note"]
    assert spoken and notes
    for r in spoken:
        assert len(r.text.split()) <= limit + 1, r.kind
    for r in notes:
        assert len(r.text.split()) <= NOTE_WORDS + 1
    for r in spoken + notes:
        assert all(len(w) <= MAX_WORD_CHARS + 1 for w in r.text.split())
    assert all(len(r.data.raw) <= MAX_RAW_CHARS for r in game.records if r.kind == "fallback")


SPEECH_LINE = re.compile(
    r"^(?:#\d+ )?(?:(?:(?P<who>\w+) (?:said|said in their defence|voted for \w+)"
    r"|\[Wolves' channel\] (?P<wolf>\w+) proposed killing \w+): "
    r"|\[Your private note\] |\[Your last private note that day\] )(?P<quoted>\".*\")$"
)


def test_a_player_s_words_reach_others_only_as_that_player_s_quoted_speech(chaos_game) -> None:  # type: ignore[no-untyped-def]
    _, sample, game = chaos_game
    fragments = [" ".join(i.split())[:24] for i in INJECTIONS] + ["esrever"]
    injected = [r for r in game.records if r.text and any(f in r.text for f in fragments)]
    assert injected, "some injected speech got through the parser (it is legal speech)"
    said = {(r.actor, r.text) for r in injected}
    shown = 0
    for e, views, _ in calls(sample, game):
        obs = views[0]
        for message in e.input:
            assert not re.search(r"[\x00-\x08\x0b-\x1f]", message.text), "control characters reach no prompt raw"
            for line in message.text.splitlines():
                if not any(f in line for f in fragments):
                    assert not line.startswith(("SYSTEM:", "[Moderator]", "</statement>")), line
                    continue
                m = SPEECH_LINE.match(line)
                assert m, f"injected words outside a quoted speech line: {line[:120]!r}"
                words = json.loads(m.group("quoted"))
                speaker = m.group("who") or m.group("wolf") or obs.seat
                assert (speaker, words) in said, "the words are attributed to the player who said them"
                shown += 1
    assert shown > 0
