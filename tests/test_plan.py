"""Know the price first: the planner's formula against a simulation with a known answer, its spread and same-deal
correlation measured on rows built by hand, the questions it plans for, and the command."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import WINS_ONLY

from wolf_eval.analysis import plan as P
from wolf_eval.analysis.questions import DETECTION, WIN
from wolf_eval.cli import main
from wolf_eval.vocabulary import Faction

DATA = Path(__file__).parent / "data"


def test_a_tenth_between_half_and_six_tenths_takes_385_games_a_side_and_simulation_agrees() -> None:
    """0.50 against 0.60 at 80% power and a two-sided 0.05: (1.960 + 0.842)^2 * (0.25 + 0.24) / 0.01 = 384.6 games
    a side with nothing shared (392.4 if both spreads were taken at 0.5); a same-deal correlation of 0.13 saves about
    13%. Simulated paired comparisons of that size, judged by the paired z-test the formula stands for, detect the
    difference 80% of the time (sd 0.9%)."""
    sd = math.sqrt(0.25), math.sqrt(0.24)
    assert P.games_needed(sd[0], 0.0, 0.10, 0.05, 0.80, sd[1]) == 385
    assert P.games_needed(0.5, 0.0, 0.10, 0.05, 0.80) == 393
    assert P.spreads(P.Spread(WIN, Faction.VILLAGERS, 10, 0.5, 0.49, 0.49, {}), 0.10) == pytest.approx(sd)
    rng = np.random.default_rng(5)
    for rho in (0.0, 0.13):
        n = P.games_needed(sd[0], rho, 0.10, 0.05, 0.80, sd[1])
        d = np.array([P.paired_outcomes(rng, 0.6, 0.5, rho, n) for _ in range(2000)])
        z = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(n))
        assert np.mean(np.abs(z) > 1.96) == pytest.approx(0.80, abs=0.03), rho


def test_paired_outcomes_have_the_rates_and_correlation_asked() -> None:
    rng = np.random.default_rng(1)
    p_a, p_b, rho = 0.6, 0.5, 0.4
    both = p_a * p_b + rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    d = P.paired_outcomes(rng, p_a, p_b, rho, 200_000)
    assert np.mean(d == 1) == pytest.approx(p_a - both, abs=0.005)
    assert np.mean(d == -1) == pytest.approx(p_b - both, abs=0.005)


def test_pseudo_values_of_a_rate_are_the_games_and_of_an_auroc_worked_by_hand() -> None:
    wins = np.array([[1.0, 1.0], [0.0, 1.0], [1.0, 1.0], [0.0, 1.0]])
    assert P.pseudo_values(wins, WIN) == pytest.approx([1.0, 0.0, 1.0, 0.0])
    # three games' AUROC counts (concordant, ties, pairs): pooled ((4 + 1) + (0 + 1) + (6 + 0)) / (6 + 4 + 8) = 12/18
    counts = np.array([[4.0, 2.0, 6.0], [0.0, 2.0, 4.0], [6.0, 0.0, 8.0]])
    pooled = 12 / 18
    # without each game in turn: 7/12, 11/14 and 6/10, so the pseudo-values are 3 * pooled - 2 * those; their mean
    # (0.687) is the jackknife's bias-corrected pooled AUROC
    pseudo = P.pseudo_values(counts, DETECTION)
    assert pseudo == pytest.approx([3 * pooled - 2 * 7 / 12, 3 * pooled - 2 * 11 / 14, 3 * pooled - 2 * 6 / 10])


def _pilot(rng: np.random.Generator, rho: float, deals: int = 400) -> pd.DataFrame:
    """Rows of a reference-design pilot: models a and b as the village against r on the same deals, wins at 0.5
    and 0.4 with the same-deal correlation ``rho``; their wolves lose those games' opposite to r."""
    out = []
    both = 0.5 * 0.4 + rho * math.sqrt(0.25 * 0.24)
    for i in range(deals):
        u = rng.random()
        won = {"a": float(u < 0.5), "b": float(u < both or 0.5 <= u < 0.5 + 0.4 - both)}
        for model, w in won.items():
            for m, o, f, x in ((model, "r", Faction.VILLAGERS, w), ("r", model, Faction.WEREWOLVES, 1 - w)):
                out.append({"task": "wolf", "condition": "default", "seed": 1, "sample": str(i + 1), "epoch": 1,
                            "log": f"{model}.eval", "model": m, "opponent": o, "faction": f, "won": x, "played": 1.0,
                            **WINS_ONLY, "usage": {}})
    return pd.DataFrame(out)


def test_the_spread_and_the_same_deal_correlation_are_measured_per_design() -> None:
    rows = _pilot(np.random.default_rng(2), rho=0.5)
    s = P.spread(rows, WIN, Faction.VILLAGERS)
    assert s is not None and s.games == 800
    # within each model (0.5 and 0.4): sd sqrt(0.25) and sqrt(0.24), pooled about 0.495
    assert s.sd == pytest.approx(0.495, abs=0.01)
    rho, deals = s.rho[P.REFERENCE]
    assert deals == 400 and rho == pytest.approx(0.5, abs=0.1)
    assert P.CROSS not in s.rho and P.SELF not in s.rho
    assert P.spread(rows, DETECTION, Faction.VILLAGERS) is None  # no analysis in these games: nothing to plan


