"""The solver: drive the engine with the seats' decisions, one concurrent wave at a time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any, TypeVar

import anyio

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import span

from wolf_eval.agents.honoured import ignored_settings, warn_once
from wolf_eval.agents.call import MAX_RAW_CHARS
from wolf_eval.agents.player import Agent, Seat, resolve_temperature, seat_model
from wolf_eval.agents.prompts import quote, render_record
from wolf_eval.engine import Action, GameState, Phase, Record, Request, Role, advance, new_game, pending
from wolf_eval.engine.rng import derive_seed
from wolf_eval.measures.cost import ignored_by_model
from wolf_eval.records import PUBLIC, SPEECH_KINDS, Bids, Deception, FallbackNote, Floor, Kind, NightResult, Vote, view
from wolf_eval.settings import Settings
from wolf_eval.store import current_record
from wolf_eval.lessons.turnstile import Learning, describe_lessons, keep_lessons, lessons_by_list, turnstile
from wolf_eval.text import clean_text


T = TypeVar("T")


def game_seed(seed: int, sample_id: object, epoch: int = 1) -> int:
    """Each game's seed derives from the task seed, the sample id and the epoch (epochs are new games)."""
    parts = (seed, sample_id) if epoch == 1 else (seed, sample_id, epoch)
    return derive_seed(*parts) % 2**31


#: An info event in the transcript is one line of at most this many characters.
LINE_CHARS = 300


def describe(r: Record, roles: dict[str, str]) -> str:
    """One readable markdown line per record, as an omniscient reader of the game wants it: who
    (with their role), what, and on which day."""
    who = r.actor or ""
    d = r.data
    role = f" ({roles[who].title()})" if who in roles else ""
    if r.kind in SPEECH_KINDS:
        label = {Kind.DEFENCE: ", in defence", Kind.STATEMENT: ""}.get(r.kind, "")
        return _line(f"Day {r.day} · **{who}**{role}{label}: {quote(r.text or '')}")
    if isinstance(d, Vote):
        ballot = {"first": "First ballot", "final": "Final ballot"}.get(d.ballot, "Ballot")
        choice = f"→ {r.target}" + (f": {quote(r.text)}" if r.text else "") if r.target else "abstains"
        return _line(f"{ballot} · **{who}**{role} {choice}")
    if isinstance(d, Bids):
        return _line("Bids: " + ", ".join(f"{n} {b}" for n, b in d.bids.items()))
    if isinstance(d, Floor):
        return _line(f"**{who}** takes the floor (bid {d.bid})")
    if isinstance(d, FallbackNote):
        return _line(f"⚠ fallback for **{who}**{role} ({d.action}): {r.text}")
    if isinstance(d, NightResult):
        return _line(f"Night {r.day}: the wolves attacked {d.victim or 'nobody'}; the Doctor protected {d.protected or 'nobody'}")
    if isinstance(d, Deception):
        return describe_analysis(r, d)
    if r.kind in _PRIVATE_LINES:
        return _line(f"[{who}{role}] {_PRIVATE_LINES[r.kind](r)}")
    return _line(render_record(view(r)))


def _line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS - 1] + "…"


_PRIVATE_LINES: dict[Kind, Callable[[Record], str | None]] = {
    Kind.PROTECT: lambda r: f"protects {r.target}",
    Kind.INVESTIGATE: lambda r: f"investigates: {r.text}",
    Kind.NOTE: lambda r: f"private note: {quote(r.text or '')}",
    Kind.ROLE: lambda r: r.text,
}


