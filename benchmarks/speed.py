"""What a game costs at API speed: calls, sequential waves, wall time, tokens, log size, prompt-cache reuse.

    python benchmarks/speed.py --task wolf --games 3 --latency 0,1 -T max_debate_turns=6
    python benchmarks/speed.py --task triadic --games 3 --latency 0,1 --history full,compact --concurrent 3
    python benchmarks/speed.py --task triadic --games 3 --latency 0 --history full,compact --words 0,20,50

Plays ``wolfbot`` games whose every call waits ``--latency`` seconds (``-M latency``, an
asynchronous sleep, so a wave's calls overlap as they would against an API). ``--words N`` has the
bots speak N words a statement (``-M words``; vote reasons at most 20), as models do, where their own
lines are five to ten words: the games are the same games, decision for decision, so only the
tokens change. For each latency, length and history it plays the games one at a time and prints one
row per game:

- calls, and calls by action;
- waves: the game's sequential waves of model calls, counted from its own record (``GameState.waves``),
  and waves per game-day;
- wall seconds, and wall / (waves x latency): 1.00 would mean no time outside the model calls;
- prompt tokens (the whole prompt: uncached, cache reads and cache writes), of them cache reads, and
  completion tokens, as the provider's usage reports them (wolfbot: 4 characters a token);
- the sample's compressed size in the ``.eval`` log, in KB;
- the shared prefix: the share of the game's prompt characters that repeat the prefix of an earlier
  prompt of the same seat (at most what a provider's prompt cache can serve);
- at latency 0, milliseconds of wolf-eval and Inspect time per call;
- compact / full: the game's own prompts re-rendered from the observations it logged, characters under
  ``history=compact`` over ``history=full`` (the same game, whichever history it was played with);
- fixed part: the share of the full prompts' characters that is rules, role and instruction, which no
  history can cut (a floor under compact / full);
- today-in-full floor: the fixed part plus the current day's records (by night, the day just ended) over
  the full prompts: the least that any history keeping the current day in full could send, were every
  earlier day summed up in nothing;

then the means, with each history's prompt tokens over ``history=full``'s for the same games.

With ``--concurrent M`` it then plays the same games M at a time (``--max-samples M``) and prints
the speed-up over one at a time.

    python benchmarks/speed.py --prompts-from logs/some-run.eval

re-renders every game prompt of an existing log (any model) under ``history=full`` and
``history=compact`` from the observations it recorded, and prints the characters of both per game,
their fixed part, and the prompt tokens the provider reported for the prompts as played, scaled to compact by
the ratio of characters (compact over the history the log was played with).

    python benchmarks/speed.py --releases .,../speed-042 --games 10 --repeat 2 -T deception_analysis=false

times the same eval (``--task``, ``wolfbot/--policy``, ``--games`` games, the ``-T`` values) under each
release: a checkout of it, with its own ``.venv`` (``.`` this checkout, with the interpreter running this
script when it has none). Each run is a fresh process of that release's interpreter
(``benchmarks/timed_eval.py``); the releases take turns, in an order that alternates from round to
round, so a load that comes and goes on the machine falls on both. Prints each run, then per release
the median over its runs of milliseconds per game and per model call, in wall time and in the
process's CPU time (on a machine others share, CPU time is the figure that compares; wall time says
what a user waited).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from harness import add_task_args, play, task_args
from inspect_ai.log import EvalLog, EvalSample, read_eval_log, resolve_sample_attachments
from inspect_ai.model import ModelUsage

from wolf_eval.agents.prompts import current_day, render_records
from wolf_eval.agents.seat_call import call_sections, logged_parts, logged_views
from wolf_eval.engine import GameState
from wolf_eval.ndjson import game_state


def prompt_text(event: Any) -> str:
    return "\n".join(f"{m.role}: {m.text}" for m in event.input)


def shared_prefix_fraction(sample: EvalSample) -> float:
    """Share of all prompt characters that repeat the prefix of an earlier prompt of the same seat.

    A provider's prompt cache (OpenAI's automatic one, Anthropic's breakpoints) can serve at most this
    share of a game's input from cache: for each call, the longest prefix it shares with any earlier
    call of its seat, summed over calls, over the sum of all prompt lengths.
    """
    earlier: dict[str, list[str]] = {}
    shared = total = 0
    for e in sample.events:
        if e.event != "model" or not e.input or not e.input[-1].metadata or "wolf_eval" not in e.input[-1].metadata:
            continue
        seat = logged_parts(e.input[-1].metadata["wolf_eval"])[0]["seat"]
        text = prompt_text(e)
        seen = earlier.setdefault(seat, [])
        shared += max((len(os.path.commonprefix([old, text])) for old in seen), default=0)
        total += len(text)
        seen.append(text)
    return shared / total if total else float("nan")


def sample_sizes(path: str) -> dict[str, int]:
    """Compressed bytes of each sample in an ``.eval`` file, by sample id."""
    with zipfile.ZipFile(path) as z:
        return {i.filename.removeprefix("samples/").rsplit("_epoch_", 1)[0]: i.compress_size
                for i in z.infolist() if i.filename.startswith("samples/")}


def sample_breakdown(path: str, sample_id: object = None) -> dict[str, float]:
    """Where the bytes of a sample go (uncompressed KB): prompts, message pool, events, store.

    The sample ``sample_id``, or the first the log holds (the first game to finish).
    """
    import json

    from wolf_eval.analysis.logread import member_chunks

    prefix = "samples/" if sample_id is None else f"samples/{sample_id}_epoch_"
    with zipfile.ZipFile(path) as z, open(path, "rb") as handle:
        info = next(i for i in z.infolist() if i.filename.startswith(prefix))
        sample = json.loads(b"".join(member_chunks(handle, info)))
    def size(x: Any) -> int:
        return len(json.dumps(x, separators=(",", ":"), ensure_ascii=False).encode())

    pool = sample.get("events_data", {}).get("messages", [])
    meta = sum(size(m.get("metadata") or {}) for m in pool)
    events: Counter[str] = Counter()
    for e in sample.get("events", []):
        events[e.get("event", "?")] += size(e)
    parts = {
        "prompt texts (attachments)": size(sample.get("attachments", {})),
        "observation metadata": meta,
        "rest of the message pool": size(sample.get("events_data", {})) - meta,
        **{f"{kind} events": n for kind, n in events.most_common(4)},
        "other events": sum(n for _, n in events.most_common()[4:]),
        "store (the final game)": size(sample.get("store", {})),
    }
    parts["everything else"] = info.file_size - sum(parts.values())
    return ({k: v / 1024 for k, v in parts.items()}
            | {"total": info.file_size / 1024, "compressed": info.compress_size / 1024})


def whole_prompt(usage: ModelUsage) -> int:
    """A call's whole prompt: a caching provider reports the tokens it read from its cache (and wrote to
    it) apart from ``input_tokens``, which then counts only the rest."""
    return usage.input_tokens + (usage.input_tokens_cache_read or 0) + (usage.input_tokens_cache_write or 0)


def game_row(sample: EvalSample, latency: float, sizes: dict[str, int]) -> dict[str, Any]:
    sample = resolve_sample_attachments(sample)  # prompts as the model read them, not attachment refs
    game: GameState = game_state(sample)
    calls = [e for e in sample.events if e.event == "model"]
    by_action: Counter[str] = Counter()
    for e in calls:
        meta = (e.input[-1].metadata or {}).get("wolf_eval") if e.input else None
        by_action["+".join(sorted({p["action"] for p in logged_parts(meta)})) if meta else "other"] += 1
    days = game.outcome.day if game.outcome else game.day
    wall = sample.total_time or float("nan")
    chars = prompt_chars(sample)
    return {
        "id": sample.id, "winner": game.outcome.winner if game.outcome else "?", "days": days,
        "calls": len(calls), "by_action": by_action, "waves": game.waves, "waves_per_day": game.waves / max(days, 1),
        "wall": wall, "ratio": wall / (game.waves * latency) if latency else float("nan"),
        "prompt": sum(whole_prompt(e.output.usage) for e in calls if e.output.usage),
        "cached": sum(e.output.usage.input_tokens_cache_read or 0 for e in calls if e.output.usage),
        "completion": sum(e.output.usage.output_tokens for e in calls if e.output.usage),
        "kb": sizes.get(str(sample.id), 0) / 1024, "prefix": shared_prefix_fraction(sample),
        "ms_per_call": 1000 * wall / len(calls) if calls and not latency else float("nan"),
        "compact_ratio": chars["compact"] / chars["full"], "fixed": chars["fixed"] / chars["full"],
        "floor": chars["floor"] / chars["full"],
    }


def play_bots(task: str, model: str, latency: float, parameters: dict[str, Any], max_samples: int, log_dir: str,
              words: int = 0) -> tuple[EvalLog, float]:
    """Play the games on bots whose calls wait ``latency`` seconds; the whole log and the wall seconds."""
    model_args = {"latency": latency, **({"words": words} if words else {})}
    log, wall = play(task, log_dir, model=model, model_args=model_args, task_args=parameters, max_samples=max_samples)
    return read_eval_log(log.location), wall


def _sections_under(views: list[Any], history: str) -> dict[str, str]:
    """A logged call's prompt by section, re-rendered as if it had been played under ``history``."""
    return call_sections([v.model_copy(update={"history": history}) for v in views])


