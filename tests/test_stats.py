"""Wilson intervals checked against values computed by hand."""

import math

import pytest

from wolf_eval.stats import wilson


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


def test_within_strata_pearson_centres_each_stratum_by_hand():
    from wolf_eval.stats import within_strata_pearson

    # Stratum A (0,0) (2,1) centres to x -1 1, y -1/2 1/2; B (10,1) (12,0) (14,1) to x -2 0 2, y 1/3 -2/3 1/3.
    # Cross sum 1/2 + 1/2 + (-2/3 + 0 + 2/3) = 1; x squares 2 + 8 = 10; y squares 1/2 + 2/3 = 7/6.
    # r = 1 / sqrt(10 * 7/6) = sqrt(3/35); df = 5 pairs - 2 strata - 1 = 2, and on 2 df P(|T| > t) = 1 - |r|.
    # The single pair (99, 0) says nothing within its stratum and is left out.
    r, p, n, k = within_strata_pearson([[(0, 0), (2, 1)], [(10, 1), (12, 0), (14, 1)], [(99, 0)]])
    assert (r, p, n, k) == (pytest.approx(math.sqrt(3 / 35)), pytest.approx(1 - math.sqrt(3 / 35)), 5, 2)
    # (Pooled without strata the same five pairs give r = 0.234: B's higher x and y would count as an effect.)
    # x differs only between strata: nothing varies within them, so no correlation (not the pooled r = 0).
    r, p, n, k = within_strata_pearson([[(0, 0), (0, 1)], [(3, 1), (3, 0)]])
    assert math.isnan(r) and math.isnan(p) and (n, k) == (4, 2)
    assert math.isnan(within_strata_pearson([[(0, 0), (1, 1)]])[0])  # 2 pairs in 1 stratum leave no degree of freedom
