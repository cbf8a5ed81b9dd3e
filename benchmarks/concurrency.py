"""How many calls a game makes at once, what a connection limit costs it, and whose time a call is.

    python benchmarks/concurrency.py --task wolf --latency-games 2     # about 10 minutes
    python benchmarks/concurrency.py --task triadic --latency-games 1  # about 25 minutes
    python benchmarks/concurrency.py --task wolf --latency-games 0 --no-log-realtime
    python benchmarks/concurrency.py --task wolf --latency-games 0 --provider wolfbot

Games are played the way a user plays them against an API: Inspect's ``openai-api`` provider
(``--model openai-api/stub/any``, the ``openai`` SDK over HTTP) talks to a local OpenAI-compatible
server, ``tests/strict_openai.py``, started as a process of its own on ``127.0.0.1`` (so that its
work neither holds the client's interpreter lock nor counts as the client's time). The server
answers every call with a random instance of the call's response schema, seeded by the request,
so a game is the same game at every latency and connection limit; ``--latency`` makes each reply
wait that many seconds (each connection has its own thread, so a wave's calls wait together).
Games are played one at a time, so the figures are one game's (the wall-time runs take
``--max-samples M`` for M at a time). Tasks: ``wolf`` with ``-T max_debate_turns=6`` and
``triadic`` with its defaults.

It prints, per task:

1. **Concurrent calls per wave**, from the game itself: the number of decisions the solver hands
   to ``advance`` at once (one wave: every pending request is called concurrently), its maximum,
   mean and median over the game's waves, the waves (checked against the game's own count,
   ``GameState.waves``), and the share of calls that sit in waves of more than 10.
2. **Wall seconds per game-day at latency ``--latency``** (1 s), with Inspect's default connection
   limit (in inspect-ai 0.3.285 an adaptive limit: it starts at 20 concurrent calls per model,
   doubles while saturated, up to 100, and backs off on rate-limit errors) and with
   ``--max-connections 10`` (a fixed limit). A game-day is a night and a day
   (``Outcome.day``), as in ``benchmarks/speed.py``.
3. **Client milliseconds per call at latency 0**, split into the project's own work and the rest.

How the split is measured. The benchmark wraps, in its own process and without changing them,
``wolf_eval.agents.player.Agent.decide`` (one call: observation, prompt, config, the model call,
parsing), ``inspect_ai.model.Model.generate`` (the model call itself), the scorers, and in
``wolf_eval.solvers.play`` the game loop ``_play`` and the await of each wave's calls
(``together``, or ``collect`` in earlier versions). The project's code runs on the event loop and
awaits nothing but ``Model.generate`` and the wave, so its pieces are exact synchronous intervals of
the loop's thread, read on ``time.thread_time`` (that thread's CPU: other jobs on the machine do not
inflate it). The garbage collector is counted apart (``gc.callbacks``): a collection runs in
whatever code happens to allocate when a threshold is crossed, mostly to sweep Inspect's growing
transcript, so every interval below is net of it.

- project = for every ``decide``, its time before ``Model.generate`` was entered and after it
  returned; plus the game loop's time outside its wave awaits (``pending``, ``advance``, the
  transcript lines of ``_emit``, the spans, the final record); plus the scorers; over the game's
  calls. That is everything in ``wolf_eval``, ``solvers`` and ``scorers`` outside the
  ``Model.generate`` await, including the Inspect functions they call (``transcript().info``,
  ``span``, ``GenerateConfig``, the store).
- Inspect + provider = the client process's CPU time (``time.process_time``, all its threads) over
  the game loop and the scorers, minus the collector and the project: Inspect's ``generate`` (config
  merge, the message snapshot and model event, the log buffer), the ``openai`` SDK and ``httpx``.
  The server is another process, so none of its time is here; it reports its own CPU time per
  request (reading, answering, writing; not the latency), printed beside it. Wall per call (the
  game loop's wall time over its calls) is printed too: one game at a time, it is the client's CPU,
  the server's, loopback waits, and whatever else the machine runs.
- The project's parts, each wrapped the same way: ``observe`` (the seat's view), ``build_messages``
  (prompt rendering, in ``wolf_eval/agents/prompts.py``, and of it the message metadata,
  ``metadata_view``),
  ``decision_from_reply`` (parsing), ``call_seed``, ``response_schema``, ``GenerateConfig`` and
  ``count_usage``, the engine's ``pending`` and ``advance``, ``_emit``, the scorers, and the rest
  (``decide``'s own lines, spans, the final record). The wrappers themselves cost about 0.01 ms a call.

``--provider wolfbot`` plays the same split on the in-process ``wolfbot/cue`` players instead (no
HTTP; the bots' own decisions then count as Inspect's side). ``--no-log-realtime`` plays with
Inspect's ``log_realtime=False`` (no live event buffer for ``inspect view``). ``--repeat N`` plays
the latency-0 games N times and prints each run and the medians.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, EvalSample, read_eval_log

import wolf_eval.agents.player as player_mod
import wolf_eval.agents.prompts as prompts_mod
import wolf_eval.solvers.play as game_mod
import wolf_eval.tasks.werewolf as task_mod
from wolf_eval.store import logged_record

#: What the game loop awaits a wave's calls with (``collect`` in earlier versions).
WAVE_FUNCTION = "together"
STUB = Path(__file__).resolve().parents[1] / "tests" / "strict_openai.py"
TASKS: dict[str, dict[str, Any]] = {"wolf": {"max_debate_turns": 6}, "triadic": {}}


# --------------------------------------------------------------------------- the server


class Stub:
    """``tests/strict_openai.py`` in a process of its own, on loopback."""

    def __init__(self, latency: float) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([sys.executable, str(STUB), "--latency", str(latency)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)
        assert self.proc.stdout is not None
        self.base_url = self.proc.stdout.readline().strip()
        if not self.base_url.startswith("http://127.0.0.1:"):
            self.proc.kill()
            raise SystemExit(f"the stub did not start: {self.base_url!r}")
        self.stats: dict[str, Any] = {}

    def stop(self) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.stats = json.loads(self.proc.stdout.readline())
        self.proc.wait(timeout=30)
        return self.stats

    def __enter__(self) -> "Stub":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.proc.poll() is None:
            try:
                self.stop()
            except Exception:
                self.proc.kill()


# --------------------------------------------------------------------------- the meter


class Collector:
    """Seconds the garbage collector ran on the event loop's thread (``gc.callbacks``): a collection
    runs in whatever code allocates when a threshold is crossed, so it is counted apart."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.collections = 0
        self.thread: int | None = None
        self._start: float | None = None

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if threading.get_ident() != self.thread:
            return
        if phase == "start":
            self._start = time.thread_time()
        elif self._start is not None:
            self.cpu += time.thread_time() - self._start
            self.collections += 1
            self._start = None


