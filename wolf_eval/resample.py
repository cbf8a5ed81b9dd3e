"""Intervals over games: the one home of the interval every per-ballot and per-statement figure has.

A per-statement (or per-flag, per-pair, per-vote) figure pools counts over a cell's games as a ratio
of sums (or a difference of ratios, or an equal-weight mean of them). Its statements are not
independent: a game's statements share its seating, its players' moods and its speakers, so they
move together, and an interval that counts each statement as a draw (Wilson's, for instance) is too
narrow. Here the game is the unit drawn.

The interval is the symmetric studentized cluster bootstrap (symmetric bootstrap-t), drawn on the figure's
:class:`Scale`: the logit of its place in its range, padded by :data:`PAD` games at each end (a figure without a
finite range is drawn on its own scale). Its standard error is the leave-one-game-out jackknife's on that scale;
each of ``DRAWS`` resamples picks the cell's games with replacement, forms the figure again and divides its
distance from the games' figure, on the scale, by the resample's own jackknife standard error (the games' own, for
a resample whose drawn games all agree and so show no spread); the 95th percentile of those ratios' sizes, times
the games' standard error, is the interval's half-width about the figure on the scale, taken back to the figure's
own. The point estimate is the figure of the games as played, unchanged.

Why this one (``benchmarks/coverage.py`` and ``benchmarks/monitor.py`` measure it on pools of baseline games;
docs/scores.md and docs/monitoring.md give the figures). The percentile bootstrap used before covered the truth
0.89 of the time at 10 games (nominal 0.95) and missed mostly on one side: near the end of its range (an AUROC of
0.7) a figure's spread shrinks in the very resamples that overshoot. A jackknife interval with t quantiles
(cheaper, deterministic) fell to 0.91 for the wolves' self-label gap; the two-sided bootstrap-t to 0.92 for an
AUROC at 40 games. Scaling each resample by its own spread and taking the size of that ratio, whichever side it
falls on, held most figures at 0.93 or more, but drawn on the figure's own scale it stayed symmetric where the
figure's errors are not: a monitor's AUROC of 0.95, whose games sit mostly at 1 with a few far below, missed on the
side away from the end (0.88 at 10 games on simulated games; 0.935 on the logit scale). On the logit scale the
distance to an end is unbounded, so the symmetric interval there leans back towards the middle on the figure's own
scale, longer where there is room; in the middle of the range the two scales all but agree, and the intervals
there are a little narrower. A figure whose draws of short games alone read another value (the wolves'
self-label gap on pools where most games end on day 1) misses on either scale: that is the draw, not the interval,
and a headline's interval over games that all lasted one length, where others could run longer, reaches as far as
so many games allow of games of another length (:func:`one_length`).

Draws are seeded from the cell and sample they belong to (:func:`seed_of`), so a report prints the
same intervals on every run, and every row of one cell shares one set of resamples. A figure that
fewer than two games define has no interval (``games`` says how many did); an interval never leaves
the figure's range (``bounds``). Where every game gave the same value the games show no spread, and
the interval is the one so many agreeing games allow (:func:`unseen`), never a point; where more than half
the games agree and a few differ, it reaches at least as far as the share of differing games could be
(:func:`few_differ`), which the bootstrap's few distinct resamples understate. Figures with
one outcome per game (win rates) have the binomial interval (:func:`wolf_eval.stats.wilson_cc`), games
being independent.
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

from wolf_eval.measures.pooling import ENDS, bound_name, logged_name
from wolf_eval.measures.rates import ratio
from wolf_eval.stats import clopper_pearson, wilson_cc

#: Resamples per interval: enough that the 2.5% tails rest on 25 draws each, few enough that a
#: report over a thousand games stays within seconds.
DRAWS = 1000
#: The interval's nominal coverage.
LEVEL = 0.95
#: Fewest games a rate must be defined in before it is given an interval.
MIN_GAMES = 2
#: A standard error at or below this is the rounding of games that all agree (0.667 from 2/3 and 4/6), not a spread.
AGREE = 1e-9

T = TypeVar("T")


@dataclass(frozen=True)
class Interval:
    """A figure, its interval over games (NaN where none is drawn), the games defining it, and, where the interval
    was widened past its games' spread for games of one length, or has no ends for them, why (:func:`one_length`)."""

    value: float
    low: float
    high: float
    games: int
    widened: str = ""

    def ends(self, name: str) -> dict[str, float]:
        """The interval's ends as a table's columns, ``<name>_low`` and ``<name>_high``: named as the eval logs a
        figure's interval metrics (:func:`~wolf_eval.measures.pooling.bound_name`), so a table's figure reads as
        its metric does."""
        return {bound_name(name, end): getattr(self, end) for end in ENDS}

    def columns(self, name: str, value: str | None = None) -> dict[str, Any]:
        """The figure and its interval as a table's columns: the figure under ``value`` (``name`` unless told, as a
        difference's ``<name>_difference``), then :meth:`ends`, then, where the interval was widened for games of one
        length, why under ``<name>_widened`` (only then, so a table of other intervals holds numbers alone)."""
        return {value or name: self.value} | self.ends(name) | ({widened_name(name): self.widened} if self.widened
                                                                 else {})

    @classmethod
    def read(cls, row: Mapping[Any, Any], name: str, value: str | None = None) -> Interval:
        """A figure and its interval back from a table's row (:meth:`columns`), to be printed: NaN for an end the row
        has no column for. A row does not hold the games, so they are 0."""
        low, high = (float(row.get(bound_name(name, end), math.nan)) for end in ENDS)
        why = row.get(widened_name(name))
        return cls(float(row[value or name]), low, high, 0, why if isinstance(why, str) else "")

    @property
    def figure(self) -> tuple[float, float, float]:
        """(value, low, high), as :func:`wolf_eval.stats.difference_interval` takes a figure."""
        return (self.value, self.low, self.high)


