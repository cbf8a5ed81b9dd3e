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

1. **Concurrent calls per wave**, from the game itself: the number of decisions the engine asks
   for at once (one wave: every pending request is called concurrently), counted by re-playing the
   logged game's replies through the engine, its maximum, mean and median over the game's waves,
   the waves (checked against the game's own count, ``GameState.waves``, and against the decisions
   seen in play), and the share of calls that sit in waves of more than 10.
2. **Wall seconds per game-day at latency ``--latency``** (1 s), with Inspect's default connection
   limit (in inspect-ai 0.3.285 an adaptive limit: it starts at 20 concurrent calls per model,
   doubles while saturated, up to 100, and backs off on rate-limit errors) and with
   ``--max-connections 10`` (a fixed limit). A game-day is a night and a day
   (``Outcome.day``), as in ``benchmarks/speed.py``.
3. **Client milliseconds per call at latency 0**, split into the project's own work and the rest.

How the split is measured: from public hooks only, nothing of the project or of Inspect is replaced.
The benchmark plays the project's own task with two of its steps timed through ``inspect_ai.task_with``:
the solver (the whole game) and each scorer. Within the game, ``wolf_eval.agents.player.decision_stages``
tells it each stage a decision enters (``observe``, ``config``, ``prompt``, ``model``, ``reply``,
``done``). The project's code runs on the event loop and awaits nothing but the model call and the
wave, so every stage but ``model`` is an exact synchronous interval of the loop's thread, read on
``time.thread_time`` (that thread's CPU: other jobs on the machine do not inflate it). The garbage
collector is counted apart (``gc.callbacks``): a collection runs in whatever code happens to
allocate when a threshold is crossed, mostly to sweep Inspect's growing transcript, so every
interval below is net of it.

- project = every decision's stages but ``model``; plus the game loop outside its waves (the
  solver's time less each wave's, a wave running from its first decision's start to its last
  one's end: the engine's ``pending`` and ``advance``, the transcript lines, the spans, the seats'
  setup, the final record, and the task group that starts and joins a wave); plus the scorers;
  over the game's calls. That is everything in ``wolf_eval``, ``solvers`` and ``scorers`` outside
  the model call, including the Inspect functions they call (``transcript().info``, ``span``,
  ``GenerateConfig``, the store).
- Inspect + provider = the client process's CPU time (``time.process_time``, all its threads) over
  the solver and the scorers, minus the collector and the project: Inspect's ``generate`` (config
  merge, the message snapshot and model event, the log buffer), the ``openai`` SDK and ``httpx``.
  The server is another process, so none of its time is here; it reports its own CPU time per
  request (reading, answering, writing; not the latency), printed beside it. Wall per call (the
  solver's wall time over its calls) is printed too: one game at a time, it is the client's CPU,
  the server's, loopback waits, and whatever else the machine runs.
- The project's parts: the decision stages ``observe`` (the seat's view), ``config`` (the call's
  seed, response schema and ``GenerateConfig``), ``prompt`` (``call_messages``, with the message
  metadata), ``reply`` (usage, checks and parsing); the game loop, and of it the engine, timed
  when the benchmark re-plays the logged game's replies through ``pending`` and ``advance`` (the
  replay also gives each wave's calls, checked against the decisions seen and ``GameState.waves``);
  and the scorers.

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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import play
from inspect_ai import Task, task_with
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.solver import Generate, Solver, TaskState, solver

from wolf_eval.agents.call import decision_stages
from wolf_eval.engine import advance, new_game, pending
from wolf_eval.ndjson import game_state
from wolf_eval.replay import recorded_decisions, recorded_replies
from wolf_eval.tasks import triadic, wolf

STUB = Path(__file__).resolve().parents[1] / "tests" / "strict_openai.py"
TASKS: dict[str, dict[str, Any]] = {"wolf": {"max_debate_turns": 6}, "triadic": {}}
TASK_FUNCTIONS: dict[str, Callable[..., Task]] = {"wolf": wolf, "triadic": triadic}


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

    def __enter__(self) -> Stub:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.proc.poll() is None:
            try:
                self.stop()
            except Exception:
                self.proc.kill()


# --------------------------------------------------------------------------- the meter


# --------------------------------------------------------------------------- the meter


class Collector:
    """Seconds the garbage collector ran on the event loop's thread (``gc.callbacks``): a collection
    runs in whatever code allocates when a threshold is crossed, so it is counted apart."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.collections = 0
        self.thread: int | None = None
        self.began: float | None = None

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if threading.get_ident() != self.thread:
            return
        if phase == "start":
            self.began = time.thread_time()
        elif self.began is not None:
            self.cpu += time.thread_time() - self.began
            self.collections += 1
            self.began = None


GC = Collector()


@contextmanager
def collector_counted() -> Iterator[None]:
    """Count the collector's runs on this thread (the event loop's) while the block runs."""
    GC.thread = threading.get_ident()
    gc.callbacks.append(GC)
    try:
        yield
    finally:
        gc.callbacks.remove(GC)


def cpu() -> float:
    """The loop thread's CPU seconds, stopped while the collector runs."""
    return time.thread_time() - GC.cpu


