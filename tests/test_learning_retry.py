"""A learning run that crashes and is retried plays the games, and keeps the lessons, of one that did not.

The crash is the hard case: the process is killed right after a game wrote its lessons, before
Inspect logged its sample, so the file holds lessons of an attempt the log never saw, and
``inspect eval-retry`` plays that game again, then the ones after it. The retried run must give
every game the same step, the same lessons to read and the same lessons to add as an
uninterrupted run, and the file must end with one attempt per game: the ones the final log holds.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers import final_state, run, store_field
from inspect_ai import eval_retry
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from wolf_eval.lessons.book import lessons_path, read_lessons

GAMES = 5
#: On the fixed layout: its games are the ones these tests were written for (the fourth adds lessons).
ARGS = {"games": GAMES, "jester_learning": True, "max_debate_turns": 3, "max_explanation_turns": 2,
        "max_days": 3, "deception_analysis": False, "seating": "fixed"}

#: Plays the learning run with the sample log flushed after every game, and sends itself ``sys.argv[4]``
#: (SIGKILL, or SIGINT as a Ctrl-C does) right after the lessons of game ``sys.argv[3]`` are written.
INTERRUPTED_RUN = textwrap.dedent("""
    import os, signal, sys, time
    import wolf_eval.lessons.turnstile as learning
    from inspect_ai import eval as inspect_eval

    written = learning.append_lessons
    calls = []

    def write_then_stop(*args, **kwargs):
        added = written(*args, **kwargs)
        calls.append(1)
        if len(calls) == int(sys.argv[3]):
            os.kill(os.getpid(), getattr(signal, sys.argv[4]))
            time.sleep(1)  # a Ctrl-C lands while the game still waits for its write, before its sample is logged
        return added

    learning.append_lessons = write_then_stop
    inspect_eval("wolf_eval/triadic", model="wolfbot/cue", log_dir=sys.argv[1], display="none", log_buffer=1,
                 task_args={**ARGS, "lessons_dir": sys.argv[2]})
""").replace("ARGS", repr(ARGS))

#: Retries the log ``sys.argv[1]`` into ``sys.argv[2]`` with game ``sys.argv[3]`` added to the run late:
#: the games after it must still read its lessons (were the games started at once, they would start first).
LATE_RETRY = textwrap.dedent("""
    import asyncio, sys
    from inspect_ai import eval_retry
    from wolf_eval.lessons.turnstile import LearningRun

    added = LearningRun.sample_complete

    async def late(self, sample):
        after = await added(self, sample)
        if after and str(after[0].id) == sys.argv[3]:
            await asyncio.sleep(0.5)
        return after

    LearningRun.sample_complete = late
    [log] = eval_retry(sys.argv[1], log_dir=sys.argv[2], display="none")
    sys.exit(0 if log.status == "success" else 1)
