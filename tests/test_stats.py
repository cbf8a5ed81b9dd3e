"""Wilson and Clopper-Pearson intervals checked against values computed by hand and by their exact coverage."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from wolf_eval.stats import clopper_pearson, difference_interval, wilson, wilson_cc


@pytest.mark.parametrize("k,n,low,high", [
    # bounds are the roots p of (k/n - p)^2 = z^2 p (1 - p) / n, solved independently (brentq) with z = 1.959964
    (5, 10, 0.236593, 0.763407),
    (0, 10, 0.0, 0.277533),
    (10, 10, 0.722467, 1.0),
    (18, 20, 0.698966, 0.972134),
    (1, 3, 0.061492, 0.792340),
])
def test_wilson_matches_hand_computation(k, n, low, high):
    rate, lo, hi = wilson(k, n)
    assert rate == pytest.approx(k / n)
    assert lo == pytest.approx(low, abs=1e-5)
    assert hi == pytest.approx(high, abs=1e-5)
    assert lo <= rate <= hi


def test_wilson_without_trials_is_nan():
    assert all(math.isnan(x) for x in wilson(0, 0))


@pytest.mark.parametrize("k,n,low,high", [
    # Newcombe (1998), Statistics in Medicine 17:857, table I, method 4 (score interval with continuity correction);
    # its method 3 column, Wilson's, is what ``wilson`` gives (81/263: 0.2553 to 0.3662)
    (81, 263, 0.2535, 0.3682),
    (15, 148, 0.0598, 0.1644),
    (0, 20, 0.0, 0.2005),
    (1, 29, 0.0018, 0.1963),
])
def test_the_continuity_corrected_wilson_matches_newcombes_figures(k, n, low, high):
    rate, lo, hi = wilson_cc(k, n)
    assert (rate, lo, hi) == (pytest.approx(k / n), pytest.approx(low, abs=1e-4), pytest.approx(high, abs=1e-4))
    assert all(math.isnan(x) for x in wilson_cc(0, 0))


def exact_coverage(interval, n: int, p: float) -> float:
    """The chance that the interval of k wins in n covers p, k binomial(n, p): summed over every k."""
    hits = [interval(k, n) for k in range(n + 1)]
    return float(sum(sps.binom.pmf(k, n, p) for k, (_, lo, hi) in enumerate(hits) if lo <= p <= hi))


@pytest.mark.parametrize("n", [10, 20, 40])
def test_win_rate_intervals_cover_at_least_95_percent_at_every_rate(n):
    """The win rate's interval, by its exact coverage over a grid of true rates: Wilson's dips below 0.93 at 10
    games; with the continuity correction none is below 0.95."""
    rates = np.linspace(0.01, 0.99, 99)
    corrected = [exact_coverage(wilson_cc, n, p) for p in rates]
    assert min(corrected) >= 0.95
    if n == 10:
        assert min(exact_coverage(wilson, n, p) for p in rates if 0.1 <= p <= 0.9) < 0.93


def test_within_strata_pearson_centres_each_stratum_by_hand():
    from wolf_eval.stats import within_strata_pearson

    # Stratum A (0,0) (2,1) centres to x -1 1, y -1/2 1/2; B (10,1) (12,0) (14,1) to x -2 0 2, y 1/3 -2/3 1/3.
    # Cross sum 1/2 + 1/2 + (-2/3 + 0 + 2/3) = 1; x squares 2 + 8 = 10; y squares 1/2 + 2/3 = 7/6.
    # r = 1 / sqrt(10 * 7/6) = sqrt(3/35). The single pair (99, 0) says nothing within its stratum and is left out.
    r, n, k = within_strata_pearson([[(0, 0), (2, 1)], [(10, 1), (12, 0), (14, 1)], [(99, 0)]])
    assert (r, n, k) == (pytest.approx(math.sqrt(3 / 35)), 5, 2)
    # (Pooled without strata the same five pairs give r = 0.234: B's higher x and y would count as an effect.)
    # x differs only between strata: nothing varies within them, so no correlation (not the pooled r = 0).
    r, n, k = within_strata_pearson([[(0, 0), (0, 1)], [(3, 1), (3, 0)]])
    assert math.isnan(r) and (n, k) == (4, 2)
    assert math.isnan(within_strata_pearson([[(0, 0), (1, 1)]])[0])  # 2 pairs in 1 stratum leave no degree of freedom


def test_difference_interval_is_newcombes_method_10_on_his_worked_example() -> None:
    """Newcombe (1998), Table II: 56/70 against 48/80, Wilson's intervals combined: 0.2000 [0.0524, 0.3339]."""
    d, low, high = difference_interval(wilson(56, 70), wilson(48, 80))
    assert (round(d, 4), round(low, 4), round(high, 4)) == (0.2, 0.0524, 0.3339)
    # any two figures with their own intervals: 0.8 [0.7, 0.9] minus 0.5 [0.45, 0.55] widens each side by
    # the root of 0.1² + 0.05² = 0.1118
    assert difference_interval((0.8, 0.7, 0.9), (0.5, 0.45, 0.55)) == pytest.approx((0.3, 0.1882, 0.4118), abs=1e-4)
    assert all(math.isnan(v) for v in difference_interval((0.5, math.nan, math.nan), (0.5, 0.4, 0.6)))


@pytest.mark.parametrize(("k", "n", "low", "high"), [
    (0, 10, 0.0, 0.3085),  # 1 - 0.025 ** (1 / 10): the two-sided rule of three
    (1, 10, 0.0025, 0.4450),
    (2, 10, 0.0252, 0.5561),
    (5, 10, 0.1871, 0.8129),
    (10, 10, 0.6915, 1.0),
])
def test_clopper_pearson_matches_the_exact_binomial_tables(k, n, low, high):
    """The exact interval's ends, as published tables of the binomial give them to four places."""
    assert clopper_pearson(k, n) == pytest.approx((low, high), abs=1e-4)
