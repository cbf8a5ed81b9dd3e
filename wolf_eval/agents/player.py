"""Seats: which model plays each player, and one decision = one model call.

The call itself goes through :func:`wolf_eval.agents.call.ask`, the project's one path to a
model. A reply that cannot be used becomes the rules' fallback, recorded with the raw output
and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from inspect_ai.model import GenerateConfig, Model, ResponseSchema, get_model

from wolf_eval.agents.call import Caller, ask, call_seed, eval_config, read_reply, stage
from wolf_eval.agents.joint import (
    JointCall,
    fall_back_all,
    in_asked_order,
    joint_messages,
    joint_schema,
    plan,
    read_joint,
)
from wolf_eval.agents.observation import Observation, RecordViews, all_in_flight, in_flight, observe
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
    history: str = "compact"
    calls: int = 0
    jester_lessons: dict[str, tuple[str, ...]] = field(default_factory=dict)
    game: str = ""  # how a failure names the game, e.g. "game 3 (seed 1234)"
    usage: dict[str, TokenUsage] = field(default_factory=dict)  # by seat model
    views: RecordViews = field(default_factory=RecordViews)  # each seat's records so far, extended call by call
    eval_seed: Any = field(default=FROM_EVAL, repr=False)  # the eval's --seed, read at the first call
    call_plan: str = "per_seat"  # "per_decision": one call per decision (wolf_eval.agents.joint)

    def plan(self, requests: list[Request]) -> list[list[int]]:
        """Which of a wave's requests each call answers (indices)."""
        return plan(requests, self.call_plan)

    def _view(self, state: GameState, request: Request) -> Observation:
        seat = self.seats[request.seat]
        obs = observe(state, request, self.history, self.views)
        if self.jester_lessons and seat.role is Role.JESTER:
            obs = obs.model_copy(update={"lessons": self.jester_lessons})
        return obs

    def _seed(self, state: GameState, request: Request) -> int:
        if self.eval_seed is FROM_EVAL:
            self.eval_seed = eval_config().seed
        return call_seed(state.seed, fixed_key(state, request), self.eval_seed)  # not keyed by a drawn name

    def _config(self, seat: Seat, seed: int, schema: ResponseSchema | None) -> GenerateConfig:
        # a seat's calls share its rules, role and record so far: Anthropic caches them (cache_prompt)
        return GenerateConfig(temperature=seat.temperature, seed=seed, cache_prompt=True,
                              response_schema=schema if self.structured_output else None)

    def _caller(self, state: GameState, request: Request, decision: str) -> Caller:
        seat = self.seats[request.seat]
        return Caller(self.game or f"the game of seed {state.seed}", decision, request.day,
                      seat.name, seat.role.value, request.phase.value)

    def _count(self, seat: Seat, decisions: int) -> None:
        self.calls += 1
        tally = self.usage.setdefault(seat.model_name, TokenUsage())
        tally.decisions += decisions

    async def decide(self, state: GameState, request: Request) -> Decision:
        stage("observe")
        seat = self.seats[request.seat]
        obs = self._view(state, request)
        stage("config")
        config = self._config(seat, self._seed(state, request),
                              response_schema(request.action, state.config.taxonomy, obs.options))
        with in_flight(obs, f"{state.seed}:{request.key}") as ref:
            stage("prompt")
            messages = build_messages(obs, ref, self.structured_output)
            reply = await ask(seat.model, messages, config, self._caller(state, request, request.action.value),
                              read=lambda raw: interpret(raw, request, state.names, state.config.taxonomy),
                              fallback=lambda reason, raw: fallback_decision(state, request, reason, raw),
                              usage=self.usage)
        self._count(seat, 1)
        return reply.value

    async def decide_together(self, state: GameState, requests: list[Request]) -> list[Decision]:
        """One seat's decisions of a wave in one call (one decision: :meth:`decide`), in ``requests`` order."""
        if len(requests) == 1:
            return [await self.decide(state, requests[0])]
        stage("observe")
        call = JointCall.of(requests)
        seat = self.seats[call.requests[0].seat]
        views = [self._view(state, r) for r in call.requests]
        stage("config")
        seeds = [self._seed(state, r) for r in call.requests]
        main = call.main
        schema = joint_schema(len(call.analyses), main.action if main else None, state.config.taxonomy,
                              views[-1].options if main else ())
        config = self._config(seat, call_seed(state.seed, "+".join(map(str, seeds)), None), schema)
        refs = [f"{state.seed}:{r.key}" for r in call.requests]
        with all_in_flight(dict(zip(refs, views, strict=True))):
            stage("prompt")
            messages = joint_messages(views, refs, seeds, call, self.structured_output)
            reply = await ask(seat.model, messages, config, self._caller(state, call.requests[0], call.decision),
                              read=lambda raw: read_joint(raw, call, state),
                              fallback=lambda reason, raw: fall_back_all(state, call, reason, raw),
                              usage=self.usage)
        self._count(seat, len(call.requests))
        return in_asked_order(call, reply.value, requests)


def decision_from_reply(state: GameState, request: Request, raw: str) -> Decision:
    """The legal decision a raw reply makes, or the rules' fallback recorded with it (also used by replay)."""
    return read_reply(raw, lambda text: interpret(text, request, state.names, state.config.taxonomy),
                      lambda reason, cut: fallback_decision(state, request, reason, cut)).value


def decisions_from_joint_reply(state: GameState, requests: list[Request], raw: str) -> list[Decision]:
    """The decisions a joint call's raw reply makes, in ``requests`` order, read as in play (also used by replay)."""
    call = JointCall.of(requests)
    got = read_reply(raw, lambda text: read_joint(text, call, state),
                     lambda reason, cut: fall_back_all(state, call, reason, cut)).value
    return in_asked_order(call, got, requests)
