"""How often the 95% intervals cover the truth at 10, 20 and 40 games: before (0.4's) and after (today's).

    python benchmarks/pools.py                       # once: play the pools of baseline games (logs/pools/)
    python benchmarks/coverage.py                    # resample them, print the coverage table
    python benchmarks/coverage.py --pools triadic-cue --samples 2000 --candidates

A pool of a few hundred games played on the offline players stands for the population: its own
figure is the truth. Each of ``--samples`` draws picks n of its games at random (with replacement,
so the draws are independent games of the pool's population), forms the figure and its interval as
the report and the eval's metrics do, and counts whether the interval holds the pool's figure.
A draw whose figure fewer than two games define has no interval and is counted apart (``none``).

Each cell reads coverage over the draws given an interval (w: the mean width; hi: of the misses, the share
where the interval lay above the truth; none: the share of draws given no interval for games of one length).
Where most games end on day 1 and the rest run long, a figure that differs between the two cannot be known
from a draw of day-1 games alone, whatever its interval; two answers to such a draw are measured beside
today's interval ("after"), each on its intervals: "too few", none for a draw whose games all ended on one day
below the day cap (:func:`wolf_eval.resample.one_length`), and "widened (used)", what the eval's metrics and the
report draw for a headline (:func:`wolf_eval.resample.figure_interval`): such a draw's interval stretched to hold
what so many games allow of games of another length (:func:`wolf_eval.resample.unseen`). A share of games (one
outcome a game) is answered alike by all three.
The table after each pool says how often a draw holds a game past day 1 and how much of each figure's weight such
games carry, and the last one the coverage by the draw's games past day 1.

Figures: every headline score the pool defines (``wolf_eval.measures.headline.HEADLINE``); the win rates
and the other shares of games (one outcome per game: Wilson's interval before, Wilson's with a continuity
correction after); every per-ballot figure the headline and the deception tables print (the village's
detection AUROC and one role's, its AUROC of the wolves against the Jester, the wolves' evasion, the
Jester's rank in suspicion, the share of ballots on the wolves); per-statement figures (the statement
AUROC, the wolves' self-label gap, agreement with the speaker's own label). Before: the percentile
bootstrap over games (1,000 draws); own scale: the symmetric studentized bootstrap drawn on the figure's own
scale and cut to its range (0.5's); after: the same drawn on the padded logit scale, as
:func:`wolf_eval.resample.game_interval` draws it. ``--candidates`` adds the other intervals weighed for the
choice (docs/scores.md says why the one chosen was); the two-sided bootstrap-t reads the report's own
resampled standard errors (private to ``resample``).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pools import POOLS, POOLS_DIR, complete, pool_dir
from scipy import stats as sps

from wolf_eval import resample
from wolf_eval.analysis.corpus import load
from wolf_eval.analysis.tables import GAME_VALUE_FIELDS
from wolf_eval.measures import deception as dec
from wolf_eval.measures import headline as head
from wolf_eval.measures import truth as tru
from wolf_eval.measures.rates import ratio
from wolf_eval.resample import LEVEL, UNBOUNDED, UNIT, Length, cluster_bootstrap, game_interval, jackknife_se
from wolf_eval.stats import Z95, wilson, wilson_cc
from wolf_eval.vocabulary import Role

SIZES = (10, 20, 40)
Interval = tuple[float, float]  # (low, high), NaN where none is drawn
Method = Callable[[np.ndarray, "Figure", int], Interval]


# --------------------------------------------------------------------------- the figures of a pool


class Figure:
    """One figure of a pool: each game's columns, the formula over their sums, and whether it is a share of games."""

    def __init__(self, name: str, matrix: np.ndarray, of_sums: Callable[[Any], Any], per_game: bool = False,
                 bounds: tuple[float, float] = UNIT):
        self.name, self.matrix, self.of_sums, self.per_game, self.bounds = name, matrix, of_sums, per_game, bounds
        self.truth = float(of_sums(matrix.sum(axis=0)))


def _matrix(rows: list[list[float]]) -> np.ndarray:
    return np.array(rows, dtype=float).reshape(len(rows), -1)