@dataclass
class GameTimes:
    """One game's decisions and times, in seconds (CPU of the loop's thread net of the collector, unless said)."""

    sample_id: Any = None
    starts: list[float] = field(default_factory=list)  # when each decision began, in order
    ends: list[float] = field(default_factory=list)  # when each decision was done, in order
    waves: list[int] = field(default_factory=list)  # calls in each wave, in order (from the replay)
    solver_cpu: float = 0.0  # the whole game, waves included
    process_cpu: float = 0.0  # the client process (all threads, the collector too) over the whole game
    gc_cpu: float = 0.0  # the collector on the loop's thread, over the whole game
    collections: int = 0
    wall: float = 0.0  # the game, wall seconds
    parts: dict[str, float] = field(default_factory=dict)  # CPU of each decision stage, and of the replayed engine

    @property
    def calls(self) -> int:
        return len(self.ends)

    @property
    def decide_cpu(self) -> float:
        """The decisions outside their model calls."""
        return sum(self.parts.get(s, 0.0) for s in DECISION_PARTS)

    @property
    def loop_cpu(self) -> float:
        """The game outside its waves; a wave runs from its first decision's start to its last one's end."""
        first = 0
        inside = 0.0
        for n in self.waves:
            inside += self.ends[first + n - 1] - self.starts[first]
            first += n
        return self.solver_cpu - inside


SCORERS: dict[str, float] = {}  # CPU seconds of each game's scorers, by sample id
_GAME: ContextVar[GameTimes | None] = ContextVar("concurrency_benchmark_game", default=None)  # the sample's task and
# the wave tasks it starts
#: The decision stages timed (``model``, the call itself, is not the project's).
DECISION_PARTS = ("observe", "config", "prompt", "reply")


class Meter:
    """Times each game's solver, its decisions' stages and its scorers (see the module docstring)."""

    def __init__(self) -> None:
        self.games: list[GameTimes] = []
        self.stage: str | None = None  # the decision stage running now, if any
        self.since = 0.0

    def enter(self, stage: str) -> None:
        """``decision_stages``'s watch: close the stage that ran (no await interrupts one), open the next."""
        now = cpu()
        game = _GAME.get()
        if game is None:
            return
        if self.stage is not None:
            game.parts[self.stage] = game.parts.get(self.stage, 0.0) + now - self.since
        self.stage, self.since = (None if stage in ("model", "done") else stage), now
        if stage == "observe":
            game.starts.append(now)
        elif stage == "done":
            game.ends.append(now)

    def task(self, task: Task) -> Task:
        """The task with its solver and scorers timed (``inspect_ai.task_with``); the games are the same."""
        scorers = [self.timed_scorer(s) for s in task.scorer or []]
        return task_with(task, solver=self.timed_solver(task.solver), scorer=scorers)

    def timed_solver(self, inner: Solver) -> Solver:
        meter = self

        @solver(name="timed_game")
        def timed_game() -> Solver:
            async def solve(state: TaskState, generate: Generate) -> TaskState:
                times = GameTimes(sample_id=state.sample_id)
                token = _GAME.set(times)
                GC.thread = threading.get_ident()
                gc0, n0, process0, wall0, t0 = GC.cpu, GC.collections, time.process_time(), time.perf_counter(), cpu()
                try:
                    return await inner(state, generate)
                finally:
                    _GAME.reset(token)
                    times.solver_cpu = cpu() - t0
                    times.process_cpu = time.process_time() - process0
                    times.gc_cpu, times.collections = GC.cpu - gc0, GC.collections - n0
                    times.wall = time.perf_counter() - wall0
                    meter.games.append(times)

            return solve

        return timed_game()

    def timed_scorer(self, fn: Callable[..., Any]) -> Callable[..., Any]:
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


def replay_waves(sample: EvalSample, times: GameTimes) -> None:
    """Each wave's calls and the engine's CPU, from the logged game's replies re-played through the engine."""
    logged = game_state(sample)
    replies = recorded_replies(sample)
    state = new_game(logged.config, logged.seed)
    t0 = cpu()
    requests = pending(state)
    engine = cpu() - t0
    while requests:
        decisions = recorded_decisions(state, requests, replies)
        t0 = cpu()
        state = advance(state, decisions)
        engine += cpu() - t0
        times.waves.append(len({replies[r.key].keys for r in requests}))  # calls: a joint call asks several
        t0 = cpu()
        requests = pending(state)
        engine += cpu() - t0
    if state != logged:
        raise SystemExit(f"game {sample.id}: the replay of its replies does not reach the logged game")
    if len(times.waves) != logged.waves or sum(times.waves) != times.calls:
        raise SystemExit(f"game {sample.id}: {times.calls} decisions seen in {len(times.waves)} waves, "
                         f"but the game records {logged.waves} waves")
    times.parts["engine"] = engine