#: The figure and interval of no games: all NaN.
NO_GAMES = Interval(math.nan, math.nan, math.nan, 0)


def widened_name(figure: str) -> str:
    """The table column saying why a figure's interval was widened for games of one length: ``<figure>_widened``."""
    return logged_name(figure, "widened")


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


#: Several figures of the same summed counts, evaluated together: the k sums as rows (a (k,) vector, or
#: (k, n) for n resamples or leave-one-out sums) to each figure's values by name, element-wise.
Figures = Callable[[np.ndarray], Mapping[str, Any]]


def _all(figures: Mapping[str, Callable[[np.ndarray], Any]]) -> Figures:
    return lambda s: {name: figure(s) for name, figure in figures.items()}


def jackknife_se(counts: np.ndarray, figure: Callable[[np.ndarray], Any]) -> float:
    """The leave-one-game-out jackknife standard error of a figure of summed per-game counts.

    ``counts`` is (games, k); the figure is evaluated on the k sums left when each game in turn is
    taken out (all at once, as a (k, games) array). Games whose removal leaves the figure undefined are
    skipped; NaN with fewer than two defined.
    """
    ones = np.ones((1, len(counts)))
    return float(_resampled_se(counts, _all({"": figure}), counts.sum(axis=0)[None, :], ones, [""])[""][0])


#: Resamples whose leave-one-out figures are formed at once (bounds the memory of a large cell).
_CHUNK = 64


def _resampled_se(counts: np.ndarray, figures: Figures, sums: np.ndarray, weights: np.ndarray,
                  names: Sequence[str], scales: Mapping[str, Scale] | None = None) -> dict[str, np.ndarray]:
    """Per resample (a row of ``weights``, its summed counts a row of ``sums``) and figure: the jackknife standard
    error over the games it drew, each drawn game taken out once in turn (a game drawn twice counts twice), on the
    figure's ``scales`` (its own where none is named)."""
    out = {name: np.full(len(sums), np.nan) for name in names}
    games, k = counts.shape
    for start in range(0, len(sums), _CHUNK):
        rows = slice(start, start + _CHUNK)
        left = figures((sums[rows, None, :] - counts[None, :, :]).reshape(-1, k).T)
        for name in names:
            values = np.asarray(left[name], dtype=float).reshape(-1, games)
            if scales and name in scales:
                values = scales[name].to(values)
            drawn = np.where(np.isnan(values), 0.0, weights[rows])
            n = drawn.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = (drawn * np.nan_to_num(values)).sum(axis=1) / n
                var = (n - 1) / n * (drawn * (np.nan_to_num(values) - mean[:, None]) ** 2).sum(axis=1)
            out[name][rows] = np.where(n >= MIN_GAMES, np.sqrt(var), np.nan)
    return out