def pool_figures(frame: Any) -> list[Figure]:
    """Every figure the benchmark checks, from a pool's games (the corpus frame of its log)."""
    games = [head.GameValues(**{f: r[f] for f in GAME_VALUE_FIELDS}) for r in frame.to_dict("records")]
    out = []
    for name, f in head.HEADLINE.items():
        figure = Figure(name, f.sums([f.counts(g) for g in games]), f.of_sums, f.per_game, f.bounds)
        if not math.isnan(figure.truth):  # third_order_lessons needs games with learning
            out.append(figure)
    villager = [g.truth.roles.get(Role.VILLAGER, tru.Detection()) for g in games]
    out.append(Figure("villager AUROC", _matrix([[d.wolves.concordant + d.wolves.ties / 2, d.wolves.pairs]
                                                  for d in villager]), lambda s: ratio(s[0], s[1])))
    village = [g.truth.village() or tru.Detection() for g in games]
    out.append(Figure("village statement AUROC", _matrix([[d.statements.concordant + d.statements.ties / 2,
                                                           d.statements.pairs] for d in village]),
                      lambda s: ratio(s[0], s[1])))
    out.append(Figure("village AUROC wolves vs Jester", _matrix([[d.jester.concordant + d.jester.ties / 2,
                                                                  d.jester.pairs] for d in village]),
                      lambda s: ratio(s[0], s[1])))
    out.append(Figure("village Brier", _matrix([[d.brier.squared_error, d.brier.forecasts] for d in village]),
                      lambda s: ratio(s[0], s[1])))
    wolves = next(m for r, m in dec.pool([g.deception for g in games]).deceivers() if r is Role.WEREWOLF)
    cols = _matrix([dec.columns(Role.WEREWOLF, dec.seen_by(g.deception, Role.WEREWOLF, wolves)) for g in games])
    figs = dec.aim_figures(Role.WEREWOLF)
    out.append(Figure(f"wolves' evasion ({wolves})", cols, figs["evasion"]))
    out.append(Figure("village votes on wolves", cols, figs["vote_share"]))
    return out


def figures_of(pool: str, root: Path) -> tuple[list[Figure], list[Length]]:
    """A pool's figures, read from its log, and each game's length (the days it lasted, its day cap)."""
    frame = load(pool_dir(next(p for p in POOLS if p.name == pool), root)).games
    return pool_figures(frame), [o.length for o in frame["outcome"]]


def game_length(figs: list[Figure], long: np.ndarray, sizes: list[int]) -> None:
    """Why a figure can miss at a small n whatever its interval: where most games end on day 1 and the rest run
    long, a figure that differs between the two and draws much of its weight (pairs, forecasts, votes) from the
    long games cannot be known from a draw that holds none of them."""
    q = float(long.mean())
    chance = ", ".join(f"{1 - (1 - q) ** n:.3f} at {n}" for n in sizes)
    print(f"\n{q:.3f} of the pool's games went past day 1; a draw holds at least one with chance {chance}.\n")
    print("| figure | over day-1 games | over longer games | share of its weight in longer games |")
    print("|---|---|---|---|")
    for f in figs:
        if f.per_game:
            continue
        weight = np.abs(f.matrix[:, -1] if f.matrix.shape[1] == 2 else f.matrix).reshape(len(long), -1).sum(axis=1)
        short, longer = (float(f.of_sums(f.matrix[m].sum(axis=0))) for m in (~long, long))
        print(f"| {f.name} | {short:.3f} | {longer:.3f} | {weight[long].sum() / max(weight.sum(), 1e-12):.2f} |")


