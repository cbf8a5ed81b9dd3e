"""Play games on the offline baselines and print what a run costs and who wins.

    python benchmarks/games.py --tasks triadic --models wolfbot/cue --games 10
    python benchmarks/games.py --tasks triadic,dyadic --models wolfbot/cue,wolfbot/tom --games 20

Per cell (task x model): wall time, model calls, calls per game, tokens, log size,
and each faction's win rate with its Wilson 95% interval.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import yaml
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log_sample_summaries

from wolf_eval.stats import wilson

FACTIONS = ("villagers", "werewolves", "jester", "draw")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", default="triadic")
    ap.add_argument("--models", default="wolfbot/cue")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-samples", type=int, default=None, help="games played at once (Inspect's default if unset)")
    ap.add_argument("-T", action="append", default=[], metavar="KEY=VALUE", help="extra task parameter")
    args = ap.parse_args()
    extra = {k: yaml.safe_load(v) for k, v in (kv.split("=", 1) for kv in args.T)}  # as inspect eval -T

    print("| task | model | games | wall s | s/game | calls | calls/game | tokens/game | log KB/game |"
          + "".join(f" {f} (95% CI) |" for f in FACTIONS))
    print("|" + "---|" * (9 + len(FACTIONS)))
    with tempfile.TemporaryDirectory() as tmp:
        for task in args.tasks.split(","):
            for model in args.models.split(","):
                log_dir = Path(tmp) / f"{task}-{model.replace('/', '_')}"
                start = time.perf_counter()
                [log] = inspect_eval(f"wolf_eval/{task}", model=model, log_dir=str(log_dir), display="none",
                                     task_args={"games": args.games, "seed": args.seed, **extra},
                                     max_samples=args.max_samples)
                wall = time.perf_counter() - start
                if log.status != "success":
                    raise SystemExit(f"{task} on {model}: eval {log.status}: {log.error}")
                values = [s.scores["village_win"].metadata["counts"]  # summaries: never every game's events
                          for s in read_eval_log_sample_summaries(log.location)]
                winners = [next(f for f in FACTIONS if v[f] == 1.0) for v in values]
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
