"""The solver: drive the engine with the seats' decisions, one concurrent wave at a time.

The loop hands each wave's calls and records to the outline that watches it (``outline.py``: where
each call and line goes in the viewer); what the viewer shows of the game (span names, one line per
record, the chat) is ``transcript.py``'s.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from inspect_ai.model import Model, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import span

from wolf_eval.agents.honoured import ignored_settings, warn_once
from wolf_eval.agents.player import Agent, Seat, resolve_temperature
from wolf_eval.bindings import Bindings
from wolf_eval.engine import GameState, Role, advance, new_game, pending
from wolf_eval.engine.rng import derive_seed
from wolf_eval.lessons.run import Learning
from wolf_eval.measures.cost import game_cost
from wolf_eval.measures.honesty import moderated
from wolf_eval.measures.ignored import ignored_by_model
from wolf_eval.settings import Settings
from wolf_eval.solvers.outline import Outline
from wolf_eval.solvers.transcript import public_chat
from wolf_eval.solvers.watch import watch
from wolf_eval.store import TokenUsage, current_record
from wolf_eval.vocabulary import MONITOR_ROLE, TAGGER_ROLE


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


def record_seating(state: TaskState, game: GameState, seats: dict[str, Seat]) -> None:
    """Who sat where, with which model and sampling, in the game's record and the sample's metadata."""
    record = current_record()
    record.seat_models = {n: s.model_name for n, s in seats.items()}
    record.seat_temperatures = {n: s.temperature for n, s in seats.items()}
    state.metadata["seats"] = seating(game, seats)
    record.ignored = ignored_by_model(state.metadata["seats"])


def game_columns(game: GameState, bindings: Bindings, usage: dict[str, TokenUsage]) -> dict[str, Any]:
    """The finished game as short, flat sample metadata, so ``samples_df`` has each as a plain column
    (``metadata_<key>``, never dropped from the summary as longer values are): the eval's ``model``, each
    faction's model (:meth:`Bindings.faction_models`) and seats of each role, the winner, the day it ended, and
    the cost in US dollars (NaN for a model without a known price)."""
    roles: dict[str, list[str]] = {}
    for p in game.players:
        roles.setdefault(p.role.value, []).append(p.name)
    assert game.outcome is not None
    return {"model": bindings.model, **bindings.faction_models(game.config),
            **{f"{role}_seats": ", ".join(names) for role, names in roles.items()},
            "winner": game.outcome.winner, "days": game.outcome.day, "ended": game.outcome.reason,
            "cost_usd": game_cost(usage)["usd"]}


@solver
def play_game(settings: Settings, learning: Learning | None = None) -> Solver:
    """Play one complete game per sample, kept in its store; with ``learning`` the Jester reads and adds lessons.

    Built with the task, the eval's models set, it refuses here, before any game or log, seats it could not play as
    asked (:class:`Bindings`) and a lessons snapshot it could not read; a game seated otherwise is checked as it starts.
    """
    try:
        building = Bindings.running()
    except Exception:  # built outside an eval, no INSPECT_EVAL_MODEL: each game checks as it starts
        building = None
    if building is not None:
        building.check(settings.rules, learning is not None, settings.monitor)
        if learning is not None:
            learning.read(building.seat(Role.JESTER))

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        bindings = Bindings.running(settings.rules).check(settings.rules, learning is not None, settings.monitor)
        # never the model under evaluation: -T monitor without a monitor bound is refused above
        monitor = bindings.played_by(MONITOR_ROLE) if settings.monitor != "off" else None
        game = new_game(settings.rules, game_seed(settings.seed, state.sample_id, state.epoch))
        seats = seated(game, settings, bindings)
        record_seating(state, game, seats)
        agent = Agent(seats=seats, structured_output=settings.structured_output, history=settings.history,
                      call_plan=settings.calls, eval_seed=bindings.eval_seed, watched=settings.watched,
                      game=f"game {state.sample_id} (seed {game.seed}, epoch {state.epoch})")
        jester = next((seats[p.name] for p in game.players if p.role is Role.JESTER), None)
        lessons = await learning.before(state, jester, agent) if learning and jester else None
        game = await _play(game, agent, state, (monitor, settings.monitor))
        if learning and jester and lessons is not None:
            async with span("lessons", type="phase"):
                tagger = bindings.played_by(TAGGER_ROLE) if bindings.tagger is not None else None
                await learning.after(game, jester, agent, lessons, tagger)
        state.metadata.update(game_columns(game, bindings, agent.usage))
        return state

    return solve


def seated(game: GameState, settings: Settings, bindings: Bindings) -> dict[str, Seat]:
    """Each seat's model and temperature. A role with no ``--model-role`` binding plays the eval's model, on
    purpose: a comparison binds the roles of the faction it swaps, and the eval's model plays every other seat."""
    assert bindings.eval_model is not None
    models = {r: bindings.played_by(r) for r in settings.rules.roles_dealt}
    return {p.name: Seat(name=p.name, role=p.role, model=models[p.role], temperature=resolve_temperature(
                models[p.role], bindings.eval_model.config, settings.temperature))
            for p in game.players}


async def _play(game: GameState, agent: Agent, state: TaskState,
                monitor: tuple[Model | None, str] = (None, "off")) -> GameState:
    """Play the game wave by wave, the viewer's outline watching it (``outline.py``); then, with a monitor model and
    its source, the monitor reads each day (``watch.py``)."""
    record = current_record()
    async with Outline.watching(game) as outline:
        requests = pending(game)
        while requests:
            calls = [[requests[i] for i in call] for call in agent.plan(requests)]
            answered = await outline.asked(game, calls, partial(agent.decide, game))
            by_key = {r.key: d for call, ds in zip(calls, answered, strict=True) for r, d in zip(call, ds, strict=True)}
            decided = [by_key[r.key] for r in requests]
            nxt = advance(game, moderated(game, decided))
            coming = pending(nxt)
            await outline.wrote(nxt, nxt.records[len(game.records):], list(zip(requests, decided, strict=True)), coming)
            game, requests = nxt, coming

    record.state = game.model_dump(mode="json")
    record.calls = agent.calls
    record.usage = agent.usage
    record.reasoning = agent.thoughts
    reader, source = monitor
    if reader is not None:
        await watch(game, agent, reader, source)
    assert game.outcome is not None
    state.output = ModelOutput.from_content(
        model="wolf_eval", content=f"Winner: {game.outcome.winner} on day {game.outcome.day} ({game.outcome.reason})."
    )
    state.messages = [*state.messages[:1], *public_chat(game, outline.roles)]
    state.completed = True
    return game
