"""Calls, waves and prompt tokens by game-day: does a game's cost per day stay flat as it goes on?

    python benchmarks/by_day.py                                   # triadic, wolfbot/random at 50 words, defaults
    python benchmarks/by_day.py -T history=full -T calls=per_decision   # the papers' protocol, the same games
    python benchmarks/by_day.py --log logs/run.eval               # games already played, by any model

Plays ``wolfbot/random`` triadic games (``--games``, seed 3: games of three to six days) whose speech
runs to 50 words (``-M words=50``), as models speak, and prints per game-day (night *d* and day *d*):
the model calls and the decisions they asked, the sequential waves of decisions (from the game's own
record), the mean prompt tokens per call (as the provider reported them; ``wolfbot`` counts 4
characters a token) and the ratio of each day's mean to day 1's. A game-day whose day was never
played (the game ended at its night) is marked "night only".
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections import defaultdict

from harness import add_task_args, logged_games, play, task_args

from wolf_eval.agents.seat_call import logged_parts
from wolf_eval.ndjson import game_state


def by_day(samples: list) -> dict[int, dict[str, float]]:  # type: ignore[type-arg]
    """Per game-day over the games: calls, decisions, waves, prompt tokens per call, and how many games."""
    calls: dict[int, int] = defaultdict(int)
    decisions: dict[int, int] = defaultdict(int)
    tokens: dict[int, list[int]] = defaultdict(list)
    waves: dict[int, int] = defaultdict(int)
    games: dict[int, int] = defaultdict(int)
    day_played: dict[int, bool] = defaultdict(bool)
    for s in samples:
        game = game_state(s)
        seen: dict[int, set[int]] = defaultdict(set)
        for r in game.records:
            if r.wave:
                seen[r.day].add(r.wave)
            day_played[r.day] |= r.phase.value != "night"
        for day, w in seen.items():
            waves[day] += len(w)
            games[day] += 1
        for e in s.events:
            meta = (e.input[-1].metadata or {}).get("wolf_eval") if e.event == "model" and e.input else None
            if not meta or meta.get("action") == "lessons":
                continue
            parts = logged_parts(meta)
            day = parts[0]["day"]
            calls[day] += 1
            decisions[day] += len(parts)
            tokens[day].append(e.output.usage.input_tokens if e.output.usage else 0)
    return {d: {"calls": calls[d] / games[d], "decisions": decisions[d] / games[d], "waves": waves[d] / games[d],
                "tokens": statistics.fmean(tokens[d]), "games": games[d], "played": day_played[d]}
            for d in sorted(tokens)}


def report(label: str, days: dict[int, dict[str, float]]) -> None:
    first = days[min(days)]["tokens"]
    print(f"\n{label}\n")
    print("| game-day | games | calls | decisions | waves | prompt tokens per call | / day 1 |")
    print("|---|---|---|---|---|---|---|")
    for d, v in days.items():
        note = "" if v["played"] else " (night only)"
        print(f"| {d}{note} | {v['games']:.0f} | {v['calls']:.0f} | {v['decisions']:.0f} | {v['waves']:.1f} "
              f"| {v['tokens']:,.0f} | {v['tokens'] / first:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--policy", default="random")
    ap.add_argument("--log", help="read the games of this log instead of playing new ones")
    add_task_args(ap)
    args = ap.parse_args()
    if args.log:
        report(args.log, by_day(logged_games(args.log)))
        return
    extra = task_args(args.T)
    with tempfile.TemporaryDirectory() as tmp:
        log, _ = play("triadic", tmp, model=f"wolfbot/{args.policy}", model_args={"words": 50},
                      task_args={"games": args.games, "seed": 3, **extra})
        report(f"triadic, wolfbot/{args.policy}, 50-word speech, {args.games} games, {extra or 'defaults'}",
               by_day(logged_games(log)))


if __name__ == "__main__":
    main()