""")


def digest(sample: Any) -> str:
    """The whole finished game (roles, every record, the outcome), hashed."""
    return hashlib.sha256(final_state(sample).model_dump_json().encode()).hexdigest()


def per_game(log: EvalLog) -> dict[int, dict[str, Any]]:
    """What each game played and what it read and added, by sample id."""
    return {int(s.id): {"digest": digest(s), "step": store_field(s, "learning_step"),
                        "read": [x["text"] for x in store_field(s, "lessons_read")],
                        "added": [x["text"] for x in store_field(s, "lessons_added")]}
            for s in log.samples or []}


def kept(folder: Path) -> list[tuple[Any, ...]]:
    stored = read_lessons(lessons_path(folder, "wolfbot/cue"))
    assert stored is not None
    return sorted((x.game.step, x.list, x.text) for x in stored.lessons if x.game)


def in_file_order(folder: Path) -> list[tuple[Any, ...]]:
    stored = read_lessons(lessons_path(folder, "wolfbot/cue"))
    assert stored is not None
    return [(x.game.step if x.game else None, x.list, x.text) for x in stored.lessons]


def assert_file_holds_only_the_logged_attempts(log: EvalLog, folder: Path) -> None:
    stored = read_lessons(lessons_path(folder, "wolfbot/cue"))
    assert stored is not None
    attempts = {int(s.id): s.uuid for s in log.samples or []}
    assert {x.game.step: x.game.attempt for x in stored.lessons if x.game}.items() <= attempts.items()
    assert sorted((g.step, g.attempt) for g in stored.games) == sorted(attempts.items())
    assert {g.task for g in stored.games} == {log.eval.task_id}


@pytest.fixture(scope="module")
def clean(tmp_path_factory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("clean")
    log = run("triadic", "wolfbot/cue", folder / "logs", task_args={**ARGS, "lessons_dir": str(folder / "lessons")})
    assert log.status == "success", log.error
    return log, folder / "lessons"


@pytest.mark.slow
def test_the_clean_run_plays_its_games_in_order(clean) -> None:  # type: ignore[no-untyped-def]
    log, folder = clean
    games = per_game(log)
    assert [games[i]["step"] for i in range(1, GAMES + 1)] == list(range(1, GAMES + 1))
    read: list[str] = []
    for i in range(1, GAMES + 1):
        assert games[i]["read"] == read
        read += games[i]["added"]
    assert_file_holds_only_the_logged_attempts(log, folder)


#: Where a run is interrupted: right after game 1's lessons write, and right after game 3's.
INTERRUPTS = [(signal, game) for signal in ("SIGKILL", "SIGINT") for game in (1, 3)]


@pytest.mark.slow
@pytest.mark.parametrize("signal, game", INTERRUPTS)
def test_eval_retry_after_an_interrupt_plays_the_games_of_a_clean_run(clean, tmp_path, signal, game) -> None:  # type: ignore[no-untyped-def]
    """Interrupted between a game's lessons write and its log; the retry starts that game late.

    A single Ctrl-C ends the run, within 60 s (about 6): no game of a learning run waits for another.
    """
    clean_log, clean_lessons = clean
    logs, lessons = tmp_path / "logs", tmp_path / "lessons"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    # run from a folder of its own, as a user's eval is: from the repository's root the Ctrl-C hang never showed
    try:
        stopped = subprocess.run([sys.executable, "-c", INTERRUPTED_RUN, str(logs), str(lessons), str(game), signal],
                                 env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"the run did not end within 60 s of the {signal} (it ends in about 6): {str(err.stderr)[-2000:]}")
    if signal == "SIGKILL":
        assert stopped.returncode == -9, stopped.stderr[-2000:]

    [info] = list_eval_logs(str(logs))
    interrupted = read_eval_log(info)
    assert interrupted.status in ("started", "cancelled")
    assert sorted(int(s.id) for s in interrupted.samples or [] if s.error is None) == list(range(1, game))
    before = read_lessons(lessons_path(lessons, "wolfbot/cue"))
    assert before is not None and {x.game.step for x in before.lessons if x.game} >= set(range(1, game))
    if signal == "SIGKILL":
        assert game in {x.game.step for x in before.lessons if x.game}, "the killed attempt left its lessons"

    retry = subprocess.run([sys.executable, "-c", LATE_RETRY, info.name, str(tmp_path / "retried"), str(game)], env=env,
                           capture_output=True, text=True, timeout=120)
    assert retry.returncode == 0, retry.stderr[-2000:]
    [retried_info] = list_eval_logs(str(tmp_path / "retried"))
    retried = read_eval_log(retried_info)
    assert retried.status == "success", retried.error
    assert retried.eval.task_id == interrupted.eval.task_id

    assert per_game(retried) == per_game(clean_log)
    assert kept(lessons) == kept(clean_lessons)
    assert in_file_order(lessons) == in_file_order(clean_lessons)
    assert_file_holds_only_the_logged_attempts(retried, lessons)
    reused = {int(s.id): s.uuid for s in interrupted.samples or [] if s.error is None}
    assert {int(s.id): s.uuid for s in retried.samples if int(s.id) in reused} == reused
    played = {int(s.id) for s in retried.samples if s.uuid not in {x.uuid for x in interrupted.samples or []}}
    assert played == set(range(game, GAMES + 1)), "the retry plays the interrupted game and the ones after it"


@pytest.mark.slow
def test_a_game_that_fails_after_writing_its_lessons_is_replayed_as_in_a_clean_run(clean, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    import wolf_eval.solvers.play as game

    clean_log, clean_lessons = clean
    recorded = game.describe_lessons
    seen: list[int] = []

    def fail_the_fourth_game(lessons):  # type: ignore[no-untyped-def]
        seen.append(1)
        if len(seen) == 8:  # each game describes what it read, then what it added
            raise RuntimeError("the sample fails after its lessons are written")
        return recorded(lessons)

    monkeypatch.setattr(game, "describe_lessons", fail_the_fourth_game)
    lessons = tmp_path / "lessons"
    failed = run("triadic", "wolfbot/cue", tmp_path / "logs", task_args={**ARGS, "lessons_dir": str(lessons)})
    assert failed.status == "error"
    steps = {x.game.step for x in read_lessons(lessons_path(lessons, "wolfbot/cue")).lessons if x.game}
    assert 4 not in steps, "a game whose sample failed is not in the log as played: its lessons are not kept"
    monkeypatch.setattr(game, "describe_lessons", recorded)

    [retried] = eval_retry(failed, log_dir=str(tmp_path / "retried"), display="none")
    assert retried.status == "success", retried.error
    assert per_game(retried) == per_game(clean_log)
    assert kept(lessons) == kept(clean_lessons)
    assert_file_holds_only_the_logged_attempts(retried, lessons)


@pytest.mark.slow
def test_concurrent_evals_sharing_a_file_number_their_own_games(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from inspect_ai import eval as inspect_eval

    from wolf_eval.tasks import triadic

    lessons = tmp_path / "lessons"
    args = {**ARGS, "games": 3, "lessons_dir": str(lessons)}
    logs = inspect_eval([triadic(**{**args, "seed": 1}), triadic(**{**args, "seed": 2})], model="wolfbot/cue",
                        log_dir=str(tmp_path / "logs"), display="none")
    assert [log.status for log in logs] == ["success", "success"]
    stored = read_lessons(lessons_path(lessons, "wolfbot/cue"))
    assert stored is not None
    for log in logs:
        steps = {int(s.id): store_field(s, "learning_step") for s in log.samples}
        assert steps == {1: 1, 2: 2, 3: 3}
        mine = [g for g in stored.games if g.task == log.eval.task_id]
        assert sorted((g.step, g.attempt) for g in mine) == sorted((int(s.id), s.uuid) for s in log.samples)
        for s in log.samples:
            own_later = {x.text for x in stored.lessons if x.game and x.game.task == log.eval.task_id
                         and x.game.step >= int(s.id)}
            assert not own_later & {x["text"] for x in store_field(s, "lessons_read")}
    assert logs[0].eval.task_id != logs[1].eval.task_id
    assert len(stored.lessons) == sum(len(store_field(s, "lessons_added")) for log in logs for s in log.samples)


@pytest.mark.slow
def test_a_game_that_fails_before_its_turn_does_not_hold_up_the_run(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import wolf_eval.solvers.play as game

    seated = game.seating

    def no_seats_for_game_1(state, seats):  # type: ignore[no-untyped-def]
        if state.seed == game.game_seed(0, 1):
            raise RuntimeError("game 1 fails before it reaches the turnstile")
        return seated(state, seats)

    monkeypatch.setattr(game, "seating", no_seats_for_game_1)
    lessons = tmp_path / "lessons"
    log = run("triadic", "wolfbot/cue", tmp_path / "logs", fail_on_error=False,
              task_args={**ARGS, "games": 3, "lessons_dir": str(lessons)})
    by_id = {int(s.id): s for s in log.samples}
    assert by_id[1].error is not None and by_id[2].error is None and by_id[3].error is None
    assert [store_field(by_id[i], "learning_step") for i in (2, 3)] == [2, 3]
    assert [x["text"] for x in store_field(by_id[3], "lessons_read")] == \
        [x["text"] for x in store_field(by_id[2], "lessons_added")]
    notes = [e.data for e in by_id[2].events if e.event == "info" and e.source == "wolf_eval/lessons"]
    assert {"order_broken": True, "step": 2, "failed": [1]} in notes  # game 2 says it goes on without game 1


@pytest.mark.slow
def test_one_task_object_evaluated_with_two_models_keeps_each_models_games_in_its_own_eval(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from inspect_ai import eval as inspect_eval

    from wolf_eval.tasks import triadic

    lessons = tmp_path / "lessons"
    shared = triadic(**{**ARGS, "games": 2, "lessons_dir": str(lessons)})  # Inspect runs this one object per model
    logs = inspect_eval(shared, model=["wolfbot/cue", "wolfbot/random"], log_dir=str(tmp_path / "logs"), display="none")
    assert [log.status for log in logs] == ["success", "success"]
    for log in logs:
        stored = read_lessons(lessons_path(lessons, log.eval.model))
        assert stored is not None
        assert sorted((g.task, g.eval, g.step, g.attempt) for g in stored.games) == \
            sorted((log.eval.task_id, log.eval.eval_id, int(s.id), s.uuid) for s in log.samples)


def logged(step: int, uuid: str, **fields: Any) -> Any:
    """Game ``step`` as Inspect hands a logged sample to the run's dataset."""
    from inspect_ai.log import EvalSample

    return EvalSample(id=step, epoch=1, input="", target="", uuid=uuid, **fields)