def prompt_chars(sample: EvalSample) -> dict[str, int]:
    """Characters of a game's prompts re-rendered from the observations it logged: under ``full``, under
    ``compact``, as played; their fixed part (rules, role and instruction: what no history can cut); and
    the floor of any history that keeps the current day in full (the fixed part and that day's records,
    as if every earlier day were summed up in nothing)."""
    game = game_state(sample)
    chars = Counter({"full": 0, "compact": 0, "played": 0, "fixed": 0, "floor": 0, "calls": 0})
    for e in sample.events:
        meta = (e.input[-1].metadata or {}).get("wolf_eval") if e.event == "model" and e.input else None
        if not meta:
            continue
        views = logged_views(meta, game)
        obs = views[0]
        by_history = {h: _sections_under(views, h) for h in ("full", "compact")}
        sizes = {h: sum(len(text) for text in cut_.values()) for h, cut_ in by_history.items()}
        played = by_history[obs.history]
        fixed = len(played["rules"]) + len(played["role"]) + len(played["instruction"])
        today_from = current_day(obs)
        today = render_records(r for r in obs.records if r.day >= today_from)
        chars.update(full=sizes["full"], compact=sizes["compact"], played=sizes[obs.history], fixed=fixed,
                     floor=fixed + len(today), calls=1)
    return dict(chars)


