"""Money where a user looks: the eval's ``cost`` score and the report's console give tokens and dollars
per game and in total, summed over games, with an unknown price shown as unknown (NaN), never as free."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from helpers import run, store_field
from inspect_ai import score
from inspect_ai.log import EvalLog
from inspect_ai.scorer import SampleScore, Score

from wolf_eval.analysis.markdown import money_markdown
from wolf_eval.cli import main
from wolf_eval.measures.cost import PRICES_ENV
from wolf_eval.scorers.game_scores import COST_FIGURES, cost_metric, cost_scorer

#: US dollars per million tokens for the scripted player, as if it were a listed model.
PRICE = {"input": 3.0, "cache_read": 0.3, "cache_write": 3.75, "output": 15.0}


def priced(folder: Path) -> str:
    path = folder / "prices.json"
    path.write_text(json.dumps({"wolfbot/cue": PRICE}), encoding="utf-8")
    return str(path)


def by_hand(u: dict[str, float]) -> float:
    return (u["input"] * 3.0 + u["cache_read"] * 0.3 + u["cache_write"] * 3.75 + u["output"] * 15.0) / 1e6


def game(usd: float, prompt: float, cached: float, out: float) -> SampleScore:
    cost = {"input_tokens": prompt, "cached_tokens": cached, "output_tokens": out, "usd": usd}
    return SampleScore(score=Score(value={"usd": usd, "tokens": prompt + cached + out}, metadata={"cost": cost}))


def test_the_cost_metric_sums_the_games_and_a_game_of_unknown_price_leaves_the_dollars_unknown():
    games = [game(0.25, 1000, 3000, 100), game(0.75, 2000, 1000, 300)]
    assert cost_metric()(games) == {"usd_per_game": 0.5, "usd": 1.0, "tokens_per_game": 3700.0, "tokens": 7400.0}
    figures = cost_metric()([*games, game(math.nan, 500, 0, 50)])
    assert list(figures) == list(COST_FIGURES)
    assert math.isnan(figures["usd"]) and math.isnan(figures["usd_per_game"])  # not 1.0 passed off as the total
    assert (figures["tokens"], figures["tokens_per_game"]) == (7950.0, 2650.0)


def test_the_console_block_prices_each_seat_model_and_says_which_has_no_price(tmp_path, monkeypatch):
    monkeypatch.setenv(PRICES_ENV, priced(tmp_path))
    cue = {"calls": 10, "input": 100_000, "cache_read": 300_000, "cache_write": 0, "output": 2_000}
    tom = {"calls": 5, "input": 50_000, "cache_read": 0, "cache_write": 0, "output": 1_000}
    block = money_markdown([{"wolfbot/cue": cue, "wolfbot/tom": tom}, {"wolfbot/cue": cue}])
    # cue: 2 games of 402,000 tokens at 0.3 + 0.09 + 0.03 = $0.42; tom unpriced, so all seats' dollars unknown
    assert "| wolfbot/cue | 2 | 804,000 | 402,000 | 0.8400 | 0.4200 |" in block
    assert "| wolfbot/tom | 1 | 51,000 | 51,000 | n/a | n/a |" in block
    assert "| all seat models | 2 | 855,000 | 427,500 | n/a | n/a |" in block
    assert "no known price for wolfbot/tom" in block and "wolfbot/cue," not in block
    assert money_markdown([{}, {}]) == "Tokens and cost: these logs recorded no token usage."


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, str]:
    folder = tmp_path_factory.mktemp("money")
    prices = priced(folder)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(PRICES_ENV, prices)
        log = run("wolf", "wolfbot/cue", folder, task_args={"games": 2, "max_debate_turns": 2, "max_days": 2,
                                                            "deception_analysis": False})
    return log, prices


@pytest.mark.slow
def test_the_eval_results_give_dollars_and_tokens_per_game_and_in_total(played):
    log, _ = played
    assert log.status == "success" and log.samples
    usages = [store_field(s, "usage")["wolfbot/cue"] for s in log.samples]
    for sample, u in zip(log.samples, usages, strict=True):
        assert u["input"] > 0 and u["output"] > 0
        assert sample.scores["cost"].value == {"usd": round(by_hand(u), 4), "tokens": u["input"] + u["output"]}
    [cost] = [s for s in log.results.scores if s.name == "cost"]
    shown = {k: m.value for k, m in cost.metrics.items()}
    tokens = sum(u["input"] + u["output"] for u in usages)
    assert shown["usd"] == pytest.approx(sum(by_hand(u) for u in usages), rel=1e-12)
    assert shown["usd_per_game"] == pytest.approx(shown["usd"] / 2, rel=1e-12)
    assert (shown["tokens"], shown["tokens_per_game"]) == (tokens, tokens / 2)


@pytest.mark.slow
def test_without_a_price_the_dollars_are_unknown_and_the_tokens_still_counted(played, monkeypatch):
    log, _ = played
    monkeypatch.delenv(PRICES_ENV, raising=False)
    rescored = score(log, [cost_scorer()], action="overwrite", display="none")
    assert all(math.isnan(s.scores["cost"].value["usd"]) for s in rescored.samples)  # type: ignore[index]
    shown = {k: m.value for k, m in rescored.results.scores[0].metrics.items()}
    assert math.isnan(shown["usd"]) and math.isnan(shown["usd_per_game"])
    assert shown["tokens"] == sum(store_field(s, "usage")["wolfbot/cue"]["input"]
                                  + store_field(s, "usage")["wolfbot/cue"]["output"] for s in log.samples)


@pytest.mark.slow
def test_the_report_console_prints_the_money_block(played, tmp_path, monkeypatch, capsys):
    log, prices = played
    monkeypatch.setenv(PRICES_ENV, prices)
    assert main(["report", log.location, "--out", str(tmp_path / "report")]) == 0
    usages = [store_field(s, "usage")["wolfbot/cue"] for s in log.samples]
    usd = sum(by_hand(u) for u in usages)
    tokens = sum(u["input"] + u["output"] for u in usages)
    row = f"| wolfbot/cue | 2 | {tokens:,.0f} | {tokens / 2:,.0f} | {usd:,.4f} | {usd / 2:,.4f} |"
    assert row in capsys.readouterr().out
