"""A learning run: the Jester's games one at a time, each reading the lessons of the games before it.

Inspect plays a Task's samples at once, and ``eval-retry`` plays the samples its log lacks in any
order; a learning run is a sequence. So its dataset is Inspect's turnstile for samples, a
``SampleSource`` (``LearningRun``): it starts with game 1 and adds game k+1 only once Inspect has
logged game k. One game of the run is in flight at a time, whatever ``--max-samples`` says, and
nothing waits, so nothing can stall or hang on a Ctrl-C. ``eval-retry`` rebuilds the same sequence:
Inspect hands the source each game its log holds, the source adds the next, and the first game the
log lacks is played again, then the ones after it.

A game's place in its run, its ``learning_step``, is its sample id. Its lessons carry a ``GameKey``:
Inspect's task id (``eval-retry`` keeps it, so it names the run across its attempts), the attempt's
eval and run ids, the sample, the step and the attempt (the sample's uuid). Inspect tells a solver
none of these ids, so an Inspect hook (``LearningIds``) notes each eval's spec and each sample's
eval as they start.

The lessons file can hold lessons the log does not, and a game never reads them:

- a game killed (``kill -9``, Ctrl-C) after its lessons write, before its log: ``eval-retry`` plays
  it again; it reads no lesson its own run wrote at its step or later (``book.visible_to``), and its
  write replaces the killed attempt's lessons (``book.append_lessons``);
- a game whose sample ends in error after its write (``fail_on_error=False`` goes on past it): the
  source removes its lessons (``book.drop_game``) before adding the next game, which notes the games
  whose lessons it goes without; ``eval-retry`` plays the failed game again.

Other runs may share the file (another eval of the same model, on this machine or another): each
game reads their lessons too, as they stand when it starts; ``book`` keeps concurrent writers safe.
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio
from inspect_ai import SampleSource
from inspect_ai.dataset import Sample
from inspect_ai.hooks import Hooks, SampleStart, TaskEnd, TaskStart, hooks
from inspect_ai.log import EvalSample, EvalSpec, transcript
from inspect_ai.solver import TaskState

from wolf_eval.agents.call import MAX_RAW_CHARS
from wolf_eval.agents.player import Seat
from wolf_eval.bindings import Bindings
from wolf_eval.engine import GameState, Role
from wolf_eval.lessons.asking import ask_for_lessons, lessons_by_list, most_recent
from wolf_eval.lessons.book import (
    GameKey,
    Lesson,
    LessonsNotSaved,
    Location,
    append_lessons,
    check_lessons_file,
    drop_game,
    lessons_path,
    read_lessons,
    visible_to,
)
from wolf_eval.lessons.tagger import tag
from wolf_eval.store import LessonRow, TokenUsage

#: Sample metadata: the earlier games of the run whose samples failed, so whose lessons a game goes without.
FAILED = "learning_failed"

_SPECS: dict[str, EvalSpec] = {}  # eval id -> its spec, while the eval runs
_EVAL_OF: dict[str, str] = {}  # sample uuid -> its eval id, while the eval runs


@hooks(name="learning-run", description="tells the Jester's learning games which eval they belong to")
class LearningIds(Hooks):
    """Note each eval's spec as it starts and each sample's eval as it starts (a solver is told neither)."""

    #: Whether this process has built a learning run: until it has, the hook is off, so the evals of an
    #: environment that has wolf-eval installed neither list it as they start nor feed it.
    on = False

    def enabled(self) -> bool:
        return LearningIds.on

    async def on_task_start(self, data: TaskStart) -> None:
        _SPECS[data.eval_id] = data.spec

    async def on_sample_start(self, data: SampleStart) -> None:
        _EVAL_OF[data.sample_id] = data.eval_id

    async def on_task_end(self, data: TaskEnd) -> None:
        _SPECS.pop(data.eval_id, None)
        for uuid in [u for u, e in _EVAL_OF.items() if e == data.eval_id]:
            del _EVAL_OF[uuid]


def _spec_of(sample_uuid: str | None) -> EvalSpec | None:
    return _SPECS.get(_EVAL_OF.get(sample_uuid or "", ""))


@dataclass
class Learning:
    """Where the Jester's model keeps its lessons: ``lessons_dir``, a local folder or an ``s3://`` URL."""

    lessons_dir: Location

    def path(self, model: str) -> Location:
        return lessons_path(self.lessons_dir, model)

    def check(self, model: str) -> None:
        """Refuse, before the first game, a lessons file of ``model``'s that cannot be used as it is."""
        check_lessons_file(self.lessons_dir, model)

    def begin(self, state: TaskState) -> GameKey:
        """The game the sample plays, and a note in its transcript of the earlier games it goes on without."""
        spec = _spec_of(state.uuid)
        if spec is None:
            raise RuntimeError("jester_learning: this game's eval is unknown; a learning run is played by "
                               "`inspect eval` or `inspect_ai.eval` with the wolf_eval/learning-run hook enabled")
        if state.epoch > 1:
            raise ValueError("jester_learning: a learning run is one sequence of games, so --epochs is refused; "
                             "ask for more games with -T games=N")
        game = GameKey(task=spec.task_id, eval=spec.eval_id, run=spec.run_id, sample=state.sample_id,
                       epoch=state.epoch, step=int(state.sample_id), attempt=state.uuid)
        failed = state.metadata.get(FAILED)
        if failed:
            transcript().info({"order_broken": True, "step": game.step, "failed": failed}, source="wolf_eval/lessons")
        return game

    def read(self, model: str, game: GameKey, shown: int) -> list[Lesson]:
        """The lessons ``game``'s Jester is shown: the most recent ``shown`` of those it may read, all the
        file's but those its own run wrote at its place or later."""
        stored = visible_to(read_lessons(self.path(model), model), game)
        known = most_recent(stored, shown)
        transcript().info({"lessons_file": str(self.path(model)), "step": game.step, "stored": len(stored),
                           "read": [x.text for x in known]}, source="wolf_eval/lessons")
        return known