def rerender(path: str) -> None:
    """Characters of every game prompt of a log under full and compact history, per game."""
    log = read_eval_log(path)
    print(f"{path}: {log.eval.model}, task {log.eval.task}, parameters {log.eval.task_args}\n")
    print("| game | days | calls | full chars | compact chars | compact / full | fixed part of full "
          "| today-in-full floor | reported prompt tokens | compact, scaled |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for sample in log.samples or []:
        if sample.error is not None:
            continue
        sample = resolve_sample_attachments(sample)
        game = game_state(sample)
        c = prompt_chars(sample)
        tokens = sum(whole_prompt(e.output.usage) for e in sample.events if e.event == "model" and e.output.usage)
        days = game.outcome.day if game.outcome else game.day
        print(f"| {sample.id} | {days} | {c['calls']} | {c['full']:,} | {c['compact']:,} "
              f"| {c['compact'] / c['full']:.2f} | {c['fixed'] / c['full']:.2f} | {c['floor'] / c['full']:.2f} "
              f"| {tokens:,} | {tokens * c['compact'] / c['played']:,.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", default="wolf")
    ap.add_argument("--policy", default="cue", help="wolfbot policy: random, cue, tom or faction")
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--latency", default="0,1", help="seconds per call, comma-separated")
    ap.add_argument("--history", default="full", help="full, compact or both (comma-separated)")
    ap.add_argument("--words", default="0", help="words per statement (-M words; 0 = the bots' own), comma-separated")
    ap.add_argument("--concurrent", type=int, default=0, help="also play the games M at a time and print the speed-up")
    add_task_args(ap)
    ap.add_argument("--prompts-from", metavar="LOG", help="re-render the prompts of this log, full against compact")
    ap.add_argument("--releases", metavar="CHECKOUTS",
                    help="time the eval under each release, a comma-separated list of checkouts (. = this one)")
    ap.add_argument("--repeat", type=int, default=1, help="with --releases: rounds of runs, one per release each")
    args = ap.parse_args()
    if args.prompts_from:
        rerender(args.prompts_from)
        return
    extra = task_args(args.T)
    model = f"wolfbot/{args.policy}"
    if args.releases:
        checkouts = [Path(c).expanduser() for c in args.releases.split(",")]
        releases(checkouts, args.task, model, {"games": args.games, **extra}, args.repeat)
        return
    header = ("| latency s | words | history | game | winner | days | calls | waves | waves/day | wall s "
              "| wall/(waves×lat) | prompt tok | cached tok | completion tok | log KB | shared prefix | ms/call at 0 "
              "| compact / full | fixed part | today-in-full floor |")
    print(f"task {args.task}, {model}, {args.games} games, parameters {extra}\n")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    totals: dict[tuple[float, int, str], list[dict[str, Any]]] = defaultdict(list)
    actions: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for latency in (float(x) for x in args.latency.split(",")):
            for words in (int(x) for x in args.words.split(",")):
                for history in args.history.split(","):
                    parameters = {"games": args.games, **extra, "history": history}
                    log, _ = play_bots(args.task, model, latency, parameters, 1, tmp, words)
                    sizes = sample_sizes(log.location)
                    breakdown = sample_breakdown(log.location)
                    for sample in log.samples or []:
                        row = game_row(sample, latency, sizes)
                        totals[(latency, words, history)].append(row)
                        actions.update(row["by_action"])
                        print(f"| {latency:g} | {words or 'own'} | {history} | {row['id']} "
                              f"| {row['winner']} | {row['days']} "
                              f"| {row['calls']} | {row['waves']} | {row['waves_per_day']:.1f} | {row['wall']:.1f} "
                              f"| {_f(row['ratio'])} | {row['prompt']:,} | {row['cached']:,} | {row['completion']:,} "
                              f"| {row['kb']:.0f} "
                              f"| {row['prefix']:.2f} | {_f(row['ms_per_call'], 1)} | {row['compact_ratio']:.2f} "
                              f"| {row['fixed']:.2f} | {row['floor']:.2f} |")
        print("\nmean per game (compact / full: the ratio of mean prompt tokens to history=full's "
              "at the same latency and words):\n")
        print("| latency s | words | history | days | calls | waves/day | wall s | wall/(waves×lat) | prompt tok "
              "| compact / full | fixed part | today-in-full floor | log KB | shared prefix |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        means = {key: {k: statistics.fmean(r[k] for r in rows)
                       for k in ("days", "calls", "waves_per_day", "wall", "ratio", "prompt", "kb", "prefix",
                                 "fixed", "floor")}
                 for key, rows in totals.items()}
        for (latency, words, history), m in means.items():
            full = means.get((latency, words, "full"))
            versus = _f(m["prompt"] / full["prompt"]) if full and history != "full" else "–"
            print(f"| {latency:g} | {words or 'own'} | {history} | {m['days']:.1f} | {m['calls']:.0f} "
                  f"| {m['waves_per_day']:.1f} | {m['wall']:.1f} | {_f(m['ratio'])} | {m['prompt']:,.0f} | {versus} "
                  f"| {m['fixed']:.2f} | {m['floor']:.2f} | {m['kb']:.0f} | {m['prefix']:.2f} |")
        print(f"\nbytes of game 1 in the last log (uncompressed KB; {breakdown['compressed']:.0f} KB compressed): "
              + ", ".join(f"{k} {v:,.0f}" for k, v in breakdown.items() if k != "compressed"))
        calls = sum(actions.values())
        print("\ncalls by action (all games above): "
              + ", ".join(f"{a} {n} ({n / calls:.0%})" for a, n in actions.most_common()))
        if args.concurrent > 1:
            latency = max(float(x) for x in args.latency.split(","))
            parameters = {"games": args.games, **extra, "history": args.history.split(",")[0]}
            _, one = play_bots(args.task, model, latency, parameters, 1, tmp)
            _, many = play_bots(args.task, model, latency, parameters, args.concurrent, tmp)
            print(f"\n{args.games} games at latency {latency:g} s: {one:.1f} s one at a time, {many:.1f} s "
                  f"{args.concurrent} at a time (--max-samples {args.concurrent}): speed-up {one / many:.2f}x")


