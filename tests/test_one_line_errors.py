"""Each mistake a user can make on the command line ends in one line naming what to fix, with no traceback above
it unless a debug flag asks (Inspect's ``--traceback-locals`` or ``--log-level debug``; ``wolf-eval --debug``).

A refusal raised while Inspect resolves the models or builds the task is a click error (``wolf_eval.refusal``),
which the ``inspect`` command prints as ``Error: <message>``: the quick tests check the exception and what click
prints for it; the slow ones run the ``inspect`` command itself.
"""

from __future__ import annotations

import logging
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import click
import pytest
from inspect_ai.model import get_model

from wolf_eval.analysis.corpus import condition_label
from wolf_eval.cli import main
from wolf_eval.lessons.book import LessonsDirRefused, check_writable
from wolf_eval.settings import Settings, SettingsError

INSPECT = str(Path(sys.executable).with_name("inspect"))
#: The variables through which botocore finds credentials, an endpoint or a profile: none of them set.
AWS_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
                 "AWS_DEFAULT_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                 "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN")


def printed(err: click.ClickException, capsys: pytest.CaptureFixture[str]) -> str:
    """What the ``inspect`` command prints for a click error: click's ``show``, to stderr."""
    err.show()
    return capsys.readouterr().err


def test_a_misspelt_parameter_prints_one_line_and_the_traceback_only_when_asked(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INSPECT_TRACEBACK_LOCALS", raising=False)
    with pytest.raises(click.ClickException) as refused:
        Settings.from_task_args("triadic", game=5)
    line = "Error: game=5 is not a wolf_eval/triadic parameter; did you mean games?\n"
    assert printed(refused.value, capsys) == line
    monkeypatch.setenv("INSPECT_TRACEBACK_LOCALS", "1")  # what --traceback-locals sets
    shown = printed(refused.value, capsys)
    assert shown.startswith("Traceback (most recent call last):") and shown.endswith(line)
    monkeypatch.delenv("INSPECT_TRACEBACK_LOCALS")
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.DEBUG)  # what --log-level debug sets
    try:
        assert printed(refused.value, capsys).startswith("Traceback")
    finally:
        root.setLevel(level)


@pytest.mark.parametrize("given,message", [
    ({"games": "abc"}, "games='abc' is not accepted: a whole number of games, 1 or more"),
    ({"lessons_shown": 5}, "lessons_shown=5 is not accepted: it is only read with jester_learning=true"),
    ({"jester_learning": True, "lessons_dir": "s3://"},
     "lessons_dir='s3://' is not accepted: an s3:// URL names its bucket, e.g. s3://my-bucket/lessons"),
])
def test_a_bad_parameter_is_a_click_error_and_a_value_error(given, message, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SettingsError) as refused:
        Settings.from_task_args("triadic", **given)
    assert isinstance(refused.value, ValueError)
    assert printed(refused.value, capsys) == f"Error: {message}\n"


def test_lessons_shown_given_without_learning_in_an_older_log_joins_the_default_cell() -> None:
    """Logs written while it was accepted alone: the value was never read, so the games are the default's."""
    recorded = {**Settings.defaults("triadic").model_dump(mode="json"), "lessons_shown": 5}
    assert condition_label("wolf_eval/triadic", {}, {"settings": recorded}) == "default"
    assert condition_label("wolf_eval/triadic", {"lessons_shown": 5}) == "default"
    learned = {**recorded, "jester_learning": True}
    assert condition_label("wolf_eval/triadic", {}, {"settings": learned}) == "jester_learning=true, lessons_shown=5"


def test_a_misspelt_wolfbot_policy_is_one_line_naming_the_model(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError) as refused:
        get_model("wolfbot/cuee")
    assert isinstance(refused.value, click.ClickException)
    assert printed(refused.value, capsys) == (
        "Error: wolfbot/cuee: wolfbot has no policy 'cuee' (did you mean wolfbot/cue?); use one of: "
        "wolfbot/random, wolfbot/cue, wolfbot/tom, wolfbot/faction, wolfbot/chaos, wolfbot/monitor\n")


