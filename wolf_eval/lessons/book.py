"""Per-model lessons files: deduplicated, atomic, safe under concurrent writers and crashed runs.

One JSON file per model name, so models never read each other's lessons. A write takes an
exclusive ``flock`` on a sidecar lock file, re-reads the file, adds what is new and replaces
the file atomically (temporary file, fsync, ``os.replace``): readers never see a half-written
file and concurrent writers, threads or processes, neither lose nor corrupt entries. On ``s3://``
the same change is made by conditional writes instead (``wolf_eval.lessons.remote``).

The file (``LessonsFile``)::

    {"model": "openai/gpt-4o",
     "lessons": [{"list": "to_do", "text": "...", "added_at": "2026-11-23T13:30:05+00:00",
                  "source": {"sample": 3, "epoch": 1, "seed": 123, "winner": "jester", ...},
                  "game": {"task": "VfQH...", "eval": "Z9mq...", "run": "63ky...", "sample": 3,
                           "epoch": 1, "step": 3, "attempt": "K9qG..."}}],
     "games": [{"task": ..., "eval": ..., "run": ..., "sample": 3, "epoch": 1, "step": 3,
                "attempt": ..., "added": 1}]}

``game`` (a ``GameKey``) names the game that wrote the lesson: the Inspect task id ``task``, which
``inspect eval-retry`` keeps, so it names the learning run across its attempts; the attempt's
Inspect ``eval`` and ``run`` ids; the sample id and epoch; ``step``, the game's place in its eval;
and ``attempt``, the sample's uuid (new in each eval, an ``eval-retry`` too; a sample Inspect retries
within one eval, ``--retry-on-error``, keeps it: games are told apart by task, sample and epoch, never
by it). ``games`` lists every game
whose lessons call finished, with how many lessons it added (often none, once the file has
them all): the file's own account of which games taught it, for a reader (no game reads it; a
retry's order is its log's).

A game counts as completed once it has been played to the end and its lessons call returned:
its lessons are its last act, and what Inspect does after (scoring) only reads the finished game.
A game killed before then wrote nothing. When the same game (task, sample, epoch) writes again,
because its sample failed after the lessons call (in scoring, or a kill before the log was
flushed) and ``eval-retry`` played it again, its earlier attempt's lessons and entry in
``games`` are replaced by the new ones, so the file keeps one attempt per game: the last. A game
reads (``visible_to``) every lesson except those its own run wrote at its place or later, which
are its own earlier attempts and, after a retry, games that come after it; so each game of a
retried run reads what it would have read in an uninterrupted run. Files written before these
fields existed read as lessons with no ``game``, which every game reads.

Duplicates: a lesson is skipped when its normalised text (lowercase, punctuation dropped,
whitespace folded) equals an existing entry's, or when difflib's similarity ratio of the two
normalised texts is at least ``NEAR_DUPLICATE`` and both say "not" the same way. 0.85 catches the
same advice re-worded by a word or two ("Bid high on day one to speak first." / "Bid high on day
one so you speak first." score 0.92), while different tactics that share the game's vocabulary
score well below it (0.73 for two wolf-like openings). The negation check keeps opposite advice
apart: "Vote with the majority on day 1." and "Never vote with the majority on day 1." score 0.91.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any, Literal, get_args

from platformdirs import user_data_dir
from pydantic import BaseModel, ConfigDict, ValidationError

from wolf_eval.lessons import remote
from wolf_eval.refusal import Refusal, ValueRefused
from wolf_eval.text import clean_text

#: Where a lessons file or folder is: a local path, or an ``s3://`` URL (``wolf_eval.lessons.remote``).
Location = Path | str

ListName = Literal["to_do", "to_not_do", "winning_tactics"]
LISTS: tuple[ListName, ...] = get_args(ListName)
NEAR_DUPLICATE = 0.85


class GameKey(BaseModel):
    """One attempt at one game of a learning run: who wrote a lesson, and where the game stands in its run."""

    model_config = ConfigDict(frozen=True)

    task: str
    eval: str = ""
    run: str = ""
    sample: int | str
    epoch: int = 1
    step: int
    attempt: str = ""

    def same_game(self, other: GameKey | None) -> bool:
        """True for any attempt at the same game of the same run."""
        return (other is not None
                and (self.task, str(self.sample), self.epoch) == (other.task, str(other.sample), other.epoch))

    def at_or_after(self, other: GameKey | None) -> bool:
        """True when ``other`` belongs to this run at this game's place or later: lessons this game must not read."""
        return other is not None and other.task == self.task and (other.step >= self.step or self.same_game(other))


