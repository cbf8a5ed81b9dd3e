"""The Jester learning loop around a game: a run's games one at a time, in their place order.

Every game of a learning run has a place in its eval, its ``step``: ``(epoch - 1) * games +
sample id``, the order Inspect plans samples in (epoch by epoch). It depends on nothing the
process saw, so a game keeps its step when ``inspect eval-retry`` plays it again, and the steps of
two evals never mix (the lessons they write carry their own Inspect task ids).

Inspect starts samples concurrently and, in a retry, in no fixed order (it first looks each one up
in the failed log). So each game waits at its run's turnstile until every earlier place Inspect
planned for this eval is settled: its sample completed (played here, or reused by Inspect from the
failed log) or failed here. A game's lessons count as committed only once its sample completed,
that is once it is in the log's buffer ahead of every later game's; a failed game's lessons are
removed before anyone reads on (``wolf_eval.lessons.order``). The lessons file alone is never
trusted to say a place is done: after a kill it may hold an attempt the log does not, which the
retry plays again and replaces. The game then holds the turnstile from reading the lessons until
its own are written. Every game thus reads exactly what the earlier games of its run committed
(plus whatever other runs wrote), as in an uninterrupted run, and never lessons a retry removes.
If no game of the run settles for ``STALL_SECONDS`` while an earlier place never started here (its
sample failed before the game began, or ``--max-samples`` is smaller than the games waiting and
Inspect started later ones first), the earliest waiting game goes on and a warning names the
missing places: the run is never stuck, and the warning says its order was broken. Other evals
and processes writing the same file are kept safe by the file lock in ``wolf_eval.lessons.book``.

The eval's identity (its task id, kept across retries), its plan and which of its samples this
attempt plays come from ``LearningOrder`` (``wolf_eval.lessons.order``), the early-stopping
manager ``game_task`` attaches to the Task; the solver passes each game's ``GameKey`` (from
``Learning.begin``) to the functions here. Without them (a game outside such a Task, or unit
tests calling these functions directly) games take turns in arrival order, numbered per
process, and their lessons carry no game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.log import transcript
from inspect_ai.solver import TaskState

from wolf_eval.agents.call import MAX_RAW_CHARS
from wolf_eval.agents.player import Seat
from wolf_eval.engine import GameState
from wolf_eval.lessons.asking import ask_for_lessons, lessons_by_list
from wolf_eval.lessons.book import (
    GameKey,
    Lesson,
    LessonsNotSaved,
    append_lessons,
    lessons_path,
    read_lessons,
    visible_to,
)
from wolf_eval.lessons.order import LearningOrder
from wolf_eval.lessons.tagger import tag
from wolf_eval.store import TokenUsage

logger = logging.getLogger(__name__)

#: Seconds without any game of a run finishing before a game stops waiting for a missing earlier place.
STALL_SECONDS = 30.0

_LOCKS: dict[tuple[int, str], asyncio.Lock] = {}
_STEPS: dict[str, int] = {}


@dataclass
class _Run:
    """One learning run's turnstile in this process: which places arrived, which are done, whether one plays."""

    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    arrived: set[int] = field(default_factory=set)
    done: set[int] = field(default_factory=set)
    playing: bool = False
    last_progress: float = 0.0
    seen_settled: int = 0


_RUNS: dict[tuple[int, str, str], _Run] = {}


def _settled(run: _Run, game: GameKey, order: LearningOrder | None) -> set[int]:
    """The places whose game is over: committed, failed or given up (with an order); else out of the turnstile."""
    if order is None:
        return set(run.done)
    return order.settled_here(game) | run.done


def _missing(run: _Run, game: GameKey, earlier: set[int] | None, order: LearningOrder | None) -> set[int]:
    """The earlier places this game still waits for.

    With the eval's order, a place is awaited until Inspect has completed its sample (played here
    or reused from the failed log) or seen it fail: never on the lessons file's word, which may
    hold an attempt the log does not. Without it, until the game there left the turnstile.
    """
    return (earlier if earlier is not None else {s for s in run.arrived if s < game.step}) - _settled(run, game, order)


def _give_up(run: _Run, game: GameKey, missing: set[int], order: LearningOrder | None) -> bool:
    """True, after a warning, when this game goes on without earlier places that never started here.

    The earliest game waiting, after ``STALL_SECONDS`` without any game of the run settling, while
    no earlier place is being played here (their sample failed before the game began, or
    ``--max-samples`` is smaller than the games waiting and Inspect started later ones first).
    """
    loop = asyncio.get_running_loop()
    settled = _settled(run, game, order)
    if len(settled) != run.seen_settled:
        run.seen_settled, run.last_progress = len(settled), loop.time()
    here = run.arrived | (order.played_here(game) if order else set())
    if (loop.time() - run.last_progress < STALL_SECONDS or run.playing or missing & here
            or min(run.arrived - settled) != game.step):
        return False
    logger.warning("learning run %s: the game at step %d goes on without step(s) %s, which did not start in %.0f s; "
                   "the run's order is broken from here", game.task, game.step, sorted(missing), STALL_SECONDS)
    transcript().info({"order_broken": True, "step": game.step, "missing": sorted(missing)},
                      source="wolf_eval/lessons")
    run.done |= missing
    return True