def test_the_plan_prices_every_design_and_simulates_the_sequential_one() -> None:
    rows = _pilot(np.random.default_rng(3), rho=0.5)
    table = P.plan(rows, difference=0.10, power=0.80, alpha=0.05, questions=2, futility=P.sequential.NO_FUTILITY)
    village = table[table["figure"] == "village win rate"].set_index("design")
    assert list(village.index) == [*P.DESIGNS, f"group-sequential, {P.REFERENCE}"]
    separate, reference = village.loc[P.SEPARATE], village.loc[P.REFERENCE]
    p = separate["value"]
    # each of the comparison's two questions at 0.025
    assert separate["games_per_model"] == P.games_needed(math.sqrt(p * (1 - p)), 0.0, 0.10, 0.025, 0.80,
                                                         math.sqrt((p + 0.1) * (0.9 - p)))
    assert reference["games_per_model"] < 0.7 * separate["games_per_model"]  # rho near 0.5 halves the variance
    assert not village.loc[P.CROSS, "rho_measured"] and village.loc[P.CROSS, "rho"] == 0.0
    group = village.loc[f"group-sequential, {P.REFERENCE}"]
    assert group["cap"] == P.group_cap(int(reference["games_per_model"]), 0.025, 0.80)
    assert 0 < group["games_per_model"] < group["p90"] <= group["cap"]
    assert group["games_per_model"] < reference["games_per_model"] and group["power"] >= 0.75
    assert math.isnan(separate["usd"])  # the pilot's games carry no usage: their cost is unknown, not free
    text = P.plan_markdown(table, 0.1, 0.8, 0.05, 800, "")
    assert "each question at 0.025 (the error rate shared by 2 questions)" in text
    assert (f"| village win rate | {p:.2f} | {math.sqrt(p * (1 - p)):.2f} and "
            f"{math.sqrt((p + 0.1) * (0.9 - p)):.2f} (the rates {p:.2f} and {p + 0.1:.2f}) | two separate runs | 0 |"
            in text)
    assert f"power {group['power']:.2f} at --max-games {int(group['cap'])}" in text
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        P.plan(rows, difference=1.5)
    # with the default futility bound: a higher cap, and some comparisons of the planned difference stopped as smaller
    bounded = P.plan(rows, difference=0.10, power=0.80, alpha=0.05, questions=2)
    row = bounded[bounded["design"] == f"group-sequential with a futility bound ({P.sequential.FUTILITY}), "
                                       f"{P.REFERENCE}"]
    futile = row[row["figure"] == "village win rate"].iloc[0]
    assert futile["cap"] == P.group_cap(int(reference["games_per_model"]), 0.025, 0.80,
                                        futility=P.sequential.FUTILITY) > group["cap"]
    assert 0 < futile["smaller"] < 0.2 and futile["power"] >= 0.75
    assert "stopped as smaller than planned" in P.plan_markdown(bounded, 0.1, 0.8, 0.05, 800, "")


def test_a_pilot_of_opposite_records_plans_from_its_pooled_rate_not_a_spread_of_0() -> None:
    """Model a's village won all of its 10 games and b's none: within each model the games do not vary, but the
    count is set by the pooled rate (0.50, sd 0.50), and the row says so."""
    rows = _pilot(np.random.default_rng(4), rho=0.0, deals=10)
    rows.loc[(rows["model"] == "a") & (rows["faction"] == Faction.VILLAGERS), "won"] = 1.0
    rows.loc[(rows["model"] == "b") & (rows["faction"] == Faction.VILLAGERS), "won"] = 0.0
    table = P.plan(rows, difference=0.10, power=0.80, alpha=0.05, max_games=100)
    row = table[(table["figure"] == "village win rate") & (table["design"] == P.SEPARATE)].iloc[0]
    assert row["value"] == 0.5 and row["sd"] == 0.5 and row["games_per_model"] == 385
    text = P.plan_markdown(table, 0.1, 0.8, 0.05, 20, "")
    assert "| 0.00 |" not in text and "0.50 and 0.49 (the rates 0.50 and 0.40)" in text
    assert "The count is set by the figure that needs the most games: " in text and "(385 games per model" in text


