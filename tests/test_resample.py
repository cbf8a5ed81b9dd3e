"""The cluster bootstrap over games: a case worked by hand, thin data, determinism, and its coverage."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from wolf_eval.analysis import tables
from wolf_eval.measures.rates import Auroc, Mean
from wolf_eval.resample import intervals, ratio_bootstrap, seed_of
from wolf_eval.stats import wilson


def test_two_games_give_the_interval_worked_by_hand() -> None:
    """Games (1 of 2) and (3 of 4): a resample is both of the first (2/4 = 0.5, chance 1/4), both of the
    second (6/8 = 0.75, chance 1/4) or one of each (4/6, chance 1/2); the 2.5% and 97.5% points fall in the
    two outer masses."""
    iv = ratio_bootstrap([1, 3], [2, 4], seed=1)
    assert iv.value == pytest.approx(4 / 6)
    assert (iv.low, iv.high, iv.games) == (0.5, 0.75, 2)


def test_games_that_all_share_one_rate_give_no_width() -> None:
    iv = ratio_bootstrap([1, 2, 3], [4, 8, 12], seed=3)
    assert (iv.value, iv.low, iv.high) == (0.25, 0.25, 0.25)


def test_one_game_defining_the_rate_gets_no_interval() -> None:
    """A game without the rate's denominator does not count: with one game left there is nothing to resample."""
    iv = ratio_bootstrap([2, 0, 0], [5, 0, 0], seed=1)
    assert iv.value == pytest.approx(0.4) and iv.games == 1
    assert math.isnan(iv.low) and math.isnan(iv.high)
    assert ratio_bootstrap([], [], seed=1).games == 0


def test_the_same_seed_gives_the_same_interval_and_the_seed_names_the_cell() -> None:
    num, den = [1, 4, 0, 2, 5], [3, 6, 2, 2, 9]
    assert ratio_bootstrap(num, den, seed_of("m", "t", "c")) == ratio_bootstrap(num, den, seed_of("m", "t", "c"))
    assert seed_of("m", "t", "c") == seed_of("m", "t", "c") != seed_of("m", "t", "d")


def test_counts_dataclasses_resample_as_their_numbers_do() -> None:
    """``intervals`` evaluates the counts' own properties on resampled sums: the same draws as the ratio of
    the same numbers, nested counts included, a game the counts do not apply to drawn as the empty one."""
    games = [Mean(3.0, 4.0), Mean(), Mean(1.0, 5.0), Mean(6.0, 6.0)]
    got = intervals(games, {"mean": lambda m: m.value}, seed=9)["mean"]
    assert got == ratio_bootstrap([3, 0, 1, 6], [4, 0, 5, 6], seed=9) and got.games == 3
    areas = [Auroc(2.0, 1.0, 4.0), Auroc(0.0, 0.0, 2.0), Auroc(3.0, 0.0, 3.0)]
    area = intervals(areas, {"auroc": lambda a: a.value}, seed=2)["auroc"]
    assert area == ratio_bootstrap([2.5, 0.0, 3.0], [4, 2, 3], seed=2)


def test_intervals_of_no_games_are_empty() -> None:
    got = intervals([], {"mean": lambda m: m.value}, seed=1)["mean"]
    assert got.games == 0 and all(math.isnan(v) for v in (got.value, got.low, got.high))


def coverage(runs: int = 300, games: int = 30, mu: float = -1.0, sigma: float = 1.5) -> tuple[float, float]:
    """Of ``runs`` simulated cells, the shares whose statement-level Wilson interval and whose interval
    over games cover the true rate: each game has its own deception rate (a random effect on the logit
    scale) and 5 to 15 statements. ``python -c "import test_resample as t; print(t.coverage())"`` in tests/."""
    rng = np.random.default_rng(7)
    nodes, weights = np.polynomial.hermite_e.hermegauss(60)
    truth = float(np.sum(weights * expit(mu + sigma * nodes)) / np.sum(weights))
    naive = cluster = 0
    for run in range(runs):
        rate = expit(mu + sigma * rng.standard_normal(games))
        said = rng.integers(5, 16, games)
        lied = rng.binomial(said, rate)
        _, low, high = wilson(float(lied.sum()), float(said.sum()))
        naive += low <= truth <= high
        iv = ratio_bootstrap(lied, said, seed=run)
        cluster += iv.low <= truth <= iv.high
    return naive / runs, cluster / runs


def test_clustered_statements_cover_near_95_where_the_statement_interval_does_not() -> None:
    """A simulation with a known answer: 30 games, each with its own deception rate (sd 1.5 on the logit
    scale). The statement-level Wilson interval, which treats the statements as independent, misses the
    true rate far more often than 5%; the interval that resamples games covers it close to 95% of the time."""
    naive, cluster = coverage()
    assert naive < 0.8
    assert 0.9 <= cluster <= 0.98


def _cell(**parts: list[dict[str, float]]) -> pd.DataFrame:
    """Games of one cell with the given per-game values (``quality``, ``judge``)."""
    n = len(next(iter(parts.values())))
    return pd.DataFrame([{"model": "m", "task": "triadic", "condition": "default",
                          "outcome": {"calls": 10.0, "fallbacks": 0.0}} | {k: v[i] for k, v in parts.items()}
                         for i in range(n)])


def test_the_doctors_and_the_judges_rates_resample_games() -> None:
    """The Doctor saves 0 of 2 protections in one game and 2 of 2 in the other: 0.5, with 0 and 1 (each game
    drawn twice) bounding the interval. The judge names 1 of 4 players in one game and 3 of 4 in the other."""
    quality = [{"doctor_self_protects": 1.0, "doctor_saves": 0.0, "doctor_protects": 2.0},
               {"doctor_self_protects": 1.0, "doctor_saves": 2.0, "doctor_protects": 2.0}]
    row = tables.play_quality(_cell(quality=quality)).iloc[0]
    assert (row["doctor_save_rate"], row["doctor_save_rate_low"], row["doctor_save_rate_high"]) == (0.5, 0.0, 1.0)
    assert (row["doctor_self_protect_low"], row["doctor_self_protect_high"]) == (0.5, 0.5)
    judge = [{"villager_correct": 1.0, "villager_n": 4.0, "unreadable": 0.0},
             {"villager_correct": 3.0, "villager_n": 4.0, "unreadable": 0.0}]
    named = tables.judge(_cell(judge=judge)).iloc[0]
    assert (named["villager"], named["villager_low"], named["villager_high"]) == (0.5, 0.25, 0.75)
    assert (named["all_low"], named["all_high"]) == (0.25, 0.75)
