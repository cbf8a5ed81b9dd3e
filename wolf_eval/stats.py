"""Small statistics used by scores and reports."""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float, float]:
    """Rate with its Wilson score interval; NaN everywhere when there are no trials."""
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes <= 0 else min(p, centre - half)
    high = 1.0 if successes >= n else max(p, centre + half)
    return (p, low, high)


def within_strata_pearson(strata: Sequence[Sequence[tuple[float, float]]]) -> tuple[float, float, int, int]:
    """Pearson r of (x, y) pairs after centring both on each stratum's own means, with its two-sided p.

    Pooling cells that differ in model, task or condition into one correlation lets a difference
    between cells pass for an effect within them; centring within each stratum removes the
    between-cell part, leaving the association inside the cells. Strata of fewer than two pairs say
    nothing about it and are left out. The p-value takes t = r * sqrt(df / (1 - r^2)) on
    df = n - k - 1 (one mean spent per stratum, one slope). Returns (r, p, n pairs, k strata);
    r and p are NaN when a centred variable is constant or df < 1.
    """
    from scipy import stats as sps

    kept = [s for s in strata if len(s) >= 2]
    dx: list[float] = []
    dy: list[float] = []
    for pairs in kept:
        mx = sum(x for x, _ in pairs) / len(pairs)
        my = sum(y for _, y in pairs) / len(pairs)
        dx += [x - mx for x, _ in pairs]
        dy += [y - my for _, y in pairs]
    n, k = len(dx), len(kept)
    sxx, syy = sum(a * a for a in dx), sum(b * b for b in dy)
    df = n - k - 1
    if df < 1 or sxx <= 1e-12 or syy <= 1e-12:
        return (math.nan, math.nan, n, k)
    r = max(-1.0, min(1.0, sum(a * b for a, b in zip(dx, dy, strict=True)) / math.sqrt(sxx * syy)))
    if abs(r) >= 1.0:
        return (r, 0.0, n, k)
    t = r * math.sqrt(df / (1 - r * r))
    return (r, float(2 * sps.t.sf(abs(t), df)), n, k)
