"""The command-line contract: bad input is one line on stderr and a status, never a traceback or a lost file.

Exit 2: the input is not something the tool can read (missing, not a log, another task's log).
Exit 1: it is readable but yields nothing (a failed or cancelled eval, no finished game, no lessons).
No output is created or replaced unless the whole result was produced.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from pathlib import Path

import fsspec
import pytest
from helpers import run
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.analysis import evals_df
from inspect_ai.dataset import Sample
from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate

from wolf_eval.cli import main
from wolf_eval.logfiles import BadInput, written_together

COMMANDS = (["replay"], ["export"], ["report"], ["prompt"])


def answer(content: str):  # type: ignore[no-untyped-def]
    def reply(input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        out = ModelOutput.from_content(model="mock", content=content)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out
    return reply


def broken(input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
    raise RuntimeError("the provider is down")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A good wolf-eval log and each kind of bad one, in their own folders."""
    root = tmp_path_factory.mktemp("contract")
    paths: dict[str, Path] = {}
    good = run("wolf", log_dir=root / "good", task_args={"games": 1, "max_debate_turns": 1, "max_days": 2,
                                                          "deception_analysis": False})
    assert good.status == "success"
    paths["good"] = Path(good.location)
    [other] = inspect_eval(Task(dataset=[Sample(input="hi")], solver=generate(), name="not_werewolf"),
                           model=get_model("mockllm/model", custom_outputs=answer("hello")),
                           log_dir=str(root / "other"), display="none")
    paths["other"] = Path(other.location)
    failed = run("wolf", model=get_model("mockllm/model", custom_outputs=broken, memoize=False),
                 log_dir=root / "failed", task_args={"games": 1, "max_days": 1}, retry_on_error=0)
    assert failed.status == "error"
    paths["failed"] = Path(failed.location)
    quiet = run("wolf", model=get_model("mockllm/model", custom_outputs=broken, memoize=False),
                log_dir=root / "empty", task_args={"games": 1, "max_days": 1}, fail_on_error=False)
    assert quiet.status == "success" and all(s.error for s in quiet.samples or [])
    paths["no games"] = Path(quiet.location)
    cancelled = read_eval_log(str(paths["good"]))
    cancelled.status = "cancelled"
    (root / "cancelled").mkdir()
    paths["cancelled"] = root / "cancelled" / "cancelled.eval"
    write_eval_log(cancelled, str(paths["cancelled"]))
    paths["text"] = root / "notes.eval"
    paths["text"].write_text("this is not a log\n")
    paths["json"] = root / "settings.json"
    paths["json"].write_text(json.dumps({"games": 3}))
    return paths