TIMED_EVAL = Path(__file__).resolve().with_name("timed_eval.py")


def interpreter(checkout: Path) -> str:
    """The Python of a release's checkout: its ``.venv``'s, or (for this checkout only) the one running now."""
    own = checkout / ".venv" / "bin" / "python"
    if own.exists():
        return str(own)
    if checkout.resolve() == TIMED_EVAL.parents[1]:
        return sys.executable
    raise SystemExit(f"--releases: {checkout} has no .venv (python3 -m venv .venv && .venv/bin/pip install -e .)")


def timed_run(checkout: Path, task: str, model: str, task_args: dict[str, Any]) -> dict[str, Any]:
    """One eval under the release checked out at ``checkout``, in a fresh process of its interpreter."""
    done = subprocess.run([interpreter(checkout), str(TIMED_EVAL), task, model, json.dumps(task_args)],
                          cwd=checkout, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr.strip().splitlines()[-1:] or done.returncode}")
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "checkout": str(checkout)}


def releases(checkouts: list[Path], task: str, model: str, task_args: dict[str, Any], repeat: int) -> None:
    """The same eval timed under each release, the releases taking turns (docstring: ``--releases``)."""
    print(f"task {task}, {model}, parameters {task_args}, {repeat} rounds, on {os.cpu_count()} cores\n")
    print("| round | release | checkout | games | calls | wall s | CPU s | start-up CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for k in range(repeat):
        for checkout in checkouts if k % 2 == 0 else checkouts[::-1]:
            run = timed_run(checkout, task, model, task_args)
            runs[str(checkout)].append(run)
            print(f"| {k + 1} | {run['version']} | {checkout} | {run['games']} | {run['calls']} | {run['wall']:.1f} "
                  f"| {run['cpu']:.1f} | {run['startup_cpu']:.1f} |", flush=True)
    print("\nmedian over the rounds, per game and per model call:\n")
    print("| release | calls a game | ms a game, wall | ms a game, CPU | ms a call, wall | ms a call, CPU |")
    print("|---|---|---|---|---|---|")
    for checkout, rs in runs.items():
        def per(key: str, unit: str, rs: list[dict[str, Any]] = rs) -> float:
            return statistics.median(1000 * r[key] / r[unit] for r in rs)
        print(f"| {rs[0]['version']} ({checkout}) | {statistics.median(r['calls'] / r['games'] for r in rs):.0f} "
              f"| {per('wall', 'games'):,.0f} | {per('cpu', 'games'):,.0f} | {per('wall', 'calls'):.1f} "
              f"| {per('cpu', 'calls'):.1f} |")


def _f(x: float, digits: int = 2) -> str:
    return "–" if x != x else f"{x:.{digits}f}"


if __name__ == "__main__":
    main()
