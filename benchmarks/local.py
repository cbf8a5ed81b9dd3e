"""Play games with a real local model (llamacpp) and print what they cost and what it gets wrong.

    python benchmarks/local.py --games 2
    python benchmarks/local.py --games 1 -T max_days=2 -T deception_analysis=true
    python benchmarks/local.py -T max_days=1 -T max_debate_turns=2 -T max_explanation_turns=1 --threads 1

Needs the ``local`` extra (see the README). Prints per game: wall time and the process's CPU time (llama.cpp's
threads included: on a shared machine the CPU time is the figure that compares), model calls, prompt and
generated tokens, the replies cut at ``max_tokens``, generation speed, and the fallback rate per action
(fallbacks over the decisions of that action), plus the commonest fallback reasons. ``--threads`` sets
llama.cpp's threads (``-M n_threads``; default: every core).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter

from harness import add_task_args, logged_games, play, task_args

from wolf_eval.ndjson import game_state
from wolf_eval.records import Bids, Deception, FallbackNote, Kind

DEFAULTS = {"max_days": 2, "max_debate_turns": 4, "max_explanation_turns": 2, "deception_analysis": False}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--model", default="llamacpp/smollm2")
    ap.add_argument("--task", default="triadic")
    ap.add_argument("--log-dir", default=None, help="keep the log here (default: a temporary folder)")
    ap.add_argument("--threads", type=int, default=None, help="llama.cpp's threads (default: every core)")
    add_task_args(ap)
    args = ap.parse_args()
    parameters = {**DEFAULTS, "games": args.games, **task_args(args.T)}
    with tempfile.TemporaryDirectory() as tmp:
        cpu = time.process_time()
        log, wall = play(args.task, args.log_dir or tmp, model=args.model, task_args=parameters,
                         model_args={"n_threads": args.threads} if args.threads else {})
        cpu = time.process_time() - cpu
        samples = logged_games(log)  # read whole before a temporary folder goes
    calls = prompt = generated = cut = 0
    decisions: Counter[str] = Counter()
    fallbacks: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for sample in samples:
        for e in sample.events:
            if e.event == "model" and e.output.usage:
                calls += 1
                prompt += e.output.usage.input_tokens
                generated += e.output.usage.output_tokens
                cut += e.output.stop_reason == "max_tokens"
        game = game_state(sample)
        for r in game.records:
            if isinstance(r.data, FallbackNote):
                fallbacks[r.data.action] += 1
                reasons[r.text.split(":")[0][:70] if r.text else "?"] += 1
        decisions.update(_decisions(game))
    n = len(samples)
    print(f"task {args.task}, {n} game(s) on {args.model}, parameters {parameters}")
    print(f"wall {wall:.0f} s ({wall / n:.0f} s per game), CPU {cpu:.0f} s; {calls} model calls ({calls / n:.0f} "
          f"per game), {cut} cut at max_tokens")
    # calls queue on the model's lock, so the wall time is the model's time; per-call working time includes the queue
    print(f"tokens: {prompt} prompt, {generated} generated; {generated / wall:.1f} generated and "
          f"{(prompt + generated) / wall:.0f} processed tokens per second of wall time; "
          f"{1000 * cpu / max(generated, 1):.1f} ms of CPU per generated token")
    print("fallback rate per action: " + ", ".join(
        f"{a} {fallbacks[a]}/{decisions[a]} = {fallbacks[a] / decisions[a]:.2f}"
        for a in sorted(decisions) if decisions[a]))
    print("commonest fallback reasons: " + "; ".join(f"{r} ({c})" for r, c in reasons.most_common(5)))


def _decisions(game) -> Counter[str]:  # type: ignore[no-untyped-def]
    """Decisions per action, from the records each one leaves (a fallback still leaves its action's record)."""
    actions = {Kind.VOTE: "vote", Kind.STATEMENT: "statement", Kind.DEFENCE: "defence", Kind.PROTECT: "protect",
               Kind.INVESTIGATE: "investigate", Kind.WOLF_PROPOSAL: "night_kill", Kind.PASS: "statement"}
    out: Counter[str] = Counter()
    for r in game.records:
        if isinstance(r.data, Bids):
            out["bid"] += len(r.data.bids)
        elif isinstance(r.data, Deception):
            out["self_analysis"] += 1
            out["peer_analysis"] += len(r.data.peers)
        elif r.kind in actions:
            out[actions[r.kind]] += 1
    return out


if __name__ == "__main__":
    main()
