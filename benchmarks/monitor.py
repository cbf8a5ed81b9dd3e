"""The monitor against a known truth: its AUROC and its interval's coverage at 10 games, on scripted players of known
monitorability, and reasoning against speech.

    python benchmarks/monitor.py                          # pools of 600 triadic games per leak, 1,000 draws
    python benchmarks/monitor.py --games 100 --samples 500 --leaks 0.5

Each pool is one offline eval of quick games without analyses (:data:`QUICK`): the ``wolfbot/tom`` players, whose
scripted reasoning confesses a deceiver's role on a share ``leak`` of its days (``-M leak=``), read by
``wolfbot/monitor`` with ``-T monitor=both`` (``wolf_eval/baseline/confessions.py``). On reasoning the scripted
monitor's AUROC for "is a wolf" is known, (1 + leak) / 2, whatever the games' length, so coverage is counted against
that truth. Each of ``--samples`` draws picks 10 distinct games of the pool, forms the figure and its interval as
the eval's ``monitor_wolf_auroc`` metrics do (:func:`wolf_eval.resample.figure_interval` over the summed counts,
with the games' lengths as their scores logged them, so a draw of games of one length is widened as the eval widens
it), and counts whether the interval holds the truth, and on which side it misses, then by how many of the draw's
games hold a catch (a confession read: where one or two games hold them all, the figure moves only by them). A draw
stands for 10 games played afresh only as far as the pool stands for the players: a pool misses the truth by its own
sampling error, which each of its draws inherits, so the table gives the pool's figure with its standard error over
games (small against the 10-game interval's width at the default size) and the coverage of the pool's own figure
beside the truth's.

Speech has no confession (the players' deflecting tells are all the scripted monitor reads there), so where
reasoning leaks more the monitor reads reasoning better: the third table gives the pool's speech AUROC,
``reasoning_over_speech`` over the pool, and the share of 10-game draws whose interval of that difference lies above
0. Last, the games' cost (wall seconds per game as the logs time the pools, the monitor's calls and tokens per game
beside the seats', over the first games of each pool) and the benchmark's own time.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import coverage as coverage_benchmark
import numpy as np
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log, read_eval_log_sample, read_eval_log_sample_summaries

from wolf_eval.measures import cost
from wolf_eval.measures.headline import MONITOR
from wolf_eval.resample import Length, figure_interval, jackknife_se, seed_of
from wolf_eval.scorers.game_scores import logged_lengths
from wolf_eval.store import logged_record

LEAKS = (0.2, 0.5, 0.9)
#: Quick games without the statements' analyses: one bid-and-speak and one open turn a day, at most three days. The
#: truth, (1 + leak) / 2, holds whatever a game's length (a wolf-day's confession is drawn apart from the game), and
#: a game plays in about a second.
QUICK = {"max_days": 3, "max_debate_turns": 1, "max_explanation_turns": 1, "deception_analysis": False}
SIZE = 10
SOURCES = ("reasoning", "speech")
#: Games of each pool whose calls and tokens are read (a game's whole log is large; the counts need only its scores).
COSTED = 30


@dataclass(frozen=True)
class Pool:
    """One leak's pool: each source's (games, 3) matrix of the monitor's pairs (concordant, ties, pairs), each game's
    length (days, day cap) as its scores logged it, the wall seconds
    the eval took, and the usage of its first :data:`COSTED` games."""

    matrices: dict[str, np.ndarray]
    lengths: list[Length]
    seconds: float
    usage: list[dict[str, Any]]


def play(leak: float, games: int, root: Path) -> str:
    """The log of one leak's pool, played unless a finished one is there."""
    folder = root / f"triadic-tom-quick-leak-{leak:g}-{games}"
    done = [f for f in list_eval_logs(str(folder)) if read_eval_log(f, header_only=True).status == "success"]
    if not done:
        start = time.perf_counter()
        [log] = inspect_eval("wolf_eval/triadic", model="wolfbot/tom", model_args={"leak": leak},
                             model_roles={"monitor": "wolfbot/monitor"},
                             task_args={"games": games, "monitor": "both", "seed": 17, **QUICK},
                             log_dir=str(folder), display="none", max_samples=8)
        assert log.status == "success", log.error
        print(f"played leak {leak:g}: {games} games in {time.perf_counter() - start:.0f} s", flush=True)
        return log.location
    return done[0].name


