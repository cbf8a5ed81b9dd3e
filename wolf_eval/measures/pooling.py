"""Pooling per-game values: sums over the games where a value applies, never means of per-game rates.

A game's values map names to floats; NaN (or a missing name) marks a game where the value
does not apply, and every pooled figure skips those games.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

Values = Mapping[str, float]


def column(values: Sequence[Values], key: str) -> list[float]:
    """``key`` of every game, NaN where a game lacks it."""
    return [float(v.get(key, math.nan)) for v in values]


def applying(values: Sequence[Values], key: str) -> list[float]:
    """``key`` over the games where it applies."""
    return [x for x in column(values, key) if not math.isnan(x)]


def count_where_applicable(values: Sequence[Values], key: str) -> int:
    """How many games ``key`` applies to."""
    return len(applying(values, key))


def mean_where_applicable(values: Sequence[Values], key: str) -> float:
    """Mean of ``key`` over the games where it applies; NaN if none does."""
    played = applying(values, key)
    return sum(played) / len(played) if played else math.nan


def pooled_sum(values: Sequence[Values], key: str) -> float:
    """Sum of ``key`` over the games where it applies; NaN if none does."""
    played = applying(values, key)
    return sum(played) if played else math.nan


def pooled_ratio(values: Sequence[Values], numerator: str, denominator: str) -> float:
    """Sum of numerators over sum of denominators, over the games where both apply; NaN on a zero total."""
    pairs = [(n, d) for n, d in zip(column(values, numerator), column(values, denominator), strict=True)
             if not (math.isnan(n) or math.isnan(d))]
    total = sum(d for _, d in pairs)
    return sum(n for n, _ in pairs) / total if total else math.nan


def applicable(figures: Mapping[str, float]) -> dict[str, float]:
    """The figures with a value; all of them (every one NaN) when none has one, so a summary says so."""
    kept = {k: v for k, v in figures.items() if not math.isnan(v)}
    return kept or dict(figures)


def select(figures: Mapping[str, float], keys: Sequence[str]) -> dict[str, float]:
    """The named figures, in that order (those the figures lack are left out)."""
    return {k: figures[k] for k in keys if k in figures}
