"""Where a learning game stands in its eval, learned from Inspect's public early-stopping hooks.

A learning run orders its games by their place in the eval, and must know the eval it belongs to
(Inspect's task id, which ``inspect eval-retry`` keeps, so it names the run across its attempts),
which games the eval planned, and which of them this attempt plays: in a retry Inspect reuses the
games the failed log completed and plays only the rest. Inspect tells an early-stopping manager
exactly that, so ``LearningOrder`` is one that never stops a sample: ``game_task`` attaches it to
the Task as ``early_stopping`` only when ``jester_learning`` is on, and hands the same object to
the solver (inside ``Learning``).

Inspect calls, per eval: ``start_task`` once with the ``EvalSpec`` and the planned samples;
``schedule_sample`` before each sample this attempt plays (only when the eval logs its samples);
``complete_sample`` after each scored sample, the reused ones included, once the sample is handed
to the log; ``complete_task`` at the end, whose dict the log keeps as
``results.early_stopping.metadata`` under the manager name ``wolf_eval/learning-order``, with no
early stops. A sample that ends in error reaches no early-stopping hook, so an Inspect
``on_sample_end`` hook (``LearningHooks``) tells every order about it.

A game's lessons are committed once Inspect has completed its sample (``complete_sample``): its
record is then in the log's buffer ahead of any later game's, so a log holding a later game holds
this one too. A game that ends in error is not committed: its lessons are removed from the file
(``drop_game``) before any later game reads, and ``eval-retry`` plays it again.

At ``start_task`` the order checks the Jester's lessons file (``check_lessons_file``) for the
eval's Jester model (its ``jester`` role binding, else the eval's model), so a folder, a damaged
file or another model's lessons stop the eval before any game.

The solver says which game it plays (``begin``) before anything else, so a game counts as played
here even when Inspect did not call ``schedule_sample``. Inspect builds a task loaded by name once
per model; a Task object passed to ``eval()`` with several models serves all of them, so plans
are looked up by the sample's model and the samples Inspect names without one (scheduled, reused)
count for every plan. That only blurs what a retry does, and a retry builds its task anew.
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from inspect_ai.dataset import Sample
from inspect_ai.hooks import Hooks, SampleEnd, hooks
from inspect_ai.log import EvalSpec
from inspect_ai.scorer import SampleScore
from inspect_ai.solver import TaskState
from inspect_ai.util import EarlyStop
from pydantic import JsonValue

from wolf_eval.lessons.book import GameKey, check_lessons_file, drop_game, lessons_path

#: The name the eval log records for this manager (``results.early_stopping.manager``).
MANAGER = "wolf_eval/learning-order"

_Key = tuple[str, int]


def place(sample: int | str, epoch: int, games: int, ids: tuple[int | str, ...] | None = None) -> int:
    """A game's step: its place in the eval, epoch by epoch, ``(epoch - 1) * games + sample id``.

    The game tasks number their samples 1..games; an id that is not a number counts by its
    position among the planned ids instead.
    """
    if str(sample).isdigit():
        number = int(str(sample))
    else:
        number = ids.index(sample) + 1 if ids and sample in ids else 0
    return (epoch - 1) * games + number


@dataclass
class EvalPlan:
    """One eval attempt as Inspect started it: who it is, what it planned, what it played and reused."""

    task: str
    eval: str
    run: str
    model: str
    ids: tuple[int | str, ...]
    epochs: int
    jester: str = ""
    played: set[_Key] = field(default_factory=set)
    reused: set[_Key] = field(default_factory=set)
    completed: set[_Key] = field(default_factory=set)
    failed: set[_Key] = field(default_factory=set)


def jester_model(task: EvalSpec) -> str:
    """The model that plays the Jester: its ``--model-role jester=`` binding, else the eval's model."""
    bound = (task.model_roles or {}).get("jester")
    if isinstance(bound, list):
        bound = bound[0] if bound else None
    return str(bound.model) if bound is not None else task.model


def _key(sample: int | str, epoch: int) -> _Key:
    return str(sample), epoch


