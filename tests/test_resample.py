"""The studentized cluster bootstrap over games: cases worked by hand, thin data, determinism, and its coverage."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from wolf_eval.analysis import tables
from wolf_eval.measures.identification import Identification
from wolf_eval.measures.outcome import Outcome
from wolf_eval.measures.quality import PlayCounts
from wolf_eval.measures.rates import Auroc, Mean
from wolf_eval.resample import (
    PAD,
    UNBOUNDED,
    UNIT,
    Scale,
    few_differ,
    figure_interval,
    game_weights,
    intervals,
    jackknife_se,
    one_length,
    ratio_interval,
    seed_of,
    unseen,
)
from wolf_eval.stats import wilson
from wolf_eval.vocabulary import Winner

#: A game of ten calls, each one decision, none fallen back (the tables here read only those).
TEN_CALLS = Outcome(Winner.VILLAGERS, jester_seated=True, days=1.0, calls=10.0, decisions=10.0, fallbacks=0.0,
                    reasks=0.0)


def test_the_jackknife_standard_error_by_hand() -> None:
    """Games 1/2, 3/4, 2/4 (7/10 in all): without each in turn 5/8, 3/6, 4/6; their mean 0.59722, and the
    jackknife variance (n − 1)/n times the sum of squared distances from it."""
    left = np.array([5 / 8, 3 / 6, 4 / 6])
    expected = math.sqrt(2 / 3 * float(np.sum((left - left.mean()) ** 2)))
    assert jackknife_se(np.array([[1, 2], [3, 4], [2, 4]], dtype=float), lambda s: s[0] / s[1]) == \
        pytest.approx(expected)


def test_two_games_give_the_interval_worked_by_hand() -> None:
    """Games (1 of 2) and (3 of 4), 4/6 in all, on the scale g = logit((x + p) / (1 + 2p)), p = PAD / 2 (PAD
    games at each end): without each in turn 3/4 and 1/2, so the jackknife standard error is (g(3/4) − g(1/2)) / 2.
    A resample is both of the first (1/4 of draws: 1/2, no spread of its own, so scaled by the games' error), both
    of the second (1/4: 3/4) or one of each (1/2: 4/6, t = 0). The 95th percentile of |t| is the larger distance,
    g(4/6) − g(1/2): the interval reaches the first game's 1/2 and as far above on the scale, short of 5/6 (the
    mirror on the figure's own scale), since the scale stretches towards the end."""
    pad = PAD / 2

    def g(x: float) -> float:
        return math.log((x + pad) / (1 + pad - x))

    top = g(4 / 6) + (g(4 / 6) - g(1 / 2))
    iv = ratio_interval([1, 3], [2, 4], seed=1)
    assert iv.value == pytest.approx(4 / 6)
    assert (iv.low, iv.high, iv.games) == (pytest.approx(0.5), pytest.approx(expit(top) * (1 + 2 * pad) - pad), 2)
    assert 0.75 < iv.high < 5 / 6
    unbounded = ratio_interval([1, 3], [2, 4], seed=1, bounds=UNBOUNDED)  # no range: the figure's own scale
    assert (unbounded.low, unbounded.high) == (pytest.approx(0.5), pytest.approx(5 / 6))


def test_the_interval_is_symmetric_on_its_scale_about_the_figure() -> None:
    """Five games, by the definition: on the figure's scale, each resample's t = (its ratio − the games' ratio) / its
    own jackknife standard error; the interval is the ratio ± the 95th percentile of |t| times the games' error,
    taken back to the figure's own scale. Without a range the scale is the figure's own."""
    num, den = np.array([1, 4, 0, 2, 5], dtype=float), np.array([3, 6, 2, 2, 9], dtype=float)
    value, counts = 12 / 22, np.column_stack([num, den])
    for bounds in (UNIT, UNBOUNDED):
        scale = Scale.of(bounds, 5)

        def figure(s: np.ndarray, scale: Scale = scale) -> Any:
            return scale.to(s[0] / s[1])

        se = jackknife_se(counts, figure)
        t = []
        for w in game_weights(5, 11):
            drawn = np.repeat(counts, w.astype(int), axis=0)
            distance = figure(drawn.sum(axis=0)) - figure(counts.sum(axis=0))
            t.append(distance / (jackknife_se(drawn, figure) or se))  # agreeing games: scaled by the games' error
        half = float(np.quantile(np.abs(t), 0.95, method="inverted_cdf")) * se
        centre = float(figure(counts.sum(axis=0)))
        iv = ratio_interval(num, den, seed=11, bounds=bounds)
        assert (iv.value, iv.low, iv.high) == pytest.approx((value, scale.back(centre - half),
                                                             scale.back(centre + half)))


def test_the_scale_reaches_past_the_ends_and_comes_back() -> None:
    """A share's scale is finite at 0 and 1 (padded by PAD games' worth), odd about the middle, and its way back
    returns every value and never leaves the range; a difference of shares in [-1, 1] is scaled likewise."""
    share, signed = Scale.of(UNIT, 10), Scale.of((-1.0, 1.0), 10)
    xs = np.array([0.0, 0.01, 0.3, 0.5, 0.97, 1.0])
    assert np.all(np.isfinite(share.to(xs))) and share.to(0.5) == pytest.approx(0.0)
    assert share.to(1.0) == pytest.approx(-share.to(0.0)) == pytest.approx(math.log((1 + share.pad) / share.pad))
    assert [share.back(float(y)) for y in share.to(xs)] == pytest.approx(list(xs))
    assert share.back(1e6) == 1.0 and share.back(-1e6) == 0.0
    assert signed.to(2 * xs - 1) == pytest.approx(share.to(xs))
    assert math.isnan(float(share.to(math.nan))) and Scale.of(UNBOUNDED, 10).to(3.5) == 3.5


def test_near_an_end_the_interval_leans_towards_the_middle() -> None:
    """A monitor that names a wolf on 9 days in 10 and ties it with the village on the rest: each game's AUROC
    is 1 − 0.5 × its share of unnamed wolf-days (two wolves, 1 to 3 days, 2 to 4 villagers a day: a lumpy pair
    count), so the truth is 0.95 and most games sit at 1. Over 400 draws of 10 games the interval covers the
    truth at least 93% of the time (0.935; the interval symmetric on the figure's own scale: 0.88), and reaches
    further below the figure than above it."""
    rng = np.random.default_rng(5)
    hits = lopsided = 0
    for run in range(400):
        rows = []
        for _ in range(10):
            seen = [int(rng.integers(2, 5)) for _ in range(2 * int(rng.integers(1, 4)))]
            named = [v * (rng.random() < 0.9) for v in seen]
            rows.append((sum(named) + (sum(seen) - sum(named)) / 2, sum(seen)))
        num, den = np.array(rows).T
        iv = ratio_interval(num, den, seed=run)
        hits += iv.low <= 0.95 <= iv.high
        lopsided += iv.value - iv.low >= iv.high - iv.value
    assert hits / 400 >= 0.93
    assert lopsided / 400 >= 0.9


def test_games_that_all_share_one_rate_give_the_interval_so_few_agreeing_games_allow() -> None:
    """Three games all at 0.25 show no spread, yet a game could have gone otherwise: three agreeing games rule out,
    at 95% with 2.5% left for each end, only a share of other games above 1 - 0.025^(1/3) = 0.708, which could lie
    anywhere in [0, 1]: the figure lies within 0.708 of the way to either end. Forty agreeing games leave 0.088."""
    iv = ratio_interval([1, 2, 3], [4, 8, 12], seed=3)
    u = 1 - 0.025 ** (1 / 3)
    assert (iv.value, iv.low, iv.high) == pytest.approx((0.25, 0.25 - 0.25 * u, 0.25 + 0.75 * u))
    assert iv.low == pytest.approx(0.0731, abs=1e-4) and iv.high == pytest.approx(0.7807, abs=1e-4)
    third = ratio_interval([1.0] * 4, [3.0] * 4, seed=3)  # a Jester ranked 1 of 3 at its only ballot, 4 games
    assert (third.low, third.high) == pytest.approx((0.132, 0.735), abs=1e-3)
    forty = ratio_interval([1.0] * 40, [1.0] * 40, seed=3)
    assert (forty.low, forty.high) == pytest.approx((1 - (1 - 0.025 ** (1 / 40)), 1.0))
    assert all(math.isnan(v) for v in unseen(0.5, 10, UNBOUNDED))  # a figure without a range: no such interval


def test_lumpy_games_cover_where_a_draw_of_agreeing_games_is_likely() -> None:
    """A figure most games put at its top (a Jester most suspected at its only ballot, one pair a game): 90% of
    games give 1 and the rest 0, so the truth is 0.9 and a draw of 10 games all give 1 a third of the time.
    Over 400 draws of 10 the interval covers at least 93% (a point interval at 1 would miss every such draw)."""
    rng = np.random.default_rng(12)
    hits = 0
    for run in range(400):
        x = (rng.random(10) < 0.9).astype(float)
        iv = ratio_interval(x, np.ones(10), seed=run)
        hits += iv.low <= 0.9 <= iv.high
    assert hits / 400 >= 0.93


def test_games_that_all_agree_but_two_reach_as_far_as_the_share_of_differing_games_could_be() -> None:
    """Eight games at 0.5 and two at 0.75, one pair each: the figure is 0.55, 0.05 above the agreeing value. Two of
    ten games differing allow (Clopper-Pearson, 95%) a share of such games from 0.0252 to 0.5561, 0.126 to 2.78 times
    the 0.2 seen, so the interval reaches at least from 0.5 + 0.126 * 0.05 = 0.5063 to 0.5 + 2.78 * 0.05 = 0.639.
    With none differing the games give no direction (that is :func:`unseen`), nor where no value holds a majority."""
    each = np.array([0.5] * 8 + [0.75] * 2)
    assert few_differ(0.55, each) == pytest.approx((0.5063, 0.6390), abs=1e-4)
    iv = ratio_interval(each, np.ones(10), seed=4)
    assert iv.low <= 0.5063 and iv.high >= 0.6390 - 1e-9
    assert few_differ(0.5, np.full(10, 0.5)) == (0.5, 0.5)
    assert few_differ(0.6, np.array([0.5] * 5 + [0.7] * 5)) == (0.6, 0.6)
    assert few_differ(0.0, np.array([0.0, 0.0, 1.0, math.nan])) == (0.0, 0.0)  # NaN games count for nothing
    low, high = few_differ(0.1, np.array([0.0] * 9 + [1.0]))  # a rate near its end stays in its range
    assert low >= 0.0 and high == pytest.approx(0.445, abs=1e-3)


def confessing_games(leak: float, games: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Games of a scripted monitor's AUROC (``benchmarks/monitor.py``): one to three days, two wolves a day facing
    five others; a wolf-day's confession, drawn with chance ``leak``, ranks it above its five (concordant), else it
    ties them. Its AUROC is (1 + leak) / 2."""
    rows = []
    for _ in range(games):
        wolf_days = 2 * int(rng.choice([1, 2, 3], p=[0.6, 0.25, 0.15]))
        confessed = int((rng.random(wolf_days) < leak).sum())
        rows.append((5 * confessed + 2.5 * (wolf_days - confessed), 5 * wolf_days))
    return tuple(np.array(rows).T)  # type: ignore[return-value]


def test_a_rare_confession_covers_where_few_games_hold_one() -> None:
    """A simulation with a known answer: a monitor that reads a confession on a tenth of the wolves' days, AUROC
    0.55. At 10 games most draws hold one to three games with a confession, whose bootstrap spread is that of so few
    draws: the interval without :func:`few_differ` held 0.55 in 0.86 of these draws (0.126 wide on average).
    Reaching as far as the share of such games could be, it holds it in 0.995 (0.140 wide)."""
    rng = np.random.default_rng(8)
    hits = 0
    for run in range(400):
        num, den = confessing_games(0.1, 10, rng)
        iv = ratio_interval(num, den, seed=run)
        hits += iv.low <= 0.55 <= iv.high
    assert hits / 400 >= 0.95


def test_one_game_defining_the_rate_gets_no_interval() -> None:
    """A game without the rate's denominator does not count: with one game left there is nothing to resample."""
    iv = ratio_interval([2, 0, 0], [5, 0, 0], seed=1)
    assert iv.value == pytest.approx(0.4) and iv.games == 1
    assert math.isnan(iv.low) and math.isnan(iv.high)
    assert ratio_interval([], [], seed=1).games == 0


def test_the_same_seed_gives_the_same_interval_and_the_seed_names_the_cell() -> None:
    num, den = [1, 4, 0, 2, 5], [3, 6, 2, 2, 9]
    assert ratio_interval(num, den, seed_of("m", "t", "c")) == ratio_interval(num, den, seed_of("m", "t", "c"))
    assert seed_of("m", "t", "c") == seed_of("m", "t", "c") != seed_of("m", "t", "d")


def test_counts_dataclasses_resample_as_their_numbers_do() -> None:
    """``intervals`` evaluates the counts' own properties on resampled sums: the same draws as the ratio of
    the same numbers, nested counts included, a game the counts do not apply to drawn as the empty one."""
    games = [Mean(3.0, 4.0), Mean(), Mean(1.0, 5.0), Mean(6.0, 6.0)]
    got = intervals(games, {"mean": lambda m: m.value}, seed=9)["mean"]
    assert got == ratio_interval([3, 0, 1, 6], [4, 0, 5, 6], seed=9) and got.games == 3
    areas = [Auroc(2.0, 1.0, 4.0), Auroc(0.0, 0.0, 2.0), Auroc(3.0, 0.0, 3.0)]
    area = intervals(areas, {"auroc": lambda a: a.value}, seed=2)["auroc"]
    assert area == ratio_interval([2.5, 0.0, 3.0], [4, 2, 3], seed=2)


def test_intervals_of_no_games_are_empty() -> None:
    got = intervals([], {"mean": lambda m: m.value}, seed=1)["mean"]
    assert got.games == 0 and all(math.isnan(v) for v in (got.value, got.low, got.high))


def coverage(runs: int = 200, games: int = 10, mu: float = -1.0, sigma: float = 1.5) -> tuple[float, float, float]:
    """Of ``runs`` simulated cells, the shares whose statement-level Wilson interval, whose percentile
    interval over games (0.4's) and whose studentized interval over games cover the true rate: each game
    has its own deception rate (a random effect on the logit scale) and 5 to 15 statements.
    ``python -c "import test_resample as t; print(t.coverage(2000))"`` in tests/."""
    rng = np.random.default_rng(7)
    nodes, weights = np.polynomial.hermite_e.hermegauss(60)
    truth = float(np.sum(weights * expit(mu + sigma * nodes)) / np.sum(weights))
    naive = percentile = cluster = 0
    for run in range(runs):
        rate = expit(mu + sigma * rng.standard_normal(games))
        said = rng.integers(5, 16, games)
        lied = rng.binomial(said, rate)
        _, low, high = wilson(float(lied.sum()), float(said.sum()))
        naive += low <= truth <= high
        w = game_weights(games, run)
        low, high = np.quantile((w @ lied) / (w @ said), [0.025, 0.975])
        percentile += low <= truth <= high
        iv = ratio_interval(lied, said, seed=run, bounds=UNIT)
        cluster += iv.low <= truth <= iv.high
    return naive / runs, percentile / runs, cluster / runs


def test_clustered_statements_cover_at_least_93_percent_at_ten_games() -> None:
    """A simulation with a known answer: 10 games, each with its own deception rate (sd 1.5 on the logit
    scale). The statement-level Wilson interval, which treats the statements as independent, misses the
    true rate far more often than 5%; the percentile interval over games misses it about one time in eight;
    the studentized interval covers it at least 93% of the time (0.95 on 2,000 cells)."""
    naive, percentile, cluster = coverage()
    assert naive < 0.8
    assert percentile < 0.9
    assert 0.93 <= cluster <= 0.99


def _cell(**parts: list[Any]) -> pd.DataFrame:
    """Games of one cell with the given per-game values (``quality``, ``judge``)."""
    n = len(next(iter(parts.values())))
    return pd.DataFrame([{"model": "m", "task": "triadic", "condition": "default",
                          "outcome": TEN_CALLS} | {k: v[i] for k, v in parts.items()}
                         for i in range(n)])


def test_the_doctors_and_the_judges_rates_resample_games() -> None:
    """The Doctor saves 0 of 2 protections in one game and 2 of 2 in the other: 0.5, and with two games the
    interval reaches as far as the game further from it on the scale, symmetric about the middle (the case worked
    by hand above): [0, 1]; it
    self-protects half the time in both, so that interval is what two agreeing games allow, 0.5 ± 0.5 (1 -
    0.025^(1/2)). The judge names 1 of 4 players in
    one game and 3 of 4 in the other: 0.5 ± 0.25 (about the middle the scale is symmetric too)."""
    quality = [PlayCounts(doctor_protects=2.0, doctor_self_protects=1.0, doctor_saves=0.0),
               PlayCounts(doctor_protects=2.0, doctor_self_protects=1.0, doctor_saves=2.0)]
    row = tables.play_quality(_cell(quality=quality)).iloc[0]
    assert (row["doctor_save_rate"], row["doctor_save_rate_low"], row["doctor_save_rate_high"]) == \
        pytest.approx((0.5, 0.0, 1.0))
    u = 1 - math.sqrt(0.025)
    assert (row["doctor_self_protect_low"], row["doctor_self_protect_high"]) == pytest.approx((0.5 - u / 2,
                                                                                               0.5 + u / 2))
    judge = [{"villager_correct": 1.0, "villager_n": 4.0, "unreadable": 0.0},
             {"villager_correct": 3.0, "villager_n": 4.0, "unreadable": 0.0}]
    named = tables.judge(_cell(judge=[Identification.from_flat(v) for v in judge])).iloc[0]
    assert (named["villager"], named["villager_low"], named["villager_high"]) == (0.5, 0.25, 0.75)
    assert (named["all_low"], named["all_high"]) == (0.25, 0.75)


# --------------------------------------------------------------------------- games of one length


def _share(s: np.ndarray) -> Any:
    return s[0] / np.where(s[1] > 0, s[1], np.nan)


def test_games_that_all_ended_on_one_day_below_the_cap_widen_to_what_so_many_games_allow() -> None:
    """Three games of 1 of 4, 2 of 4 and 3 of 4, all ended on day 1 under a cap of 5: their interval over games,
    [0.25, 0.75], sees no longer game. Three games of one length rule out only a share of games of another length
    above u = 1 - 0.025^(1/3) = 0.708, anywhere in [0, 1], so the interval reaches 0.5 -+ 0.5 u = [0.146, 0.854], and
    says why. The same games with one that ran to day 2, or all at a cap of 1 (no longer game could be played), or
    of unknown cap (a log that kept none), keep their interval."""
    counts = np.array([[1, 4], [2, 4], [3, 4]], dtype=float)
    drawn = figure_interval(counts, _share, seed=4)
    assert (drawn.low, drawn.high, drawn.widened) == (pytest.approx(0.25), pytest.approx(0.75), "")
    short = figure_interval(counts, _share, seed=4, lengths=[(1.0, 5.0)] * 3)
    u = 1 - 0.025 ** (1 / 3)
    assert (short.value, short.low, short.high, short.games) == (0.5, pytest.approx(0.5 - 0.5 * u),
                                                                 pytest.approx(0.5 + 0.5 * u), 3)
    assert (short.low, short.high) == pytest.approx((0.146, 0.854), abs=1e-3)
    assert short.widened == "all 3 games ended on day 1, and games that run longer can differ"
    for lengths in ([(1.0, 5.0), (2.0, 5.0), (1.0, 5.0)], [(1.0, 1.0)] * 3, [(1.0, math.nan)] * 3):
        assert figure_interval(counts, _share, seed=4, lengths=lengths) == drawn
    later = one_length([(3.0, 5.0)] * 4)
    assert later == "all 4 games ended on day 3, and games of another length can differ"
    assert one_length([(3.0, 5.0), (3.0, 3.0)]).startswith("all 2 games ended on day 3")  # one could have run on
    assert one_length([(1.0, 5.0)]) == ""  # one game: no interval anyway, and for that reason
    unbounded = figure_interval(counts, _share, seed=4, bounds=(0.0, math.inf), lengths=[(1.0, 5.0)] * 3)
    assert math.isnan(unbounded.low) and math.isnan(unbounded.high) and unbounded.widened == short.widened
    with pytest.raises(ValueError, match="2 game lengths for 3 games' counts"):
        figure_interval(counts, _share, seed=4, lengths=[(1.0, 5.0)] * 2)


def test_a_longer_game_of_the_draw_counts_and_a_share_of_games_keeps_its_interval() -> None:
    """A game of day 3 without the figure's denominator adds nothing to the figure, yet the draw saw a game run
    longer: the interval is its games' own. Without it the two games defining the figure, 3 of 8 = 0.375, widen
    to 0.375 -+ u of the way to either end with u = 1 - 0.025^(1/2) = 0.842. A share of games (one outcome a game)
    weighs every game alike: its binomial interval holds whatever the games' lengths."""
    counts = np.array([[1, 4], [2, 4], [0, 0]], dtype=float)
    seen = figure_interval(counts, _share, seed=2, lengths=[(1.0, 5.0), (1.0, 5.0), (3.0, 5.0)])
    assert seen == figure_interval(counts, _share, seed=2) and seen.games == 2
    u = 1 - 0.025 ** (1 / 2)
    short = figure_interval(counts, _share, seed=2, lengths=[(1.0, 5.0)] * 3)
    assert (short.low, short.high) == pytest.approx((0.375 * (1 - u), 0.375 + 0.625 * u))
    wins = np.array([[1, 1], [0, 1], [1, 1]], dtype=float)
    share = figure_interval(wins, _share, seed=2, per_game=True, lengths=[(1.0, 5.0)] * 3)
    assert share.widened == "" and 0 < share.low < share.value < share.high < 1


def length_coverage(runs: int = 300, games: int = 10) -> tuple[float, float, float, float]:
    """Of ``runs`` simulated cells of ``games`` games, where 12% of games run past day 1 (as on the quick pools):
    the share of the intervals over games alone and of those widened for games of one length (:func:`one_length`)
    covering the true rate, and their mean widths. A day-1 game holds 40 statements, each deceptive with chance 0.25;
    a longer one 120 at 0.45, so the true pooled rate is (0.88 * 40 * 0.25 + 0.12 * 120 * 0.45) / (0.88 * 40 + 0.12
    * 120) = 15.28 / 49.6 = 0.308, while a draw of day-1 games alone reads 0.25 give or take 0.02."""
    rng = np.random.default_rng(45)
    truth = (0.88 * 40 * 0.25 + 0.12 * 120 * 0.45) / (0.88 * 40 + 0.12 * 120)
    covered = [0, 0]
    width = [0.0, 0.0]
    for run in range(runs):
        long = rng.random(games) < 0.12
        said = np.where(long, 120, 40)
        lied = rng.binomial(said, np.where(long, 0.45, 0.25))
        lengths = [(3.0 if x else 1.0, 5.0) for x in long]
        for i, told in enumerate((None, lengths)):
            iv = figure_interval(np.column_stack([lied, said]), _share, seed=run, lengths=told)
            covered[i] += iv.low <= truth <= iv.high
            width[i] += iv.high - iv.low
    return covered[0] / runs, covered[1] / runs, width[0] / runs, width[1] / runs


def test_a_draw_without_the_longer_games_widens_and_then_covers() -> None:
    """A simulation with a known answer (:func:`length_coverage`): the interval over games alone misses the truth in
    most draws that hold no game past day 1, 0.88^10 = 0.28 of them, so it covers well short of 0.93 (0.83); widened
    for those draws it covers at least 0.93 (0.97), and only they are wider, each by at most u = 1 - 0.025^(1/10) =
    0.31, so the mean width grows by less than 0.28 times that (0.319 to 0.377)."""
    alone, widened, narrow, wide = length_coverage()
    assert alone < 0.9
    assert widened >= 0.93
    assert narrow < wide < narrow + 0.28 * (1 - 0.025 ** 0.1)