def test_the_default_cap_is_the_group_designs_for_a_win_rate_at_its_widest_spread() -> None:
    # 0.50 against 0.60, nothing shared, one question at 0.05: 385 games for the fixed design; the default spending
    # (Hwang-Shih-DeCani, gamma -2) needs about 1.1 times that at a look every 10 games, up to a whole round: 430; six
    # questions at 0.05 / 6 each: 594, 1.099 times that (66 looks) is 653, so 660
    assert P.planned_cap(0.10, 0.80, 0.05) == 430
    assert P.games_needed(0.5, 0.0, 0.10, 0.05 / 6, 0.80, math.sqrt(0.24)) == 594
    assert P.inflation(66, 0.05 / 6, 0.80, "hsd:-2") == pytest.approx(1.099, abs=0.002)
    assert P.planned_cap(0.10, 0.80, 0.05 / 6) == 660
    # a spending that spends earlier needs a higher cap for the same power
    assert P.planned_cap(0.10, 0.80, 0.05 / 6, "obrien-fleming") < 660 < P.planned_cap(0.10, 0.80, 0.05 / 6, "pocock")


def test_the_caps_inflation_keeps_the_power_on_simulated_normal_walks() -> None:
    """The group design's inflation, from the normal recursion, checked against what it stands for. One look is the
    fixed design (inflation 1). At 20 looks the bounds spend exactly the error the spending allows at each look, and
    20,000 simulated normal walks (variance 1 at the cap) with the inflated drift cross a bound 80% of the time (sd
    0.3%), and without drift 5% of the time (sd 0.15%)."""
    assert P.inflation(1, 0.05, 0.80, "pocock") == pytest.approx(1.0, abs=1e-4)
    for spending in ("obrien-fleming", "hsd:-2", "pocock"):
        bounds = P.normal_bounds(20, 0.05, spending)
        spent = [P.sequential.spent(k / 20, 0.05, spending) for k in range(21)]
        assert P.normal_stops(bounds, 0.0) == pytest.approx(np.diff(spent), abs=2e-5)
        drift = math.sqrt(P.inflation(20, 0.05, 0.80, spending)) * (1.959964 + 0.841621)
        rng = np.random.default_rng(20)
        walks = np.cumsum(rng.normal(0.0, math.sqrt(1 / 20), (20000, 20)), axis=1)
        crossed = (np.abs(walks + drift * np.arange(1, 21) / 20) >= bounds).any(axis=1).mean()
        assert crossed == pytest.approx(0.80, abs=0.01)
        assert (np.abs(walks) >= bounds).any(axis=1).mean() == pytest.approx(0.05, abs=0.005)
    assert 1 < P.inflation(20, 0.05, 0.8, "obrien-fleming") < P.inflation(20, 0.05, 0.8, "hsd:-2") < \
        P.inflation(20, 0.05, 0.8, "pocock")


def test_a_futility_bound_costs_power_and_the_inflated_cap_pays_it_back_on_simulated_normal_walks() -> None:
    """20 looks, error rate 0.05, 80% power, the default spending (Hwang-Shih-DeCani at gamma -2) with the default
    futility bound (beta 0.2 spent evenly: gamma 0). The bound is non-binding, so the decision bounds are the same
    and a walk it stops as smaller is not decided: the cap must grow. At the inflation the recursion finds, 20,000
    simulated normal walks (variance 1 at the cap) with the planned difference's drift, stopped at the first look
    where they cross a bound or fall within the futility region +-(drift t - bound sqrt(t)), are decided 80% of the
    time (sd 0.3%)."""
    futility = P.sequential.FUTILITY
    assert futility == "hsd:0"
    plain = P.inflation(20, 0.05, 0.80, "hsd:-2")
    grown = P.inflation(20, 0.05, 0.80, "hsd:-2", futility)
    assert grown > plain
    bounds = np.array(P.normal_bounds(20, 0.05, "hsd:-2"))
    t = np.arange(1, 21) / 20
    smaller = np.array(P.sequential.futility_bounds(tuple(t), 0.20, futility))
    drift = math.sqrt(grown) * (1.959964 + 0.841621)
    rng = np.random.default_rng(21)
    walks = np.cumsum(rng.normal(0.0, math.sqrt(1 / 20), (20000, 20)), axis=1) + drift * t
    crossed, futile = np.abs(walks) >= bounds, np.abs(walks) < np.maximum(0.0, drift * t - smaller * np.sqrt(t))
    first = np.where((crossed | futile).any(axis=1), (crossed | futile).argmax(axis=1), 19)
    decided = crossed[np.arange(20000), first]
    assert decided.mean() == pytest.approx(0.80, abs=0.01)
    assert futile[np.arange(20000), first].mean() > 0.1  # the bound does stop walks of the planned difference


def test_plan_reads_any_logs_and_refuses_what_it_cannot_plan_from(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["plan", str(DATA / "release-0.1.0-triadic.eval"), "--priced-as", "openai/gpt-4.1"]) == 0
    out = capsys.readouterr().out
    assert "From 2 pilot games; each question at 0.00833 (the error rate shared by 6 questions)" in out
    assert "at openai/gpt-4.1's list price" in out
    assert "| village win rate |" in out and "| two separate runs | 0 |" in out
    assert main(["plan"]) == 1 and "no logs named" in capsys.readouterr().err
    assert main(["plan", str(DATA / "release-0.1.0-triadic.eval"), "--priced-as", "nobody/none"]) == 2
    assert "no price known for that model" in capsys.readouterr().err