class LearningRun(SampleSource):
    """A learning run's games as the Task's dataset: game 1 first, then each game once the one before it is logged.

    Args:
        games: The run's samples, ids 1..n in order.
        learning: Where the lessons are, to remove a failed game's.
    """

    def __init__(self, games: list[Sample], learning: Learning) -> None:
        self.games = games
        self.learning = learning
        self.started = False
        LearningIds.on = True

    def initial_samples(self) -> list[Sample]:
        return self.games[:1]

    async def sample_complete(self, sample: EvalSample) -> list[Sample] | None:
        """Game k is logged (played here, or reused from the log ``eval-retry`` retries): add game k+1."""
        self.started = True
        step = int(sample.id)
        failed = list((sample.metadata or {}).get(FAILED, []))
        if sample.error is not None:
            self._drop(sample)
            failed.append(step)
        if step >= len(self.games) or sample.epoch > 1:
            return None
        after = self.games[step]  # ids 1..n: game k+1 is at index k
        return [after.model_copy(update={"metadata": {**(after.metadata or {}), FAILED: failed}}) if failed else after]

    async def next_samples(self) -> list[Sample] | None:
        """Nothing more: the run is over. Called before any game was logged, ``--sample-id`` left out game 1."""
        if not self.started:
            raise ValueError("jester_learning: a learning run plays its games in order from game 1, so --sample-id "
                             "must include 1 (--limit N plays the first N)")
        return None

    def _drop(self, sample: EvalSample) -> None:
        """Remove the failed game's lessons (a game played here: its eval is known)."""
        spec = _spec_of(sample.uuid)
        if spec is None:
            return
        model = Bindings.from_spec(spec).seat(Role.JESTER)
        # Not in a worker thread: a short, rare file change, made before the next game is added.
        drop_game(self.learning.path(model), model,
                  GameKey(task=spec.task_id, sample=sample.id, epoch=sample.epoch, step=int(sample.id)))


def describe_lessons(lessons: list[Lesson]) -> list[LessonRow]:
    """Lessons as the sample records them: list, text and their tags."""
    out = []
    for lesson in lessons:
        tags = tag(lesson.text)
        out.append(LessonRow(list=lesson.list, text=lesson.text, order=tags.order, categories=list(tags.categories)))
    return out


async def keep_lessons(game: GameState, seat: Seat, known: list[Lesson], learning: Learning,
                       structured_output: bool, usage: dict[str, TokenUsage], game_key: GameKey,
                       game_name: str, eval_seed: int | None = None) -> tuple[list[Lesson], str, str | None]:
    """Ask the Jester's model for lessons and append them, replacing any an earlier attempt of the game
    wrote; returns the lessons added, the raw reply and why nothing was read, if so."""
    answer = await ask_for_lessons(game, seat, known, structured_output, usage, game_name, eval_seed)
    candidates, raw, problem = answer.value, answer.raw, answer.problem
    source = {"sample_uuid": game_key.attempt, "sample": game_key.sample, "epoch": game_key.epoch, "seed": game.seed,
              "winner": game.outcome.winner if game.outcome else None, "eval_id": game_key.eval,
              "task_id": game_key.task, "run_id": game_key.run, "step": game_key.step, "attempt": game_key.attempt}
    path = learning.path(seat.model_name)
    try:
        added = await anyio.to_thread.run_sync(append_lessons, path, seat.model_name, candidates, source, game_key)
    except OSError as err:  # a game whose learning is lost must not be scored as one whose Jester learned nothing
        raise LessonsNotSaved(path, err) from err
    transcript().info({"read": len(known), "proposed": len(candidates), "added": [x.text for x in added],
                       "problem": problem, "raw": raw[:MAX_RAW_CHARS]}, source="wolf_eval/lessons")
    return added, raw, problem


__all__ = ["FAILED", "Learning", "LearningIds", "LearningRun", "describe_lessons", "keep_lessons", "lessons_by_list"]