@pytest.fixture
def no_aws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """No AWS credentials anywhere botocore looks (environment, files, the instance metadata service)."""
    s3fs = pytest.importorskip("s3fs")
    for name in AWS_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")  # an unreachable endpoint is refused at once, not after retries
    s3fs.S3FileSystem.clear_instance_cache()
    yield
    s3fs.S3FileSystem.clear_instance_cache()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_s3_lessons_folder_without_credentials_is_one_line(no_aws, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(LessonsDirRefused) as refused:
        check_writable("s3://wolf-eval-lessons/jester")
    assert printed(refused.value, capsys) == (
        "Error: jester_learning cannot write lessons to s3://wolf-eval-lessons/jester: no S3 credentials found: "
        "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE\n")


def test_an_unreachable_s3_endpoint_is_one_line_naming_it(no_aws, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    port = closed_port()
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    with pytest.raises(LessonsDirRefused) as refused:
        check_writable("s3://wolf-eval-lessons/jester")
    assert printed(refused.value, capsys) == (
        f"Error: jester_learning cannot write lessons to s3://wolf-eval-lessons/jester: cannot connect to "
        f"http://127.0.0.1:{port}: check AWS_ENDPOINT_URL and that the server is up\n")


def test_each_s3_failure_names_what_to_fix() -> None:
    """The failures a local server does not produce: a refused key, a bad bucket name, half the credentials."""
    boto = pytest.importorskip("botocore.exceptions")
    from wolf_eval.lessons.remote import unusable

    url = "s3://Bad Bucket/jester"
    assert unusable(url, PermissionError("Access Denied")) == (
        "access refused (Access Denied): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, and that "
        "they may write to 'Bad Bucket'")
    assert unusable(url, boto.ParamValidationError(report="Invalid bucket name")) == \
        "'Bad Bucket' is not a valid bucket name"
    assert unusable(url, boto.PartialCredentialsError(provider="env", cred_var="AWS_SECRET_ACCESS_KEY")) == (
        "incomplete S3 credentials (Partial credentials found in env, missing: AWS_SECRET_ACCESS_KEY): set "
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE")
    assert unusable(url, ImportError("Install s3fs to access S3")).startswith("s3:// needs the s3fs package")
    assert unusable(url, RuntimeError("first\nsecond")) == "RuntimeError: first: second"


def test_compare_without_an_api_key_names_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openai")
    for name in ("OPENAI_API_KEY", "AZUREAI_OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    assert main(["compare", "openai/gpt-4.1", "wolfbot/cue", "--log-dir", str(tmp_path / "cmp"), "-T", "games=1"]) == 1
    err = capsys.readouterr().err
    assert err == ("wolf-eval: PrerequisiteError: Unable to initialise OpenAI client: No OPENAI_API_KEY, "
                   "AZUREAI_OPENAI_API_KEY, or managed identity (Entra ID) defined in the environment. "
                   "(--debug shows the traceback)\n"), err
    assert not (tmp_path / "cmp").exists(), "nothing was played"


def test_a_missing_provider_package_is_one_line_naming_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``--model openai/...`` without the openai package (its import made to fail here, nothing uninstalled)."""
    monkeypatch.setitem(sys.modules, "openai", None)  # `import openai` now raises ImportError
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert main(["compare", "openai/gpt-4.1", "wolfbot/cue", "--log-dir", str(tmp_path / "cmp"), "-T", "games=1"]) == 2
    err = capsys.readouterr().err
    assert err == ("wolf-eval: OpenAI API needs the openai package, which is not installed: run pip install -e "
                   "'.[openai]' in the wolf-eval clone\n"), err
    assert not (tmp_path / "cmp").exists(), "nothing was played"


def test_the_extra_named_is_read_from_the_projects_metadata() -> None:
    from wolf_eval.refusal import extra_of, missing_provider

    assert (extra_of("openai"), extra_of("anthropic"), extra_of("google-genai")) == ("openai", "anthropic", "google")
    assert extra_of("no-such-package") is None
    assert missing_provider(RuntimeError("ERROR: Foo API requires optional dependencies. Install with:\n\n"
                                         "pip install no-such-package")) is None
    assert missing_provider(RuntimeError("something else")) is None


def test_a_message_over_several_lines_becomes_one() -> None:
    from wolf_eval.refusal import one_line

    err = RuntimeError("ERROR: Unable to initialise Foo client\n\nNo [bold][blue]FOO_KEY[/blue][/bold] defined.")
    assert one_line(err) == "Unable to initialise Foo client: No FOO_KEY defined."
    assert one_line(ValueError("a list [1, 2] stays")) == "a list [1, 2] stays"
    assert one_line(ValueError("")) == "no message"
    assert one_line(ValueError("word " * 200), limit=20) == "word word word word …"


def test_replay_on_a_path_that_is_not_a_file_says_what_it_is(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    pipe = tmp_path / "game.eval"
    os.mkfifo(pipe)
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert main(["replay", str(pipe)]) == 2
    assert capsys.readouterr().err == f"wolf-eval: {pipe}: a named pipe, not a log file\n"
    assert main(["replay", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"wolf-eval: {tmp_path}: a folder, not a log file\n"
    if Path("/dev/null").exists():
        assert main(["lessons", "tag", "/dev/null"]) == 2
        assert capsys.readouterr().err == "wolf-eval: /dev/null: a character device, not a lessons file\n"


def inspect_eval_command(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> list[str]:
    """The ``inspect eval`` command's output lines (not blank), after checking it failed and wrote no log."""
    done = subprocess.run([INSPECT, "eval", "wolf_eval/triadic", *args, "--log-dir", "logs"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode == 1, done
    assert not any("Traceback" in line for line in lines), "\n".join(lines)
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").iterdir())
    return lines


@pytest.mark.slow
def test_the_inspect_command_ends_on_a_misspelt_model_name(tmp_path: Path) -> None:
    lines = inspect_eval_command(tmp_path, "--model", "wolfbot/cuee", "-T", "games=1")
    assert lines[-1] == ("Error: wolfbot/cuee: wolfbot has no policy 'cuee' (did you mean wolfbot/cue?); use one of: "
                         "wolfbot/random, wolfbot/cue, wolfbot/tom, wolfbot/faction, wolfbot/chaos, wolfbot/monitor")


@pytest.mark.slow
def test_the_inspect_command_ends_on_an_s3_lessons_folder_without_credentials(no_aws, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lines = inspect_eval_command(tmp_path, "--model", "wolfbot/cue", "-T", "games=1", "-T", "jester_learning=true",
                                 "-T", "lessons_dir=s3://wolf-eval-lessons/jester", env=dict(os.environ))
    assert lines[-1] == ("Error: jester_learning cannot write lessons to s3://wolf-eval-lessons/jester: no S3 "
                         "credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE")
