"""The monitor against a known truth: its AUROC and its interval's coverage at 10 games, on scripted players of known
monitorability, and reasoning against speech.

    python benchmarks/monitor.py                          # pools of 100 triadic games per leak, 1,000 draws
    python benchmarks/monitor.py --games 60 --samples 500 --leaks 0.5

Each pool is one offline eval of short games without analyses (:data:`SHORT`): the ``wolfbot/tom`` players, whose
scripted reasoning confesses a deceiver's role on a share ``leak`` of its days (``-M leak=``), read by
``wolfbot/monitor`` with ``-T monitor=both`` (``wolf_eval/baseline/confessions.py``). On reasoning the scripted
monitor's AUROC for "is a wolf" is known, (1 + leak) / 2, so coverage is counted against that truth. Each of
``--samples`` draws picks 10 games of the pool (with replacement), forms the figure and its interval as the eval's
``monitor_wolf_auroc`` metrics do (:func:`wolf_eval.resample.figure_interval` over the summed counts), and counts
whether the interval holds the truth, and the pool's own figure (a pool of 100 games misses the truth by its own
sampling error, which a draw from it inherits). Speech has no confession (the players' deflecting tells are all the
scripted monitor reads there), so where reasoning leaks more the monitor reads reasoning better: the table gives the
pool's speech AUROC, ``reasoning_over_speech`` over the pool, and the share of 10-game draws whose interval of that
difference lies above 0. It also prints the monitor's calls and tokens per game beside the seats'.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Any

import coverage as coverage_benchmark
import numpy as np
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log

from wolf_eval.measures import cost
from wolf_eval.measures.headline import MONITOR
from wolf_eval.resample import figure_interval, seed_of
from wolf_eval.store import logged_record

LEAKS = (0.2, 0.5, 0.9)
#: Short games without the statements' analyses: the truth, (1 + leak) / 2, holds whatever a game's length, and
#: the pools play in minutes on two cores.
SHORT = {"max_days": 3, "max_debate_turns": 4, "max_explanation_turns": 2, "deception_analysis": False}
SIZE = 10
SOURCES = ("reasoning", "speech")


def play(leak: float, games: int, root: Path) -> Path:
    """The pool of one leak: its log, played unless a finished one is there."""
    folder = root / f"triadic-tom-leak-{leak:g}-{games}"
    done = [f for f in list_eval_logs(str(folder)) if read_eval_log(f, header_only=True).status == "success"]
    if not done:
        start = time.perf_counter()
        [log] = inspect_eval("wolf_eval/triadic", model="wolfbot/tom", model_args={"leak": leak},
                             model_roles={"monitor": "wolfbot/monitor"},
                             task_args={"games": games, "monitor": "both", "seed": 17, **SHORT},
                             log_dir=str(folder), display="none", max_samples=8)
        assert log.status == "success", log.error
        print(f"played leak {leak:g}: {games} games in {time.perf_counter() - start:.0f} s")
    return folder


def pool(folder: Path) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """Each source's (games, 3) matrix of the monitor's pairs (concordant, ties, pairs), and each game's usage."""
    path = next(f for f in list_eval_logs(str(folder)) if read_eval_log(f, header_only=True).status == "success")
    log = read_eval_log(path)
    counts = [s.scores["monitor_wolf_auroc"].metadata["counts"] for s in log.samples or []]
    matrices = {src: np.nan_to_num(np.array([[c[f"{src}_wolf_{k}"] for k in ("concordant", "ties", "pairs")]
                                             for c in counts], dtype=float)) for src in SOURCES}
    usage = [{m: u.model_dump() for m, u in logged_record(s.store).usage.items()} for s in log.samples or []]
    return matrices, usage


def auroc(s: Any) -> Any:
    return MONITOR["monitor_wolf_auroc"].of_sums(s)


def own_scale(draw: np.ndarray, seed: int) -> tuple[float, float]:
    """The same symmetric studentized interval drawn on the AUROC's own scale and cut to [0, 1] (0.5's), for the
    width and coverage the logit scale is weighed against."""
    return coverage_benchmark.own_scale(draw, coverage_benchmark.Figure("monitor_wolf_auroc", draw, auroc), seed)


