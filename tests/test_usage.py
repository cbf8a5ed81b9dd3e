"""What a game costs and how its seats were really configured: tokens per seat model, priced; settings a
provider ignores, recorded and warned."""

from __future__ import annotations

import json
import logging
import math

import pytest
from helpers import run
from inspect_ai.model import GenerateConfig

from wolf_eval.agents import honoured
from wolf_eval.agents.honoured import ignored_settings, warn_once
from wolf_eval.measures import cost
from wolf_eval.measures.cost import game_cost, usd
from wolf_eval.store import TokenUsage, logged_record


@pytest.mark.slow
def test_a_games_tokens_are_what_the_provider_reported_per_seat_model(tmp_path) -> None:
    log = run("wolf", "wolfbot/cue", tmp_path, model_roles={"werewolf": "wolfbot/tom"},
              task_args={"games": 1, "max_days": 1, "max_debate_turns": 1})
    assert log.status == "success", log.error
    [sample] = log.samples
    usage = logged_record(sample.store).usage
    assert set(usage) == {"wolfbot/cue", "wolfbot/tom"} == set(sample.model_usage)
    for model, mine in usage.items():
        inspect_says = sample.model_usage[model]
        assert (mine.input, mine.output) == (inspect_says.input_tokens, inspect_says.output_tokens)
    assert sum(u.calls for u in usage.values()) == logged_record(sample.store).calls
    seats = sample.metadata["seats"]
    assert [s["name"] for s in seats] == [p.name for p in logged_record(sample.store).game().players]
    assert {s["model"] for s in seats if s["role"] == "werewolf"} == {"wolfbot/tom"}
    assert all(s["faction"] and s["temperature"] == 1.0 and s["ignored"] == [] for s in seats)


def test_tokens_are_priced_at_list_prices_and_an_unknown_price_is_not_free() -> None:
    # gpt-4.1: $2 in, $0.50 cached, $8 out per million; claude-sonnet-4-5: $3, $0.30 read, $3.75 write, $15
    assert usd("openai/gpt-4.1", TokenUsage(input=1_000_000, cache_read=2_000_000, output=500_000)) == \
        pytest.approx(2.0 + 1.0 + 4.0)
    assert usd("anthropic/claude-sonnet-4-5-20250929", TokenUsage(input=100_000, cache_read=1_000_000,
                                                                  cache_write=200_000, output=10_000)) == \
        pytest.approx(0.3 + 0.3 + 0.75 + 0.15)
    assert math.isnan(usd("wolfbot/cue", TokenUsage(input=10)))
    both = game_cost({"openai/gpt-4.1": TokenUsage(input=1_000_000), "wolfbot/cue": TokenUsage(input=5)})
    assert both["input_tokens"] == 1_000_005 and math.isnan(both["usd"])


def test_the_price_table_can_be_overridden(tmp_path, monkeypatch) -> None:
    mine = tmp_path / "prices.json"
    mine.write_text(json.dumps({"wolfbot/cue": {"input": 1.0, "output": 2.0}}))
    monkeypatch.setenv(cost.PRICES_ENV, str(mine))
    assert usd("wolfbot/cue", TokenUsage(input=1_000_000, output=1_000_000)) == pytest.approx(3.0)
    assert usd("openai/gpt-4.1", TokenUsage(output=1_000_000)) == pytest.approx(8.0), "the package's table stays"


@pytest.mark.parametrize("model,config,expected", [
    ("openai/gpt-4.1", GenerateConfig(), []),
    ("openai/o3", GenerateConfig(), ["temperature", "seed"]),
    ("openai/gpt-5-mini", GenerateConfig(), ["temperature", "seed"]),
    ("anthropic/claude-sonnet-4-5", GenerateConfig(), ["seed"]),
    ("anthropic/claude-sonnet-4-5", GenerateConfig(reasoning_tokens=2000), ["temperature", "seed"]),
    ("google/gemini-2.5-pro", GenerateConfig(), []),
    ("wolfbot/cue", GenerateConfig(), []),
])
def test_settings_a_provider_ignores_are_named(model, config, expected) -> None:
    assert [x.split(" ")[0] for x in ignored_settings(model, config, 1.0)] == expected


def test_the_warning_is_given_once_per_model(caplog) -> None:
    honoured._warned.clear()
    with caplog.at_level(logging.WARNING, logger=honoured.__name__):
        for _ in range(3):
            warn_once("openai/o3", ignored_settings("openai/o3", GenerateConfig(), 1.0))
    assert len(caplog.records) == 2 and all("openai/o3 ignores the requested" in r.message for r in caplog.records)
