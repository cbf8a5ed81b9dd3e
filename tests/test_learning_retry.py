"""A learning run killed or interrupted at any point, then run again, plays the games and keeps the lessons of one
that was not.

Two points matter. A kill while a game is in flight (after its lessons call, before its eval ended): nothing of it
was kept, and the same command plays it again. A kill after a game's eval ended, before its snapshot was written:
the same command keeps the game from its log and does not play it again. Either way each game ends in exactly one
finished log, with the step, the lessons read and the lessons added of an uninterrupted run, and the snapshots are
that run's. Two runs of one model's sequence never both keep a game: the second is refused.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from helpers import final_state, learned, run, store_field
from inspect_ai import eval_retry
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from wolf_eval.lessons.book import LessonsTaken, Snapshot, latest, model_folder, read_snapshot, snapshot_path

GAMES = 5
#: On the fixed layout: its games are the ones these tests were written for (the fourth adds lessons).
ARGS = {"max_debate_turns": 3, "max_explanation_turns": 2, "max_days": 3, "deception_analysis": False,
        "seating": "fixed"}

#: Plays the learning run and sends itself ``sys.argv[4]`` (SIGKILL, or SIGINT as a Ctrl-C does) at game
#: ``sys.argv[3]``: ``in_flight``, right after its lessons call; ``unkept``, after its eval ended, before its
#: snapshot is written.
INTERRUPTED_RUN = textwrap.dedent("""
    import os, signal, sys, time
    import wolf_eval.lessons.book as book
    import wolf_eval.lessons.run as learning

    game, point = int(sys.argv[3]), sys.argv[5]
    asked, write = book.new_lessons, book.write_snapshot

    def stop():
        os.kill(os.getpid(), getattr(signal, sys.argv[4]))
        time.sleep(2)  # a Ctrl-C lands here

    def lessons_then_stop(candidates, known, step):
        if point == "in_flight" and step == game:
            stop()
        return asked(candidates, known, step)

    def stop_then_write(folder, snapshot):
        if point == "unkept" and snapshot.step == game:
            stop()
        return write(folder, snapshot)

    book.new_lessons, book.write_snapshot = lessons_then_stop, stop_then_write
    learning.learn("triadic", "wolfbot/cue", GAMES, {**ARGS, "lessons_dir": sys.argv[2]}, sys.argv[1], display="none")
""").replace("GAMES", str(GAMES)).replace("ARGS", repr(ARGS))


def digest(sample: Any) -> str:
    """The whole finished game (roles, every record, the outcome), hashed."""
    return hashlib.sha256(final_state(sample).model_dump_json().encode()).hexdigest()


def finished(log_dir: Path) -> list[EvalLog]:
    """Every finished log in the folder (an interrupted game leaves an unfinished one)."""
    logs = [read_eval_log(info) for info in list_eval_logs(str(log_dir))]
    return [log for log in logs if log.status == "success"]


def per_game(logs: list[EvalLog]) -> dict[int, dict[str, Any]]:
    """What each game played and what it read and added, by step; a step in two logs is a duplicate."""
    games: dict[int, dict[str, Any]] = {}
    for s in (s for log in logs for s in log.samples or []):
        step = store_field(s, "learning_step")
        assert step not in games, f"game {step} is in two finished logs"
        games[step] = {"digest": digest(s), "read": [x["text"] for x in store_field(s, "lessons_read")],
                       "added": [x["text"] for x in store_field(s, "lessons_added")]}
    return games


def snapshots(lessons: Path) -> list[list[tuple[Any, ...]]]:
    """Each snapshot's lessons (step, list, text), in order."""
    folder = model_folder(lessons, "wolfbot/cue")
    kept = [read_snapshot(snapshot_path(folder, k), "wolfbot/cue") for k in range(1, GAMES + 1)]
    assert all(kept) and latest(folder, "wolfbot/cue").step == GAMES  # type: ignore[union-attr]
    return [[(x.step, x.list, x.text) for x in s.lessons] for s in kept if s]


