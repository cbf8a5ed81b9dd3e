"""Where a person's answers come from: the terminal, through Inspect's input screen, or a script.

The ``human`` provider (``wolf_eval/providers/human.py``) shows a seat's page and asks its questions through
an :class:`InputSource`, so a test plays a whole game from scripted answers (:class:`Scripted`) exactly as a
person plays it at the terminal (:class:`Terminal`). A source opens one screen per call (:meth:`InputSource.screen`):
the page is shown once and the call's questions asked one after the other on it. The terminal answers unless a
caller says otherwise with :func:`answers_from`, which is how tests plug in a script.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
from inspect_ai.util import input_screen

#: How long the full-screen display takes to come back after an input screen (seconds): a Ctrl-C delivered before
#: it is back ends the process with the log unfinished (measured in a terminal with inspect-ai 0.3.285).
_DISPLAY_BACK = 1.0
#: How often a terminal read looks again for a line, a deadline or a cancelled game (seconds).
_POLL = 0.2


@dataclass(frozen=True)
class Question:
    """One question put to the person: what it asks (``kind``: bid, statement, name, reason, analysis,
    lessons), the words shown, and the names it accepts (a ballot's or a night's)."""

    kind: str
    text: str
    options: tuple[str, ...] = ()


class Screen(Protocol):
    """One call's screen: text shown, then questions answered one line each."""

    def show(self, text: str) -> None: ...

    async def ask(self, question: Question, timeout: float | None) -> str:
        """The person's answer; ``TimeoutError`` when ``timeout`` seconds pass without one."""
        ...


class InputSource(Protocol):
    """Opens a screen for one call of a seat (``header`` names the seat and the moment)."""

    def screen(self, header: str) -> AbstractAsyncContextManager[Screen]: ...


class Interrupted(Exception):  # noqa: N818 (Ctrl-C, not an error)
    """Ctrl-C pressed while the person was answering."""


class _Deadline:
    """stdin as a stream whose ``readline`` gives up at a deadline or on Ctrl-C.

    Rich's ``Console.input`` reads from it in a worker thread, so other seats' calls run meanwhile; the read
    waits with ``select``, so a timed-out or interrupted read leaves no thread blocked on the terminal, which
    would swallow the next answer.
    """

    def __init__(self, deadline: float | None, interrupted: threading.Event) -> None:
        self.deadline = deadline
        self.interrupted = interrupted

    def readline(self) -> str:
        """The next line, read a byte at a time from the file descriptor: a buffered read could take the next
        answer too, where ``select`` would no longer see it."""
        fd = sys.stdin.fileno()
        line = b""
        while not line.endswith(b"\n"):
            if self.interrupted.is_set():
                raise Interrupted
            left = None if self.deadline is None else self.deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], _POLL if left is None else min(_POLL, left))
            if ready:
                byte = os.read(fd, 1)
                if not byte:
                    raise EOFError("the terminal closed")
                line += byte
        return line.decode("utf-8", errors="replace")


@dataclass
class _TerminalScreen:
    console: Any  # the rich Console that input_screen yields
    interrupted: threading.Event

    def show(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False)

    async def ask(self, question: Question, timeout: float | None) -> str:
        deadline = None if timeout is None else time.monotonic() + timeout
        stream = _Deadline(deadline, self.interrupted)
        line: str = await anyio.to_thread.run_sync(
            lambda: self.console.input(f"{question.text}\n> ", markup=False, stream=stream), abandon_on_cancel=True)
        return line.rstrip("\n")


class Terminal:
    """The person at the terminal, through Inspect's ``input_screen`` (the task display makes way while they
    answer; the screen is recorded in the transcript as an input event). One screen at a time: a game with two
    human seats, or two games, queue for the one terminal.

    Ctrl-C while the screen is open is held until the screen has closed and the display is back, then delivered
    as Inspect expects it (SIGINT to the process): Inspect then cancels the eval and writes its log, as on a
    Ctrl-C at any other moment. Delivered at once, it reaches the full-screen display while it is set aside
    for the screen, and the process ends with the log's status left at ``started``.
    """

    def __init__(self) -> None:
        self._lock: anyio.Lock | None = None

    @asynccontextmanager
    async def screen(self, header: str) -> AsyncIterator[Screen]:
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            interrupted = threading.Event()
            with _holding_ctrl_c(interrupted):
                try:
                    with input_screen() as console:
                        console.rule(header)  # in every display (the plain one prints no header of its own)
                        yield _TerminalScreen(console, interrupted)
                except Interrupted:
                    pass
            if interrupted.is_set():
                await anyio.sleep(_DISPLAY_BACK)
                os.kill(os.getpid(), signal.SIGINT)
                await anyio.sleep_forever()  # until Inspect cancels the game


@contextmanager
def _holding_ctrl_c(interrupted: threading.Event) -> Iterator[None]:
    """SIGINT sets ``interrupted`` while the block runs, instead of interrupting (where signals can be set: the
    main thread)."""
    try:
        previous = signal.signal(signal.SIGINT, lambda *_: interrupted.set())
    except ValueError:  # not the main thread: leave Ctrl-C as it is
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


#: A scripted answer: the next line, or a function of the question (for a whole game's worth of answers).
Answer = Callable[[Question], str]


@dataclass
class Scripted:
    """Answers from a script, for tests: first the given ``answers`` in order, then ``rest(question)`` for every
    later question (none: the script has run out, which is an error). Keeps every page shown and every question
    asked, so a test can read what the person would have read. An answer that is the :data:`CTRL_C` marker sends
    the process SIGINT there, as a person pressing Ctrl-C at that question does."""

    answers: Iterable[str] = ()
    rest: Answer | None = None
    shown: list[str] = field(default_factory=list)
    asked: list[Question] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._next: Iterator[str] = iter(self.answers)

    @asynccontextmanager
    async def screen(self, header: str) -> AsyncIterator[Screen]:
        self.shown.append(header)
        yield self

    def show(self, text: str) -> None:
        self.shown.append(text)

    async def ask(self, question: Question, timeout: float | None) -> str:
        self.asked.append(question)
        self.shown.append(question.text)
        answer = next(self._next, None)
        if answer is None:
            if self.rest is None:
                raise RuntimeError(f"the script has no answer left for: {question.text}")
            answer = self.rest(question)
        if answer == CTRL_C:  # as the terminal delivers it: SIGINT to the process, then this question waits on
            os.kill(os.getpid(), signal.SIGINT)
            await anyio.sleep_forever()
        if answer == TIMEOUT:
            raise TimeoutError
        return answer


#: A scripted answer that stands for Ctrl-C pressed at that question.
CTRL_C = "\x03"
#: A scripted answer that stands for the decision's time running out at that question.
TIMEOUT = "\x00timeout"


#: The source every ``human`` seat reads from while :func:`answers_from` is in force (else the terminal).
_SOURCE: InputSource | None = None


@contextmanager
def answers_from(source: InputSource) -> Iterator[InputSource]:
    """Every ``human`` seat's answers come from ``source`` while the block runs (an eval played inside it):
    the source is not a model argument, which Inspect would write into the log."""
    global _SOURCE
    before, _SOURCE = _SOURCE, source
    try:
        yield source
    finally:
        _SOURCE = before


def plugged() -> InputSource | None:
    """The source :func:`answers_from` put in force, if any."""
    return _SOURCE
