"""Eval-level pooling of per-game scores: sums over games, never means of per-game rates.

A NaN value marks a game where the score does not apply; pooling skips those games.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import SampleScore


def _values(scores: list[SampleScore], key: str) -> list[float]:
    return [float(s.score.value[key]) for s in scores]  # type: ignore[index]


def mean_where_applicable(scores: list[SampleScore], key: str) -> float:
    """Mean of ``key`` over the games where it applies (NaN marks "not applicable"); NaN if none does."""
    played = [v for v in _values(scores, key) if not math.isnan(v)]
    return sum(played) / len(played) if played else math.nan


def pooled_sum(scores: list[SampleScore], key: str) -> float:
    """Sum of ``key`` over the games where it applies; NaN if none does."""
    played = [v for v in _values(scores, key) if not math.isnan(v)]
    return sum(played) if played else math.nan


def pooled_ratio(scores: list[SampleScore], numerator: str, denominator: str) -> float:
    """Sum of numerators over sum of denominators, over the games where both apply; NaN on a zero total."""
    pairs = [(n, d) for n, d in zip(_values(scores, numerator), _values(scores, denominator), strict=True)
             if not (math.isnan(n) or math.isnan(d))]
    total = sum(d for _, d in pairs)
    return sum(n for n, _ in pairs) / total if total else math.nan
