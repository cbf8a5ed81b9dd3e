"""Seats: which model plays each player, and one decision = one model call.

The call itself goes through :func:`wolf_eval.agents.call.ask`, the project's one path to a
model. A reply that cannot be used becomes the rules' fallback, recorded with the raw output
and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from inspect_ai.model import GenerateConfig, Model, get_model

from wolf_eval.agents.call import Caller, ask, call_seed, eval_config, read_reply, stage
from wolf_eval.agents.observation import RecordViews, in_flight, observe
from wolf_eval.agents.parse import interpret
from wolf_eval.agents.prompts import build_messages
from wolf_eval.agents.schemas import response_schema
from wolf_eval.engine import Decision, GameState, Request, Role, fallback_decision
from wolf_eval.engine.seating import fixed_key
from wolf_eval.store import TokenUsage

#: ``Agent.eval_seed`` before the first call: read the eval's --seed from its model then.
FROM_EVAL: Any = object()


@dataclass
class Seat:
    """A player and the model that plays it, with its resolved sampling settings."""

    name: str
    role: Role
    model: Model
    temperature: float | None

    @cached_property
    def model_name(self) -> str:
        return str(self.model)


def seat_model(role: Role) -> Model:
    """The model bound to this game role with ``--model-role``, else the eval's model."""
    return get_model(role=role.value)


def resolve_temperature(model: Model, task_temperature: float | None) -> float | None:
    """A role's own config wins, then the eval's --temperature, then the task's ``temperature``."""
    if model.config.temperature is not None:
        return model.config.temperature
    eval_level = eval_config().temperature
    if eval_level is not None:
        return eval_level
    return task_temperature


@dataclass
class Agent:
    """Plays every seat of one game and counts its model calls."""

    seats: dict[str, Seat]
    structured_output: bool = True
    history: str = "full"
    calls: int = 0
    jester_lessons: dict[str, tuple[str, ...]] = field(default_factory=dict)
    game: str = ""  # how a failure names the game, e.g. "game 3 (seed 1234)"
    usage: dict[str, TokenUsage] = field(default_factory=dict)  # by seat model
    views: RecordViews = field(default_factory=RecordViews)  # each seat's records so far, extended call by call
    eval_seed: Any = field(default=FROM_EVAL, repr=False)  # the eval's --seed, read at the first call

    async def decide(self, state: GameState, request: Request) -> Decision:
        stage("observe")
        seat = self.seats[request.seat]
        obs = observe(state, request, self.history, self.views)
        if self.jester_lessons and seat.role is Role.JESTER:
            obs = obs.model_copy(update={"lessons": self.jester_lessons})
        stage("config")
        if self.eval_seed is FROM_EVAL:
            self.eval_seed = eval_config().seed
        config = GenerateConfig(
            temperature=seat.temperature,
            seed=call_seed(state.seed, fixed_key(state, request), self.eval_seed),  # not keyed by a drawn name
            cache_prompt=True,  # a seat's calls share its rules, role and record so far: Anthropic caches them
            response_schema=(response_schema(request.action, state.config.taxonomy, obs.options)
                             if self.structured_output else None),
        )
        caller = Caller(self.game or f"the game of seed {state.seed}", request.action.value, request.day,
                        seat.name, seat.role.value, request.phase.value)
        with in_flight(obs, f"{state.seed}:{request.key}") as ref:
            stage("prompt")
            messages = build_messages(obs, ref, self.structured_output)
            reply = await ask(seat.model, messages, config, caller,
                              read=lambda raw: interpret(raw, request, state.names, state.config.taxonomy),
                              fallback=lambda reason, raw: fallback_decision(state, request, reason, raw),
                              usage=self.usage)
        self.calls += 1
        return reply.value


def decision_from_reply(state: GameState, request: Request, raw: str) -> Decision:
    """The legal decision a raw reply makes, or the rules' fallback recorded with it (also used by replay)."""
    return read_reply(raw, lambda text: interpret(text, request, state.names, state.config.taxonomy),
                      lambda reason, cut: fallback_decision(state, request, reason, cut)).value