#: The range of most figures (shares, AUROCs, Brier scores); a difference of two shares spans (-1, 1).
UNIT = (0.0, 1.0)
#: No range: the interval is not cut.
UNBOUNDED = (-math.inf, math.inf)
#: How far past each end of its range a figure's scale reaches, in games: the logit of a figure's place in its range
#: as if this many more games had sat at each end, so that a figure at an end (a resample of agreeing games there,
#: or a game's leave-one-out figure) stays a finite distance away. The smaller, the further the scale stretches
#: near an end: on simulated monitors whose AUROC is 0.95 (tests/test_resample.py) half a game covered 0.90 at 10
#: games, a tenth 0.935, a twentieth 0.95 at 14% more width.
PAD = 0.1


@dataclass(frozen=True)
class Scale:
    """The scale a bounded figure's interval is drawn on: the logit of its place in its range, padded by :data:`PAD`
    games' worth at each end (for a difference of shares in [-1, 1], twice Fisher's z, padded likewise).

    Why: near an end of its range a figure's errors are lopsided (an AUROC of 0.98 can fall far more than it can
    rise), and a symmetric interval about it both misses below and spends width above. On the logit scale the
    distance to an end is unbounded, so a symmetric interval there is lopsided back on the figure's own scale,
    longer on the side with room. A figure without a finite range is drawn on its own scale.
    """

    low: float
    high: float
    pad: float

    @classmethod
    def of(cls, bounds: tuple[float, float], games: int) -> Scale:
        low, high = bounds
        if not (math.isfinite(low) and math.isfinite(high)):
            return cls(low, high, math.nan)
        return cls(low, high, (high - low) * PAD / max(games, 1))  # fewer than two games: no interval drawn

    @property
    def bounded(self) -> bool:
        return not math.isnan(self.pad)

    def to(self, x: Any) -> Any:
        """The figure's values on this scale (NaN stays NaN)."""
        if not self.bounded:
            return np.asarray(x, dtype=float)
        share = (np.clip(x, self.low, self.high) - self.low + self.pad) / (self.high - self.low + 2 * self.pad)
        return np.log(share) - np.log1p(-share)

    def back(self, y: float) -> float:
        """A value on this scale back on the figure's own, within its range."""
        if not self.bounded:
            return y
        share = 1 / (1 + math.exp(-y)) if y > -700 else 0.0
        value = float(np.clip(self.low - self.pad + (self.high - self.low + 2 * self.pad) * share, self.low, self.high))
        ends = [end for end in (self.low, self.high) if abs(value - end) <= AGREE * (self.high - self.low)]
        return ends[0] if ends else value  # an end reached up to rounding is the end


def game_interval(counts: np.ndarray, figure: Callable[[np.ndarray], Any], seed: int, draws: int = DRAWS,
                  bounds: tuple[float, float] = UNIT) -> Interval:
    """A figure of summed per-game counts with its symmetric studentized bootstrap interval over games (see the
    module).

    ``counts`` is (games, k): each game's k counts. ``figure`` takes the k sums as the rows of an
    array (shape (k,) for the games as played, (k, n) for resamples or leave-one-out sums) and returns
    the figure, element-wise. Resamples where the figure is undefined (a zero denominator) are left out.
    ``bounds``: the figure's range, which the interval does not leave (a share's, unless told otherwise).
    """
    return game_intervals(counts, {"": figure}, seed, draws, {"": bounds})[""]


def game_intervals(counts: np.ndarray, figures: Mapping[str, Callable[[np.ndarray], Any]], seed: int,
                   draws: int = DRAWS, bounds: Mapping[str, tuple[float, float]] | None = None) -> dict[str, Interval]:
    """:func:`game_interval` for several figures of the same counts, over the same resamples of games
    (``bounds`` by figure name; a figure not named is a share)."""
    return joint_intervals(counts, _all(figures), list(figures), seed, draws, bounds)