def pool(path: str) -> Pool:
    """A pool's pairs from its games' scores (the sample summaries: no game's events are read), its time and cost."""
    header = read_eval_log(path, header_only=True)
    assert header.stats.started_at and header.stats.completed_at
    seconds = (datetime.fromisoformat(header.stats.completed_at)
               - datetime.fromisoformat(header.stats.started_at)).total_seconds()
    summaries = read_eval_log_sample_summaries(path)
    scores = [s.scores["monitor_wolf_auroc"].metadata or {} for s in summaries if s.scores]
    counts = [m["counts"] for m in scores]
    lengths = logged_lengths(scores)
    if lengths is None:  # the eval widens a draw of one length; without lengths the figures would not
        raise SystemExit(f"{path}: a pool written before its games' lengths were logged (0.8.0); "
                         "delete its folder to play it again")
    matrices = {src: np.nan_to_num(np.array([[c[f"{src}_wolf_{k}"] for k in ("concordant", "ties", "pairs")]
                                             for c in counts], dtype=float)) for src in SOURCES}
    usage = []
    for s in summaries[:COSTED]:
        record = logged_record(read_eval_log_sample(path, s.id, s.epoch).store)
        usage.append({m: u.model_dump() for m, u in record.usage.items()})
    return Pool(matrices, lengths, float(seconds), usage)


def auroc(s: Any) -> Any:
    return MONITOR["monitor_wolf_auroc"].of_sums(s)


def own_scale(draw: np.ndarray, seed: int) -> tuple[float, float]:
    """The same symmetric studentized interval drawn on the AUROC's own scale and cut to [0, 1] (0.5's), for the
    width and coverage the logit scale is weighed against."""
    return coverage_benchmark.own_scale(draw, coverage_benchmark.Figure("monitor_wolf_auroc", draw, auroc), seed)


