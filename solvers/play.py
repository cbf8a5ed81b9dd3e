"""The solver: drive the engine with the seats' decisions, one concurrent wave at a time.

What the viewer shows of the game (span names, one line per record, the chat) is ``transcript.py``'s.
"""

from __future__ import annotations

from collections.abc import Awaitable
from contextlib import AsyncExitStack
from typing import Any, TypeVar

import anyio
from inspect_ai.log import transcript
from inspect_ai.model import ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import span

from wolf_eval.agents.bindings import check_sample_seating
from wolf_eval.agents.call import MAX_RAW_CHARS
from wolf_eval.agents.honoured import ignored_settings, warn_once
from wolf_eval.agents.player import Agent, Seat, resolve_temperature, seat_model
from wolf_eval.engine import Action, GameState, Role, advance, new_game, pending
from wolf_eval.engine.rng import derive_seed
from wolf_eval.lessons.asking import most_recent
from wolf_eval.lessons.turnstile import Learning, describe_lessons, keep_lessons, lessons_by_list, turnstile
from wolf_eval.measures.ignored import ignored_by_model
from wolf_eval.settings import Settings
from wolf_eval.solvers.transcript import PHASE_SPANS, block_of, emit, public_chat, speech_span
from wolf_eval.store import current_record
from wolf_eval.text import clean_text

T = TypeVar("T")


def game_seed(seed: int, sample_id: object, epoch: int = 1) -> int:
    """Each game's seed derives from the task seed, the sample id and the epoch (epochs are new games)."""
    parts = (seed, sample_id) if epoch == 1 else (seed, sample_id, epoch)
    return derive_seed(*parts) % 2**31


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


@solver
def play_game(settings: Settings, learning: Learning | None = None) -> Solver:
    """Play one complete game per sample and keep its record in the sample's store.

    With ``learning`` the Jester reads its model's lessons before the game and adds new ones
    after it, and the games sharing a lessons file are played one after another, in their place
    in the eval when ``learning.order`` is the Task's early-stopping manager (see ``game_task``).
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        check_sample_seating(settings.rules)  # what the task function could not see: a Task's own bindings
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
            stored = learning.read(jester.model_name, key)
            known = most_recent(stored, settings.lessons_shown)
            record.lessons_file = str(learning.path(jester.model_name))
            record.learning_step = learning.next_step(jester.model_name, key)
            record.lessons_read = describe_lessons(known)
            transcript().info({"lessons_file": record.lessons_file, "step": record.learning_step, "stored": len(stored),
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


async def _play(game: GameState, agent: Agent, state: TaskState) -> GameState:
    record = current_record()
    roles = {p.name: p.role.value for p in game.players}
    emit(game.records, roles)

    requests = pending(game)
    while requests:
        block, _ = block_of(game, requests)
        async with span(block, type="phase"):
            while requests and block_of(game, requests)[0] == block:
                here = block_of(game, requests)
                async with AsyncExitStack() as phase:
                    if here[1] in PHASE_SPANS:
                        await phase.enter_async_context(span(PHASE_SPANS[here[1]], type="phase"))
                    turn: AsyncExitStack | None = None
                    try:
                        while requests and block_of(game, requests) == here:
                            speaker = next(
                                (r for r in requests if r.action in (Action.STATEMENT, Action.DEFENCE)), None)
                            if speaker is not None:
                                if turn is not None:
                                    await turn.aclose()
                                turn = AsyncExitStack()
                                # not type "turn": the viewer folds those
                                await turn.enter_async_context(span(speech_span(speaker), type="speech"))
                            decisions = await together([agent.decide(game, r) for r in requests])
                            nxt = advance(game, decisions)
                            emit(nxt.records[len(game.records):], roles)
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