class CompletedGame(GameKey):
    """An entry of ``games``: an attempt whose lessons call finished, and how many lessons it added."""

    added: int = 0


class Lesson(BaseModel):
    """One lesson; ``game`` is None in files written before lessons carried their game."""

    model_config = ConfigDict(frozen=True)

    list: ListName
    text: str
    added_at: str = ""
    source: dict[str, Any] = {}
    game: GameKey | None = None


class LessonsFile(BaseModel):
    model: str
    lessons: list[Lesson] = []
    games: list[CompletedGame] = []


class NotALessonsFile(ValueRefused):
    """A path that cannot serve as a model's lessons file; ``reason`` says why in full, in one line.

    A refusal, so ``inspect eval`` refusing it while it builds the task prints the one line and
    exits 1, not a traceback through Inspect's task loader (``wolf_eval.refusal``).
    """

    def __init__(self, path: Location, reason: str) -> None:
        super().__init__(f"{path} is not a wolf-eval lessons file: {reason}; fix or move it, it is never overwritten")
        self.path, self.reason = path, reason


class LessonsDirRefused(Refusal, PermissionError):
    """A lessons folder or file the learning run cannot use: one line, printed by ``inspect`` without a traceback."""


class LessonsNotSaved(RuntimeError):
    """A lessons write that failed after the start-up check: the game's learning is lost, so the game fails."""

    def __init__(self, path: Location, err: OSError) -> None:
        super().__init__(f"the Jester's lessons could not be saved to {path}: {err.strerror or err}")


def visible_to(stored: LessonsFile | None, game: GameKey | None) -> list[Lesson]:
    """The lessons a game reads: all but its own run's at its place or later (see the module docstring)."""
    if stored is None:
        return []
    if game is None:
        return list(stored.lessons)
    return [x for x in stored.lessons if not game.at_or_after(x.game)]


def default_lessons_dir() -> Path:
    return Path(user_data_dir("wolf-eval")) / "lessons"


def lessons_path(directory: Location, model: str) -> Location:
    """The model's file: a readable slug of its name plus a hash, so distinct names never share a file."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_") or "model"
    digest = hashlib.sha256(model.encode()).hexdigest()[:8]
    name = f"{slug}-{digest}.json"
    return f"{str(directory).rstrip('/')}/{name}" if remote.is_remote(directory) else Path(directory) / name


def normalise(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


_NEGATIONS = {"not", "no", "never", "don", "dont", "avoid", "without", "stop", "nor", "t"}


def _negations(normalised: str) -> set[str]:
    return {w for w in normalised.split() if w in _NEGATIONS}


def is_duplicate(text: str, existing: Iterable[str]) -> bool:
    mine = normalise(text)
    for other in existing:
        theirs = normalise(other)
        if mine == theirs:
            return True
        if _negations(mine) == _negations(theirs) and SequenceMatcher(None, mine, theirs).ratio() >= NEAR_DUPLICATE:
            return True
    return False


def lesson_text(text: str) -> str:
    """A lesson as it is kept and shown: model-written text cleaned (``wolf_eval.text``), whitespace folded."""
    return " ".join(clean_text(text).split())


def _why_not(err: Exception) -> str:
    """What is wrong with a file that is not a lessons file, in one line, in full."""
    if isinstance(err, UnicodeDecodeError):
        return f"not UTF-8 text (byte 0x{err.object[err.start]:02x} at position {err.start})"
    if isinstance(err, ValidationError):
        first = err.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        what = " ".join(str(first.get("msg", "invalid")).split())
        return f"{where}: {what}" if where else what
    return " ".join(str(err).split())


def _parse(path: Location, data: bytes, model: str | None) -> LessonsFile:
    try:
        stored = LessonsFile.model_validate_json(data.decode("utf-8"))
    except (ValidationError, ValueError) as err:
        raise NotALessonsFile(path, _why_not(err)) from err
    if model is not None and stored.model != model:
        raise NotALessonsFile(path, f"it holds the lessons of {stored.model!r}, not of {model!r}")
    # An older release wrote the model's text as it came: clean it before any prompt reads it.
    lessons = [x.model_copy(update={"text": lesson_text(x.text)}) for x in stored.lessons]
    return stored.model_copy(update={"lessons": [x for x in lessons if x.text]})


def read_lessons(path: Location, model: str | None = None) -> LessonsFile | None:
    """The file's lessons, or None when there is no file yet; a damaged file is an error, never a reset.

    With ``model``, a file holding another model's lessons is refused too: models never read
    each other's lessons.
    """
    if remote.is_remote(path):
        _, data = remote.read(str(path))
        return None if data is None else _parse(path, data, model)
    path = Path(path)
    if path.is_dir():
        raise NotALessonsFile(path, "it is a folder")
    if not path.exists():
        return None
    return _parse(path, path.read_bytes(), model)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a+", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def check_writable(directory: Location) -> None:
    """Fail before the first game, naming the folder, if lessons could not be written there.

    A learning run that cannot keep its lessons is not a learning run: finding out after the
    first game would leave a successful eval with the problem buried in its store.
    """
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


def _user_mode() -> int:
    """The mode a new file gets under the user's umask (``mkstemp`` alone would give 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _write_atomic(path: Path, content: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        os.fchmod(fd, _user_mode())
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _dump(stored: LessonsFile) -> str:
    return json.dumps(stored.model_dump(mode="json"), indent=1, ensure_ascii=False) + "\n"


