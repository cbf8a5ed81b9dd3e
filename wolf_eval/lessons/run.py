"""A learning run: one eval per game, game k reading snapshot k-1 of its Jester model's lessons (``book``).

``learn`` plays the games in order. Each is an eval of its own (``-T learning_step=k``), in the log folder,
so ``inspect view`` lists every game. Once game k's eval has ended in success, its log is the record
of what game k added, and snapshot k is written from it. So a run killed at any point has lost at
most the game in flight, and the same command run again resumes at the first missing snapshot:
a game whose log finished but whose snapshot was not written (killed in between, a failed write,
or a failed game's log finished by ``inspect eval-retry``) is kept from its log, not played again.
A game whose eval failed stops the run; nothing was kept of it.
"""

from __future__ import annotations

import contextvars
import os
from dataclasses import dataclass
from typing import Any

import anyio
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log, transcript
from inspect_ai.model import Model
from inspect_ai.solver import TaskState

from wolf_eval.agents.call import MAX_RAW_CHARS
from wolf_eval.agents.model_tagger import bound_tagger_readings
from wolf_eval.agents.player import Agent, Seat
from wolf_eval.bindings import Bindings
from wolf_eval.engine import GameState, Role
from wolf_eval.lessons import book, remote
from wolf_eval.lessons.asking import ask_for_lessons, lessons_by_list, most_recent
from wolf_eval.lessons.book import Lesson, Location, Snapshot
from wolf_eval.measures.tagger import tag
from wolf_eval.refusal import Refusal
from wolf_eval.settings import Settings, SettingsError
from wolf_eval.store import LessonRow, current_record, logged_record
from wolf_eval.text import clean_text


class LearningStopped(Refusal, RuntimeError):
    """A learning run that cannot go on: its one line names the game, and how the same command goes on from it."""


@dataclass(frozen=True)
class Learning:
    """Game ``step`` of its Jester model's sequence: it reads snapshot ``step - 1`` and shows ``shown`` lessons."""

    lessons_dir: Location
    step: int
    shown: int

    @classmethod
    def of(cls, settings: Settings) -> Learning | None:
        """The game's place in its sequence; a learning eval that does not name it is refused."""
        if not settings.jester_learning:
            return None
        if settings.learning_step is None:
            raise SettingsError(f"jester_learning=true is not accepted alone: a learning run is one eval per game, "
                                f"played in order by `wolf-eval learn {settings.variant} --model MODEL --games N` "
                                "(docs/learning.md)")
        folder = settings.lessons_dir or book.default_lessons_dir()
        return cls(folder if remote.is_remote(folder) else os.path.expanduser(folder),
                   settings.learning_step, settings.lessons_shown)

    def path(self, model: str) -> Location:
        return book.snapshot_path(book.model_folder(self.lessons_dir, model), self.step - 1)

    def read(self, model: str) -> Snapshot:
        """Snapshot ``step - 1`` (snapshot 0 may be absent: no lessons yet); refused when it is missing."""
        path = self.path(model)
        found = book.read_snapshot(path, model)
        if found is None and self.step > 1:
            raise LearningStopped(f"learning_step={self.step} reads the lessons of games 1 to {self.step - 1}, but "
                                  f"{path} is missing: play the games in order with wolf-eval learn")
        return found or Snapshot(model=model)

    async def before(self, state: TaskState, jester: Seat, agent: Agent) -> Snapshot:
        """Read the snapshot, record what the Jester is shown and give it to the Jester's seat."""
        if state.epoch > 1:
            raise ValueError("jester_learning: a learning eval plays one game once, so --epochs is refused")
        snapshot = await anyio.to_thread.run_sync(self.read, jester.model_name)
        shown = most_recent(snapshot.lessons, self.shown)
        record = current_record()
        record.lessons_file = str(self.path(jester.model_name))
        record.lessons_sha256 = snapshot.digest()
        record.learning_step = self.step
        record.lessons_read = rows(shown)
        agent.jester_lessons = lessons_by_list(shown)
        return snapshot

    async def after(self, game: GameState, jester: Seat, agent: Agent, snapshot: Snapshot,
                    tagger: Model | None) -> None:
        """Ask the Jester's model for lessons and record the new ones (snapshot ``step`` is written from the log)."""
        shown = most_recent(snapshot.lessons, self.shown)
        answer = await ask_for_lessons(game, jester, shown, agent)
        added = book.new_lessons(answer.value, snapshot.lessons, self.step)
        record = current_record()
        record.usage, record.calls = agent.usage, record.calls + 1
        record.lessons_added = rows(added)
        record.lessons_reply, record.lessons_problem = clean_text(answer.raw)[:MAX_RAW_CHARS], answer.problem
        if tagger is not None:  # a bound tagger (never the model under evaluation) reads the new lessons too
            record.tagger_model, record.lessons_added_tagger = await bound_tagger_readings(
                tagger, [x.text for x in added], game.seed, agent.eval_seed)
        transcript().info({"read": len(shown), "proposed": len(answer.value), "added": [x.text for x in added],
                           "problem": answer.problem}, source="wolf_eval/lessons")