def describe_analysis(r: Record, d: Deception) -> str:
    """One line per analysed statement: the speaker's own label and what the others made of it."""
    own = d.self
    label = "missing" if own is None else (
        f"{'deceptive, ' + own.deception_type if own.is_deceptive else 'honest'} {own.confidence:.2f}")
    peers = [a for a in d.peers.values() if a is not None]
    if peers:
        rated = [a.suspicion for a in peers if a.suspicion is not None]
        mean = f"{sum(rated) / len(rated):.2f}" if rated else "n/a"
        others = f"{sum(a.is_deceptive for a in peers)}/{len(peers)} peers flag it · mean suspicion {mean}"
    else:
        others = "no peer analysis"
    missing = f" · {len(d.missing)} missing" if d.missing else ""
    kind = {Kind.STATEMENT: "statement", Kind.DEFENCE: "defence", Kind.VOTE: "vote reason"}.get(d.kind, d.kind.value)
    return _line(f"🔎 **{r.actor}** ({d.speaker_role.title()}) day-{d.statement_day} {kind} {d.position + 1}:"
                 f" self {label} · {others}{missing}")


def seating(game: GameState, seats: dict[str, Seat]) -> list[dict[str, Any]]:
    """Who sat where: each seat's name, role, faction and model, the sampling it asked for and what its
    provider is known to ignore of it (warned once per model)."""
    rows = []
    for p in game.players:
        seat = seats[p.name]
        ignored = ignored_settings(seat.model_name, seat.model.config, seat.temperature)
        warn_once(seat.model_name, ignored)
        rows.append({"seat": p.seat, "name": p.name, "role": p.role.value, "faction": p.faction.value,
                     "model": seat.model_name, "temperature": seat.temperature, "ignored": ignored})
    return rows


def _where(state: GameState, requests: list[Request]) -> tuple[str, Phase]:
    """The span a wave belongs to: ("night N" or "day N", phase); an analysis wave belongs to its statement's phase."""
    phase = requests[0].phase if requests else state.phase
    return f"{'night' if phase is Phase.NIGHT else 'day'} {state.day}", phase


