"""Small statistics used by scores and reports."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import betaincinv

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


def wilson_cc(successes: float, n: float, z: float = Z95) -> tuple[float, float, float]:
    """Rate with Wilson's score interval with a continuity correction (Newcombe 1998, method 4); NaN without trials.

    The share of games a side won is one yes-or-no per game. At the game counts people run, Wilson's
    interval covers less than it says for some win rates (at 10 games its exact coverage dips to 0.92
    for rates between 0.1 and 0.9, 0.84 near the ends); the continuity correction keeps the exact
    coverage at or above 0.95 for every rate at 10, 20 and 40 games (``tests/test_stats.py`` checks
    it), for an interval about an eighth wider at 10 games and a twelfth at 40.
    """
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    p = successes / n
    zz = z * z
    low = 0.0 if successes <= 0 else max(0.0, (2 * n * p + zz - 1 - z * math.sqrt(
        zz - 2 - 1 / n + 4 * p * (n * (1 - p) + 1))) / (2 * (n + zz)))
    high = 1.0 if successes >= n else min(1.0, (2 * n * p + zz + 1 + z * math.sqrt(
        zz + 2 - 1 / n + 4 * p * (n * (1 - p) - 1))) / (2 * (n + zz)))
    return (p, min(p, low), max(p, high))


def clopper_pearson(successes: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a share from ``successes`` of ``n`` independent trials: the shares
    under which so few, or so many, successes had at most half the miss's chance each. With none of ``n`` its upper
    end is ``1 - ((1 - level) / 2) ** (1 / n)``, the two-sided rule of three."""
    tail = (1 - level) / 2
    low = 0.0 if successes <= 0 else float(betaincinv(successes, n - successes + 1, tail))  # the Beta quantile
    high = 1.0 if successes >= n else float(betaincinv(successes + 1, n - successes, 1 - tail))
    return low, high


def difference_interval(a: tuple[float, float, float], b: tuple[float, float, float]) -> tuple[float, float, float]:
    """``a`` minus ``b``, each (figure, low, high) from independent games, with the interval built from theirs
    (Newcombe's method 10 for two proportions, "MOVER" for any two figures with their own intervals): the
    difference of the figures, widened on each side by the root of the squared distances to the ends that
    move it that way. Each figure's own interval keeps its shape (Wilson's near 0 or 1, a bootstrap's lopsided
    one), so the difference's interval is as lopsided as they are. NaN where either figure or interval is."""
    (x, xl, xh), (y, yl, yh) = a, b
    if any(math.isnan(v) for v in (x, xl, xh, y, yl, yh)):
        return (math.nan, math.nan, math.nan)
    d = x - y
    return (d, d - math.hypot(x - xl, yh - y), d + math.hypot(xh - x, y - yl))


def within_strata_pearson(strata: Sequence[Sequence[tuple[float, float]]]) -> tuple[float, int, int]:
    """Pearson r of (x, y) pairs after centring both on each stratum's own means.

    Pooling cells that differ in model, task or condition into one correlation lets a difference
    between cells pass for an effect within them; centring within each stratum removes the
    between-cell part, leaving the association inside the cells. Only strata whose y varies are
    kept (:func:`varying_strata`): a stratum whose outcome never changes says nothing about what
    goes with a change. Returns (r, n pairs, k strata), over the kept strata; r is NaN when a
    centred variable is constant or fewer than k + 2 pairs remain (no degree of freedom).

    No p-value beside it: the t distribution's would treat a handful of 0/1 outcomes as normal and
    print p far below what any valid test of so few games can reach; the permutation test
    (:func:`stratified_permutation_p`) is the one to read.
    """
    kept = varying_strata(strata)
    dx: list[float] = []
    dy: list[float] = []
    for pairs in kept:
        mx = sum(x for x, _ in pairs) / len(pairs)
        my = sum(y for _, y in pairs) / len(pairs)
        dx += [x - mx for x, _ in pairs]
        dy += [y - my for _, y in pairs]
    n, k = len(dx), len(kept)
    sxx, syy = sum(a * a for a in dx), sum(b * b for b in dy)
    if n - k - 1 < 1 or sxx <= 1e-12 or syy <= 1e-12:
        return (math.nan, n, k)
    return (max(-1.0, min(1.0, sum(a * b for a, b in zip(dx, dy, strict=True)) / math.sqrt(sxx * syy))), n, k)


#: Draws of the stratified permutation test, and its seed (the p-value is the same on every run).
PERMUTATIONS = 10_000
PERMUTATION_SEED = 20261124


def varying_strata(strata: Sequence[Sequence[tuple[float, float]]]) -> list[Sequence[tuple[float, float]]]:
    """The strata whose y takes more than one value (so also of two or more pairs)."""
    return [s for s in strata if len({y for _, y in s}) > 1]


def stratified_permutation_p(strata: Sequence[Sequence[tuple[float, float]]], permutations: int = PERMUTATIONS,
                             seed: int = PERMUTATION_SEED) -> float:
    """Two-sided permutation p of the within-strata Pearson r: y shuffled within each varying stratum.

    Shuffling only inside a stratum keeps every stratum's outcomes (and so its mean) as observed,
    so the test asks the same question as :func:`within_strata_pearson` without leaning on the t
    distribution, which a handful of 0/1 outcomes does not follow. Centred within strata, the
    denominator of r does not change under such shuffles, so |sum dx * dy| ranks the draws as |r|
    does. p = (draws at least as extreme + 1) / (draws + 1), never 0; NaN where r is undefined.
    """
    kept = varying_strata(strata)
    centred = [(np.array([x for x, _ in s]) - np.mean([x for x, _ in s]),
                np.array([y for _, y in s]) - np.mean([y for _, y in s])) for s in kept]
    if not centred or sum(float(dx @ dx) for dx, _ in centred) <= 1e-12:
        return math.nan
    observed = abs(sum(float(dx @ dy) for dx, dy in centred))
    rng = np.random.default_rng(seed)
    drawn = np.zeros(permutations)
    for dx, dy in centred:
        drawn += rng.permuted(np.tile(dy, (permutations, 1)), axis=1) @ dx
    extreme = int(np.sum(np.abs(drawn) >= observed - 1e-12))
    return (extreme + 1) / (permutations + 1)
