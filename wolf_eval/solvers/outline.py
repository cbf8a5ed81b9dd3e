"""The transcript's outline of a game, kept by watching it: every call and record under the span of the
night, day, phase, turn or defence it belongs to, and the calls folded in groups beside the lines
they explain.

The game loop (``play.py``) knows nothing of spans: it hands each wave's calls to :meth:`Outline.asked`,
which runs each where it belongs and returns the decisions, and each wave's new records to
:meth:`Outline.wrote`, which puts one line per record under its span and closes what the next wave
does not need.

One wave of decisions can belong to several spans at once, even to two phases: a statement's
analyses run with the bids for the next turn, one defence's analyses with the next defence, the
last defence's analyses with the discussion's first bids. So each night and day, each phase of a
day, each debate turn and each defence is a :class:`Room`, a span held open by a task of its own,
and whatever runs through a room is recorded under its span. A wave's calls go in groups (a turn's
bids, the analyses of one statement), each an Inspect subtask, which ``inspect view`` shows folded;
each call in it is a subtask named for its seat, role, action and day (``wolf_eval.agents.call``).
A ballot's votes are not grouped: each vote call sits right under the ballot's span, beside the line
of the vote it cast, so auditing one vote is the ballot's entry in the outline, then that call.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskGroup, TaskStatus
from inspect_ai.util import span, subtask

from wolf_eval.engine import Action, Decision, GameState, Phase, Record, Request
from wolf_eval.engine.state import ANALYSIS_ACTIONS, NIGHT_ACTIONS, SPEECH_ACTIONS
from wolf_eval.records import Deception, FallbackNote, Kind, Vote
from wolf_eval.solvers.transcript import PHASE_SPANS, block_of, emit, speech_span

T = TypeVar("T")

#: The span type of a debate turn or a defence: not "turn", which the viewer folds.
SPEECH_SPAN = "speech"
#: The span type of a night, a day and a day's phases.
PHASE_SPAN = "phase"


class Room:
    """A span held open by a task of its own until closed; what runs through it is recorded under it."""

    def __init__(self, name: str, type: str = SPEECH_SPAN, parent: Room | None = None) -> None:
        self.name = name
        self.type = type
        self.parent = parent  # the room whose span holds this one's (None: the night's or day's span)
        self._send, self._jobs = anyio.create_memory_object_stream[Callable[[], Coroutine[Any, Any, None]]](math.inf)
        self._closed = anyio.Event()

    async def open(self, tg: TaskGroup) -> None:
        """Begin the span, as a child of the parent room's span, or of the span the caller is in."""
        if self.parent is not None:
            await self.parent.run(lambda: tg.start(self._hold))
        else:
            await tg.start(self._hold)

    async def _hold(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        try:
            async with span(self.name, type=self.type), anyio.create_task_group() as work:
                task_status.started()
                async with self._jobs:
                    async for job in self._jobs:
                        work.start_soon(job)
        finally:
            self._closed.set()

    async def run(self, job: Callable[[], Awaitable[T]]) -> T:
        """Run ``job`` under this room's span and return what it returns (or raise what it raised)."""
        done = anyio.Event()
        returned: list[T] = []
        raised: list[Exception] = []

        async def inside() -> None:
            try:
                returned.append(await job())
            except Exception as err:  # handed back to the caller, whose task it belongs to
                raised.append(err)
            finally:
                done.set()

        await self._send.send(inside)
        await done.wait()
        if raised:
            raise raised[0]
        return returned[0]

    async def close(self) -> None:
        """End the span once the work in it has finished."""
        await self._send.aclose()
        await self._closed.wait()


@dataclass
class Group:
    """Calls of one wave that go together in the outline, and where they go."""

    room: Room | None
    name: str
    members: list[int] = field(default_factory=list)  # indices into the wave's requests


#: A seat's call: the requests it answers, made into their decisions by the game's players.
Decide = Callable[[list[Request]], Awaitable[list[Decision]]]


@dataclass
class Outline:
    """A game's rooms: the night or day being played, its phases, their debate turns and defences, and
    each speech's room by its record.

    Every phase of a day is a room, so a wave whose calls belong to two phases (the last defence's
    analyses and the discussion's first bids) puts each call under its own phase, the earlier phase
    held open until its work is done.
    """

    tg: TaskGroup
    roles: dict[str, str]  # each player's role, for the lines
    block: Room | None = None  # the night's or day's room, while one is open
    phases: dict[Phase, Room] = field(default_factory=dict)  # the phases open, by phase
    rooms: dict[tuple[Phase, str], Room] = field(default_factory=dict)  # speeches open, by phase and span name
    of_record: dict[int, Room] = field(default_factory=dict)  # a speech record's index -> its room

    @classmethod
    @asynccontextmanager
    async def watching(cls, game: GameState) -> AsyncIterator[Outline]:
        """The outline of ``game`` from its opening records to the end of the block :meth:`wrote` last closed."""
        roles = {p.name: p.role.value for p in game.players}
        emit(game.records, roles)
        async with anyio.create_task_group() as tg:
            outline = cls(tg, roles)
            try:
                yield outline
            finally:
                await outline._close_block()

    async def asked(self, game: GameState, calls: Sequence[list[Request]], decide: Decide) -> list[list[Decision]]:
        """Run a wave's calls at once, each under the span of its first decision and in its group; each call's
        decisions, in ``calls`` order."""
        requests = [r for call in calls for r in call]
        await self._open_block(block_of(game, requests))
        await self.open_for(requests)
        groups = self.groups(game, requests)
        group_of = {i: k for k, g in enumerate(groups) for i in g.members}
        by_group: dict[int, list[int]] = {}  # each group's calls, by the group of the call's first request
        first = 0
        for c, call in enumerate(calls):
            by_group.setdefault(group_of[first], []).append(c)
            first += len(call)
        decided: list[list[Decision]] = [[] for _ in calls]

        async def run(group: Group, members: list[int]) -> None:
            asked = [list(calls[c]) for c in members]
            got = await self._at(group.room, lambda: _in_group(group.name, asked, decide))
            for c, decisions in zip(members, got, strict=True):
                decided[c] = decisions

        await together([run(g, by_group[k]) for k, g in enumerate(groups) if k in by_group])
        return decided

    async def wrote(self, game: GameState, records: tuple[Record, ...], asked: list[tuple[Request, Decision]],
                    coming: list[Request]) -> None:
        """One line per record of a wave where it belongs, then the rooms the next wave does no work in
        closed (the night's or day's too when ``coming`` is another's).

        Args:
            game: the state after the wave.
            records: the wave's new records.
            asked: the wave's requests with their decisions, in the order the engine took them.
            coming: the next wave's requests (a floor record opens the room of the speech it grants).
        """
        await self.write(records, asked, coming)
        await self.close_done(coming)
        if not coming or self.block is None or block_of(game, coming) != self.block.name:
            await self._close_block()

    async def _open_block(self, name: str) -> None:
        if self.block is None:
            self.block = Room(name, type=PHASE_SPAN)
            await self.block.open(self.tg)

    async def _close_block(self) -> None:
        if self.block is not None:
            await self.close_done([])
            await self.block.close()
            self.block = None
            self.of_record.clear()

    async def _at(self, room: Room | None, job: Callable[[], Awaitable[T]]) -> T:
        """Run ``job`` in ``room``, or in the night's or day's room for ``None``."""
        where = room or self.block
        return await (where.run(job) if where is not None else job())

    async def _phase(self, phase: Phase) -> Room | None:
        """The room of a day's phase, opened if not open yet (None at night: its work is the night's span's)."""
        if phase not in PHASE_SPANS:
            return None
        if phase not in self.phases:
            room = Room(PHASE_SPANS[phase], type=PHASE_SPAN, parent=self.block)
            await room.open(self.tg)
            self.phases[phase] = room
        return self.phases[phase]

    async def open_for(self, requests: list[Request]) -> None:
        """Open the phase of each request other than an analysis (which goes where its statement is), and
        the room of each statement or defence asked for, if not open yet."""
        for r in requests:
            if r.action in ANALYSIS_ACTIONS:
                continue
            phase = await self._phase(r.phase)
            if r.action in SPEECH_ACTIONS and (r.phase, speech_span(r)) not in self.rooms:
                room = Room(speech_span(r), parent=phase)
                await room.open(self.tg)
                self.rooms[(r.phase, room.name)] = room

    def room_of(self, request: Request) -> Room | None:
        """Where a call goes: a speech in its own room, an analysis in its statement's, the rest in its phase."""
        if request.action in SPEECH_ACTIONS:
            return self.rooms.get((request.phase, speech_span(request)))
        if request.action in ANALYSIS_ACTIONS and request.subject is not None and request.subject in self.of_record:
            return self.of_record[request.subject]
        return self.phases.get(request.phase)

    def groups(self, game: GameState, requests: list[Request]) -> list[Group]:
        """The wave's calls grouped as the outline shows them, in the order of their first request."""
        groups: dict[tuple[Any, ...], Group] = {}
        for i, r in enumerate(requests):
            key, name = group_of(game, r)
            groups.setdefault(key, Group(self.room_of(r), name)).members.append(i)
        return list(groups.values())

    async def write(self, records: tuple[Record, ...], asked: list[tuple[Request, Decision]],
                    coming: list[Request]) -> None:
        """One line per record of a wave, each under the span it belongs to, in record order (see :meth:`wrote`)."""
        here = next((self.room_of(r) for r, _ in asked if r.action in SPEECH_ACTIONS), None)
        noted = iter([r for r, d in asked if d.notes and d.notes.strip()])
        for record in records:
            if record.kind is Kind.FLOOR:  # the room of the speech it grants
                granted = [r for r in coming if r.seat == record.actor and r.action in SPEECH_ACTIONS
                           and (r.day, r.phase) == (record.day, record.phase)]
                await self.open_for(granted)
                room = self.room_of(granted[0]) if granted else self.phases.get(record.phase)
            else:
                room = self._room_of_record(record, [r for r, _ in asked], noted, here)
            if record.kind in (Kind.STATEMENT, Kind.DEFENCE, Kind.PASS) and room is not None:
                self.of_record[record.index] = room
            await self._at(room, _line(record, self.roles))

    def _room_of_record(self, record: Record, requests: list[Request], noted: Iterator[Request],
                        here: Room | None) -> Room | None:
        d = record.data
        if isinstance(d, Deception):
            return self.of_record.get(d.statement, self.phases.get(d.statement_phase))
        if isinstance(d, FallbackNote):
            asked = next((r for r in requests if r.seat == record.actor and r.action.value == d.action
                          and r.subject == d.subject), None)
            return self.room_of(asked) if asked is not None else here
        if record.kind is Kind.NOTE:  # the engine writes notes in the order of the decisions that made them
            asked = next(noted, None)
            return self.room_of(asked) if asked is not None else here
        if record.kind in (Kind.STATEMENT, Kind.DEFENCE, Kind.PASS):
            return here
        return self.phases.get(record.phase)  # a bid, vote, tally or exile: its phase's, if open; else the day's

    async def close_done(self, coming: list[Request]) -> None:
        """Close the turns, defences and phases the next wave does no work in (all of them for none), each
        turn and defence before its phase."""
        needed: set[int] = set()
        for r in coming:
            room = self.room_of(r)
            while room is not None:
                needed.add(id(room))
                room = room.parent
        for key, room in list(self.rooms.items()):
            if id(room) not in needed:
                await room.close()
                del self.rooms[key]
        for phase, room in list(self.phases.items()):
            if id(room) not in needed:
                await room.close()
                del self.phases[phase]


async def _in_group(name: str, calls: list[list[Request]], decide: Decide) -> list[list[Decision]]:
    """A group's calls, each one seat's decisions, run at once; a named group of more than one call is a subtask
    the viewer shows folded, its output the seats whose replies fell back, and a group without a name (a
    ballot's votes) leaves its calls in the span it runs in, one click each from the outline."""
    if len(calls) == 1 or not name:
        return await together([decide(c) for c in calls])
    decided: list[list[Decision]] = []

    async def group() -> str:
        decided.extend(await together([decide(c) for c in calls]))
        fell = list(dict.fromkeys(d.seat for ds in decided for d in ds if d.fallback is not None))
        return f"fell back: {', '.join(fell)}" if fell else "every reply read"

    seats = ", ".join(dict.fromkeys(c[0].seat for c in calls))
    await subtask(f"{name} · {len(calls)} calls", input={"seats": seats})(group)()
    return decided


async def together(calls: list[Awaitable[T]]) -> list[T]:
    """Run calls at once in the caller's transcript span, their results in order (unlike ``collect``,
    no span of its own: each call names itself, and the outline groups them)."""
    results: list[Any] = [None] * len(calls)

    async def one(i: int, call: Awaitable[T]) -> None:
        results[i] = await call

    try:
        async with anyio.create_task_group() as tg:
            for i, call in enumerate(calls):
                tg.start_soon(one, i, call)
    except BaseExceptionGroup as group:
        err: BaseException = group
        while isinstance(err, BaseExceptionGroup):
            err = err.exceptions[0]
        raise err from None
    return results


def _line(record: Record, roles: dict[str, str]) -> Callable[[], Awaitable[None]]:
    async def line() -> None:
        emit((record,), roles)

    return line


#: How the outline names a group of calls, by the action asked for.
_GROUP_NAMES = {Action.BID: "bids for turn {turn}"}
_KIND_WORDS = {Kind.STATEMENT: "statement", Kind.DEFENCE: "defence", Kind.VOTE: "vote reason"}


def group_of(game: GameState, request: Request) -> tuple[tuple[Any, ...], str]:
    """The group a call goes in (a key) and the group's name in the outline."""
    if request.action in ANALYSIS_ACTIONS and request.subject is not None:
        said = game.records[request.subject]
        if isinstance(said.data, Vote):  # a ballot's reasons are analysed together, a seat's all in one call
            which = "" if said.data.ballot == "only" else f"{said.data.ballot} "
            return ("analyses", said.day, said.data.ballot), f"analyses of the {which}ballot's vote reasons"
        kind = _KIND_WORDS.get(said.kind, said.kind.value)
        return ("analyses", request.subject), f"analyses of {said.actor}'s {kind}"
    if request.action in NIGHT_ACTIONS:
        return ("night",), f"night {request.day} actions"
    if request.action in SPEECH_ACTIONS:
        return ("speech", request.seat), ""
    if request.action is Action.VOTE:  # a group with no name of its own: each vote call right under its ballot
        return (request.action,), ""
    return (request.action,), _GROUP_NAMES.get(request.action, request.action.value).format(turn=request.turn + 1)