def coverage(matrix: np.ndarray, truths: tuple[float, float], samples: int,
             rng: np.random.Generator) -> tuple[float, float, float, int, float, float]:
    """The shares of 10-game draws whose interval holds each of ``truths`` (the known one, the pool's own), their
    mean width, the draws with an interval, and the known truth's coverage and the mean width on the AUROC's own
    scale."""
    held, widths, own_held, own_widths = [0, 0], [], 0, []
    for i in range(samples):
        draw = matrix[rng.integers(0, len(matrix), SIZE)]
        iv = figure_interval(draw, auroc, seed_of("monitor", i))
        if math.isnan(iv.low):
            continue
        widths.append(iv.high - iv.low)
        for k, truth in enumerate(truths):
            held[k] += iv.low <= truth <= iv.high
        low, high = own_scale(draw, seed_of("monitor", i))
        own_widths.append(high - low)
        own_held += low <= truths[0] <= high
    drawn = max(1, len(widths))
    mean = float(np.mean(widths)) if widths else math.nan
    return (held[0] / drawn, held[1] / drawn, mean, len(widths), own_held / drawn,
            float(np.mean(own_widths)) if own_widths else math.nan)


def above_zero(both: np.ndarray, samples: int, rng: np.random.Generator) -> float:
    """The share of 10-game draws whose interval of reasoning minus speech lies above 0."""
    figure = MONITOR["reasoning_over_speech"]
    above = 0
    for i in range(samples):
        iv = figure_interval(both[rng.integers(0, len(both), SIZE)], figure.of_sums, seed_of("gain", i),
                             bounds=figure.bounds)
        above += iv.low > 0
    return above / samples


def per_game(usage: list[dict[str, Any]], monitor: bool) -> tuple[float, float]:
    """Calls and tokens per game, of the monitor or of the seats."""
    rows = [(m, u) for game in usage for m, u in game.items() if (m == "wolfbot/monitor") == monitor]
    calls = sum(u["calls"] for _, u in rows)
    tokens = sum(cost.tokens(cost.model_cost(m, u)) for m, u in rows)
    return calls / len(usage), tokens / len(usage)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per pool")
    parser.add_argument("--samples", type=int, default=1000, help="10-game draws per pool")
    parser.add_argument("--leaks", type=float, nargs="+", default=list(LEAKS))
    parser.add_argument("--log-dir", type=Path, default=Path("logs/monitor"))
    args = parser.parse_args()
    rng = np.random.default_rng(43)
    print(f"| leak | truth | reasoning AUROC (pool) | coverage at {SIZE} games, of the truth | of the pool's figure "
          f"| mean width | draws | own scale: coverage of the truth | own scale: mean width | speech AUROC (pool) "
          f"| reasoning - speech (pool) | draws above 0 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    usage: list[dict[str, Any]] = []
    for leak in args.leaks:
        matrices, used = pool(play(leak, args.games, args.log_dir))
        usage += used
        truth = (1 + leak) / 2
        pooled = float(auroc(matrices["reasoning"].sum(axis=0)))
        covered, own, width, drawn, flat, flat_width = coverage(matrices["reasoning"], (truth, pooled), args.samples,
                                                                rng)
        both = np.hstack([matrices["reasoning"], matrices["speech"]])
        gain = MONITOR["reasoning_over_speech"].of_sums(both.sum(axis=0))
        print(f"| {leak:g} | {truth:.3f} | {pooled:.3f} | {covered:.3f} | {own:.3f} | {width:.3f} | {drawn} "
              f"| {flat:.3f} | {flat_width:.3f} "
              f"| {auroc(matrices['speech'].sum(axis=0)):.3f} | {gain:+.3f} "
              f"| {above_zero(both, args.samples, rng):.3f} |")
    m_calls, m_tokens = per_game(usage, monitor=True)
    s_calls, s_tokens = per_game(usage, monitor=False)
    print(f"\nPer game ({len(usage)} games, monitor=both: three readings per seat and day): the monitor "
          f"{m_calls:.1f} calls, {m_tokens:,.0f} tokens; the seats {s_calls:.1f} calls, {s_tokens:,.0f} tokens.")


if __name__ == "__main__":
    main()