GC = Collector()


def cpu() -> float:
    """The loop thread's CPU seconds, stopped while the collector runs."""
    return time.thread_time() - GC.cpu


@dataclass
class Call:
    start: float
    enter: float | None = None
    exit: float | None = None


@dataclass
class GameTimes:
    """One game's waves and times, in seconds (CPU of the loop's thread net of the collector, unless said)."""

    sample_id: Any = None
    waves: list[int] = field(default_factory=list)  # calls in each wave, in order
    calls: int = 0
    decide_cpu: float = 0.0  # the decide calls outside Model.generate
    loop_cpu: float = 0.0  # the game loop outside its wave awaits
    process_cpu: float = 0.0  # the client process (all threads, the collector too) over the whole game loop
    gc_cpu: float = 0.0  # the collector on the loop's thread, over the whole game loop
    collections: int = 0
    wall: float = 0.0  # the game loop, wall seconds
    parts: dict[str, float] = field(default_factory=dict)  # CPU of the wrapped project functions


SCORERS: dict[str, float] = {}  # CPU seconds of each game's scorers, by sample id


_CALL: ContextVar[Call | None] = ContextVar("concurrency_benchmark_call", default=None)
_GAME: ContextVar[GameTimes | None] = ContextVar("concurrency_benchmark_game", default=None)  # the sample's task and
# the wave tasks it starts
PARTS = {  # module, attribute: the label its time is counted under
    (player_mod, "observe"): "observe",
    (player_mod, "build_messages"): "build_messages",
    (prompts_mod, "metadata_view"): "metadata",  # within build_messages
    (player_mod, "decision_from_reply"): "parse",
    (player_mod, "call_seed"): "config",
    (player_mod, "response_schema"): "config",
    (player_mod, "GenerateConfig"): "config",
    (player_mod, "count_usage"): "config",
    (game_mod, "pending"): "engine",
    (game_mod, "advance"): "engine",
    (game_mod, "_emit"): "emit",
}


