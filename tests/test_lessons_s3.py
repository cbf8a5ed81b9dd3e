"""Lessons and logs on S3: a real S3-compatible server (moto's, on 127.0.0.1) with conditional writes.

The server runs locally on a free port for this module; nothing leaves the machine. A lessons
snapshot on ``s3://`` is created by a conditional write (``wolf_eval.lessons.remote``): of concurrent
writers of one snapshot one wins, whole, and the others are refused.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from helpers import learned, store_field

from wolf_eval.lessons import remote
from wolf_eval.lessons.book import (
    LessonsDirRefused,
    LessonsTaken,
    Snapshot,
    check_writable,
    latest,
    model_folder,
    read_snapshot,
    snapshot_path,
    write_snapshot,
)

pytest.importorskip("moto")
pytestmark = pytest.mark.slow  # each test talks to a server started for this module
BUCKET = "wolf-eval-test"


@pytest.fixture(scope="module")
def s3():  # type: ignore[no-untyped-def]
    from s3fs import S3FileSystem

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "test",
           "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1"}
    before = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    S3FileSystem.clear_instance_cache()
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        remote._filesystem().mkdir(BUCKET)
        yield f"s3://{BUCKET}"
    finally:
        server.terminate()
        server.wait(timeout=10)
        S3FileSystem.clear_instance_cache()
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_of_concurrent_writers_of_one_snapshot_on_s3_one_wins_whole(s3) -> None:  # type: ignore[no-untyped-def]
    folder = model_folder(f"{s3}/concurrent", "m")
    assert folder.startswith(f"{s3}/concurrent/m-")
    assert latest(folder, "m") is None

    def write(writer: int) -> int | None:
        text = hashlib.sha256(str(writer).encode()).hexdigest()
        try:
            write_snapshot(folder, Snapshot.model_validate({"model": "m", "step": 1,
                                                            "lessons": [{"list": "to_do", "text": text}]}))
        except LessonsTaken:
            return None
        return writer

    with ThreadPoolExecutor(8) as pool:
        won = [w for w in pool.map(write, range(8)) if w is not None]
    [winner] = won
    stored = read_snapshot(snapshot_path(folder, 1), "m")
    assert stored is not None and [x.text for x in stored.lessons] == [hashlib.sha256(str(winner).encode()).hexdigest()]
    assert latest(folder, "m") == stored
    assert remote.create(f"{s3}/concurrent/new.json", b"{}") is True
    assert remote.create(f"{s3}/concurrent/new.json", b"[]") is False, "only one writer creates an object"
    assert remote._filesystem().cat_file(f"{s3}/concurrent/new.json") == b"{}"


def test_a_lessons_folder_in_a_missing_bucket_is_one_line_naming_the_bucket(s3, capsys) -> None:  # type: ignore[no-untyped-def]
    check_writable(f"{s3}/jester")  # the bucket that exists
    with pytest.raises(LessonsDirRefused) as refused:
        check_writable("s3://no-such-bucket/jester")
    refused.value.show()  # as the inspect command prints it
    assert capsys.readouterr().err == (
        "Error: jester_learning cannot write lessons to s3://no-such-bucket/jester: no bucket named 'no-such-bucket' "
        "at this endpoint: create it, or check the name and AWS_ENDPOINT_URL\n")


def test_a_learning_run_keeps_its_lessons_and_logs_in_one_bucket_and_the_report_reads_them(s3, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from wolf_eval.cli import main

    logs = learned("wolfbot/cue", f"{s3}/logs", 2, task_args={
        "lessons_dir": f"{s3}/lessons", "max_debate_turns": 3, "max_explanation_turns": 2, "max_days": 3,
        "deception_analysis": False})
    assert [log.status for log in logs] == ["success", "success"]
    assert all(log.location.startswith(f"{s3}/logs/") for log in logs)
    stored = latest(model_folder(f"{s3}/lessons", "wolfbot/cue"), "wolfbot/cue")
    assert stored is not None and stored.step == 2 and stored.logs == [x.location for x in logs]
    first, second = (log.samples[0] for log in logs)
    assert [x["text"] for x in store_field(second, "lessons_read")] == \
        [x["text"] for x in store_field(first, "lessons_added")]
    added = [x["text"] for s in (first, second) for x in store_field(s, "lessons_added")]
    assert [x.text for x in stored.lessons] == added
    assert main(["report", f"{s3}/logs", "--out", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "report.md").exists()


def test_a_run_killed_before_a_snapshot_on_s3_is_resumed_into_the_games_of_a_clean_run(s3, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Killed (``kill -9``) after game 3's eval ended, before its snapshot on S3 was written: the same command keeps
    game 3 from its log and ends with the games and the snapshots of an uninterrupted local run."""
    from test_learning_retry import ARGS, GAMES, INTERRUPTED_RUN, finished, per_game

    clean = learned("wolfbot/cue", tmp_path / "clean", GAMES, task_args={**ARGS, "lessons_dir": str(tmp_path / "l")})
    lessons = f"{s3}/killed/lessons"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    stopped = subprocess.run([sys.executable, "-c", INTERRUPTED_RUN, str(tmp_path / "logs"), lessons, "3", "SIGKILL",
                              "unkept"], env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert stopped.returncode == -9, stopped.stderr[-2000:]
    folder = model_folder(lessons, "wolfbot/cue")
    assert latest(folder, "wolfbot/cue").step == 2  # type: ignore[union-attr]
    learned("wolfbot/cue", tmp_path / "logs", GAMES, task_args={**ARGS, "lessons_dir": lessons})
    done = finished(tmp_path / "logs")
    assert len(done) == GAMES and per_game(done) == per_game(clean)
    mine, theirs = latest(folder, "wolfbot/cue"), latest(model_folder(tmp_path / "l", "wolfbot/cue"), "wolfbot/cue")
    assert mine is not None and theirs is not None and mine.lessons == theirs.lessons
