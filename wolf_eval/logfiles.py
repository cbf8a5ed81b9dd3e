"""Where the command-line tools find their logs, and how they refuse the wrong ones.

Inspect writes logs wherever its log functions can write (a local folder, ``s3://...``, any
fsspec location). The tools read local files where they lie, which keeps the report's fast path
(it opens each ``.eval`` zip for the game's store alone), and copy any other location to a
temporary folder first. Every way an input can be wrong ends in one of two exceptions that the
command line turns into one line on stderr: ``BadInput`` (exit 2: not something the tool can
read) and ``NoResult`` (exit 1: readable, but nothing to produce from it).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from inspect_ai.log import (
    EvalLog,
    EvalSample,
    list_eval_logs,
    read_eval_log,
    read_eval_log_sample,
    read_eval_log_sample_summaries,
)

LOG_SUFFIXES = (".eval", ".json")
TASK_PREFIX = "wolf_eval/"


class BadInput(Exception):
    """The input is not something the tool can read: missing, unreadable, not a log, another task's."""


class NoResult(Exception):
    """The input is readable but yields nothing: a failed or cancelled eval, a log with no finished game."""


def is_remote(location: str) -> bool:
    return "://" in location and not location.startswith("file://")


@contextmanager
def local_copies(locations: list[str]) -> Iterator[list[Path]]:
    """Local paths for ``locations``: local ones as given, remote files and folders copied for the duration."""
    paths: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="wolf-eval-logs-") as tmp:
        for i, location in enumerate(locations):
            if not is_remote(location):
                path = Path(location.removeprefix("file://"))
                if not path.exists():
                    raise BadInput(f"{location}: no such log file or folder")
                paths.append(path)
                continue
            paths.append(_fetch(location, Path(tmp) / str(i)))
        yield paths


def _fetch(location: str, into: Path) -> Path:
    import fsspec

    try:
        fs, root = fsspec.core.url_to_fs(location)
        if not fs.exists(root):
            raise BadInput(f"{location}: no such log file or folder")
        if not fs.isdir(root):
            into.mkdir(parents=True)
            local = into / Path(root).name
            fs.get_file(root, str(local))
            return local
        for remote in fs.find(root):
            if remote.endswith(LOG_SUFFIXES):
                local = into / os.path.relpath(remote, root)
                local.parent.mkdir(parents=True, exist_ok=True)
                fs.get_file(remote, str(local))
        into.mkdir(parents=True, exist_ok=True)
        return into
    except BadInput:
        raise
    except Exception as err:  # any filesystem's own failure: name the location and the reason
        raise BadInput(f"{location}: cannot be read ({type(err).__name__}: {_first_line(err)})") from err