def test_the_run_adds_each_game_only_once_the_one_before_it_is_logged() -> None:
    """The whole of the order: game 1 first, game k+1 from game k's log entry (played or reused), nothing after."""
    from inspect_ai.dataset import Sample

    from wolf_eval.lessons.turnstile import Learning, LearningRun

    games = [Sample(id=i, input=f"game {i}") for i in range(1, 4)]
    run = LearningRun(games, Learning("unused"))
    assert run.initial_samples() == games[:1]
    for step in (1, 2):
        assert asyncio.run(run.sample_complete(logged(step, f"u{step}"))) == [games[step]]
    assert asyncio.run(run.sample_complete(logged(3, "u3"))) is None
    assert asyncio.run(run.next_samples()) is None


@contextmanager
def started(*uuids: str) -> Iterator[None]:
    """Eval ``e`` of run (task id) ``run`` with samples ``uuids`` started, as Inspect's hooks tell the learning run."""
    from inspect_ai.hooks import SampleStart, TaskEnd, TaskStart
    from inspect_ai.log import EvalSpec

    from wolf_eval.lessons.turnstile import LearningIds

    spec = EvalSpec.model_construct(task_id="run", eval_id="e", run_id="r", model="m", model_roles=None)
    hooks = LearningIds()
    asyncio.run(hooks.on_task_start(TaskStart(eval_set_id=None, run_id="r", eval_id="e", spec=spec, plan=None)))
    for uuid in uuids:
        asyncio.run(hooks.on_sample_start(SampleStart(eval_set_id=None, run_id="r", eval_id="e", sample_id=uuid,
                                                      summary=None)))
    try:
        yield
    finally:
        asyncio.run(hooks.on_task_end(TaskEnd(eval_set_id=None, run_id="r", eval_id="e", log=None)))


