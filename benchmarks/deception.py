"""Deception-protocol figures from wolfbot games: calls and waves per game-day, suspicion by role.

    python benchmarks/deception.py --task triadic --model wolfbot/cue --games 20

Prints, per game-day (a day and the night before it), the mean number of model calls, analysis
calls, waves and analysis waves (waves counted from the game's own record), then the mean peer
suspicion each speaker role attracts per statement, pooled over all statements of all games.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections import defaultdict

from harness import play

from wolf_eval.agents.seat_call import logged_parts
from wolf_eval.ndjson import game_state
from wolf_eval.records import Deception, Kind


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", default="triadic")
    ap.add_argument("--model", default="wolfbot/cue")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log, _ = play(args.task, tmp, model=args.model, task_args={"games": args.games, "seed": args.seed})
        samples = list(log.samples)  # read while the log file still exists

    per_day: dict[str, list[int]] = defaultdict(list)
    attracted: dict[str, list[float]] = defaultdict(list)
    flagged: dict[str, list[float]] = defaultdict(list)
    for sample in samples:
        game = game_state(sample)
        calls = defaultdict(lambda: defaultdict(int))
        for e in sample.events:
            if e.event == "model" and e.input and e.input[-1].metadata:
                parts = logged_parts(e.input[-1].metadata["wolf_eval"])
                kind = "analysis" if all(p["action"].endswith("_analysis") for p in parts) else "game"
                calls[parts[0]["day"]][kind] += 1
        waves = defaultdict(set)
        analysis_waves = defaultdict(set)
        for r in game.records:
            if r.wave:
                waves[r.day].add(r.wave)
                if r.kind is Kind.DECEPTION:
                    analysis_waves[r.day].add(r.wave)
            if isinstance(r.data, Deception):
                peers = [a for a in r.data.peers.values() if a is not None]
                if peers:
                    attracted[r.data.speaker_role].append(statistics.fmean(a.suspicion or 0.0 for a in peers))
                    flagged[r.data.speaker_role].append(statistics.fmean(a.is_deceptive for a in peers))
        for day in sorted(waves):
            per_day["calls"].append(calls[day]["game"] + calls[day]["analysis"])
            per_day["analysis calls"].append(calls[day]["analysis"])
            per_day["waves"].append(len(waves[day]))
            per_day["analysis waves"].append(len(analysis_waves[day]))

    print(f"{args.task} on {args.model}, {len(samples)} games, {len(per_day['calls'])} game-days")
    print("| per game-day | mean | min | max |\n|---|---|---|---|")
    for key, values in per_day.items():
        print(f"| {key} | {statistics.fmean(values):.1f} | {min(values)} | {max(values)} |")
    print("\n| speaker role | statements | mean peer suspicion attracted | share of peers flagging deception |")
    print("|---|---|---|---|")
    for role in sorted(attracted):
        print(f"| {role} | {len(attracted[role])} | {statistics.fmean(attracted[role]):.3f} |"
              f" {statistics.fmean(flagged[role]):.3f} |")


if __name__ == "__main__":
    main()
