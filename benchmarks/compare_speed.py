"""How long the README's offline comparison takes: the median of several runs, wall time and CPU time.

    python benchmarks/compare_speed.py                # the README's recipe, 3 runs
    python benchmarks/compare_speed.py --runs 1 --max-games 10

Runs the README's offline recipe (``wolf-eval compare wolfbot/cue wolfbot/faction --task triadic
--sequential -T games=10 -T seed=100 -T max_debate_turns=3 -T max_explanation_turns=2 --max-games 40``)
``--runs`` times, each in a fresh folder and a fresh process, and prints per run its games, wall seconds
and CPU seconds (user + system, of the command and everything it started), then the median of each.

Wall time is what a user waits on an idle machine; on a machine other work is loading, it grows with
that load while the CPU time does not, so the CPU time is the figure to compare between machines and
runs: the command plays its games in one process, so on an idle machine its wall time is about its CPU
time.
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The README's offline recipe, but its folder and cap.
RECIPE = ["compare", "wolfbot/cue", "wolfbot/faction", "--task", "triadic", "--sequential", "-T", "games=10",
          "-T", "seed=100", "-T", "max_debate_turns=3", "-T", "max_explanation_turns=2", "--display", "none"]


def run_once(folder: Path, max_games: int) -> tuple[int, float, float]:
    """One run of the recipe in ``folder``: its games, wall seconds and CPU seconds (the child's user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "wolf_eval.cli", *RECIPE, "--max-games", str(max_games),
                           "--log-dir", str(folder)], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"the recipe failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
    found = re.search(r"^(\d+) games; tables:", done.stdout, re.M)
    games = int(found[1]) if found else 0
    return games, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs of the recipe (default 3)")
    parser.add_argument("--max-games", type=int, default=40, help="the recipe's --max-games (default 40, as the "
                                                                  "README)")
    args = parser.parse_args()
    rows = []
    for k in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="compare-speed-") as tmp:
            games, wall, cpu = run_once(Path(tmp) / "compare", args.max_games)
        rows.append((games, wall, cpu))
        print(f"run {k}: {games} games, wall {wall:.0f} s, CPU {cpu:.0f} s (user + system), "
              f"{cpu / max(games, 1):.2f} CPU s a game", flush=True)
    wall, cpu = statistics.median(r[1] for r in rows), statistics.median(r[2] for r in rows)
    print(f"median of {len(rows)}: wall {wall:.0f} s ({wall / 60:.1f} min), CPU {cpu:.0f} s ({cpu / 60:.1f} min)")


if __name__ == "__main__":
    main()
