"""Intervals that resample games: the one home of the cluster bootstrap every per-statement rate uses.

A per-statement (or per-flag, per-pair, per-vote) rate pools counts over a cell's games as a ratio
of sums. Its statements are not independent: a game's statements share its seating, its players'
moods and its speakers, so they move together, and an interval that counts each statement as a
draw (Wilson's, for instance) is too narrow. Here the game is the unit drawn: each of ``DRAWS``
resamples picks a cell's games with replacement, sums their counts and forms the rate again, and
the 2.5th and 97.5th percentiles of those rates are the interval (the percentile bootstrap). The
point estimate is the rate of the games as played, unchanged.

Draws are seeded from the cell and sample they belong to (:func:`seed_of`), so a report prints the
same intervals on every run, and every row of one cell shares one set of resamples. A rate that
fewer than two games define has no interval (``games`` says how many did). Rates with one outcome
per game (win rates) keep Wilson's interval, which is exact enough for independent games.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass
from functools import lru_cache
from operator import attrgetter
from typing import Any, TypeVar

import numpy as np

from wolf_eval.measures.rates import ratio

#: Resamples per interval: enough that the 2.5% tails rest on 25 draws each, few enough that a
#: report over a thousand games stays within seconds.
DRAWS = 1000
#: The central share of resampled rates an interval covers.
LEVEL = 0.95
#: Fewest games a rate must be defined in before it is given an interval.
MIN_GAMES = 2

T = TypeVar("T")


@dataclass(frozen=True)
class Interval:
    """A rate, its bootstrap interval over games (NaN where none is drawn), and the games defining it."""

    value: float
    low: float
    high: float
    games: int


def seed_of(*parts: object) -> int:
    """A stable seed from what names a table cell (Python's ``hash`` changes between runs; this does not)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


@lru_cache(maxsize=64)
def game_weights(games: int, seed: int, draws: int = DRAWS) -> np.ndarray:
    """How often each game is drawn in each resample: a (draws, games) array whose rows sum to ``games``.

    Cached, so every row of one cell reuses the same resamples instead of drawing them again.
    """
    picks = np.random.default_rng(seed).integers(0, games, size=(draws, games))
    flat = (np.arange(draws)[:, None] * games + picks).ravel()
    weights = np.bincount(flat, minlength=draws * games).reshape(draws, games).astype(float)
    weights.flags.writeable = False
    return weights


def cluster_bootstrap(counts: np.ndarray, figure: Callable[[np.ndarray], Any], seed: int,
                      draws: int = DRAWS) -> Interval:
    """A figure of summed per-game counts, with its percentile interval from ``draws`` resamples of games.

    ``counts`` is (games, k): each game's k counts. ``figure`` takes the k sums as the rows of an
    array (shape (k,) for the games as played, (k, draws) for the resamples) and returns the figure,
    element-wise. Resamples where the figure is undefined (a zero denominator) are left out.
    """
    return cluster_bootstraps(counts, {"": figure}, seed, draws)[""]


def cluster_bootstraps(counts: np.ndarray, figures: Mapping[str, Callable[[np.ndarray], Any]], seed: int,
                       draws: int = DRAWS) -> dict[str, Interval]:
    """:func:`cluster_bootstrap` for several figures of the same counts, over the same resamples of games."""
    counts = np.asarray(counts, dtype=float)
    counts = counts[:, None] if counts.ndim == 1 else counts
    sums = (game_weights(len(counts), seed, draws) @ counts).T if len(counts) else None
    return {name: _interval(counts, sums, figure) for name, figure in figures.items()}


def _interval(counts: np.ndarray, sums: np.ndarray | None, figure: Callable[[np.ndarray], Any]) -> Interval:
    """One figure's value over the games as played and its percentile interval over the resampled ``sums``."""
    value = float(figure(counts.sum(axis=0)))
    defined = int(np.sum(~np.isnan(np.asarray(figure(counts.T), dtype=float)))) if len(counts) else 0
    if math.isnan(value) or defined < MIN_GAMES or sums is None:
        return Interval(value, math.nan, math.nan, defined)
    drawn = np.asarray(figure(sums), dtype=float)
    drawn = drawn[~np.isnan(drawn)]
    tail = (1 - LEVEL) / 2
    low, high = np.quantile(drawn, [tail, 1 - tail])
    return Interval(value, float(low), float(high), defined)


def ratio_bootstrap(numerators: Sequence[float], denominators: Sequence[float], seed: int,
                    draws: int = DRAWS) -> Interval:
    """The ratio of sums over games, sum(numerators) / sum(denominators), with its interval over games."""
    return cluster_bootstrap(np.column_stack([numerators, denominators]), lambda s: ratio(s[0], s[1]), seed, draws)


# --------------------------------------------------------------------------- counts kept as dataclasses


def _paths(counts: Any, prefix: str = "") -> list[str]:
    """The dotted names of a counts dataclass's numbers, nested ones included, in field order (mappings left out)."""
    out: list[str] = []
    for f in fields(counts):
        v = getattr(counts, f.name)
        if is_dataclass(v):
            out += _paths(v, f"{prefix}{f.name}.")
        elif isinstance(v, int | float):
            out.append(prefix + f.name)
    return out


def _rebuilt(template: Any, columns: Iterator[Any]) -> Any:
    """``template``'s type with its numbers taken in order from ``columns`` (arrays of resampled sums)."""
    kept: dict[str, Any] = {}
    for f in fields(template):
        v = getattr(template, f.name)
        kept[f.name] = _rebuilt(v, columns) if is_dataclass(v) else next(columns) if isinstance(v, int | float) else v
    return type(template)(**kept)


def intervals(per_game: Sequence[T], figures: Mapping[str, Callable[[T], float]], seed: int,
              draws: int = DRAWS) -> dict[str, Interval]:
    """Each figure of the games' pooled counts with its interval over games.

    ``per_game`` holds one counts dataclass per game of the cell (a game the counts do not apply to
    as the empty one, so it is still drawn); each figure is a function of the pooled counts, the
    very property the tables print, evaluated on the resampled sums as arrays.
    """
    if not per_game:
        return {name: Interval(math.nan, math.nan, math.nan, 0) for name in figures}
    template = per_game[0]
    numbers = attrgetter(*_paths(template))
    matrix = np.array([numbers(c) for c in per_game], dtype=float).reshape(len(per_game), -1)
    return cluster_bootstraps(matrix, {name: (lambda s, f=f: f(_rebuilt(template, iter(s))))
                                       for name, f in figures.items()}, seed, draws)