# --------------------------------------------------------------------------- playing


#: Further ``inspect_ai.eval`` options for every run (``--no-log-realtime`` sets ``log_realtime=False``).
EVAL_OPTIONS: dict[str, Any] = {}


def play_measured(task: str, games: int, provider: str, latency: float, max_connections: int | None,
                  max_samples: int, log_dir: str, **extra: Any) -> tuple[EvalLog, list[GameTimes], dict[str, Any]]:
    """Play ``games`` games of ``task``; the log, each game's times and the server's own figures."""
    SCORERS.clear()
    meter = Meter()
    timed = meter.task(TASK_FUNCTIONS[task](games=games, **TASKS[task], **extra))
    options = {"max_connections": max_connections, "max_samples": max_samples, **EVAL_OPTIONS}
    server: dict[str, Any] = {}
    with collector_counted(), decision_stages(meter.enter):
        if provider == "wolfbot":
            log, _ = play(timed, log_dir, model="wolfbot/cue", model_args={"latency": latency}, **options)
        else:
            with Stub(latency) as stub:
                log, _ = play(timed, log_dir, model="openai-api/stub/any", model_base_url=stub.base_url,
                              model_args={"api_key": "stub-key", "stream": False}, **options)
                server = stub.stop()
    if server.get("rejections"):
        raise SystemExit(f"the stub refused {server['rejections']} requests")
    log = read_eval_log(log.location)
    order = {str(s.id): i for i, s in enumerate(log.samples or [])}
    times = sorted(meter.games, key=lambda t: order[str(t.sample_id)])
    with collector_counted():
        for t, sample in zip(times, log.samples or [], strict=True):
            replay_waves(sample, t)
    return log, times, server


def game_days(sample: EvalSample) -> int:
    """Nights and days played (``Outcome.day``), as ``benchmarks/speed.py`` counts a game-day."""
    game = game_state(sample)
    return game.outcome.day if game.outcome else game.day


def split_row(log: EvalLog, times: list[GameTimes], server: dict[str, Any]) -> dict[str, float]:
    """Milliseconds per call over all the games of one run."""
    samples = log.samples or []
    calls = sum(t.calls for t in times)
    scorers = sum(SCORERS.get(str(s.id), 0.0) for s in samples)
    decide = sum(t.decide_cpu for t in times)
    loop = sum(t.loop_cpu for t in times)
    process_cpu = sum(t.process_cpu for t in times) + scorers
    collector = sum(t.gc_cpu for t in times)
    parts: dict[str, float] = {}
    for t in times:
        for k, v in t.parts.items():
            parts[k] = parts.get(k, 0.0) + v
    ms = 1000 / calls
    project = decide + loop + scorers
    return {
        "calls": calls / len(times), "wall": sum(t.wall for t in times) * ms, "client_cpu": process_cpu * ms,
        "project": project * ms, "inspect": (process_cpu - collector - project) * ms, "gc": collector * ms,
        "collections": sum(t.collections for t in times) / len(times),
        "server": server.get("server_seconds", float("nan")) * 1000 / max(server.get("requests", 0), 1)
        if server else float("nan"),
        **{k: v * ms for k, v in parts.items()}, "loop": loop * ms, "scorers": scorers * ms,
    }


# --------------------------------------------------------------------------- printing


def _f(x: float, digits: int = 2) -> str:
    return "–" if x != x else f"{x:.{digits}f}"


SPLIT_COLUMNS = ["wall", "client_cpu", "project", "inspect", "gc", "server", *DECISION_PARTS, "loop", "engine",
                 "scorers"]


def print_split(task: str, rows: list[dict[str, float]], provider: str) -> None:
    print(f"\n{task}: client milliseconds per call at latency 0 ({provider}; CPU but for wall)\n")
    print("| run | calls/game | wall | client CPU | project | Inspect + provider | collector | server CPU "
          "| project: observe | seed, schema, config | prompt | reply: usage, parse | game loop "
          "| of which engine (replayed) | scorers |")
    print("|---|" + "---|" * (len(SPLIT_COLUMNS) + 1))
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
            play_measured(task, 1, args.provider, 0.0, None, 1, tmp, max_days=1)
            rows, waves, days, calls = [], [], [], []
            for _ in range(args.repeat):
                log, times, server = play_measured(task, args.games, args.provider, 0.0, None, 1, tmp)
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
                    log, times, _ = play_measured(task, args.latency_games, args.provider, args.latency,
                                                  max_connections, args.max_samples, tmp)
                    for i, (t, sample) in enumerate(zip(times, log.samples or [], strict=True), 1):
                        d = game_days(sample)
                        print(f"| {limit} | {i} | {d} | {t.calls} | {len(t.waves)} | {t.wall:.1f} | {t.wall / d:.1f} "
                              f"| {t.wall / (len(t.waves) * args.latency):.2f} |")
            print()


if __name__ == "__main__":
    main()
