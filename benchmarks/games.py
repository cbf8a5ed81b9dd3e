"""Play games on the offline baselines and print what a run costs and who wins.

    python benchmarks/games.py --tasks triadic --models wolfbot/cue --games 10
    python benchmarks/games.py --tasks triadic,dyadic --models wolfbot/cue,wolfbot/tom --games 20

Per cell (task x model): wall time, model calls, calls per game, tokens, log size,
and each faction's win rate with its Wilson 95% interval.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from harness import FACTIONS, add_task_args, game_counts, play, task_args, winner

from wolf_eval.stats import wilson


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", default="triadic")
    ap.add_argument("--models", default="wolfbot/cue")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-samples", type=int, default=None, help="games played at once (Inspect's default if unset)")
    add_task_args(ap)
    args = ap.parse_args()
    extra = task_args(args.T)

    print("| task | model | games | wall s | s/game | calls | calls/game | tokens/game | log KB/game |"
          + "".join(f" {f} (95% CI) |" for f in FACTIONS))
    print("|" + "---|" * (9 + len(FACTIONS)))
    with tempfile.TemporaryDirectory() as tmp:
        for task in args.tasks.split(","):
            for model in args.models.split(","):
                log_dir = Path(tmp) / f"{task}-{model.replace('/', '_')}"
                log, wall = play(task, log_dir, f"{task} on {model}", model=model, max_samples=args.max_samples,
                                 task_args={"games": args.games, "seed": args.seed, **extra})
                values = game_counts(log)
                winners = [winner(v) for v in values]
                calls = sum(v["calls"] for v in values)
                tokens = sum(u.total_tokens for u in log.stats.model_usage.values())
                size = sum(p.stat().st_size for p in log_dir.glob("*.eval")) / 1024
                n = len(values)
                cells = []
                for f in FACTIONS:
                    if f == "jester" and all(v["jester"] != v["jester"] for v in values):
                        cells.append(" n/a |")
                        continue
                    rate, lo, hi = wilson(winners.count(f), n)
                    cells.append(f" {rate:.2f} ({lo:.2f}-{hi:.2f}) |")
                print(f"| {task} | {model} | {n} | {wall:.1f} | {wall / n:.2f} | {calls:.0f} | {calls / n:.0f} |"
                      f" {tokens / n:,.0f} | {size / n:.0f} |" + "".join(cells), flush=True)


if __name__ == "__main__":
    main()