def joint_intervals(counts: np.ndarray, figures: Figures, names: Sequence[str], seed: int, draws: int = DRAWS,
                    bounds: Mapping[str, tuple[float, float]] | None = None) -> dict[str, Interval]:
    """:func:`game_intervals` for figures computed together (one call gives them all, by name), as a table
    row's function of its counts does: each array of sums is evaluated once for every figure."""
    counts = np.asarray(counts, dtype=float)
    counts = counts[:, None] if counts.ndim == 1 else counts
    if not len(counts):
        return {name: Interval(math.nan, math.nan, math.nan, 0) for name in names}
    total, one_by_one = figures(counts.sum(axis=0)), figures(counts.T)
    defined = {name: int(np.sum(~np.isnan(np.asarray(one_by_one[name], dtype=float)))) for name in names}
    scales = {name: Scale.of((bounds or {}).get(name, UNIT), defined[name]) for name in names}
    weights = game_weights(len(counts), seed, draws)
    sums = weights @ counts
    drawn = figures(sums.T)
    ses = _resampled_se(counts, figures, counts.sum(axis=0)[None, :], np.ones((1, len(counts))), names, scales)
    spreads = _resampled_se(counts, figures, sums, weights, names, scales)
    return {name: _studentized(float(total[name]), np.asarray(one_by_one[name], dtype=float), float(ses[name][0]),
                               np.asarray(drawn[name], dtype=float), spreads[name], scales[name])
            for name in names}


def _studentized(value: float, each: np.ndarray, se: float, drawn: np.ndarray, spread: np.ndarray,
                 scale: Scale) -> Interval:
    """One figure's symmetric bootstrap-t interval on its :class:`Scale`: its value over the games as played, each
    game's own value (NaN where the game does not define it), its jackknife standard error, and per resample its
    value and its own standard error (both errors on the scale); reaching at least as far as games that mostly
    agree allow (:func:`few_differ`)."""
    defined = int(np.sum(~np.isnan(each)))
    if math.isnan(value) or defined < MIN_GAMES or math.isnan(se):
        return Interval(value, math.nan, math.nan, defined)
    bounds = (scale.low, scale.high)
    if se <= AGREE:
        return Interval(value, *unseen(value, defined, bounds), defined)
    # a resample whose games all agree (or that one game defines) has no spread of its own to scale by: it takes
    # the games' standard error instead, so it counts as its distance in the games' units, not as an infinite t
    kept = ~np.isnan(drawn)
    centre = float(scale.to(value))
    ratios = np.abs(scale.to(drawn[kept]) - centre) / np.where(spread[kept] > AGREE, spread[kept], se)
    half = float(np.quantile(ratios, LEVEL, method="inverted_cdf")) * se
    low, high = few_differ(value, each, bounds)
    return Interval(value, min(scale.back(centre - half), value, low), max(scale.back(centre + half), value, high),
                    defined)


def unseen(value: float, games: int, bounds: tuple[float, float] = UNIT) -> tuple[float, float]:
    """The interval ``games`` games that all gave ``value`` allow: a zero-width interval would say no game could have
    gone otherwise.

    If a share ``q`` of all games gives anything else, ``games`` independent games all give ``value`` with chance
    ``(1 - q) ** games``; the interval has two ends, each allowed half the miss, so it rules out only ``q`` above
    ``u = 1 - ((1 - LEVEL) / 2) ** (1 / games)`` (0.31 at 10 games, 0.09 at 40 at 95%: the "rule of three" taken
    two-sided; one-sided it would miss more than 1 - LEVEL for a 0/1 figure whose games can all agree at either
    end). Those unseen games may lie anywhere in the figure's range, so the figure lies within ``u`` of the way
    from ``value`` to either end. A game that weighs more than
    the agreeing ones (more pairs) moves the figure more, which this does not bound.
    """
    low, high = bounds
    if not (math.isfinite(low) and math.isfinite(high)):
        return (math.nan, math.nan)
    share = clopper_pearson(0, games, LEVEL)[1]
    return (value - share * (value - low), value + share * (high - value))


