"""What a game costs in tokens: speech at a model's length leaves the game alone, compact history halves it,
and the tokens are priced and pooled per seat model without passing an unknown cost off as zero."""

from __future__ import annotations

import json
import math
import re
from random import Random

import pytest
from helpers import final_state, run
from inspect_ai.log import read_eval_log, resolve_sample_attachments

from wolf_eval.agents.seat_call import call_messages, logged_views
from wolf_eval.baseline.reading import _ACCUSE, _SEER_CLAIM, JESTER_TELLS, WOLF_TELLS, count_tells
from wolf_eval.engine.seating import NAME_POOL
from wolf_eval.measures import cost, ignored
from wolf_eval.providers.padding import REASON_WORDS, SMALL_TALK, lengthen
from wolf_eval.providers.wolfbot import WolfBot, prompt_tokens
from wolf_eval.store import TokenUsage


def test_small_talk_names_nobody_and_holds_nothing_a_bot_reads():
    for line in SMALL_TALK:
        low = line.lower()
        assert count_tells(line, JESTER_TELLS) == count_tells(line, WOLF_TELLS) == 0
        assert not _ACCUSE.search(low) and not _SEER_CLAIM.search(line)
        assert not any(w in low for w in ("suspect", "eye on", "vote", "looks the most", "i am the", "werewolf"))
        assert not any(re.search(rf"\b{n}\b", line, re.I) for n in NAME_POOL)  # mentions are matched case-blind


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


@pytest.mark.slow
def test_model_length_speech_changes_the_words_and_nothing_else(tmp_path, fast_args):
    args = {"games": 2, **fast_args}
    games = {}
    for words in (0, 40):
        log = run("triadic", "wolfbot/cue", tmp_path, task_args=args, model_args={"words": words} if words else {})
        assert log.status == "success"
        games[words] = [final_state(s) for s in read_eval_log(log.location).samples or []]
    for short, long in zip(games[0], games[40], strict=True):
        def shape(state):  # type: ignore[no-untyped-def]
            return [(r.kind, r.actor, r.target, r.day, r.phase, getattr(r.data, "mentions", None))
                    for r in state.records]
        assert shape(short) == shape(long) and short.outcome == long.outcome
        pairs = list(zip(_speech(short), _speech(long), strict=True))
        assert pairs
        for a, b in pairs:
            want = REASON_WORDS if a.kind == "vote" else 40
            assert b.text.startswith(a.text) and len(b.text.split()) == max(want, len(a.text.split()))


@pytest.mark.slow
def test_compact_history_halves_the_prompts_of_a_long_game_at_model_length(tmp_path):
    """The task's own triadic game (default turns) with statements of 50 words, as models speak."""
    log = run("triadic", "wolfbot/random", tmp_path, task_args={"games": 1, "seed": 0}, model_args={"words": 50})
    assert log.status == "success"
    sample = resolve_sample_attachments(read_eval_log(log.location).samples[0])
    game = final_state(sample)
    assert game.outcome is not None and game.outcome.day >= 3
    chars = {"full": 0, "compact": 0}
    tokens = {"full": 0, "compact": 0}  # as the wolfbot provider counts them: o200k, the schema included
    for e in sample.events:
        meta = (e.input[-1].metadata or {}).get("wolf_eval") if e.event == "model" and e.input else None
        if meta:
            views = logged_views(meta, game)
            for history in chars:
                seen = [v.model_copy(update={"history": history}) for v in views]
                messages = call_messages(seen)
                chars[history] += sum(len(m.text) for m in messages)
                tokens[history] += prompt_tokens(messages, e.config)
    played = sum(e.output.usage.input_tokens for e in sample.events if e.event == "model" and e.output.usage)
    history = sample.metadata["settings"]["history"]
    assert abs(played - tokens[history]) / played < 0.01, "the re-rendered prompts are the prompts played"
    assert chars["compact"] <= 0.5 * chars["full"]