def _update(path: Location, model: str, change: Callable[[LessonsFile], LessonsFile | None]) -> None:
    """Change the file as one atomic step: under the file lock locally, by conditional writes on S3."""
    if remote.is_remote(path):
        def on_s3(data: bytes | None) -> bytes | None:
            updated = change(LessonsFile(model=model) if data is None else _parse(path, data, model))
            return None if updated is None else _dump(updated).encode("utf-8")

        remote.update(str(path), on_s3)
        return
    path = Path(path)
    with _locked(path):
        updated = change(read_lessons(path, model) or LessonsFile(model=model))
        if updated is not None:
            _write_atomic(path, _dump(updated))


def check_lessons_file(directory: Location, model: str) -> None:
    """Fail before the first game, naming the file, if ``model``'s lessons file cannot be used as it is.

    Raises:
        NotALessonsFile: the path is a folder, is not a lessons file or holds another model's lessons.
        PermissionError: the file exists but cannot be read.
    """
    path = lessons_path(directory, model)
    try:
        read_lessons(path, model)
    except OSError as err:
        raise LessonsDirRefused(f"jester_learning cannot read the lessons file {path}: {err.strerror or err}") from err


def append_lessons(path: Location, model: str, candidates: Iterable[tuple[str, str]],
                   source: dict[str, Any] | None = None, game: GameKey | None = None) -> list[Lesson]:
    """Add the (list, text) candidates that are new; returns the lessons actually added.

    With ``game``, the lessons carry it, any earlier attempt of the same game is replaced (its
    lessons and its ``games`` entry), candidates are compared only with the lessons that game
    reads, and the game is listed in ``games`` even when it added nothing.
    """
    candidates = list(candidates)
    added: list[Lesson] = []

    def change(current: LessonsFile) -> LessonsFile | None:
        kept = [x for x in current.lessons if game is None or not game.same_game(x.game)]
        texts = [x.text for x in (kept if game is None else visible_to(current, game))]
        now = datetime.now(UTC).isoformat(timespec="seconds")
        added.clear()
        for list_name, text in candidates:
            text = lesson_text(text)
            if list_name not in LISTS or not text or is_duplicate(text, texts):
                continue
            added.append(Lesson(list=list_name, text=text, added_at=now, source=source or {}, game=game))
            texts.append(text)
        if not added and game is None:
            return None
        games = [g for g in current.games if game is None or not game.same_game(g)]
        if game is not None:
            games.append(CompletedGame(**game.model_dump(), added=len(added)))
        return LessonsFile(model=model, lessons=[*kept, *added], games=games)

    _update(path, model, change)
    return list(added)


def drop_game(path: Location, model: str, game: GameKey) -> int:
    """Remove every attempt of ``game`` (its lessons and its ``games`` entry); returns the lessons removed.

    A game whose sample ended in error is not in the log as played: its lessons are not
    committed, so no later game may read them and the file must not keep them.
    """
    removed = [0]

    def change(current: LessonsFile) -> LessonsFile | None:
        kept = [x for x in current.lessons if not game.same_game(x.game)]
        games = [g for g in current.games if not game.same_game(g)]
        removed[0] = len(current.lessons) - len(kept)
        if not removed[0] and len(games) == len(current.games):
            return None
        return LessonsFile(model=model, lessons=kept, games=games)

    _update(path, model, change)
    return removed[0]
