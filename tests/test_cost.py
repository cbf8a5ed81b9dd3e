"""What a game costs in tokens: speech at a model's length leaves the game alone, and compact history halves it."""

from __future__ import annotations

import json
import re
from random import Random

import pytest
from inspect_ai.log import read_eval_log, resolve_sample_attachments

from helpers import final_state, run
from wolf_eval.agents.observation import logged_observation
from wolf_eval.agents.prompts import build_messages
from wolf_eval.engine.roles import NAMES
from wolf_eval.providers.padding import REASON_WORDS, SMALL_TALK, lengthen
from wolf_eval.providers.reading import _ACCUSE, _SEER_CLAIM, JESTER_TELLS, WOLF_TELLS, count_tells
from wolf_eval.providers.wolfbot import WolfBot


def test_small_talk_names_nobody_and_holds_nothing_a_bot_reads():
    for line in SMALL_TALK:
        low = line.lower()
        assert count_tells(line, JESTER_TELLS) == count_tells(line, WOLF_TELLS) == 0
        assert not _ACCUSE.search(low) and not _SEER_CLAIM.search(line)
        assert not any(w in low for w in ("suspect", "eye on", "vote", "looks the most", "i am the", "werewolf"))
        assert not any(re.search(rf"\b{n}\b", line) for n in NAMES)


class _Obs:
    def __init__(self, action: str, limit: int = 50) -> None:
        self.action, self.max_statement_words = action, limit


def test_lengthen_runs_speech_on_to_the_asked_words_within_the_limits():
    said = json.dumps({"statement": "I suspect Ben.", "notes": "n"})
    long = json.loads(lengthen(said, _Obs("statement"), 30, Random(1)))  # type: ignore[arg-type]
    assert long["statement"].startswith("I suspect Ben. ") and len(long["statement"].split()) == 30
    assert long["notes"] == "n"
    assert len(json.loads(lengthen(said, _Obs("defence", limit=20), 30, Random(1)))["statement"].split()) == 20  # type: ignore[arg-type]
    vote = json.dumps({"vote": "Ben", "reason": "A hunch."})
    assert len(json.loads(lengthen(vote, _Obs("vote"), 50, Random(1)))["reason"].split()) == REASON_WORDS  # type: ignore[arg-type]
    already = json.dumps({"statement": " ".join(["word"] * 40)})
    assert lengthen(already, _Obs("statement"), 30, Random(1)) == already  # type: ignore[arg-type]
    for reply, action in ((json.dumps({"bid": 3}), "bid"), ("not json", "statement"), ('{"statement": 7}', "statement"),
                          (said, "statement")):
        words = 0 if reply == said else 30
        assert lengthen(reply, _Obs(action), words, Random(1)) == reply  # type: ignore[arg-type]


@pytest.mark.parametrize("words", [-1, 1001, 2.5, "lots", True])
def test_wolfbot_refuses_a_word_count_that_is_not_one(words):
    with pytest.raises(ValueError, match="-M words must be a whole number"):
        WolfBot("cue", words=words)


def test_the_chaos_player_keeps_its_own_replies():
    with pytest.raises(ValueError, match="chaos"):
        WolfBot("chaos", words=20)


def _speech(state) -> list:
    return [r for r in state.records if r.kind in ("statement", "defence", "vote") and r.text]


def test_model_length_speech_changes_the_words_and_nothing_else(tmp_path, fast_args):
    args = {"games": 2, **fast_args}
    games = {}
    for words in (0, 40):
        log = run("triadic", "wolfbot/cue", tmp_path, task_args=args, model_args={"words": words} if words else {})
        assert log.status == "success"
        games[words] = [final_state(s) for s in read_eval_log(log.location).samples or []]
    for short, long in zip(games[0], games[40], strict=True):
        def shape(state):  # type: ignore[no-untyped-def]
            return [(r.kind, r.actor, r.target, r.day, r.phase, getattr(r.data, "mentions", None)) for r in state.records]
        assert shape(short) == shape(long) and short.outcome == long.outcome
        pairs = list(zip(_speech(short), _speech(long), strict=True))
        assert pairs
        for a, b in pairs:
            want = REASON_WORDS if a.kind == "vote" else 40
            assert b.text.startswith(a.text) and len(b.text.split()) == max(want, len(a.text.split()))


def test_compact_history_halves_the_prompts_of_a_long_game_at_model_length(tmp_path):
    """The task's own triadic game (default turns) with statements of 50 words, as models speak."""
    log = run("triadic", "wolfbot/random", tmp_path, task_args={"games": 1, "seed": 0}, model_args={"words": 50})
    assert log.status == "success"
    sample = resolve_sample_attachments(read_eval_log(log.location).samples[0])
    game = final_state(sample)
    assert game.outcome is not None and game.outcome.day >= 3
    chars = {"full": 0, "compact": 0}
    for e in sample.events:
        meta = (e.input[-1].metadata or {}).get("wolf_eval") if e.event == "model" and e.input else None
        if meta:
            obs = logged_observation(meta, game)
            for history in chars:
                chars[history] += sum(len(m.text) for m in build_messages(obs.model_copy(update={"history": history})))
    played = sum(e.output.usage.input_tokens for e in sample.events if e.event == "model" and e.output.usage)
    assert abs(played - chars["full"] / 4) / played < 0.01, "the re-rendered prompts are the prompts played"
    assert chars["compact"] <= 0.5 * chars["full"]
