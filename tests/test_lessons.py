"""The Jester's lessons: the tagger's categories and ToM orders, and the lessons files."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import stat
import threading
from pathlib import Path

import pytest

from wolf_eval.lessons.book import (
    LessonsTaken,
    Snapshot,
    is_duplicate,
    latest,
    model_folder,
    new_lessons,
    read_snapshot,
    snapshot_path,
    write_snapshot,
)
from wolf_eval.measures.tagger import categories, tag, tom_order

# Table 2 of the Triadic Werewolf paper: one representative entry per ToM order.
TABLE_2 = [
    ("Vote for a player who is not the main suspect to appear wolf-like by deflecting from the consensus, "
     "but only after the main suspect is already exiled to avoid appearing villager-aligned.", 3),
    ("Escalate suspicion on multiple players in quick succession to appear erratic and untrustworthy.", 2),
    ("Use the initial questions and reactions to gauge players' behaviors and adjust strategy accordingly.", 1),
]


@pytest.mark.parametrize(("lesson", "order"), TABLE_2)
def test_table_2_entries_get_their_order(lesson: str, order: int) -> None:
    assert tom_order(lesson) == order


@pytest.mark.parametrize(("lesson", "order"), [
    ("Lean into accusations of being both Werewolf and Jester to create ambiguity.", 3),
    ("Play wolf-like for the wolves' benefit while staying trustworthy to the villagers.", 3),
    ("Sound like a villager rather than a wolf when the Seer is alive.", 3),
    ("Seem nervous when accused.", 2),
    ("Come across as hiding something.", 2),
    ("Try to be seen as the odd one out.", 2),
    ("Look suspicious but never admit anything.", 2),
    # near misses
    ("Look for players who vote late.", 1),  # "look for" is not a perception verb
    ("Your appearance in the debate matters: bid high.", 1),  # "appearance" is not "appear"
    ("Wolves and villagers both voted for me on day 1.", 1),  # names both factions, contrasts nothing
    ("Appear wolf-like.", 2),  # a perception verb and one faction: second order only
])
def test_tom_order_rules_and_near_misses(lesson: str, order: int) -> None:
    assert tom_order(lesson) == order


@pytest.mark.parametrize(("lesson", "category"), [
    ("Act wolf-like on day 1.", "wolf_mimicry"),
    ("Pretend to be a werewolf when pressed.", "wolf_mimicry"),
    ("Talk like a wolf defending its partner.", "wolf_mimicry"),
    ("Contradict your own earlier claim.", "inconsistency"),
    ("Change your vote at the last moment.", "inconsistency"),
    ("Be erratic in the debate.", "inconsistency"),
    ("Accuse the Seer loudly.", "aggression"),
    ("Attack whoever defends the quiet player.", "aggression"),
    ("Confront anyone who doubts you.", "aggression"),
    ("Hint that the Doctor is lying.", "subtle_indirection"),
    ("Deflect blame onto a quiet player.", "subtle_indirection"),
    ("Shift the suspicion to Ben without naming him.", "subtle_indirection"),
    ("Stay silent and let them draw their own conclusions.", "passive_provocation"),
    ("Give vague answers to invite suspicion.", "passive_provocation"),
    ("Bait the wolves into voting you.", "passive_provocation"),
    ("Do not look like the Jester.", "anti_jester_tells"),
    ("Overplaying the guilty act is too obvious.", "anti_jester_tells"),
    ("Never reveal your win condition.", "anti_jester_tells"),
    ("Vote against the consensus in the revote.", "vote_manipulation"),
    ("Join the bandwagon on whoever leads.", "vote_manipulation"),
    ("Create ambiguity about your role.", "meta_modeling"),
    ("Let the village decide you are a wolf.", "meta_modeling"),
    ("Think about what the wolves expect you to do.", "meta_modeling"),
    ("Ask the Doctor whom they protected.", "questioning"),
    ("Question every accusation.", "questioning"),
    ("Challenge the first speaker.", "questioning"),
])
def test_each_category_has_its_patterns(lesson: str, category: str) -> None:
    assert category in categories(lesson)


@pytest.mark.parametrize(("lesson", "category"), [
    ("Watch the wolves' votes.", "wolf_mimicry"),  # naming wolves is not mimicking them
    ("Be consistent.", "inconsistency"),  # "consistent" without "in-"
    ("Unquestionably the best opening.", "questioning"),
    ("Be the last to speak.", "vote_manipulation"),
    ("Stay calm.", "passive_provocation"),
    ("Keep your story straight.", "aggression"),
    ("The Jester must win alone.", "anti_jester_tells"),
])
def test_near_misses_do_not_match(lesson: str, category: str) -> None:
    assert category not in categories(lesson)


def test_tags_are_multi_label_and_deterministic() -> None:
    lesson = TABLE_2[0][0]
    assert tag(lesson) == tag(lesson)
    assert {"wolf_mimicry", "subtle_indirection", "vote_manipulation"} <= set(tag(lesson).categories)
    assert tag("Bid high on day 1.").categories == ()


# --------------------------------------------------------------------------- lessons files


def test_duplicates_exact_near_and_opposite() -> None:
    assert is_duplicate("bid HIGH on day 1!", ["Bid high on day 1."])
    assert is_duplicate("Bid high on day one so you speak first.", ["Bid high on day one to speak first."])
    assert not is_duplicate("Never vote with the majority on day 1.", ["Vote with the majority on day 1."])
    assert not is_duplicate("Accuse a quiet player early to look wolf-like.", ["Stay silent early to look wolf-like."])


def test_new_lessons_skip_duplicates_and_keep_order() -> None:
    known = new_lessons([("to_do", "Bid high on day 1."), ("to_not_do", "Never stay silent.")], [], 1)
    assert [(x.text, x.step) for x in known] == [("Bid high on day 1.", 1), ("Never stay silent.", 1)]
    again = new_lessons([("to_do", "bid high on day 1"), ("winning_tactics", "Look wolf-like."),
                         ("to_do", "look wolf like"), ("bogus", "A list that does not exist.")], known, 2)
    assert [(x.list, x.text, x.step) for x in again] == [("winning_tactics", "Look wolf-like.", 2)]


def snapshot(step: int, *texts: str, model: str = "m") -> Snapshot:
    return Snapshot.model_validate({"model": model, "step": step,
                                    "lessons": [{"list": "to_do", "text": t, "step": step} for t in texts]})


def test_models_never_share_a_folder_and_a_snapshot_of_another_model_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert model_folder(tmp_path, "a/b") != model_folder(tmp_path, "a_b")
    assert model_folder(tmp_path, "openai/gpt-4.1").name.startswith("openai_gpt-4.1-")
    folder = model_folder(tmp_path, "a/b")
    write_snapshot(folder, snapshot(1, "Something.", model="a/b"))
    with pytest.raises(ValueError, match="holds the lessons of 'a/b', not of 'someone/else'"):
        latest(folder, "someone/else")
    assert latest(model_folder(tmp_path, "someone/else"), "someone/else") is None


def test_a_damaged_snapshot_is_an_error_and_is_left_alone(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = snapshot_path(tmp_path, 1)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="never overwritten"):
        latest(tmp_path, "m")
    assert path.read_text() == "{not json"


def test_a_snapshot_is_written_once_and_never_changed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    write_snapshot(tmp_path, snapshot(1, "First."))
    with pytest.raises(LessonsTaken, match="000001.json exists: another run kept game 1 of m's lessons"):
        write_snapshot(tmp_path, snapshot(1, "Second."))
    assert [x.text for x in read_snapshot(snapshot_path(tmp_path, 1), "m").lessons] == ["First."]
    write_snapshot(tmp_path, snapshot(2, "First.", "Second."))
    assert latest(tmp_path, "m") == snapshot(2, "First.", "Second.")


def _write_one(directory: str, writer: int, won: list[int]) -> None:
    try:
        write_snapshot(Path(directory), snapshot(1, _distinct(writer, 0)))
        won.append(writer)
    except LessonsTaken:
        pass


def _distinct(writer: int, i: int) -> str:
    return "lesson " + hashlib.sha256(f"{writer}-{i}".encode()).hexdigest()[:32]


def test_of_concurrent_writers_of_one_snapshot_threads_and_processes_one_wins_whole(tmp_path) -> None:  # type: ignore[no-untyped-def]
    writers = 4
    won: list[int] = []
    threads = [threading.Thread(target=_write_one, args=(str(tmp_path), w, won)) for w in range(writers)]
    ctx = multiprocessing.get_context("fork")
    processes = [ctx.Process(target=_write_one, args=(str(tmp_path), writers + w, [])) for w in range(writers)]
    for t in (*threads, *processes):
        t.start()
    for t in threads:
        t.join()
    for p in processes:
        p.join()
        assert p.exitcode == 0
    stored = json.loads(snapshot_path(tmp_path, 1).read_text())  # valid JSON: never half-written
    [text] = [entry["text"] for entry in stored["lessons"]]
    assert text in {_distinct(w, 0) for w in range(2 * writers)}
    assert len(won) <= 1 and (not won or text == _distinct(won[0], 0))
    assert [p.name for p in tmp_path.iterdir()] == ["000001.json"], "no temporary file is left"


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_snapshot_is_created_with_the_users_umask(tmp_path, umask: int, mode: int) -> None:  # type: ignore[no-untyped-def]
    old = os.umask(umask)
    try:
        write_snapshot(tmp_path, snapshot(1, "Bid high on day one."))
    finally:
        os.umask(old)
    assert stat.S_IMODE(snapshot_path(tmp_path, 1).stat().st_mode) == mode


@pytest.mark.slow
def test_an_unwritable_lessons_dir_fails_before_the_first_game(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from helpers import run

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the lessons folder should be")
    bad = blocker / "lessons"
    with pytest.raises(PermissionError, match=f"jester_learning cannot write lessons to {bad}"):
        run("triadic", log_dir=tmp_path / "logs",
            task_args={"games": 1, "jester_learning": True, "learning_step": 1, "lessons_dir": str(bad)})
    assert not list((tmp_path / "logs").glob("*.eval")) if (tmp_path / "logs").exists() else True


def test_a_lessons_file_of_an_earlier_release_reads_as_a_snapshot_to_start_from(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = snapshot_path(tmp_path, 0)
    path.write_text(json.dumps({"model": "m", "lessons": [
        {"list": "to_do", "text": "Bid high.", "added_at": "2025-01-01T00:00:00+00:00", "source": {"sample": 4},
         "game": {"task": "t", "sample": 4, "step": 4}}], "games": [{"task": "t", "sample": 4, "step": 4}]}))
    start = latest(tmp_path, "m")
    assert start is not None and start.step == 0 and [(x.text, x.step) for x in start.lessons] == [("Bid high.", None)]
    assert new_lessons([("to_do", "Bid high!")], start.lessons, 1) == []


@pytest.mark.slow
@pytest.mark.parametrize("problem", ["another model's file", "a folder", "no lessons folder"])
def test_the_inspect_command_refuses_unusable_lessons_in_one_line_before_any_log(tmp_path, problem) -> None:  # type: ignore[no-untyped-def]
    """A lessons file of another model, a folder where the file goes, or a folder that cannot be made: ``inspect
    eval`` exits 1 with one line naming the path and the reason, and writes no log (issue 28: 2, 6)."""
    import subprocess
    import sys

    folder = tmp_path / "lessons"
    path = Path(model_folder(folder, "wolfbot/tom")) / "000001.json"
    path.parent.mkdir(parents=True)
    if problem == "another model's file":
        theirs = {"model": "openai/gpt-4o", "lessons": [{"list": "to_do", "text": "Theirs."}]}
        path.write_text(json.dumps(theirs), encoding="utf-8")
        why = (f"Error: lessons/{path.parent.name}/{path.name} is not a wolf-eval lessons file: it holds the lessons "
               "of 'openai/gpt-4o', ")
    elif problem == "a folder":
        path.mkdir()
        why = f"Error: lessons/{path.parent.name}/{path.name} is not a wolf-eval lessons file: it is a folder; "
    else:
        (tmp_path / "blocker").write_text("a file where a folder should be")
        folder = tmp_path / "blocker" / "lessons"
        why = "Error: jester_learning cannot write lessons to blocker/lessons: Not a directory; "
    inspect = str(Path(sys.executable).parent / "inspect")
    done = subprocess.run([inspect, "eval", "wolf_eval/triadic", "--model", "wolfbot/cue", "--model-role",
                           "jester=wolfbot/tom", "-T", "games=1", "-T", "jester_learning=true", "-T", "learning_step=2",
                           "-T", f"lessons_dir={folder.relative_to(tmp_path)}", "--log-dir", "logs"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done
    assert done.stderr.startswith(why) and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert not (tmp_path / "logs").exists()