def test_a_models_prompt_is_its_input_and_cached_tokens_cache_writes_included():
    # claude-sonnet-4-5: $3 in, $0.30 cache read, $3.75 cache write, $15 out per million tokens
    c = cost.model_cost("anthropic/claude-sonnet-4-5",
                        TokenUsage(input=100, cache_write=900, cache_read=4000, output=50))
    assert (c["input_tokens"], c["cached_tokens"], c["output_tokens"]) == (1000, 4000, 50)
    assert c["usd"] == pytest.approx((100 * 3 + 900 * 3.75 + 4000 * 0.3 + 50 * 15) / 1e6)


def test_a_game_without_recorded_usage_costs_nan_not_zero():
    assert all(math.isnan(v) for v in cost.game_cost({}).values())


def test_pooled_cost_sums_over_games_and_an_unknown_game_makes_the_total_unknown():
    a = {"input_tokens": 100.0, "cached_tokens": 20.0, "output_tokens": 10.0, "usd": 0.5}
    b = {"input_tokens": 300.0, "cached_tokens": 0.0, "output_tokens": 30.0, "usd": 1.5}
    pooled = cost.pooled_cost([a, b])
    assert (pooled["games"], pooled["input_tokens"], pooled["usd"], pooled["output_tokens_per_game"],
            pooled["usd_per_game"]) == (2, 400, 2.0, 20, 1.0)
    unpriced = cost.pooled_cost([a, b | {"usd": math.nan}])
    assert math.isnan(unpriced["usd"]) and math.isnan(unpriced["usd_per_game"]) and unpriced["input_tokens"] == 400
    by_model = cost.cost_by_model([{"x/a": TokenUsage(input=4)},
                                   {"x/a": TokenUsage(input=6), "x/b": TokenUsage(output=1)}])
    assert (by_model["x/a"]["games"], by_model["x/a"]["input_tokens"], by_model["x/b"]["games"]) == (2, 10, 1)


def test_ignored_settings_are_gathered_per_model_over_seats_and_games():
    seats = [{"model": "openai/o3", "ignored": ["temperature (a reasoning model samples at 1)", "seed (none)"]},
             {"model": "openai/o3", "ignored": ["seed (none)", "temperature (a reasoning model samples at 1)"]},
             {"model": "openai/gpt-4.1", "ignored": []}]
    one = ignored.ignored_by_model(seats)
    assert one == {"openai/o3": ["seed (none)", "temperature (a reasoning model samples at 1)"]}
    assert ignored.ignored_over_games([one, {}, {"anthropic/claude-haiku-4-5": ["seed (Anthropic takes none)"]}]) == \
        {"anthropic/claude-haiku-4-5": ["seed (Anthropic takes none)"], **one}
    assert ignored.ignored_by_model([{"model": "wolfbot/cue", "ignored": []}]) == {}


def test_a_routed_name_is_priced_as_the_model_it_names_and_an_ambiguous_one_is_not(monkeypatch, tmp_path):
    gpt = cost.prices()["openai/gpt-4.1"]
    assert cost.price_of("openai-api/local/gpt-4.1") == gpt
    assert cost.price_of("openrouter/openai/gpt-4.1") == gpt
    assert cost.price_of("openai-api/local/gpt-4.1-2025-04-14") == gpt
    assert cost.price_of("anthropic/claude-sonnet-4-5-20250929") == cost.prices()["anthropic/claude-sonnet-4-5"]
    assert cost.price_of("openai-api/local/my-own-model") is None
    assert cost.price_of("gpt-4.1") is None
    shared = tmp_path / "prices.json"
    shared.write_text(json.dumps({"other/gpt-4.1": {"input": 9.0, "output": 9.0}}), encoding="utf-8")
    monkeypatch.setenv(cost.PRICES_ENV, str(shared))
    assert cost.price_of("openai-api/local/gpt-4.1") is None, "two providers list gpt-4.1: no guess"
    assert math.isnan(cost.usd("openai-api/local/gpt-4.1", TokenUsage(input=1000)))
