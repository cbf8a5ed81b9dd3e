"""Small statistics used by scores and reports."""

from __future__ import annotations

import math

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