def few_differ(value: float, each: np.ndarray, bounds: tuple[float, float] = UNIT) -> tuple[float, float]:
    """The interval games allow where more than half of them agree on one value and only some differ: at least as far
    as the share of games that differ could be, whatever the bootstrap saw (``(value, value)`` where no value is
    shared by more than half the games, or none differ).

    Why: a figure most games agree on moves only by its few differing games (a monitor that reads a confession on a
    fifth of the wolves' days: most games hold none, and their AUROC is 0.5). A resample then only redraws those
    few games, and the bootstrap's spread is that of so few draws: at 10 games of a monitor catching a fifth of the
    wolves' days, with one game differing the interval over the games alone held the truth in 5 draws of 25, with
    two in 56 of 98 (``benchmarks/monitor.py``, whose draws by games with a catch now read 14 of 25 and 94 of 98). The
    figure is the agreeing value
    ``a`` moved by the differing games, ``value - a`` in all, roughly in proportion to their share of the games,
    ``k`` of ``n``. That share, of independent games, has the exact binomial interval (:func:`clopper_pearson`);
    the interval reaches from ``a`` the figure's distance times the share's ends over its observed ``k / n``. With
    none differing the distance is 0 and the games give no direction: that is :func:`unseen`. A differing game
    that weighs more than the rest (more pairs) moves the figure more, which this scales with the rest.
    """
    values = each[~np.isnan(each)]
    # a value more than half the games share is their median
    agreed = float(np.median(values)) if len(values) else math.nan
    differ = int(np.sum(np.abs(values - agreed) > AGREE * max(1.0, abs(agreed))))
    if not 0 < differ < len(values) / 2:
        return (value, value)
    share = len(values) / differ
    ends = [agreed + end * share * (value - agreed) for end in clopper_pearson(differ, len(values), LEVEL)]
    return (max(min(ends), bounds[0]), min(max(ends), bounds[1]))


def ratio_interval(numerators: Sequence[float], denominators: Sequence[float], seed: int, draws: int = DRAWS,
                   bounds: tuple[float, float] = UNIT) -> Interval:
    """The ratio of sums over games, sum(numerators) / sum(denominators), with its interval over games."""
    return game_interval(np.column_stack([numerators, denominators]), lambda s: ratio(s[0], s[1]), seed, draws,
                         bounds)


#: A game's length: the days it lasted and its day cap (a cap of NaN, unknown, is read as allowing no longer game).
Length = tuple[float, float]


def figure_interval(counts: np.ndarray, figure: Callable[[np.ndarray], Any], seed: int, per_game: bool = False,
                    bounds: tuple[float, float] = UNIT, lengths: Sequence[Length] | None = None) -> Interval:
    """A headline figure's interval: binomial for a share of games (``counts`` rows of (outcome, 1)), else
    :func:`game_interval`, widened where every game lasted one length that others could outlast (:func:`one_length`;
    ``lengths``: each game's, where known)."""
    if not per_game:
        if lengths is not None and len(lengths) != len(counts):
            raise ValueError(f"{len(lengths)} game lengths for {len(counts)} games' counts")
        iv = game_interval(counts, figure, seed, bounds=bounds)
        why = one_length(lengths) if lengths is not None and not math.isnan(iv.low) else ""
        if not why:
            return iv
        low, high = unseen(iv.value, iv.games, bounds)
        if math.isnan(low):  # a figure without a finite range: unseen games could take it anywhere
            return Interval(iv.value, math.nan, math.nan, iv.games, why)
        return Interval(iv.value, min(iv.low, low), max(iv.high, high), iv.games, why)
    hits, games = np.asarray(counts, dtype=float).reshape(-1, 2).sum(axis=0)
    value, low, high = wilson_cc(float(hits), float(games))
    return Interval(value, low, high, int(games))


def one_length(lengths: Sequence[Length]) -> str:
    """Why games that all lasted the same number of days, fewer than their day cap allows, have an interval wider than
    their spread ('' where they have not).

    A figure pooled over statements, ballots or decisions takes more of them from a longer game, and a game that runs
    past day 1 plays out otherwise (fewer players alive, more said), so the figure over longer games can differ from
    the figure over short ones. An interval over games sees only the spread among the games drawn: games of one
    length show the spread within that length and none between lengths. That is the case of :func:`unseen` one level
    up, and it has the same answer: so many games of one length rule out only a share ``u`` of games of another
    length above ``1 - 0.025 ** (1 / n)`` (0.31 at 10 games), which could lie anywhere in the figure's range, so the
    interval reaches at least ``u`` of the way from the figure to either end (a figure without a finite range has no
    ends then). An unseen game that weighs more than those drawn (a longer game, more statements) moves the figure
    further, which this does not bound. Where the day cap allowed no other length (every game ran to it) the games
    are what the settings play, and the interval is their spread's. Withholding the interval instead was weighed:
    ``benchmarks/coverage.py`` measures both (docs/scores.md gives the figures).
    """
    days = {d for d, _ in lengths}
    if len(lengths) < MIN_GAMES or len(days) != 1:
        return ""
    d = days.pop()
    if not any(d < cap for _, cap in lengths):
        return ""
    others = "games that run longer" if d == 1 else "games of another length"
    return f"all {len(lengths)} games ended on day {d:g}, and {others} can differ"


