"""Memory per game in flight: the peak resident memory of a run of N concurrent games, against one game.

    python benchmarks/memory.py                       # 5-day triadic games, the task's roster and defaults
    python benchmarks/memory.py --games 1,8 -T history=full -T calls=per_decision

Each run is a process of its own (so each peak is that run's alone): N games of the task's own triadic
roster played at once (``--max-samples N``) by ``benchmarks/bounded.py``'s scripted players, which split
every ballot so that nobody is exiled and speak every statement and note at its word limit, so every
game lasts to its day cap (``--days``, default 5). Memory per game in flight is the difference of the
two runs' peaks over the difference of their games; the first run's peak is the process with one game.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile

from bounded import stall
from harness import add_task_args, play, task_args
from inspect_ai.model import get_model


def one_run(games: int, days: int, extra: dict[str, object]) -> None:
    args = {"games": games, "max_days": days, **extra}
    with tempfile.TemporaryDirectory() as tmp:
        log, wall = play("triadic", tmp, model=get_model("mockllm/model", custom_outputs=stall, memoize=False),
                         task_args=args, max_samples=games)
    print(json.dumps({"games": games, "wall": wall, "peak_mb": peak_mb()}))


def peak_mb() -> float:
    """This process's peak resident memory in MB: Linux's ``VmHWM``, else ``ru_maxrss``.

    On Linux ``ru_maxrss`` keeps the high-water mark of the process that started this one (it survives
    ``fork`` and ``exec``), so a run started by a larger process would report that process's peak.
    """
    try:
        status = open("/proc/self/status", encoding="utf-8").read()
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default="1,6", help="games in flight in each run, comma-separated")
    ap.add_argument("--days", type=int, default=5)
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    add_task_args(ap)
    args = ap.parse_args()
    extra = task_args(args.T)
    if args.one is not None:
        one_run(args.one, args.days, extra)
        return
    runs = []
    for n in (int(g) for g in args.games.split(",")):
        out = subprocess.run([sys.executable, __file__, f"--one={n}", f"--days={args.days}",
                              *(f"-T{t}" for t in args.T)], check=True, capture_output=True, text=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(f"{n} games of {args.days} days at once ({extra or 'defaults'}): peak {runs[-1]['peak_mb']:.0f} MB, "
              f"wall {runs[-1]['wall']:.0f} s")
    (a, b) = runs[0], runs[-1]
    if b["games"] > a["games"]:
        print(f"memory per game in flight: {(b['peak_mb'] - a['peak_mb']) / (b['games'] - a['games']):.1f} MB")


if __name__ == "__main__":
    main()