def draws(games: int, samples: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``samples`` draws of :data:`SIZE` distinct games of a pool of ``games`` (a game drawn twice would be a
    sample no eval plays)."""
    return [rng.choice(games, SIZE, replace=False) for _ in range(samples)]


@dataclass(frozen=True)
class Coverage:
    """Of the 10-game draws with an interval (``drawn``): the shares whose interval holds the known truth, lies
    above it and lies below it, the share that holds the pool's own figure, the mean width, and the truth's coverage
    and the mean width on the AUROC's own scale."""

    truth: float
    above: float
    below: float
    pooled: float
    width: float
    drawn: int
    own: float
    own_width: float


def drawn_lengths(lengths: list[Length], games: np.ndarray) -> list[Length]:
    return [lengths[g] for g in games]


def coverage(matrix: np.ndarray, lengths: list[Length], truth: float, pooled: float,
             picks: list[np.ndarray]) -> Coverage:
    """How often the intervals of the drawn games hold the truth and the pool's figure, and where they miss."""
    held, above, below, pool_held, own_held = 0, 0, 0, 0, 0
    widths, own_widths = [], []
    for i, games in enumerate(picks):
        draw = matrix[games]
        iv = figure_interval(draw, auroc, seed_of("monitor", i), lengths=drawn_lengths(lengths, games))
        if math.isnan(iv.low):
            continue
        widths.append(iv.high - iv.low)
        held += iv.low <= truth <= iv.high
        above += truth < iv.low
        below += iv.high < truth
        pool_held += iv.low <= pooled <= iv.high
        low, high = own_scale(draw, seed_of("monitor", i))
        own_widths.append(high - low)
        own_held += low <= truth <= high
    n = max(1, len(widths))
    return Coverage(held / n, above / n, below / n, pool_held / n, float(np.mean(widths)) if widths else math.nan,
                    len(widths), own_held / n, float(np.mean(own_widths)) if own_widths else math.nan)


def by_catches(leak: float, p: Pool, picks: list[np.ndarray]) -> list[str]:
    """One leak's rows of the coverage by how many of a draw's games hold a catch (a wolf-day whose confession the
    monitor read: a concordant pair): where one or two games hold every catch, the figure moves only by them."""
    truth, matrix = (1 + leak) / 2, p.matrices["reasoning"]
    tally: dict[int, list[float]] = {}
    for i, games in enumerate(picks):
        iv = figure_interval(matrix[games], auroc, seed_of("monitor", i), lengths=drawn_lengths(p.lengths, games))
        if math.isnan(iv.low):
            continue
        cell = tally.setdefault(min(int((matrix[games, 0] > 0).sum()), 3), [0, 0, 0.0])
        cell[0] += 1
        cell[1] += not iv.low <= truth <= iv.high
        cell[2] += iv.high - iv.low
    return [f"| {leak:g} | {k}{'+' if k == 3 else ''} | {n:.0f} | {miss:.0f} | {width / n:.3f} |"
            for k, (n, miss, width) in sorted(tally.items())]


def above_zero(both: np.ndarray, lengths: list[Length], picks: list[np.ndarray]) -> float:
    """The share of 10-game draws whose interval of reasoning minus speech lies above 0."""
    figure = MONITOR["reasoning_over_speech"]
    above = sum(figure_interval(both[games], figure.of_sums, seed_of("gain", i), bounds=figure.bounds,
                                lengths=drawn_lengths(lengths, games)).low > 0 for i, games in enumerate(picks))
    return above / len(picks)


def per_game(usage: list[dict[str, Any]], monitor: bool) -> tuple[float, float]:
    """Calls and tokens per game, of the monitor or of the seats."""
    rows = [(m, u) for game in usage for m, u in game.items() if (m == "wolfbot/monitor") == monitor]
    calls = sum(u["calls"] for _, u in rows)
    tokens = sum(cost.tokens(cost.model_cost(m, u)) for m, u in rows)
    return calls / len(usage), tokens / len(usage)


def coverage_row(leak: float, p: Pool, picks: list[np.ndarray]) -> str:
    """One leak's row of the coverage table."""
    truth, matrix = (1 + leak) / 2, p.matrices["reasoning"]
    pooled = float(auroc(matrix.sum(axis=0)))
    se = jackknife_se(matrix, auroc)
    c = coverage(matrix, p.lengths, truth, pooled, picks)
    return (f"| {leak:g} | {truth:.3f} | {len(matrix)} | {pooled:.3f} ({se:.3f}) | {(pooled - truth) / se:+.1f} "
            f"| **{c.truth:.3f}** | {c.above:.3f} / {c.below:.3f} | {c.pooled:.3f} | {c.width:.3f} | {c.drawn} "
            f"| {c.own:.3f} | {c.own_width:.3f} |")


def speech_row(leak: float, p: Pool, picks: list[np.ndarray]) -> str:
    """One leak's row of the reasoning-against-speech table, the pool's reasoning AUROC beside the truth over its
    short games and its long ones: those with the median game's pairs or fewer (most end on day 1), and the rest."""
    matrices = p.matrices
    reasoning = matrices["reasoning"]
    short = reasoning[:, 2] <= np.median(reasoning[:, 2])
    shorter, longer = reasoning[short], reasoning[~short]
    both = np.hstack([reasoning, matrices["speech"]])
    gain = MONITOR["reasoning_over_speech"].of_sums(both.sum(axis=0))
    halves = " | ".join(f"{auroc(half.sum(axis=0)):.3f} ({half[:, 2].mean():.0f})" for half in (shorter, longer))
    return (f"| {leak:g} | {(1 + leak) / 2:.3f} | {halves} | {auroc(matrices['speech'].sum(axis=0)):.3f} "
            f"| {gain:+.3f} | {above_zero(both, p.lengths, picks):.3f} |")


def main() -> None:
    started = time.perf_counter()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=600, help="games per pool")
    parser.add_argument("--samples", type=int, default=1000, help="10-game draws per pool")
    parser.add_argument("--leaks", type=float, nargs="+", default=list(LEAKS))
    parser.add_argument("--log-dir", type=Path, default=Path("logs/monitor"))
    args = parser.parse_args()
    if args.games < 2 * SIZE:
        raise SystemExit(f"--games {args.games}: a pool needs at least {2 * SIZE} games to draw {SIZE} distinct ones")
    pools = {leak: pool(play(leak, args.games, args.log_dir)) for leak in args.leaks}
    picks = {leak: draws(args.games, args.samples, np.random.default_rng(seed_of("draws", leak)))
             for leak in args.leaks}
    print(f"| leak | truth | pool's games | pool's figure (se) | pool − truth, in se | coverage at {SIZE} games, of "
          "the truth | interval above / below the truth | of the pool's figure | mean width | draws | own scale: "
          "coverage of the truth | own scale: mean width |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for leak, p in pools.items():
        print(coverage_row(leak, p, picks[leak]), flush=True)
    print("\n| leak | a draw's games with a catch | draws | intervals missing the truth | mean width |")
    print("|---|---|---|---|---|")
    for leak, p in pools.items():
        print("\n".join(by_catches(leak, p, picks[leak])), flush=True)
    print("\n| leak | truth | reasoning AUROC (pool), games of the median's pairs or fewer (their pairs a game) "
          "| the longer games | speech AUROC (pool) | reasoning − speech (pool) "
          "| draws whose interval of it is above 0 |")
    print("|---|---|---|---|---|---|---|")
    for leak, p in pools.items():
        print(speech_row(leak, p, picks[leak]), flush=True)
    usage = [u for p in pools.values() for u in p.usage]
    m_calls, m_tokens = per_game(usage, monitor=True)
    s_calls, s_tokens = per_game(usage, monitor=False)
    games = sum(len(p.matrices["reasoning"]) for p in pools.values())
    seconds = sum(p.seconds for p in pools.values())
    print(f"\nPlaying: {games} games in {seconds:.0f} s, {seconds / games:.2f} s a game (the logs' own times). Per "
          f"game (the first {COSTED} of each pool; monitor=both: three readings per seat and day): the monitor "
          f"{m_calls:.1f} calls, {m_tokens:,.0f} tokens; the seats {s_calls:.1f} calls, {s_tokens:,.0f} tokens.")
    print(f"This run: {time.perf_counter() - started:.0f} s.")


if __name__ == "__main__":
    main()