def rows(lessons: list[Lesson]) -> list[LessonRow]:
    """Lessons as the sample records them: list, text and their tags."""
    return [LessonRow(list=x.list, text=x.text, order=(t := tag(x.text)).order, categories=list(t.categories))
            for x in lessons]


def learn(task: str, model: str | Model, games: int, task_args: dict[str, Any] | None = None,
          log_dir: str | None = None, **eval_args: Any) -> list[EvalLog]:
    """Play ``task``'s learning sequence until its Jester model's lessons hold ``games`` games; the games' logs.

    Refuses, before any game, an unusable lessons folder or latest snapshot; stops (``LearningStopped``) at a game
    whose eval fails, and (``LessonsTaken``) when another run kept a game first.
    """
    from inspect_ai import eval as inspect_eval

    args = {**(task_args or {}), "jester_learning": True, "games": 1}
    settings = Settings.from_task_args(task, **args, learning_step=1)
    bindings = Bindings.of(model, eval_args.get("model_roles") or {}).check(settings.rules)
    jester = bindings.seat(Role.JESTER)
    learning = Learning.of(settings)
    assert learning is not None
    book.check_writable(learning.lessons_dir)
    folder = book.model_folder(learning.lessons_dir, jester)
    snapshot = book.latest(folder, jester) or Snapshot(model=jester)
    log_dir = log_dir or os.environ.get("INSPECT_LOG_DIR", "./logs")
    finished, logs = finished_games(log_dir, settings, bindings), []
    for step in range(snapshot.step + 1, games + 1):
        log = kept_log(finished.get(step, []), snapshot)
        if log is None:  # in a copy of this context: eval() leaves its model set in the caller's
            [log] = contextvars.copy_context().run(inspect_eval, f"wolf_eval/{task}", model=model, log_dir=log_dir,
                                                   task_args={**args, "learning_step": step}, **eval_args)
        if log.status != "success" or not log.samples or log.samples[0].error is not None:
            raise LearningStopped(f"game {step} of the learning run ended {log.status} ({log.location}): "
                                  "nothing of it was kept; run the same command again to play it again")
        snapshot = kept(folder, snapshot, log)
        logs.append(log)
    return logs


def kept(folder: Location, before: Snapshot, log: EvalLog) -> Snapshot:
    """Snapshot ``before.step + 1``, written from the finished log of that game."""
    [sample] = log.samples or []
    step = before.step + 1
    added = [Lesson.model_validate(x.model_dump() | {"step": step}) for x in logged_record(sample.store).lessons_added]
    after = before.model_copy(update={"step": step, "logs": [*before.logs, log.location],
                                      "lessons": [*before.lessons, *added]})
    try:
        book.write_snapshot(folder, after)
    except OSError as err:
        if isinstance(err, Refusal):
            raise
        raise LearningStopped(f"the lessons of game {step} could not be saved to {book.snapshot_path(folder, step)}: "
                              f"{err.strerror or err}; its log is kept ({log.location}): run the same command "
                              "again to keep them from it") from err
    return after


def finished_games(log_dir: str, settings: Settings, bindings: Bindings) -> dict[int, list[Any]]:
    """The finished logs in ``log_dir`` of games of this run (these settings and seats), by step, listed once."""
    wanted = settings.model_dump(mode="json") | {"learning_step": None}
    found: dict[int, list[Any]] = {}
    for info in list_eval_logs(log_dir):
        header = read_eval_log(info, header_only=True)
        logged = dict((header.eval.metadata or {}).get("settings") or {})
        step = logged.get("learning_step")
        if header.status == "success" and step and logged | {"learning_step": None} == wanted and \
                Bindings.from_spec(header.eval) == bindings:
            found.setdefault(step, []).append(info)
    return found


def kept_log(candidates: list[Any], snapshot: Snapshot) -> EvalLog | None:
    """The candidate log whose game read ``snapshot`` (by its digest), if there is one."""
    for info in candidates:
        log = read_eval_log(info)
        if log.samples and logged_record(log.samples[0].store).lessons_sha256 == snapshot.digest():
            return log
    return None