#: What a path that is not a regular file is, by ``stat``'s test of its mode.
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def not_a_file(path: Path, what: str = "file") -> str | None:
    """Why ``path`` is not the ``what`` to read ("no such file", "a folder, not a log file", ...); None when it
    is a regular file."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "a broken link" if path.is_symlink() else "no such file"
    except OSError as err:
        return f"cannot be looked at ({err.strerror or type(err).__name__})"
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "something") + f", not a {what}"


def read_game_log(path: Path, shown: str | None = None) -> EvalLog:
    """The header of a finished wolf-eval log with at least one finished game, or the reason it is not one.

    Only the header and the sample summaries are read: the games themselves come one at a time
    from :func:`game_samples`, since a log of a few hundred games with deception analysis holds
    more events than fit in memory at once.
    """
    name = shown or str(path)
    if (kind := not_a_file(path, "log file")) is not None:
        raise BadInput(f"{name}: {kind}")
    if not os.access(path, os.R_OK):
        raise BadInput(f"{name}: not readable (permission denied)")
    try:
        log = read_eval_log(str(path), header_only=True)
    except Exception as err:
        raise BadInput(f"{name}: not an Inspect log ({type(err).__name__}: {_first_line(err)})") from err
    if not log.eval.task.startswith(TASK_PREFIX):
        raise BadInput(f"{name}: a log of task {log.eval.task}, not of a wolf-eval game")
    if log.status != "success":
        why = f": {_first_line(log.error.message)}" if log.error else ""
        raise NoResult(f"{name}: the eval did not finish (status {log.status}{why})")
    if not any(s.error is None for s in read_eval_log_sample_summaries(str(path))):
        raise NoResult(f"{name}: the log holds no finished game")
    return log


def inspect_logs(locations: Iterable[str | Path]) -> tuple[list[str], list[str]]:
    """The Inspect logs among files and folders (folders listed as Inspect lists them, recursively),
    and a line for each file that Inspect's listing takes for a log but that cannot be read as one.

    Inspect takes any ``.eval`` file, and any ``.json`` file whose name opens with a timestamp, for a
    log; one such file that is something else (a game's state written there by an earlier
    ``wolf-eval export``, a truncated log) makes ``evals_df`` fail outright. Each is read for its
    header here, so the reports read the others and say which were skipped and why.
    """
    found: list[str] = []
    skipped: list[str] = []
    for location in locations:
        path = Path(location)
        names = [str(path)] if path.is_file() else [info.name for info in list_eval_logs(str(path))]
        for name in names:
            try:
                read_eval_log(name, header_only=True)
            except Exception as err:
                reason = _root(err)
                skipped.append(f"{name.removeprefix('file://')}: not an Inspect log "
                               f"({type(reason).__name__}: {_first_line(reason)})")
                continue
            found.append(name)
    return found, skipped


def _root(err: BaseException) -> BaseException:
    """The first cause of an error, which says why (Inspect's own message only repeats the file's name)."""
    while err.__cause__ is not None:
        err = err.__cause__
    return err


def game_samples(path: Path) -> Iterator[EvalSample]:
    """Each game of a log read by :func:`read_game_log`, attachments resolved, one in memory at a time.

    Listed from the log's sample summaries (by game, then epoch), not from its header: a learning
    run's dataset adds its games as it plays them, and the header names only the first.
    """
    for summary in sorted(read_eval_log_sample_summaries(str(path)), key=lambda s: (s.id, s.epoch)):
        yield read_eval_log_sample(str(path), summary.id, summary.epoch, resolve_attachments=True)


@contextmanager
def written_together(folder: Path, shown: str | None = None, replaces: Iterable[str] = ()) -> Iterator[Path]:
    """A staging folder whose files replace their namesakes in ``folder`` only if the block completes.

    Nothing is created or replaced in ``folder`` when the block raises: a failed command leaves
    the last good output where it was. ``replaces`` names every file an earlier output of the same
    kind may hold: those the new output did not write are removed, so the folder holds one output
    whole (never a figure the new report did not draw), and nothing else in it is touched. A
    folder that cannot be written is named as ``shown`` (what the user gave), never by the
    hidden staging folder.
    """
    name = shown or str(folder)
    if folder.exists() and not folder.is_dir():
        raise BadInput(f"{name}: a file, not a folder to write into")
    near = next(p for p in (folder.absolute(), *folder.absolute().parents) if p.exists())
    if not near.is_dir():
        raise BadInput(f"{name}: cannot be created, {near} is a file")
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=near))
    except OSError as err:
        raise BadInput(f"{name}: cannot be written ({_reason(err)}, in {near})") from err
    try:
        try:
            yield stage
        except OSError as err:
            if not str(err.filename or "").startswith(str(stage)):
                raise
            raise BadInput(f"{name}: cannot be written ({_reason(err)})") from err
        try:
            folder.mkdir(parents=True, exist_ok=True)
            written = sorted(stage.iterdir())
            for f in written:
                os.replace(f, folder / f.name)
            for stale in sorted(set(replaces) - {f.name for f in written}):
                (folder / stale).unlink(missing_ok=True)
        except OSError as err:
            raise BadInput(f"{name}: cannot be written ({_reason(err)})") from err
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _reason(err: OSError) -> str:
    """An OS error's reason in full (``Permission denied``, ``No space left on device``), without its paths."""
    return err.strerror or _first_line(err)


#: The longest a failed sample's error is quoted: a path and an OS reason fit whole; a traceback's first line is cut.
MAX_ERROR_CHARS = 500


def sample_error(message: str) -> str:
    """A failed sample's error as the commands quote it: its first line, whole up to ``MAX_ERROR_CHARS``
    and otherwise cut at a word, with an ellipsis, never mid-word."""
    line = (message.strip().splitlines() or ["no message"])[0]
    if len(line) <= MAX_ERROR_CHARS:
        return line
    return line[:MAX_ERROR_CHARS].rsplit(" ", 1)[0] + " …"


def _first_line(err: object) -> str:
    text = str(err).strip()
    return text.splitlines()[0][:200] if text else "no message"