BAD = [  # (which input, exit status, what the one line says)
    ("missing", 2, "no such log file or folder"),
    ("text", 2, "not an Inspect log"),
    ("json", 2, "not an Inspect log"),
    ("other", 2, "a log of task not_werewolf, not of a wolf-eval game"),
    ("failed", 1, "the eval did not finish (status error"),
    ("cancelled", 1, "the eval did not finish (status cancelled)"),
    ("no games", 1, "the log holds no finished game"),
]


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize(("which", "status", "says"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_line_and_a_status(logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            command: list[str], which: str, status: int, says: str) -> None:
    path = logs.get(which, tmp_path / "missing.eval")
    out = tmp_path / "out"
    takes_out = command not in (["replay"], ["prompt"])
    assert main([*command, str(path), "--out", str(out)] if takes_out else [*command, str(path)]) == status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("wolf-eval: ") and says in err, err
    assert "Traceback" not in err
    assert not out.exists(), "nothing is written for a bad input"


@pytest.mark.slow
def test_prompt_prints_a_seats_call_as_it_was_sent(logs: dict[str, Path], capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Listed by seat, then by call; printed with the system message and the blocks exactly as the model event
    kept them, and the schema; every call of the game re-renders word for word from its logged views, and a
    call logged under other templates (an older release's wording) is printed as sent and said not to."""
    from inspect_ai.log import read_eval_log_sample

    from wolf_eval.logged_prompt import logged_prompt, seat_calls

    good = str(logs["good"])
    sample = read_eval_log_sample(good, 1, resolve_attachments=True)
    by_seat = seat_calls(sample)
    assert main(["prompt", good]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{s}: {len(e)} calls" for s, e in by_seat.items()]
    seat, events = next(iter(by_seat.items()))
    assert main(["prompt", good, "--seat", seat]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == len(events) and listed[0].startswith(f"1: {seat} (")
    k = next(i for i, e in enumerate(events, 1) if e.config.response_schema is not None)
    assert main(["prompt", good, "--seat", seat, "--call", str(k)]) == 0
    out = capsys.readouterr().out
    event = events[k - 1]
    assert f"=== system\n{event.input[0].text}\n\n=== user\n" in out
    assert "".join(c.text for c in event.input[-1].content) in out
    assert json.dumps(event.config.response_schema.model_dump(mode="json", exclude_none=True), indent=2) in out
    assert "re-render it word for word" in out
    assert all(logged_prompt(sample, s, i).rerendered for s, e in by_seat.items() for i in range(1, len(e) + 1))
    for args, says in ((["--seat", "Nobody", "--call", "1"], "no seat 'Nobody'"),
                       (["--seat", seat, "--call", str(len(events) + 1)], f"made calls 1 to {len(events)}"),
                       (["--game", "9"], "has no game 9")):
        assert main(["prompt", good, *args]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and says in err, err
    # a log written by a release whose templates said other words is printed as sent, and says so
    from string import Template

    from wolf_eval.agents.prompts import library

    character = library()["roles.character"]
    monkeypatch.setitem(library(), "roles.character", Template(character.template.replace("briefly", "tersely")))
    older = logged_prompt(sample, seat, k)
    assert not older.rerendered and older.system == event.input[0].text
    assert main(["prompt", good, "--seat", seat, "--call", str(k)]) == 0
    assert "this release's templates would write other words" in capsys.readouterr().out


@pytest.mark.slow
def test_debug_shows_the_traceback(logs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--debug", "replay", str(logs["text"])]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err
    assert err.rstrip().endswith(f"{logs['text']}: not an Inspect log (ValueError: EOCD not found)")


@pytest.mark.slow
def test_a_failed_report_leaves_the_last_good_one_in_place(logs: dict[str, Path], tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report"
    assert main(["report", str(logs["good"]), "--out", str(out)]) == 0
    good = (out / "report.md").read_text()
    assert main(["report", str(logs["text"]), "--out", str(out)]) == 2
    assert main(["report", str(logs["no games"].parent), "--out", str(out)]) == 1
    assert (out / "report.md").read_text() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"], "no staging folder is left behind"
    fresh = tmp_path / "never"
    assert main(["report", str(logs["no games"].parent), "--out", str(fresh)]) == 1
    assert not fresh.exists()


@pytest.mark.slow
def test_a_report_beside_a_bad_log_is_not_created(logs: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(logs["text"], folder / "notes.eval")
    assert main(["report", str(folder / "notes.eval")]) == 2
    assert sorted(p.name for p in folder.iterdir()) == ["notes.eval"]


def test_a_lessons_file_that_is_not_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = tmp_path / "lessons.json"
    wrong.write_text(json.dumps({"model": "x", "lessons": [{"text": 3}]}))
    assert main(["lessons", "tag", str(wrong)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a wolf-eval lessons file" in err and "pydantic" not in err
    assert main(["lessons", "tag", str(tmp_path)]) == 2
    assert "a folder, not a lessons file" in capsys.readouterr().err
    garbled = tmp_path / "garbled.json"
    garbled.write_bytes(b'{"model": "m", "lessons": [{"list": "to_do", "text": "abc \xff\xfe def"}]}')
    assert main(["lessons", "tag", str(garbled)]) == 2
    assert capsys.readouterr().err == (f"wolf-eval: {garbled}: not a wolf-eval lessons file (expected the JSON that "
                                       "jester_learning writes: not UTF-8 text (byte 0xff at position 58))\n")
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"model": "wolfbot/cue", "lessons": []}))
    assert main(["lessons", "tag", str(empty)]) == 1
    assert "holds no lessons" in capsys.readouterr().err


@pytest.mark.slow
def test_logs_in_object_storage_work_like_local_ones(logs: dict[str, Path], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Any fsspec location is read (here the in-memory filesystem, which needs no network)."""
    fs = fsspec.filesystem("memory")
    fs.pipe("/bucket/run/game.eval", logs["good"].read_bytes())
    assert main(["replay", "memory://bucket/run/game.eval"]) == 0
    assert "replays exactly" in capsys.readouterr().out
    assert main(["export", "memory://bucket/run/game.eval", "--out", str(tmp_path / "x")]) == 0
    assert sorted(p.name for p in (tmp_path / "x").iterdir()) == ["game1-game.ndjson", "game1-game.state.json"]
    assert main(["report", "memory://bucket/run", "--out", str(tmp_path / "r")]) == 0
    assert "| wolfbot/cue | wolf |" in (tmp_path / "r" / "report.md").read_text()
    assert main(["replay", "memory://bucket/nothing.eval"]) == 2
    assert "memory://bucket/nothing.eval: no such log file or folder" in capsys.readouterr().err


@pytest.mark.slow
def test_export_writes_nothing_a_reader_takes_for_a_log(logs: dict[str, Path], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Inspect takes a ``.json`` named from a timestamp for a log: an export into the log folder must not be one."""
    folder = tmp_path / "logs"
    folder.mkdir()
    log = folder / logs["good"].name
    shutil.copy(logs["good"], log)
    assert main(["export", str(log)]) == 0
    exported = [Path(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(p.name for p in exported) == [f"game1-{log.stem}.ndjson", f"game1-{log.stem}.state.json"]
    assert all(p.is_file() for p in exported)
    assert [Path(info.name).name for info in list_eval_logs(str(folder))] == [log.name]
    assert len(evals_df(str(folder), quiet=True)) == 1
    assert main(["report", str(folder)]) == 0
    assert "left out" not in capsys.readouterr().err


@pytest.mark.slow
def test_report_and_compare_skip_files_that_are_not_logs_saying_so(logs: dict[str, Path], tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(logs["good"], folder / logs["good"].name)
    state = folder / "2026-01-01T00-00-00_triadic_x-game1.state.json"  # what export wrote in earlier releases
    state.write_text(json.dumps({"state": {}, "task": "wolf_eval/triadic"}))
    truncated = folder / "cut.eval"
    truncated.write_bytes(logs["good"].read_bytes()[:200])
    assert main(["report", str(folder), "--out", str(tmp_path / "report")]) == 0
    err = capsys.readouterr().err.splitlines()
    for bad in (state, truncated):
        assert sum(line.startswith(f"wolf-eval: left out {bad}: not an Inspect log (") for line in err) == 1, err
    assert "| wolfbot/cue | wolf |" in (tmp_path / "report" / "report.md").read_text()
    assert main(["compare", "--tables-only", "--log-dir", str(folder)]) == 1  # one model per game: nothing to compare
    err = capsys.readouterr().err.splitlines()
    assert err[-1].endswith("no two models played the same faction on the same deals; no comparison written"), err
    for bad in (state, truncated):
        assert sum(line.startswith(f"wolf-eval: left out {bad}: not an Inspect log (") for line in err) == 1, err


@pytest.mark.slow
def test_an_out_that_cannot_be_written_is_named_as_given(logs: dict[str, Path], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "taken.md"
    taken.write_text("a file the user keeps\n")
    for command in ("report", "export"):
        assert main([command, str(logs["good"]), "--out", str(taken)]) == 2
        assert capsys.readouterr().err == f"wolf-eval: {taken}: a file, not a folder to write into\n"
        assert main([command, str(logs["good"]), "--out", str(taken / "sub")]) == 2
        assert capsys.readouterr().err == f"wolf-eval: {taken / 'sub'}: cannot be created, {taken} is a file\n"
    assert taken.read_text() == "a file the user keeps\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken.md"]


@pytest.mark.slow
def test_a_report_replaces_an_earlier_report_whole(logs: dict[str, Path], tmp_path: Path) -> None:
    from wolf_eval.analysis.report import REPORT_FILES

    out = tmp_path / "report"
    out.mkdir()
    for name in REPORT_FILES:
        (out / name).write_text("from an earlier report\n")
    (out / "notes.txt").write_text("the user's own\n")
    assert main(["report", str(logs["good"]), "--out", str(out)]) == 0
    text = (out / "report.md").read_text()
    drawn = {name for name in REPORT_FILES if f"]({name})" in text}
    assert drawn and len(drawn) < len(REPORT_FILES) - 1, "the good log draws some figures, not all"
    assert {p.name for p in out.iterdir()} == {"report.md", "notes.txt", *drawn}
    assert all((out / name).read_bytes() != b"from an earlier report\n" for name in drawn)
    assert (out / "notes.txt").read_text() == "the user's own\n"


def test_a_folder_that_cannot_be_written_is_named_as_given_with_the_reason(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Stands in for a read-only place (a test run as root writes anywhere): the OS's error, as mkdtemp raises it."""
    def refuse(prefix: str, dir: str) -> str:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.path.join(dir, prefix + "x1y2"))

    monkeypatch.setattr(tempfile, "mkdtemp", refuse)
    with pytest.raises(BadInput) as err, written_together(tmp_path / "out", "out"):
        pass
    assert str(err.value) == f"out: cannot be written (Permission denied, in {tmp_path})"


def test_written_together_replaces_only_the_files_it_owns(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_text("old a")
    (tmp_path / "b.png").write_text("old b")
    (tmp_path / "mine.txt").write_text("kept")
    with written_together(tmp_path, replaces=("a.png", "b.png", "report.md")) as stage:
        (stage / "report.md").write_text("new")
        (stage / "a.png").write_text("new a")
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {"a.png": "new a", "report.md": "new",
                                                                   "mine.txt": "kept"}
    with pytest.raises(RuntimeError), written_together(tmp_path, replaces=("a.png", "report.md")) as stage:
        (stage / "report.md").write_text("never")
        raise RuntimeError("the report failed")
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {"a.png": "new a", "report.md": "new",
                                                                   "mine.txt": "kept"}


def test_a_failed_samples_error_is_quoted_whole_or_cut_at_a_word() -> None:
    from wolf_eval.logfiles import MAX_ERROR_CHARS, sample_error

    reason = 'LessonsNotSaved("the lessons could not be saved to /a/long/path/lessons.json: File too large")'
    assert sample_error(reason + "\nTraceback (most recent call last):") == reason
    long = "word " * MAX_ERROR_CHARS
    assert sample_error(long).endswith("word …") and len(sample_error(long)) <= MAX_ERROR_CHARS + 2
