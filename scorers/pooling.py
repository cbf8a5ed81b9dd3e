"""Eval-level pooling of per-game scores: sums over games, never means of per-game rates."""

from __future__ import annotations

import math

from inspect_ai.scorer import SampleScore


def _values(scores: list[SampleScore], key: str) -> list[float]:
    return [float(s.score.value[key]) for s in scores]  # type: ignore[index]


def mean_where_applicable(scores: list[SampleScore], key: str) -> float:
    """Mean of ``key`` over the games where it applies (NaN marks "not applicable"); NaN if none does."""
    played = [v for v in _values(scores, key) if not math.isnan(v)]
    return sum(played) / len(played) if played else math.nan


def pooled_ratio(scores: list[SampleScore], numerator: str, denominator: str) -> float:
    """Sum of numerators over sum of denominators; NaN when the denominators sum to zero."""
    total = sum(_values(scores, denominator))
    return sum(_values(scores, numerator)) / total if total else math.nan
