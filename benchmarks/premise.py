"""The triadic premise on the offline baselines: can a village that weighs the factions' aims beat the Jester?

    python benchmarks/premise.py                       # 400 games per configuration, logs in a temp folder
    python benchmarks/premise.py --games 40 --log-dir /tmp/premise --configs faction --analysis off

Configurations (each played with deception analysis on and off):

- ``cue``: every seat ``wolfbot/cue``, the suspicion-following village the Triadic paper predicts loses;
- ``tom``: every seat ``wolfbot/tom``;
- ``faction``: the village seats (Villagers, Doctor) ``wolfbot/faction`` against the ``wolfbot/tom``
  Jester and wolves (``--model-role jester=wolfbot/tom --model-role werewolf=wolfbot/tom``).

Each game runs through Inspect's eval API, one log per configuration under the log folder (printed
first, and kept: ``wolf-eval report`` reads it). Per configuration the table gives the games, each
faction's win rate with its Wilson 95% interval, and the games played per second of wall time.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from harness import game_counts, play, winner

from wolf_eval.stats import wilson

#: Configuration name -> (the eval's model, the models bound to game roles).
CONFIGS: dict[str, tuple[str, dict[str, str]]] = {
    "cue": ("wolfbot/cue", {}),
    "tom": ("wolfbot/tom", {}),
    "faction": ("wolfbot/faction", {"jester": "wolfbot/tom", "werewolf": "wolfbot/tom"}),
}


def cell(wins: int, n: int) -> str:
    rate, lo, hi = wilson(wins, n)
    return f"{rate:.3f} ({lo:.3f}-{hi:.3f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=400, help="games per configuration and analysis setting")
    ap.add_argument("--seed", type=int, default=0, help="the task seed (each game's seed derives from it)")
    ap.add_argument("--configs", default=",".join(CONFIGS), help=f"comma-separated, of: {', '.join(CONFIGS)}")
    ap.add_argument("--analysis", default="on,off", help="deception analysis settings to play: on, off, on,off or both")
    ap.add_argument("--log-dir", default=None, help="where the logs go (default: a new temporary folder, kept)")
    ap.add_argument("--max-samples", type=int, default=None, help="games played at once (Inspect's default if unset)")
    args = ap.parse_args()
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in configs if c not in CONFIGS]
    settings = [a.strip() for a in args.analysis.split(",") if a.strip()]
    settings = ["on", "off"] if settings == ["both"] else settings
    if unknown or not set(settings) <= {"on", "off"}:
        raise SystemExit(f"unknown configuration {unknown} or analysis setting {settings}")
    root = Path(args.log_dir) if args.log_dir else Path(tempfile.mkdtemp(prefix="premise-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"log directory: {root}")
    print(f"triadic, {args.games} games per row, task seed {args.seed}\n")
    print("| configuration | village seats | Jester, wolves | analysis | games |"
          " village (95% CI) | wolves (95% CI) | Jester (95% CI) | draws | games/s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in configs:
        model, roles = CONFIGS[name]
        for setting in settings:
            log_dir = root / f"{name}-analysis-{setting}"
            log, wall = play("triadic", log_dir, f"{name}, analysis {setting}", model=model,
                             model_roles=roles or None, max_samples=args.max_samples,
                             task_args={"games": args.games, "seed": args.seed, "deception_analysis": setting == "on"})
            won = [winner(c) for c in game_counts(log)]
            n = len(won)
            against = roles.get("jester", model)
            print(f"| {name} | {model} | {against}, {roles.get('werewolf', model)} | {setting} | {n} |"
                  f" {cell(won.count('villagers'), n)} | {cell(won.count('werewolves'), n)} |"
                  f" {cell(won.count('jester'), n)} | {won.count('draw')} | {n / wall:.2f} |", flush=True)
    print(f"\nlogs: {root}  (wolf-eval report {root})")


if __name__ == "__main__":
    main()