def by_long_games(figs: list[Figure], long: np.ndarray, n: int, samples: int, seed: int,
                  target: float = 0.93) -> None:
    """Today's interval's coverage at ``n`` games by how many of the draw's games went past day 1, for each figure
    that falls short of ``target`` overall: where the long games carry most of a figure's weight, a draw with
    few of them has as few games that count, and no interval over games can know the figure from those."""
    rng = np.random.default_rng(seed)
    draws = [rng.integers(0, len(long), n) for _ in range(samples)]
    rows = []
    for f in (x for x in figs if not x.per_game):
        strata: dict[int, list[int]] = {}
        for i, picks in enumerate(draws):
            counts = f.matrix[picks]
            defined = np.sum(~np.isnan(np.asarray(f.of_sums(counts.T), dtype=float)))
            if defined < 2 or math.isnan(float(f.of_sums(counts.sum(axis=0)))):
                continue
            low, high = after(counts, f, i)
            cell = strata.setdefault(int(long[picks].sum()), [0, 0])
            cell[0] += 1
            cell[1] += low <= f.truth <= high
        drawn = sum(c[0] for c in strata.values())
        if drawn and sum(c[1] for c in strata.values()) / drawn < target:
            rows.append((f.name, strata, drawn))
    if not rows:
        return
    ks = sorted({k for _, strata, _ in rows for k in strata})
    print(f"\nToday's interval at {n} games, for the figures below {target}, by the draw's games past day 1 "
          "(coverage; the share of draws):\n")
    print("| figure | " + " | ".join(f"{k} long" for k in ks) + " |")
    print("|---|" + "---|" * len(ks))
    for name, strata, drawn in rows:
        cells = [f"{strata[k][1] / strata[k][0]:.2f} ({strata[k][0] / drawn:.2f})" if k in strata else "–" for k in ks]
        print(f"| {name} | " + " | ".join(cells) + " |")


# --------------------------------------------------------------------------- the intervals weighed


def percentile(counts: np.ndarray, figure: Figure, seed: int) -> Interval:
    """0.4's interval: the 2.5th and 97.5th percentiles of the figure over resampled games."""
    iv = cluster_bootstrap(counts, figure.of_sums, seed)
    return iv.low, iv.high


def t_widened(counts: np.ndarray, figure: Figure, seed: int) -> Interval:
    """The percentile interval with each side stretched by t(n − 1) / z about the figure."""
    value = float(figure.of_sums(counts.sum(axis=0)))
    low, high = percentile(counts, figure, seed)
    k = sps.t.ppf((1 + LEVEL) / 2, len(counts) - 1) / Z95
    return value - k * (value - low), value + k * (high - value)


def jackknife_t(counts: np.ndarray, figure: Figure, seed: int) -> Interval:
    """The figure ± t(n − 1) times its leave-one-game-out jackknife standard error."""
    value = float(figure.of_sums(counts.sum(axis=0)))
    half = sps.t.ppf((1 + LEVEL) / 2, len(counts) - 1) * jackknife_se(counts, figure.of_sums)
    return value - half, value + half


def own_scale(counts: np.ndarray, figure: Figure, seed: int) -> Interval:
    """The symmetric studentized interval drawn on the figure's own scale and cut to its range (0.5's): the same
    resamples and errors as today's, without the logit scale."""
    iv = game_interval(counts, figure.of_sums, seed, bounds=UNBOUNDED)
    if math.isnan(iv.low) and iv.games >= resample.MIN_GAMES and not math.isnan(iv.value):
        return resample.unseen(iv.value, iv.games, figure.bounds)  # agreeing games: no spread on any scale
    low, high = figure.bounds
    return float(np.clip(iv.low, low, iv.value)), float(np.clip(iv.high, iv.value, high))


def after(counts: np.ndarray, figure: Figure, seed: int) -> Interval:
    """Today's interval, as the report and the eval's metrics draw it (its own seeded resamples)."""
    iv = game_interval(counts, figure.of_sums, seed, bounds=figure.bounds)
    return iv.low, iv.high


def two_sided_t(counts: np.ndarray, figure: Figure, seed: int) -> Interval:
    """The bootstrap-t with its two tails apart: the figure minus the 97.5th and the 2.5th percentile of the
    resamples' t, times the games' jackknife standard error (the resamples' own errors as the report's are)."""
    figures, total = resample._all({"": figure.of_sums}), float(figure.of_sums(counts.sum(axis=0)))
    se = jackknife_se(counts, figure.of_sums)
    if math.isnan(se) or se == 0:
        return (total, total) if se == 0 else (math.nan, math.nan)
    weights = resample.game_weights(len(counts), seed)
    sums = weights @ counts
    drawn = np.asarray(figure.of_sums(sums.T), dtype=float)
    spread = resample._resampled_se(counts, figures, sums, weights, [""])[""]
    kept = ~(np.isnan(drawn) | np.isnan(spread))
    distance, spread = drawn[kept] - total, spread[kept]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(spread > 0, distance / spread, np.where(distance == 0, 0.0, np.sign(distance) * np.inf))
    low_t, high_t = np.quantile(t, [(1 - LEVEL) / 2, (1 + LEVEL) / 2], method="inverted_cdf")
    low, high = figure.bounds
    return float(np.clip(total - high_t * se, low, total)), float(np.clip(total - low_t * se, total, high))