class LearningOrder:
    """An early-stopping manager that stops nothing: it tells the learning loop its eval and plan.

    Args:
        games: The task's ``games`` setting, which numbers the places of later epochs.
        lessons_dir: The folder of the lessons files; without it nothing is checked at the start
            and a failed game's lessons are left to the turnstile's caller.
    """

    def __init__(self, games: int, lessons_dir: Path | str | None = None) -> None:
        self.games = games
        self.lessons_dir = lessons_dir
        self._plans: dict[str, EvalPlan] = {}
        self._watchers: weakref.WeakSet[asyncio.Condition] = weakref.WeakSet()
        _ORDERS.add(self)

    async def start_task(self, task: EvalSpec, samples: list[Sample], epochs: int) -> str:
        """Register the eval attempt, after checking its Jester's lessons file; a new attempt of the same
        model replaces the last one's plan."""
        jester = jester_model(task)
        if self.lessons_dir is not None:
            check_lessons_file(self.lessons_dir, jester)
        ids = tuple(s.id for s in samples if s.id is not None)
        self._plans = {k: p for k, p in self._plans.items() if p.model != task.model}
        self._plans[task.eval_id] = EvalPlan(task=task.task_id, eval=task.eval_id, run=task.run_id, model=task.model,
                                             ids=ids, epochs=epochs, jester=jester)
        return MANAGER

    def watch(self, changed: asyncio.Condition) -> None:
        """Have ``changed`` notified whenever a sample completes or fails."""
        self._watchers.add(changed)

    async def _notify(self) -> None:
        for changed in list(self._watchers):
            if changed.locked():
                # A game holds it only while it wakes to re-check (a turnstile awaits nothing else holding it),
                # and it re-checks on its own. (A Ctrl-C hung a run here while the turnstile's asyncio.wait_for could
                # leave this lock held by a task that had ended; issue 28: 3, fixed in the turnstile.)
                continue
            async with changed:
                changed.notify_all()

    async def sample_failed(self, eval_id: str, sample: int | str, epoch: int) -> None:
        """A sample of ``eval_id`` ended in error: its game is not committed, so its lessons go."""
        plan = self._plans.get(eval_id)
        if plan is None:
            return
        if self.lessons_dir is not None:
            # Called here, not in a worker thread: Inspect ends a sample cancelled by a Ctrl-C through this
            # hook, and a worker thread awaited there left the interrupted run waiting forever (issue 28: 3).
            # A failed sample's drop is one short, rare file change.
            game = GameKey(task=plan.task, sample=sample, epoch=epoch, step=0)
            drop_game(lessons_path(self.lessons_dir, plan.jester), plan.jester, game)
        plan.failed.add(_key(sample, epoch))
        await self._notify()

    async def schedule_sample(self, id: str | int, epoch: int) -> EarlyStop | None:
        """Note that this attempt plays the sample; never stop it."""
        for plan in self._plans.values():
            plan.played.add(_key(id, epoch))
        return None

    async def complete_sample(self, id: str | int, epoch: int, scores: dict[str, SampleScore]) -> None:
        """A sample completed without being played here was reused from the failed log."""
        for plan in self._plans.values():
            if _key(id, epoch) not in plan.played:
                plan.reused.add(_key(id, epoch))
            plan.completed.add(_key(id, epoch))
        await self._notify()

    async def complete_task(self) -> dict[str, JsonValue]:
        """The log's note: nothing stopped, and (for a Task serving one eval) what was played and reused."""
        summary: dict[str, JsonValue] = {
            "stopped": 0,
            "purpose": "orders the Jester's learning games by their place in the eval; never stops a sample"}
        if len(self._plans) == 1:
            [plan] = self._plans.values()
            summary.update(planned=len(plan.ids) * plan.epochs, played=len(plan.played), reused=len(plan.reused))
        return summary

    def plan_for(self, state: TaskState) -> EvalPlan | None:
        """The eval attempt the sample belongs to, by its model; None before Inspect started one."""
        if len(self._plans) == 1:
            return next(iter(self._plans.values()))
        return next((p for p in self._plans.values() if p.model == str(state.model)), None)

    def begin(self, state: TaskState) -> GameKey | None:
        """The game the sample plays, now counted as played here; None outside an eval that started this order."""
        plan = self.plan_for(state)
        if plan is None:
            return None
        plan.played.add(_key(state.sample_id, state.epoch))
        return GameKey(task=plan.task, eval=plan.eval, run=plan.run, sample=state.sample_id, epoch=state.epoch,
                       step=place(state.sample_id, state.epoch, self.games, plan.ids), attempt=state.uuid)

    def earlier(self, game: GameKey) -> set[int] | None:
        """The places the eval planned before ``game``'s; None when its eval is unknown here."""
        plan = self._plans.get(game.eval)
        if plan is None:
            return None
        return {s for e in range(1, plan.epochs + 1) for i in plan.ids
                if (s := place(i, e, self.games, plan.ids)) < game.step}

    def played_here(self, game: GameKey) -> set[int]:
        """The places this attempt of ``game``'s eval plays (started or about to), finished or not."""
        return self._steps(game, "played")

    def reused_here(self, game: GameKey) -> set[int]:
        """The places this attempt took over from the failed log without playing them."""
        return self._steps(game, "reused")

    def failed_here(self, game: GameKey) -> set[int]:
        """The places of ``game``'s eval whose sample this attempt saw end in error."""
        return self._steps(game, "failed")

    def settled_here(self, game: GameKey) -> set[int]:
        """The places of ``game``'s eval whose sample this attempt completed (played or reused) or saw fail."""
        return self._steps(game, "completed") | self._steps(game, "failed")

    def _steps(self, game: GameKey, which: str) -> set[int]:
        plan = self._plans.get(game.eval)
        if plan is None:
            return set()
        keys: set[_Key] = getattr(plan, which)
        ids = {str(i): i for i in plan.ids}
        return {place(ids.get(sample, sample), epoch, self.games, plan.ids) for sample, epoch in keys}


_ORDERS: weakref.WeakSet[LearningOrder] = weakref.WeakSet()


@hooks(name="learning-order", description="tells the Jester's learning runs which of their games failed")
class LearningHooks(Hooks):
    """A sample that ends in error reaches no early-stopping hook; this tells every learning order."""

    async def on_sample_end(self, data: SampleEnd) -> None:
        if data.sample.error is None:
            return
        for order in list(_ORDERS):
            await order.sample_failed(data.eval_id, data.sample.id, data.sample.epoch)


__all__ = ["MANAGER", "EvalPlan", "LearningHooks", "LearningOrder", "jester_model", "place"]