def assert_snapshots_name_their_logs(lessons: Path, logs: list[EvalLog]) -> None:
    """Snapshot k names the finished log that holds game k."""
    named = latest(model_folder(lessons, "wolfbot/cue"), "wolfbot/cue").logs  # type: ignore[union-attr]
    by_name = {Path(log.location).name: log for log in logs}  # a listed log's location is a file:// URL
    assert len(named) == GAMES
    for step, location in enumerate(named, start=1):
        [sample] = by_name[Path(location).name].samples or []
        assert store_field(sample, "learning_step") == step


@pytest.fixture(scope="module")
def clean(tmp_path_factory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("clean")
    logs = learned("wolfbot/cue", folder / "logs", GAMES, task_args={**ARGS, "lessons_dir": str(folder / "lessons")})
    return logs, folder / "lessons"


@pytest.mark.slow
def test_the_clean_run_plays_its_games_in_order(clean) -> None:  # type: ignore[no-untyped-def]
    logs, lessons = clean
    games = per_game(logs)
    assert sorted(games) == list(range(1, GAMES + 1))
    read: list[str] = []
    for i in range(1, GAMES + 1):
        assert games[i]["read"] == read
        read += games[i]["added"]
    assert games[4]["added"], "a game after the first adds lessons"
    assert_snapshots_name_their_logs(lessons, logs)


#: (signal, where, game): a kill and a Ctrl-C at each of the two points.
INTERRUPTS = [("SIGKILL", "in_flight", 1), ("SIGINT", "in_flight", 3), ("SIGKILL", "unkept", 3),
              ("SIGINT", "unkept", 1)]


@pytest.mark.slow
@pytest.mark.parametrize("signal, point, game", INTERRUPTS)
def test_the_same_command_after_an_interrupt_plays_the_games_of_a_clean_run(clean, tmp_path, signal, point,  # type: ignore[no-untyped-def]
                                                                           game) -> None:
    clean_logs, clean_lessons = clean
    logs, lessons = tmp_path / "logs", tmp_path / "lessons"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    try:
        stopped = subprocess.run([sys.executable, "-c", INTERRUPTED_RUN, str(logs), str(lessons), str(game), signal,
                                  point], env=env, capture_output=True, text=True, timeout=90, cwd=tmp_path)
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"the run did not end within 90 s of the {signal}: {str(err.stderr)[-2000:]}")
    assert stopped.returncode != 0, stopped.stderr[-2000:]
    if signal == "SIGKILL":
        assert stopped.returncode == -9, stopped.stderr[-2000:]
    folder = model_folder(lessons, "wolfbot/cue")
    written = sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) if folder.exists() else []
    assert written == [f"{k:06d}.json" for k in range(1, game)], "nothing of the interrupted game was kept"
    before = {log.location for log in finished(logs)}
    assert len(before) == (game if point == "unkept" else game - 1)

    learned("wolfbot/cue", logs, GAMES, task_args={**ARGS, "lessons_dir": str(lessons)})
    done = finished(logs)
    assert per_game(done) == per_game(clean_logs)
    assert snapshots(lessons) == snapshots(clean_lessons)
    assert_snapshots_name_their_logs(lessons, done)
    assert len(done) - len(before) == GAMES - len(before), "a game kept from its log is not played again"


