"""Does a long game stay bounded? The largest prompt per day and the peak memory of a game capped at 10 days.

    python benchmarks/bounded.py
    python benchmarks/bounded.py --days 10 --history full,compact --debate 12
    python benchmarks/bounded.py --roles default --debate 2 --explanation 1   # the 10-seat triadic roster

Plays one triadic game that cannot end before its day cap: 16 seats with a single Werewolf
(`-T roles=villager:13,doctor:1,werewolf:1,jester:1`), every ballot split in a ring so nobody is
exiled, every statement and private note at its word limit. The players are a scripted model
(deterministic, no network). For each history setting it prints, per day, the calls and the
largest prompt in characters (about 4 characters a token), then the game's wall time, the peak
resident memory of its process, the sample's size in the log and the prompt characters of the
whole game (every statement at its word limit, as language models tend to speak: compare
``history=full`` with ``compact``).
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import zipfile
from collections import defaultdict
from random import Random

from harness import logged_games, play
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from wolf_eval.agents.seat_call import logged_parts
from wolf_eval.providers.wolfbot import answer

WORDS = ("quiet", "careful", "vote", "night", "doctor", "village", "trust", "doubt", "watch", "listen")


def stall(input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
    """Long speech, split ballots, valid analyses: a game that lasts to its cap (each decision of a
    joint call answered alone, then joined)."""
    content = answer(lambda obs, seed: json.dumps(stall_reply(obs, Random(seed))), input, config.seed)
    assert content is not None
    out = ModelOutput.from_content(model="stall", content=content)
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out


def stall_reply(obs, rng) -> dict:  # type: ignore[no-untyped-def,type-arg]
    """One decision's reply."""
    talk = " ".join(rng.choice(WORDS) for _ in range(obs.max_statement_words))
    note = " ".join(rng.choice(WORDS) for _ in range(80))
    if obs.action == "bid":
        reply = {"bid": rng.randint(1, 10), "notes": note}
    elif obs.action in ("statement", "defence"):
        reply = {"statement": f"{obs.seat}: {talk}"}
    elif obs.action == "vote":
        ring = list(obs.alive)
        reply = {"vote": ring[(ring.index(obs.seat) + 1) % len(ring)], "reason": talk}
    elif obs.action in ("night_kill", "protect", "investigate"):
        reply = {"target": rng.choice(list(obs.options)), "reason": talk}
    elif obs.action == "self_analysis":
        reply = {"is_deceptive": False, "confidence": 0.5, "deception_type": "none", "reasoning": talk}
    else:
        reply = {"is_deceptive": False, "confidence": 0.5, "deception_type": "none", "suspicion": rng.random(),
                 "reasoning": talk}
    return reply


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--days", type=int, default=10)
    ap.add_argument("--debate", type=int, default=12, help="max_debate_turns")
    ap.add_argument("--explanation", type=int, default=6, help="max_explanation_turns")
    ap.add_argument("--history", default="full,compact")
    ap.add_argument("--roles", default="villager:13,doctor:1,werewolf:1,jester:1",
                    help="the roster ('default' for the task's own, which can end before the cap)")
    ap.add_argument("--analysis", action=argparse.BooleanOptionalAction, default=True, help="deception analysis")
    args = ap.parse_args()
    histories = args.history.split(",")
    if len(histories) > 1:  # one process per setting, so each peak memory is that game's alone
        import subprocess
        import sys

        for history in histories:
            subprocess.run([sys.executable, __file__, f"--days={args.days}", f"--debate={args.debate}",
                            f"--explanation={args.explanation}", "--analysis" if args.analysis else "--no-analysis",
                            f"--roles={args.roles}",
                            f"--history={history}"], check=True)
        return
    for history in histories:
        task_args = {"games": 1, "max_days": args.days, "max_debate_turns": args.debate,
                     "max_explanation_turns": args.explanation,
                     "roles": None if args.roles == "default" else args.roles,
                     "deception_analysis": args.analysis, "history": history}
        with tempfile.TemporaryDirectory() as tmp:
            log, wall = play("triadic", tmp, model=get_model("mockllm/model", custom_outputs=stall, memoize=False),
                             task_args=task_args)
            with zipfile.ZipFile(log.location) as z:
                kb = sum(i.compress_size for i in z.infolist() if i.filename.startswith("samples/")) / 1024
            [sample] = logged_games(log)
        calls: dict[int, int] = defaultdict(int)
        largest: dict[int, int] = defaultdict(int)
        total = 0
        for e in sample.events:
            if e.event == "model":
                meta = e.input[-1].metadata["wolf_eval"]
                day = logged_parts(meta)[0]["day"]
                size = sum(len(m.text) for m in e.input)
                calls[day] += 1
                largest[day] = max(largest[day], size)
                total += size
        outcome = sample.scores["village_win"].metadata["values"]["outcome"]
        print(f"\nhistory={history}: {sum(calls.values())} calls over {int(outcome['days'])} days "
              f"({'draw at the cap' if outcome['draw'] == 1 else 'decided'}), wall {wall:.0f} s, "
              f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB, "
              f"log {kb:.0f} KB, prompt characters in all {total:,} (about {total // 4:,} tokens)")
        print("| day | calls | largest prompt (chars) |")
        print("|---|---|---|")
        for day in sorted(calls):
            print(f"| {day} | {calls[day]} | {largest[day]:,} |")


if __name__ == "__main__":
    main()