class Meter:
    """Wraps the game's functions (see the module docstring) and collects one ``GameTimes`` per game."""

    def __init__(self) -> None:
        self.games: list[GameTimes] = []
        self._saved: list[tuple[Any, str, Any]] = []

    def _patch(self, owner: Any, name: str, new: Any) -> None:
        self._saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, new)

    def install(self) -> "Meter":
        from inspect_ai.model import Model

        meter = self
        wave = WAVE_FUNCTION if hasattr(game_mod, WAVE_FUNCTION) else "collect"
        decide, generate, play, together, advance = (player_mod.Agent.decide, Model.generate, game_mod._play,
                                                     getattr(game_mod, wave), game_mod.advance)

        async def timed_decide(agent: Any, state: Any, request: Any) -> Any:
            call = Call(start=cpu())
            token = _CALL.set(call)
            try:
                return await decide(agent, state, request)
            finally:
                end = cpu()
                _CALL.reset(token)
                game = _GAME.get()
                if game is not None and call.enter is not None and call.exit is not None:
                    game.calls += 1
                    game.decide_cpu += (call.enter - call.start) + (end - call.exit)

        async def timed_generate(model: Any, *args: Any, **kwargs: Any) -> Any:
            call = _CALL.get()
            if call is not None and call.enter is None:
                call.enter = cpu()
            try:
                return await generate(model, *args, **kwargs)
            finally:
                if call is not None:
                    call.exit = cpu()

        async def timed_play(game: Any, agent: Any, state: Any) -> Any:
            times = GameTimes(sample_id=state.sample_id)
            token = _GAME.set(times)
            GC.thread = threading.get_ident()
            gc0, n0, process0, wall0, t0 = GC.cpu, GC.collections, time.process_time(), time.perf_counter(), cpu()
            try:
                return await play(game, agent, state)
            finally:
                _GAME.reset(token)
                times.loop_cpu += cpu() - t0  # the wave awaits were taken off as they ended
                times.process_cpu = time.process_time() - process0
                times.gc_cpu, times.collections = GC.cpu - gc0, GC.collections - n0
                times.wall = time.perf_counter() - wall0
                meter.games.append(times)

        async def timed_wave(*args: Any) -> Any:
            t0 = cpu()
            try:
                return await together(*args)
            finally:
                times = _GAME.get()
                if times is not None:
                    times.loop_cpu -= cpu() - t0

        def counted_advance(state: Any, decisions: Any) -> Any:
            times = _GAME.get()
            if times is not None:
                times.waves.append(len(decisions))
            return advance(state, decisions)

        gc.callbacks.append(GC)
        self._saved.append((gc, "callbacks", None))
        scorers = task_mod.game_scorers

        def timed_scorers() -> list[Any]:
            return [meter._scorer(s) for s in scorers()]

        self._patch(task_mod, "game_scorers", timed_scorers)
        self._patch(player_mod.Agent, "decide", timed_decide)
        self._patch(Model, "generate", timed_generate)
        self._patch(game_mod, "_play", timed_play)
        self._patch(game_mod, wave, timed_wave)
        self._patch(game_mod, "advance", counted_advance)
        for (owner, name), label in PARTS.items():
            self._patch(owner, name, self._part(getattr(owner, name), label))
        return self

    def _scorer(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """The scorer, its time counted (CPU of the loop's thread, net of the collector) under its sample."""

        async def timed(state: Any, target: Any) -> Any:
            t0 = cpu()
            try:
                return await fn(state, target)
            finally:
                key = str(state.sample_id)
                SCORERS[key] = SCORERS.get(key, 0.0) + cpu() - t0

        functools.update_wrapper(timed, fn)  # the scorer's registry name and metrics go with it
        return timed

    def _part(self, fn: Callable[..., Any], label: str) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = cpu()
            try:
                return fn(*args, **kwargs)
            finally:
                times = _GAME.get()
                if times is not None:
                    times.parts[label] = times.parts.get(label, 0.0) + cpu() - t0

        return timed

    def uninstall(self) -> None:
        for owner, name, old in reversed(self._saved):
            if owner is gc:
                gc.callbacks.remove(GC)
            else:
                setattr(owner, name, old)
        self._saved.clear()


# --------------------------------------------------------------------------- playing


#: Further ``inspect_ai.eval`` options for every run (``--no-log-realtime`` sets ``log_realtime=False``).
EVAL_OPTIONS: dict[str, Any] = {}


def play(task: str, games: int, provider: str, latency: float, max_connections: int | None, max_samples: int,
         log_dir: str, **extra: Any) -> tuple[EvalLog, list[GameTimes], dict[str, Any]]:
    """Play ``games`` games of ``task``; the log, each game's times and the server's own figures."""
    task_args = {"games": games, **TASKS[task], **extra}
    SCORERS.clear()
    meter = Meter().install()
    try:
        if provider == "wolfbot":
            [log] = inspect_eval(f"wolf_eval/{task}", model="wolfbot/cue", model_args={"latency": latency},
                                 task_args=task_args, max_connections=max_connections, max_samples=max_samples,
                                 log_dir=log_dir, display="none", **EVAL_OPTIONS)
            server: dict[str, Any] = {}
        else:
            with Stub(latency) as stub:
                [log] = inspect_eval(f"wolf_eval/{task}", model="openai-api/stub/any", model_base_url=stub.base_url,
                                     model_args={"api_key": "stub-key", "stream": False}, task_args=task_args,
                                     max_connections=max_connections, max_samples=max_samples, log_dir=log_dir,
                                     display="none", **EVAL_OPTIONS)
                server = stub.stop()
    finally:
        meter.uninstall()
    if log.status != "success":
        raise SystemExit(f"the eval failed: {log.error}")
    if server.get("rejections"):
        raise SystemExit(f"the stub refused {server['rejections']} requests")
    log = read_eval_log(log.location)
    order = {str(s.id): i for i, s in enumerate(log.samples or [])}
    times = sorted(meter.games, key=lambda t: order[str(t.sample_id)])
    for t, sample in zip(times, log.samples or [], strict=True):
        waves = logged_record(sample.store).game().waves
        if len(t.waves) != waves:
            raise SystemExit(f"game {sample.id}: {len(t.waves)} waves seen, but the game records {waves}")
    return log, times, server


def game_days(sample: EvalSample) -> int:
    """Nights and days played (``Outcome.day``), as ``benchmarks/speed.py`` counts a game-day."""
    game = logged_record(sample.store).game()
    return game.outcome.day if game.outcome else game.day


def split_row(log: EvalLog, times: list[GameTimes], server: dict[str, Any]) -> dict[str, float]:
    """Milliseconds per call over all the games of one run."""
    samples = log.samples or []
    calls = sum(t.calls for t in times)
    scorers = sum(SCORERS.get(str(s.id), 0.0) for s in samples)
    project_cpu = sum(t.decide_cpu + t.loop_cpu for t in times) + scorers
    process_cpu = sum(t.process_cpu for t in times) + scorers
    collector = sum(t.gc_cpu for t in times)
    parts: dict[str, float] = {}
    for t in times:
        for k, v in t.parts.items():
            parts[k] = parts.get(k, 0.0) + v
    ms = 1000 / calls
    row = {
        "calls": calls / len(times), "wall": sum(t.wall for t in times) * ms, "client_cpu": process_cpu * ms,
        "project": project_cpu * ms,
        "inspect": (process_cpu - collector - project_cpu) * ms, "gc": collector * ms,
        "collections": sum(t.collections for t in times) / len(times),
        "server": server.get("server_seconds", float("nan")) * 1000 / max(server.get("requests", 0), 1)
        if server else float("nan"),
        **{k: v * ms for k, v in parts.items()},
    }
    row["scorers"] = scorers * ms
    row["other"] = row["project"] - row["scorers"] - sum(row.get(k, 0.0) for k in set(PARTS.values()) - {"metadata"})
    return row


# --------------------------------------------------------------------------- printing


def _f(x: float, digits: int = 2) -> str:
    return "–" if x != x else f"{x:.{digits}f}"


SPLIT_COLUMNS = ["wall", "client_cpu", "project", "inspect", "gc", "server", "observe", "build_messages", "metadata",
                 "parse", "config", "engine", "emit", "scorers", "other"]


def print_split(task: str, rows: list[dict[str, float]], provider: str) -> None:
    print(f"\n{task}: client milliseconds per call at latency 0 ({provider}; CPU but for wall)\n")
    print("| run | calls/game | wall | client CPU | project | Inspect + provider | collector | server CPU "
          "| project: observe | build_messages | of which metadata | parse | seed, schema, config, usage | engine "
          "| emit | scorers | other |")
    print("|---|" + "---|" * 16)
    for i, r in enumerate(rows, 1):
        print(f"| {i} | {r['calls']:.0f} | " + " | ".join(_f(r.get(c, float('nan'))) for c in SPLIT_COLUMNS) + " |")
    if len(rows) > 1:
        med = {c: statistics.median(r.get(c, float("nan")) for r in rows) for c in SPLIT_COLUMNS}
        print(f"| median | {statistics.median(r['calls'] for r in rows):.0f} | "
              + " | ".join(_f(med[c]) for c in SPLIT_COLUMNS) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", default="wolf,triadic", help="wolf, triadic or both (comma-separated)")
    ap.add_argument("--games", type=int, default=2, help="games per latency-0 run")
    ap.add_argument("--repeat", type=int, default=3, help="latency-0 runs per task (medians printed)")
    ap.add_argument("--latency", type=float, default=1.0, help="seconds per call for the wall-time runs")
    ap.add_argument("--latency-games", type=int, default=1, help="games per wall-time run (0: skip them)")
    ap.add_argument("--connections", default="default,10", help="connection limits of the wall-time runs")
    ap.add_argument("--max-samples", type=int, default=1, help="games played at a time in the wall-time runs")
    ap.add_argument("--provider", default="http", choices=["http", "wolfbot"],
                    help="http: openai-api against the local stub; wolfbot: the in-process bots")
    ap.add_argument("--no-log-realtime", action="store_true",
                    help="play with Inspect's log_realtime=False (no live event buffer for inspect view)")
    args = ap.parse_args()
    if args.no_log_realtime:
        EVAL_OPTIONS["log_realtime"] = False

    with tempfile.TemporaryDirectory() as tmp:
        for task in args.task.split(","):
            print(f"## {task}, parameters {TASKS[task] or 'the defaults'}")
            # a first short game warms imports and caches up, so the first run is not the slowest
            play(task, 1, args.provider, 0.0, None, 1, tmp, max_days=1)
            rows, waves, days, calls = [], [], [], []
            for _ in range(args.repeat):
                log, times, server = play(task, args.games, args.provider, 0.0, None, 1, tmp)
                rows.append(split_row(log, times, server))
                for t, sample in zip(times, log.samples or [], strict=True):
                    waves.append(t.waves)
                    days.append(game_days(sample))
                    calls.append(t.calls)
            distinct = len(waves) // args.repeat
            print(f"\n{task}: concurrent calls per wave, {distinct} game{'s' if distinct > 1 else ''} "
                  f"(played {args.repeat} time{'s' if args.repeat > 1 else ''})\n")
            print("| game | days | calls | waves | waves/day | max calls in a wave | mean | median "
                  "| calls in waves of more than 10 |")
            print("|---|---|---|---|---|---|---|---|---|")
            for i, (w, d, c) in enumerate(zip(waves[: len(waves) // args.repeat], days, calls, strict=False), 1):
                big = sum(n for n in w if n > 10)
                print(f"| {i} | {d} | {c} | {len(w)} | {len(w) / d:.1f} | {max(w)} | {statistics.fmean(w):.1f} "
                      f"| {statistics.median(w):g} | {big / sum(w):.0%} |")
            print_split(task, rows, args.provider)

            if args.latency_games:
                print(f"\n{task}: wall time at latency {args.latency:g} s, {args.latency_games} game(s), "
                      f"{args.max_samples} at a time\n")
                print("| connections | game | days | calls | waves | wall s | wall s per game-day "
                      "| wall / (waves × latency) |")
                print("|---|---|---|---|---|---|---|---|")
                for limit in args.connections.split(","):
                    max_connections = None if limit == "default" else int(limit)
                    log, times, _ = play(task, args.latency_games, args.provider, args.latency, max_connections,
                                         args.max_samples, tmp)
                    for i, (t, sample) in enumerate(zip(times, log.samples or [], strict=True), 1):
                        d = game_days(sample)
                        print(f"| {limit} | {i} | {d} | {t.calls} | {len(t.waves)} | {t.wall:.1f} | {t.wall / d:.1f} "
                              f"| {t.wall / (len(t.waves) * args.latency):.2f} |")
            print()


if __name__ == "__main__":
    main()