@pytest.mark.slow
def test_a_failed_game_finished_by_eval_retry_is_kept_from_its_log(clean, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import wolf_eval.lessons.book as book
    from wolf_eval.lessons.run import LearningStopped

    clean_logs, clean_lessons = clean
    asked = book.new_lessons

    def fail_game_3(candidates, known, step):  # type: ignore[no-untyped-def]
        if step == 3:
            raise RuntimeError("game 3 fails after its lessons call")
        return asked(candidates, known, step)

    monkeypatch.setattr(book, "new_lessons", fail_game_3)
    logs, lessons = tmp_path / "logs", tmp_path / "lessons"
    with pytest.raises(LearningStopped, match="game 3 of the learning run ended error .*run the same command again"):
        learned("wolfbot/cue", logs, GAMES, task_args={**ARGS, "lessons_dir": str(lessons)})
    assert latest(model_folder(lessons, "wolfbot/cue"), "wolfbot/cue").step == 2  # type: ignore[union-attr]
    monkeypatch.setattr(book, "new_lessons", asked)
    [failed] = [read_eval_log(i) for i in list_eval_logs(str(logs)) if read_eval_log(i, header_only=True).status
                == "error"]
    [retried] = eval_retry(failed, log_dir=str(logs), display="none")
    assert retried.status == "success", retried.error

    learned("wolfbot/cue", logs, GAMES, task_args={**ARGS, "lessons_dir": str(lessons)})
    done = finished(logs)
    assert len(done) == GAMES and Path(retried.location).name in {Path(log.location).name for log in done}
    assert per_game(done) == per_game(clean_logs)
    assert snapshots(lessons) == snapshots(clean_lessons)


@pytest.mark.slow
def test_a_second_run_that_plays_a_game_another_kept_first_is_refused_and_loses_nothing(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Another run keeps game 2 while this one plays it: this one is refused in one line and writes nothing over it;
    the same command then goes on from the other run's snapshot."""
    import wolf_eval.lessons.book as book

    write = book.write_snapshot
    theirs = Snapshot(model="wolfbot/cue", step=2, lessons=[{"list": "to_do", "text": "The other run's lesson.",
                                                               "step": 2}])  # type: ignore[list-item]

    def another_run_first(folder, snapshot):  # type: ignore[no-untyped-def]
        if snapshot.step == 2:
            write(folder, theirs)
        return write(folder, snapshot)

    monkeypatch.setattr(book, "write_snapshot", another_run_first)
    lessons = tmp_path / "lessons"
    folder = model_folder(lessons, "wolfbot/cue")
    with pytest.raises(LessonsTaken, match="another run kept game 2 of wolfbot/cue's lessons while this one played "
                                           "it; play one learning run per model and lessons folder at a time"):
        learned("wolfbot/cue", tmp_path / "logs", 3, task_args={**ARGS, "lessons_dir": str(lessons)})
    assert read_snapshot(snapshot_path(folder, 2), "wolfbot/cue") == theirs
    monkeypatch.setattr(book, "write_snapshot", write)
    [third] = learned("wolfbot/cue", tmp_path / "logs", 3, task_args={**ARGS, "lessons_dir": str(lessons)})
    assert [x["text"] for x in store_field(third.samples[0], "lessons_read")] == ["The other run's lesson."]


@pytest.mark.slow
def test_each_model_reads_only_its_own_sequence(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Two models' runs in one lessons folder, and a Jester bound apart: each sequence is its Jester model's."""
    lessons = str(tmp_path / "lessons")
    learned("wolfbot/cue", tmp_path / "logs", 2, task_args={**ARGS, "lessons_dir": lessons})
    [bound] = learned("wolfbot/random", tmp_path / "logs", 1, task_args={**ARGS, "lessons_dir": lessons},
                      model_roles={"jester": "wolfbot/tom"})
    [own] = learned("wolfbot/random", tmp_path / "logs", 1, task_args={**ARGS, "lessons_dir": lessons})
    for model, steps in (("wolfbot/cue", 2), ("wolfbot/tom", 1), ("wolfbot/random", 1)):
        snapshot = latest(model_folder(lessons, model), model)
        assert snapshot is not None and snapshot.model == model and snapshot.step == steps
    for log, model in ((bound, "wolfbot/tom"), (own, "wolfbot/random")):
        [sample] = log.samples or []
        assert store_field(sample, "lessons_read") == [], f"{model}'s first game reads no other model's lessons"
        assert store_field(sample, "lessons_file") == str(snapshot_path(model_folder(lessons, model), 0))


@pytest.mark.slow
def test_a_game_whose_earlier_snapshot_is_missing_is_refused_before_any_log(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from wolf_eval.lessons.run import LearningStopped

    with pytest.raises(LearningStopped, match="learning_step=3 reads the lessons of games 1 to 2, but .*000002.json "
                                              "is missing: play the games in order with wolf-eval learn"):
        run("triadic", "wolfbot/cue", tmp_path / "logs",
            task_args={**ARGS, "games": 1, "jester_learning": True, "learning_step": 3,
                       "lessons_dir": str(tmp_path / "lessons")})
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").iterdir())
    log = run("triadic", "wolfbot/cue", tmp_path / "logs", epochs=2,
              task_args={**ARGS, "games": 1, "jester_learning": True, "learning_step": 1,
                         "lessons_dir": str(tmp_path / "lessons")})
    assert log.status == "error" and "--epochs is refused" in str(log.error)
