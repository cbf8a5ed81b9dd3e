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