CLUSTERED: dict[str, Method] = {"before": percentile, "own scale": own_scale, "after": after}
CANDIDATES: dict[str, Method] = {"t-widened percentile": t_widened, "jackknife × t": jackknife_t,
                                 "two-sided bootstrap-t": two_sided_t}


def share_interval(method: str, counts: np.ndarray) -> Interval:
    """A share of games: Wilson's interval before, Wilson's with the continuity correction after."""
    hits, n = counts.sum(axis=0)
    _, low, high = (wilson if method == "before" else wilson_cc)(hits, n)
    return low, high


# --------------------------------------------------------------------------- coverage


def exact_share_coverage(sizes: list[int]) -> None:
    """The win-rate intervals' exact coverage over a grid of true rates (every number of wins summed): the
    lowest over rates 0.01 to 0.99 and over 0.1 to 0.9, and the mean."""
    rates = np.linspace(0.01, 0.99, 99)
    print("| interval | games | lowest (0.01-0.99) | lowest (0.1-0.9) | mean | width at half the games won |")
    print("|---|---|---|---|---|---|")
    for name, interval in (("Wilson (before)", wilson), ("Wilson, continuity-corrected (after)", wilson_cc)):
        for n in sizes:
            bounds = [interval(k, n)[1:] for k in range(n + 1)]
            cover = np.array([sum(sps.binom.pmf(k, n, p) for k, (lo, hi) in enumerate(bounds) if lo <= p <= hi)
                              for p in rates])
            middle = cover[(rates >= 0.1) & (rates <= 0.9)]
            half = bounds[n // 2]
            print(f"| {name} | {n} | {cover.min():.3f} | {middle.min():.3f} | {cover.mean():.3f} | "
                  f"{half[1] - half[0]:.3f} |")


def too_few(iv: Interval, figure: Figure, counts: np.ndarray, lengths: list[Length], seed: int) -> Interval:
    """The answer weighed and not taken: no interval for a draw whose games all ended on one day below the day cap
    (:func:`wolf_eval.resample.one_length`), today's interval for the rest."""
    return (math.nan, math.nan) if resample.one_length(lengths) else iv


def widened(iv: Interval, figure: Figure, counts: np.ndarray, lengths: list[Length], seed: int) -> Interval:
    """The answer taken, as the eval's metrics and the report draw a headline's interval
    (:func:`wolf_eval.resample.figure_interval` with each game's length): for a draw whose games all ended on one day
    below the day cap, today's interval widened to hold what so many games allow of games of another length."""
    got = resample.figure_interval(counts, figure.of_sums, seed, bounds=figure.bounds, lengths=lengths)
    return got.low, got.high


#: How a draw whose games all lasted one length is answered, beside today's interval ("after").
LENGTH_RULES = {"too few": too_few, "widened (used)": widened}


@dataclass
class Tally:
    """One figure's and one interval's draws: given an interval, covering the truth, missing above it, their summed
    width, and how many had none for games of one length or had no width."""

    given: int = 0
    hit: int = 0
    above: int = 0
    width: float = 0.0
    withheld: int = 0
    flat: int = 0

    def add(self, interval: Interval, truth: float) -> None:
        low, high = interval
        if math.isnan(low):
            self.withheld += 1
            return
        self.given += 1
        self.hit += low <= truth <= high
        self.above += truth < low
        self.width += high - low
        self.flat += high <= low

    def cell(self, draws: int) -> str:
        """Coverage over the draws given an interval (w: mean width; hi: the misses' share above the truth; and the
        share of the ``draws`` withheld, where any was)."""
        given = max(1, self.given)
        out = f"{self.hit / given:.3f} (w {self.width / given:.3f}, hi {self.above / max(1, self.given - self.hit):.2f}"
        return out + (f", none {self.withheld / max(1, draws):.2f})" if self.withheld else ")")


def coverage(figs: list[Figure], n: int, samples: int, methods: dict[str, Method], rng: np.random.Generator,
             lengths: list[Length]) -> dict[str, tuple[dict[str, Tally], int]]:
    """Per figure: each method's :class:`Tally`, then the length rules' on today's interval, and how many draws
    fewer than two games define (no interval under any method)."""
    names = [*methods, *LENGTH_RULES]
    tallies = {f.name: {m: Tally() for m in names} for f in figs}
    none = dict.fromkeys((f.name for f in figs), 0)
    for i in range(samples):
        picks = rng.integers(0, len(lengths), n)
        for f in figs:
            counts = f.matrix[picks]
            defined = ~np.isnan(np.asarray(f.of_sums(counts.T), dtype=float))
            if defined.sum() < 2 or math.isnan(float(f.of_sums(counts.sum(axis=0)))):
                none[f.name] += 1
                continue
            got = {name: share_interval(name, counts) if f.per_game else method(counts, f, i)
                   for name, method in methods.items()}
            drawn = [lengths[p] for p in picks]
            for name, rule in LENGTH_RULES.items():
                got[name] = got["after"] if f.per_game else rule(got["after"], f, counts, drawn, i)
            for name, interval in got.items():
                tallies[f.name][name].add(interval, f.truth)
    return {f.name: (tallies[f.name], none[f.name]) for f in figs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pools", default="triadic-cue,triadic-tom",
                    help="comma-separated pool names (benchmarks/pools.py)")
    ap.add_argument("--samples", type=int, default=2000, help="draws of n games per size")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--candidates", action="store_true", help="also the other intervals weighed for the choice")
    ap.add_argument("--methods", default="", help="comma-separated intervals to measure (default: before, own scale "
                    "and after, and with --candidates the others); the length rules need after")
    ap.add_argument("--root", type=Path, default=POOLS_DIR)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    methods = CLUSTERED | (CANDIDATES if args.candidates else {})
    if args.methods:
        wanted = [m.strip() for m in args.methods.split(",")]
        unknown = [m for m in wanted if m not in CLUSTERED | CANDIDATES]
        if unknown or "after" not in wanted:
            raise SystemExit(f"--methods: {', '.join(unknown) or 'after is missing'} (choose among "
                             f"{', '.join(CLUSTERED | CANDIDATES)}; after is needed)")
        methods = {m: (CLUSTERED | CANDIDATES)[m] for m in wanted}
    sizes = [int(n) for n in args.sizes.split(",")]
    print("## Win rates: exact binomial coverage\n")
    exact_share_coverage(sizes)
    for name in args.pools.split(","):
        pool = next((p for p in POOLS if p.name == name), None)
        if pool is None or not complete(pool, args.root):
            raise SystemExit(f"{name}: no finished pool under {args.root} (play it: python benchmarks/pools.py "
                             f"--only {name})")
        started = time.perf_counter()
        figs, lengths = figures_of(name, args.root)
        long = np.array([days > 1 for days, _ in lengths])
        print(f"\n## {name}: {len(figs[0].matrix)} games of {pool.task} on {pool.model}"
              f"{' with ' + str(pool.roles) if pool.roles else ''}; {args.samples} draws per size\n")
        header = ["figure", "pool value", "n", *methods, *LENGTH_RULES, "after: zero-width"]
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        rng = np.random.default_rng(args.seed)
        for n in sizes:
            got = coverage(figs, n, args.samples, methods, rng, lengths)
            for f in figs:
                tallies, none = got[f.name]
                cells = [t.cell(args.samples) for t in tallies.values()]
                print(f"| {f.name} | {f.truth:.3f} | {n}{f' ({none} none)' if none else ''} | " + " | ".join(cells)
                      + f" | {tallies['after'].flat} |", flush=True)
        game_length(figs, long, sizes)
        by_long_games(figs, long, min(sizes), args.samples, args.seed)
        print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