def test_a_failed_games_lessons_go_before_the_next_game_is_added_and_it_says_so(tmp_path) -> None:
    """Game 2 wrote its lessons, then its sample failed: the next game must not read them; a retry plays it again."""
    from inspect_ai.dataset import Sample
    from inspect_ai.log import EvalError

    from wolf_eval.lessons.book import GameKey, append_lessons
    from wolf_eval.lessons.turnstile import FAILED, Learning, LearningRun

    learning = Learning(tmp_path)
    path = learning.path("m")
    for step in (1, 2):
        append_lessons(path, "m", [("to_do", f"Lesson of game {step}.")],
                       game=GameKey(task="run", eval="e", sample=step, step=step, attempt=f"u{step}"))
    games = [Sample(id=i, input=f"game {i}") for i in range(1, 4)]
    error = EvalError(message="RuntimeError('after the write')", traceback="", traceback_ansi="")
    with started("u2"):
        [after] = asyncio.run(LearningRun(games, learning).sample_complete(logged(2, "u2", error=error)))
    assert after.id == 3 and after.metadata == {FAILED: [2]}
    stored = read_lessons(path, "m")
    assert stored is not None and [x.text for x in stored.lessons] == ["Lesson of game 1."]
    assert [g.step for g in stored.games] == [1]


def test_a_game_is_keyed_by_its_run_and_place_and_a_second_epoch_is_refused() -> None:
    from inspect_ai.solver import TaskState

    from wolf_eval.lessons.book import GameKey
    from wolf_eval.lessons.turnstile import Learning

    learning = Learning("unused")
    with started("u3", "u3b"):
        game = learning.begin(TaskState(model="m", sample_id=3, epoch=1, input="", messages=[], sample_uuid="u3"))
        with pytest.raises(ValueError, match="--epochs is refused"):
            learning.begin(TaskState(model="m", sample_id=3, epoch=2, input="", messages=[], sample_uuid="u3b"))
    assert game == GameKey(task="run", eval="e", run="r", sample=3, epoch=1, step=3, attempt="u3")
    with pytest.raises(RuntimeError, match="eval is unknown"):  # the hooks are gone with the eval
        learning.begin(TaskState(model="m", sample_id=3, epoch=1, input="", messages=[], sample_uuid="u3"))


def test_a_run_that_cannot_start_at_game_1_is_refused() -> None:
    """``--sample-id 3`` leaves out game 1: the run would play nothing, so it says why instead."""
    from inspect_ai.dataset import Sample

    from wolf_eval.lessons.turnstile import Learning, LearningRun

    with pytest.raises(ValueError, match="--sample-id must include 1"):
        asyncio.run(LearningRun([Sample(id=1, input="game 1")], Learning("unused")).next_samples())
