"""A model's lessons as a sequence of immutable snapshots: snapshot k is its lessons after its k-th learning game.

Each model name has a folder of its own (``model_folder``: a slug plus a hash, so two names never share one
and models never read each other's lessons), holding ``000001.json``, ``000002.json``, ... Snapshot 0 is
empty, unless the folder holds a ``000000.json`` to start from (a lessons file of an earlier release reads
as one). Game k reads snapshot k-1 and writes nothing; snapshot k is written once game k is in a finished
log (``wolf_eval.lessons.run``): snapshot k-1's lessons, game k's new ones, and the log of each game.

A snapshot is written once and never changed, by a create-exclusive write: locally a complete, fsynced
temporary file hard-linked to its name (``os.link`` fails if the name exists, and no reader sees half a
file); on ``s3://`` a ``PutObject`` with ``If-None-Match: *`` (``remote``). Of two runs that played the
same game, the first to finish keeps it and the other is refused (``LessonsTaken``); no lock is held, so
a killed run leaves nothing to clean up.

Duplicates: a lesson is skipped when its normalised text (lowercase, punctuation dropped, whitespace
folded) equals a known one's, or when difflib's ratio of the two is at least ``NEAR_DUPLICATE`` and both
say "not" the same way. 0.85 catches advice re-worded by a word or two ("Bid high on day one to speak
first." / "... so you speak first." score 0.92), while different tactics score well below it (0.73 for
two wolf-like openings); opposite advice ("Vote with the majority on day 1." / "Never vote with ...",
0.91) differs in its negations.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import uuid
from collections.abc import Iterable
from difflib import SequenceMatcher
from pathlib import Path
from typing import Literal, get_args

from fsspec.core import url_to_fs
from platformdirs import user_data_dir
from pydantic import BaseModel, ConfigDict, ValidationError

from wolf_eval.lessons import remote
from wolf_eval.refusal import Refusal, ValueRefused
from wolf_eval.text import clean_text

#: Where a lessons folder or snapshot is: a local path, or an ``s3://`` URL (``wolf_eval.lessons.remote``).
Location = Path | str

ListName = Literal["to_do", "to_not_do", "winning_tactics"]
LISTS: tuple[ListName, ...] = get_args(ListName)
NEAR_DUPLICATE = 0.85


class Lesson(BaseModel):
    """One lesson and the game of the sequence that added it (None in a snapshot 0 written by hand)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    list: ListName
    text: str
    step: int | None = None


class Snapshot(BaseModel):
    """The lessons after ``step`` games of ``model``'s sequence, and the log of each of those games."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    model: str
    step: int = 0
    lessons: list[Lesson] = []
    logs: list[str] = []

    def dump(self) -> bytes:
        return (self.model_dump_json(indent=1) + "\n").encode("utf-8")

    def digest(self) -> str:
        """What a game's record keeps of the snapshot it read: how a rerun finds that game's log (``run.kept_log``)."""
        return hashlib.sha256(self.dump()).hexdigest()


class NotALessonsFile(ValueRefused):
    """A path that cannot serve as a model's lessons snapshot; ``reason`` says why in full, in one line."""

    def __init__(self, path: Location, reason: str) -> None:
        super().__init__(f"{path} is not a wolf-eval lessons file: {reason}; fix or move it, it is never overwritten")
        self.path, self.reason = path, reason


class LessonsDirRefused(Refusal, PermissionError):
    """A lessons folder the learning run cannot use: one line, printed without a traceback."""


class LessonsTaken(Refusal, FileExistsError):
    """Snapshot k exists already: another run played game k of this model's sequence and kept it first."""


def default_lessons_dir() -> Path:
    return Path(user_data_dir("wolf-eval")) / "lessons"


