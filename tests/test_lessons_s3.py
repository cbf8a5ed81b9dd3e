"""Lessons and logs on S3: a real S3-compatible server (moto's, on 127.0.0.1) with conditional writes.

The server runs locally on a free port for this module; nothing leaves the machine. A lessons
file on ``s3://`` is changed by conditional writes (``wolf_eval.lessons.remote``): concurrent
writers lose nothing, and a write over a version that changed is refused.
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
from helpers import run, store_field

from wolf_eval.lessons import remote
from wolf_eval.lessons.book import (
    GameKey,
    LessonsDirRefused,
    append_lessons,
    check_writable,
    lessons_path,
    read_lessons,
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


def test_concurrent_writers_on_s3_lose_nothing_and_a_stale_write_is_refused(s3) -> None:  # type: ignore[no-untyped-def]
    path = lessons_path(f"{s3}/concurrent", "m")
    assert path.startswith(f"{s3}/concurrent/m-")

    def write(writer: int) -> None:
        for i in range(5):
            text = hashlib.sha256(f"{writer}-{i}".encode()).hexdigest()  # no two near-duplicates
            append_lessons(path, "m", [("to_do", text)])

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, range(4)))
    stored = read_lessons(path, "m")
    assert stored is not None and len(stored.lessons) == 20

    etag, _ = remote.read(path)
    append_lessons(path, "m", [("to_do", "One more, after the ETag was read.")])
    assert remote.write(path, b"{}", etag) is False, "a write over a version that changed is refused"
    assert remote.write(f"{s3}/concurrent/new.json", b"{}", None) is True
    assert remote.write(f"{s3}/concurrent/new.json", b"{}", None) is False, "only one writer creates the file"
    append_lessons(path, "m", [], game=GameKey(task="run", sample=1, step=1))
    assert len(read_lessons(path, "m").lessons) == 21


def test_a_change_refused_because_another_writer_came_first_is_made_again_on_its_content(s3) -> None:  # type: ignore[no-untyped-def]
    url = f"{s3}/interleaved/file.json"
    remote.write(url, b"start", None)
    seen: list[bytes | None] = []

    def change(old: bytes | None) -> bytes:
        seen.append(old)
        if len(seen) == 1:  # another writer changes the object between this writer's read and its write
            remote.update(url, lambda other: (other or b"") + b"+other")
        return (old or b"") + b"+mine"

    remote.update(url, change)
    assert seen == [b"start", b"start+other"]
    assert remote.read(url)[1] == b"start+other+mine"


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

    log = run("triadic", "wolfbot/cue", f"{s3}/logs", task_args={
        "games": 2, "jester_learning": True, "lessons_dir": f"{s3}/lessons", "max_debate_turns": 3,
        "max_explanation_turns": 2, "max_days": 3, "deception_analysis": False})
    assert log.status == "success", log.error
    assert log.location.startswith(f"{s3}/logs/")
    stored = read_lessons(lessons_path(f"{s3}/lessons", "wolfbot/cue"), "wolfbot/cue")
    assert stored is not None and sorted(g.step for g in stored.games) == [1, 2]
    by_id = {int(s.id): s for s in log.samples}
    assert [x["text"] for x in store_field(by_id[2], "lessons_read")] == \
        [x["text"] for x in store_field(by_id[1], "lessons_added")]
    added = [x["text"] for i in (1, 2) for x in store_field(by_id[i], "lessons_added")]
    assert [x.text for x in stored.lessons] == added
    assert main(["report", f"{s3}/logs", "--out", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "report.md").exists()


def test_a_run_killed_after_a_lessons_write_on_s3_is_retried_into_the_games_of_a_clean_run(s3, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 28: 3 and 10 together. Killed (``kill -9``) right after game 3 wrote its lessons to S3, before its
    log; ``eval-retry`` (game 3 starting last) plays the games, and leaves the lessons in the order, of an
    uninterrupted local run."""
    from inspect_ai.log import list_eval_logs, read_eval_log
    from test_learning_retry import ARGS, INTERRUPTED_RUN, LATE_RETRY, in_file_order, per_game

    clean = run("triadic", "wolfbot/cue", tmp_path / "clean", task_args={**ARGS, "lessons_dir": str(tmp_path / "l")})
    assert clean.status == "success", clean.error
    lessons = f"{s3}/killed/lessons"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    stopped = subprocess.run([sys.executable, "-c", INTERRUPTED_RUN, str(tmp_path / "logs"), lessons, "3", "SIGKILL"],
                             env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert stopped.returncode == -9, stopped.stderr[-2000:]
    assert 3 in {x.game.step for x in read_lessons(lessons_path(lessons, "wolfbot/cue")).lessons if x.game}
    [info] = list_eval_logs(str(tmp_path / "logs"))
    retry = subprocess.run([sys.executable, "-c", LATE_RETRY, info.name, str(tmp_path / "retried"), "3"], env=env,
                           capture_output=True, text=True, timeout=120)
    assert retry.returncode == 0, retry.stderr[-2000:]
    [done] = list_eval_logs(str(tmp_path / "retried"))
    assert per_game(read_eval_log(done)) == per_game(clean)
    assert in_file_order(lessons) == in_file_order(tmp_path / "l")