def _note_failed(game: GameKey, earlier: set[int] | None, order: LearningOrder | None) -> None:
    """Say so when this game goes on past earlier places whose samples failed: it reads none of their lessons."""
    failed = sorted((earlier or set()) & (order.failed_here(game) if order else set()))
    if failed:
        logger.warning("learning run %s: the game at step %d goes on without the lessons of failed step(s) %s; "
                       "eval-retry plays them again", game.task, game.step, failed)
        transcript().info({"order_broken": True, "step": game.step, "failed": failed}, source="wolf_eval/lessons")


@asynccontextmanager
async def turnstile(path: Path | str, game: GameKey | None = None, order: LearningOrder | None = None
                    ) -> AsyncIterator[None]:
    """Hold the run's turnstile for ``game``, entering once every earlier place is settled.

    Args:
        path: The lessons file the run shares.
        game: The game about to read the lessons (``Learning.begin``); without it the games
            sharing ``path`` in this process simply take turns in arrival order.
        order: The eval's ``LearningOrder``, which says which earlier places to wait for and when
            their samples completed; without it a game waits only for the earlier places that
            already arrived here, until they leave the turnstile.
    """
    loop = asyncio.get_running_loop()
    if game is None:
        async with _LOCKS.setdefault((id(loop), str(path)), asyncio.Lock()):
            yield
        return
    run = _RUNS.setdefault((id(loop), game.task, str(path)), _Run(last_progress=loop.time()))
    earlier = order.earlier(game) if order else None
    if order is not None:
        order.watch(run.changed)
    async with run.changed:
        run.arrived.add(game.step)
        try:
            while True:
                missing = _missing(run, game, earlier, order)
                if not run.playing and (not missing or _give_up(run, game, missing, order)):
                    break
                idle = loop.time() - run.last_progress
                # In this task, not asyncio.wait_for's: on Python 3.11 wait_for runs the wait in a task of its own
                # and, cancelled again while cancelling it (as Inspect's task groups do, every loop turn), returns
                # before that task has the lock back; the lock is then released here by a task that does not hold
                # it, the Condition breaks and a Ctrl-C left the run waiting for ever (issue 28: 3).
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(max(0.05, STALL_SECONDS - idle)):
                        await run.changed.wait()
            run.playing = True
            _note_failed(game, earlier, order)
        except BaseException:
            run.done.add(game.step)
            run.changed.notify_all()
            raise
    try:
        yield
    finally:
        async with run.changed:
            run.playing = False
            if order is None:
                run.done.add(game.step)
            run.last_progress = loop.time()
            run.changed.notify_all()


@dataclass
class Learning:
    """Where the Jester's model keeps its lessons, and the eval's order of games.

    Args:
        lessons_dir: The folder of the per-model lessons files, local or ``s3://``.
        order: The ``LearningOrder`` the task also holds as its ``early_stopping``; without it
            (a solver used outside ``game_task``) games take turns in arrival order, numbered
            per process, and their lessons carry no game.
    """

    lessons_dir: Path | str
    order: LearningOrder | None = None

    def path(self, model: str) -> Path | str:
        return lessons_path(self.lessons_dir, model)

    def begin(self, state: TaskState) -> GameKey | None:
        """The game the sample plays, counted as played from here on; None without an order that started."""
        return self.order.begin(state) if self.order else None

    def read(self, model: str, game: GameKey | None = None) -> list[Lesson]:
        """The lessons ``game`` may read (all but its own run's at its place or later)."""
        return visible_to(read_lessons(self.path(model), model), game)

    def next_step(self, model: str, game: GameKey | None = None) -> int:
        """The game's place in its eval; a per-process count for a game that has no key."""
        if game is not None:
            return game.step
        key = str(self.path(model))
        _STEPS[key] = _STEPS.get(key, 0) + 1
        return _STEPS[key]


def describe_lessons(lessons: list[Lesson]) -> list[dict[str, Any]]:
    """Lessons as the sample records them: list, text and their tags."""
    out = []
    for lesson in lessons:
        tags = tag(lesson.text)
        out.append({"list": lesson.list, "text": lesson.text, "order": tags.order, "categories": list(tags.categories)})
    return out


async def keep_lessons(game: GameState, seat: Seat, known: list[Lesson], learning: Learning,
                       source: dict[str, Any], structured_output: bool = True,
                       usage: dict[str, TokenUsage] | None = None, game_key: GameKey | None = None,
                       game_name: str = "") -> tuple[list[Lesson], str, str | None]:
    """Ask the Jester's model for lessons and append them; returns the lessons added, the raw reply and
    why nothing was read, if so.

    With ``game_key`` (``Learning.begin``) the lessons carry their game and replace any its earlier
    attempt wrote; without it they are appended with no game.
    """
    answer = await ask_for_lessons(game, seat, known, structured_output, usage, game_name)
    candidates, raw, problem = answer.value, answer.raw, answer.problem
    if game_key is not None:
        source = {**source, "eval_id": game_key.eval, "task_id": game_key.task, "run_id": game_key.run,
                  "step": game_key.step, "attempt": game_key.attempt}
    path = learning.path(seat.model_name)
    try:
        added = await anyio.to_thread.run_sync(append_lessons, path, seat.model_name, candidates, source, game_key)
    except OSError as err:  # a game whose learning is lost must not be scored as one whose Jester learned nothing
        raise LessonsNotSaved(path, err) from err
    transcript().info({"read": len(known), "proposed": len(candidates), "added": [x.text for x in added],
                       "problem": problem, "raw": raw[:MAX_RAW_CHARS]}, source="wolf_eval/lessons")
    return added, raw, problem


__all__ = ["Learning", "LearningOrder", "keep_lessons", "describe_lessons", "lessons_by_list", "turnstile"]