def model_folder(directory: Location, model: str) -> Location:
    """The model's folder of snapshots: a readable slug of its name plus a hash, so distinct names never share one."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_") or "model"
    name = f"{slug}-{hashlib.sha256(model.encode()).hexdigest()[:8]}"
    return f"{str(directory).rstrip('/')}/{name}" if remote.is_remote(directory) else Path(directory) / name


def snapshot_path(folder: Location, step: int) -> Location:
    return f"{folder}/{step:06d}.json" if remote.is_remote(folder) else Path(folder) / f"{step:06d}.json"


def normalise(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


_NEGATIONS = {"not", "no", "never", "don", "dont", "avoid", "without", "stop", "nor", "t"}


def is_duplicate(text: str, existing: Iterable[str]) -> bool:
    mine = normalise(text)
    negated = {w for w in mine.split() if w in _NEGATIONS}
    for other in existing:
        theirs = normalise(other)
        if mine == theirs or (negated == {w for w in theirs.split() if w in _NEGATIONS}
                              and SequenceMatcher(None, mine, theirs).ratio() >= NEAR_DUPLICATE):
            return True
    return False


def lesson_text(text: str) -> str:
    """A lesson as it is kept and shown: model-written text cleaned (``wolf_eval.text``), whitespace folded."""
    return " ".join(clean_text(text).split())


def new_lessons(candidates: Iterable[tuple[str, str]], known: list[Lesson], step: int) -> list[Lesson]:
    """The (list, text) candidates that are neither in ``known`` nor duplicates of one another, as game ``step``'s."""
    texts = [x.text for x in known]
    added = []
    for list_name, text in candidates:
        text = lesson_text(text)
        if list_name in LISTS and text and not is_duplicate(text, texts):
            added.append(Lesson.model_validate({"list": list_name, "text": text, "step": step}))
            texts.append(text)
    return added


def _why_not(err: Exception) -> str:
    """What is wrong with a file that is not a snapshot, in one line, in full."""
    if isinstance(err, UnicodeDecodeError):
        return f"not UTF-8 text (byte 0x{err.object[err.start]:02x} at position {err.start})"
    if isinstance(err, ValidationError):
        first = err.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        what = " ".join(str(first.get("msg", "invalid")).split())
        return f"{where}: {what}" if where else what
    return " ".join(str(err).split())


def read_snapshot(path: Location, model: str | None = None) -> Snapshot | None:
    """The snapshot, or None when there is none; a damaged one is an error, never a reset.

    With ``model``, a snapshot holding another model's lessons is refused: models never read each other's.
    """
    fs, where = url_to_fs(str(path))
    try:
        data = fs.cat_file(where)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise NotALessonsFile(path, "it is a folder") from None
    try:
        stored = Snapshot.model_validate_json(data.decode("utf-8"))
    except (ValidationError, ValueError) as err:
        raise NotALessonsFile(path, _why_not(err)) from err
    if model is not None and stored.model != model:
        raise NotALessonsFile(path, f"it holds the lessons of {stored.model!r}, not of {model!r}")
    lessons = [x.model_copy(update={"text": lesson_text(x.text)}) for x in stored.lessons]
    return stored.model_copy(update={"lessons": [x for x in lessons if x.text]})


def latest(folder: Location, model: str | None) -> Snapshot | None:
    """The folder's highest-numbered snapshot (None for an empty or missing folder), listed afresh."""
    fs, where = url_to_fs(str(folder))
    try:
        names = [str(n).rstrip("/").rsplit("/", 1)[-1] for n in fs.ls(where, detail=False, refresh=True)]
    except FileNotFoundError:
        names = []
    steps = [int(n[:-5]) for n in names if re.fullmatch(r"\d{6}\.json", n)]
    return read_snapshot(snapshot_path(folder, max(steps)), model) if steps else None


def write_snapshot(folder: Location, snapshot: Snapshot) -> None:
    """Write snapshot ``snapshot.step`` once: refused (``LessonsTaken``) if it exists."""
    path = snapshot_path(folder, snapshot.step)
    if not (remote.create(str(path), snapshot.dump()) if remote.is_remote(path) else
            _create_local(Path(path), snapshot.dump())):
        raise LessonsTaken(f"{path} exists: another run kept game {snapshot.step} of {snapshot.model}'s lessons "
                           "while this one played it; play one learning run per model and lessons folder at a time")


def _create_local(path: Path, content: bytes) -> bool:
    """Create ``path`` whole or not at all: False if it exists. Written and fsynced under a name of its own, then
    hard-linked to ``path``; created as any file the user writes (``open``'s 0o666 less their umask)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "xb") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    finally:
        tmp.unlink(missing_ok=True)


def check_writable(directory: Location) -> None:
    """Fail before the first game, naming the folder, if lessons could not be written there."""
    if remote.is_remote(directory):
        try:
            remote.check_writable(str(directory))
        except OSError as err:
            raise LessonsDirRefused(f"jester_learning cannot write lessons to {directory}: {err}") from err
        return
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise LessonsDirRefused(f"jester_learning cannot write lessons to {directory}: it is a file, not a folder; "
                                "choose a folder with -T lessons_dir=...")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".wolf-eval-probe-"):
            pass
    except OSError as err:
        raise LessonsDirRefused(f"jester_learning cannot write lessons to {directory}: {err.strerror or err}; "
                                "choose another folder with -T lessons_dir=...") from err