@solver
def play_game(settings: Settings, learning: Learning | None = None) -> Solver:
    """Play one complete game per sample and keep its record in the sample's store.

    With ``learning`` the Jester reads its model's lessons before the game and adds new ones
    after it, and the games sharing a lessons file are played one after another, in their place
    in the eval when ``learning.order`` is the Task's early-stopping manager (see ``game_task``).
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        key = learning.begin(state) if learning is not None else None
        game = new_game(settings.rules, game_seed(settings.seed, state.sample_id, state.epoch))
        seats: dict[str, Seat] = {}
        for p in game.players:
            model = seat_model(p.role)
            seats[p.name] = Seat(name=p.name, role=p.role, model=model,
                                 temperature=resolve_temperature(model, settings.temperature))
        record = current_record()
        record.seat_models = {n: s.model_name for n, s in seats.items()}
        record.seat_temperatures = {n: s.temperature for n, s in seats.items()}
        state.metadata["seats"] = seating(game, seats)
        record.ignored = ignored_by_model(state.metadata["seats"])
        jester = next((seats[p.name] for p in game.players if p.role is Role.JESTER), None)
        agent = Agent(seats=seats, structured_output=settings.structured_output, history=settings.history,
                      game=f"game {state.sample_id} (seed {game.seed}, epoch {state.epoch})")
        if learning is None or jester is None:
            await _play(game, agent, state)
            return state
        async with turnstile(learning.path(jester.model_name), key, learning.order):
            known = learning.read(jester.model_name, key)
            record.lessons_file = str(learning.path(jester.model_name))
            record.learning_step = learning.next_step(jester.model_name, key)
            record.lessons_read = describe_lessons(known)
            transcript().info({"lessons_file": record.lessons_file, "step": record.learning_step,
                               "read": [x.text for x in known]}, source="wolf_eval/lessons")
            agent.jester_lessons = lessons_by_list(known)
            game = await _play(game, agent, state)
            source = {"sample_uuid": state.uuid, "sample": state.sample_id, "epoch": state.epoch, "seed": game.seed,
                      "winner": game.outcome.winner if game.outcome else None}
            async with span("lessons", type="phase"):
                added, raw, problem = await keep_lessons(game, jester, known, learning, source,
                                                         settings.structured_output, agent.usage, key, agent.game)
            record.usage = agent.usage
            record.calls += 1
            record.lessons_added = describe_lessons(added)
            record.lessons_reply = clean_text(raw)[:MAX_RAW_CHARS]
            record.lessons_problem = problem
        return state

    return solve


#: The transcript's outline under each night and day: one span per phase, one per debate turn.
PHASE_SPANS = {Phase.DEBATE: "debate", Phase.VOTE: "ballot", Phase.DEFENCE: "defences",
               Phase.EXPLANATION: "discussion", Phase.REVOTE: "revote"}


async def _play(game: GameState, agent: Agent, state: TaskState) -> GameState:
    record = current_record()
    roles = {p.name: p.role.value for p in game.players}
    _emit(game.records, roles)

    requests = pending(game)
    while requests:
        block, _ = _where(game, requests)
        async with span(block, type="phase"):
            while requests and _where(game, requests)[0] == block:
                here = _where(game, requests)
                async with AsyncExitStack() as phase:
                    if here[1] in PHASE_SPANS:
                        await phase.enter_async_context(span(PHASE_SPANS[here[1]], type="phase"))
                    turn: AsyncExitStack | None = None
                    try:
                        while requests and _where(game, requests) == here:
                            speaker = next((r for r in requests if r.action in (Action.STATEMENT, Action.DEFENCE)), None)
                            if speaker is not None:
                                if turn is not None:
                                    await turn.aclose()
                                turn = AsyncExitStack()
                                name = (f"turn {speaker.turn + 1} ({speaker.seat})" if speaker.action is Action.STATEMENT
                                        else speaker.seat)
                                await turn.enter_async_context(span(name, type="speech"))  # not "turn": the viewer folds those
                            decisions = await together([agent.decide(game, r) for r in requests])
                            nxt = advance(game, decisions)
                            _emit(nxt.records[len(game.records):], roles)
                            game, requests = nxt, pending(nxt)
                    finally:
                        if turn is not None:
                            await turn.aclose()

    record.state = game.model_dump(mode="json")
    record.calls = agent.calls
    record.usage = agent.usage
    assert game.outcome is not None
    state.output = ModelOutput.from_content(
        model="wolf_eval", content=f"Winner: {game.outcome.winner} on day {game.outcome.day} ({game.outcome.reason})."
    )
    state.metadata.update(winner=game.outcome.winner, days=game.outcome.day, ended=game.outcome.reason)
    state.messages = [*state.messages[:1], *public_chat(game, roles)]
    state.completed = True
    return game


async def together(calls: list[Awaitable[T]]) -> list[T]:
    """Run one wave's calls at once, in the caller's transcript span (no span per call, unlike
    ``collect``: a game has thousands of calls and the outline should read as the game)."""
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


def public_chat(game: GameState, roles: dict[str, str]) -> list[ChatMessage]:
    """The game's public record as a short chat for the viewer's Messages tab: the moderator's
    announcements and each ballot as the moderator's lines, every statement as its speaker's."""
    chat: list[ChatMessage] = []
    ballot: list[str] = []
    for r in game.records:
        if r.visibility != PUBLIC or r.kind in (Kind.BIDS, Kind.FLOOR, Kind.PASS, Kind.DECEPTION, Kind.FALLBACK):
            continue
        if r.kind is Kind.VOTE:
            ballot.append(f"{r.actor} → {r.target}" if r.target else f"{r.actor} abstains")
            continue
        if ballot:
            chat.append(ChatMessageUser(content=f"**Moderator** (day {r.day}): {'; '.join(ballot)}."))
            ballot = []
        if r.kind in SPEECH_KINDS:
            chat.append(ChatMessageAssistant(content=f"**{r.actor}** ({roles[r.actor or ''].title()}), day {r.day}: "
                                                     f"{quote(r.text or '')}"))
        else:
            chat.append(ChatMessageUser(content=f"**Moderator**: {r.text}"))
    return chat


def _emit(records: tuple[Record, ...], roles: dict[str, str]) -> None:
    """One one-line markdown transcript event per record, in record order (``wolf-eval export`` pairs them)."""
    for r in records:
        transcript().info(describe(r, roles), source=f"wolf_eval/{r.kind.value}")