# --------------------------------------------------------------------------- the percentile bootstrap


def cluster_bootstrap(counts: np.ndarray, figure: Callable[[np.ndarray], Any], seed: int,
                      draws: int = DRAWS) -> Interval:
    """The percentile bootstrap over games, the interval of releases before 0.5: the 2.5th and 97.5th
    percentiles of the figure over ``draws`` resamples of games.

    It covers 0.89 of the time at 10 games (``benchmarks/coverage.py``); the report and the eval's
    metrics use :func:`game_interval`. It stays for the cross-play tables of ``wolf-eval compare``
    until they move to :func:`game_interval`.
    """
    return cluster_bootstraps(counts, {"": figure}, seed, draws)[""]


def cluster_bootstraps(counts: np.ndarray, figures: Mapping[str, Callable[[np.ndarray], Any]], seed: int,
                       draws: int = DRAWS) -> dict[str, Interval]:
    """:func:`cluster_bootstrap` for several figures of the same counts, over the same resamples of games."""
    counts = np.asarray(counts, dtype=float)
    counts = counts[:, None] if counts.ndim == 1 else counts
    sums = (game_weights(len(counts), seed, draws) @ counts).T if len(counts) else None
    return {name: _percentile(counts, sums, figure) for name, figure in figures.items()}


def _percentile(counts: np.ndarray, sums: np.ndarray | None, figure: Callable[[np.ndarray], Any]) -> Interval:
    value = float(figure(counts.sum(axis=0))) if len(counts) else math.nan
    defined = int(np.sum(~np.isnan(np.asarray(figure(counts.T), dtype=float)))) if len(counts) else 0
    if math.isnan(value) or defined < MIN_GAMES or sums is None:
        return Interval(value, math.nan, math.nan, defined)
    drawn = np.asarray(figure(sums), dtype=float)
    low, high = np.quantile(drawn[~np.isnan(drawn)], [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return Interval(value, float(low), float(high), defined)


def ratio_bootstrap(numerators: Sequence[float] | np.ndarray, denominators: Sequence[float] | np.ndarray, seed: int,
                    draws: int = DRAWS) -> Interval:
    """:func:`cluster_bootstrap` of the ratio of sums over games."""
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
              draws: int = DRAWS, bounds: Mapping[str, tuple[float, float]] | None = None) -> dict[str, Interval]:
    """Each figure of the games' pooled counts with its interval over games.

    ``per_game`` holds one counts dataclass per game of the cell (a game the counts do not apply to
    as the empty one, so it is still drawn); each figure is a function of the pooled counts, the
    very property the tables print, evaluated on the resampled sums as arrays. ``bounds``: each
    figure's range by name (a figure not named is a share).
    """
    return joint_counts_intervals(per_game, lambda c: {name: f(c) for name, f in figures.items()}, list(figures),
                                  seed, draws, bounds)


def joint_counts_intervals(per_game: Sequence[T], figures: Callable[[T], Mapping[str, Any]], names: Sequence[str],
                           seed: int, draws: int = DRAWS,
                           bounds: Mapping[str, tuple[float, float]] | None = None) -> dict[str, Interval]:
    """:func:`intervals` for figures one function of the pooled counts gives together (a table row's)."""
    if not per_game:
        return {name: Interval(math.nan, math.nan, math.nan, 0) for name in names}
    template = per_game[0]
    numbers = attrgetter(*_paths(template))
    matrix = np.array([numbers(c) for c in per_game], dtype=float).reshape(len(per_game), -1)
    return joint_intervals(matrix, lambda s: figures(_rebuilt(template, iter(s))), names, seed, draws, bounds)
