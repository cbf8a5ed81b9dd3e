"""Seats: which model plays each player, and a seat's call (its decisions of a wave) asked of it.

The call is a :class:`~wolf_eval.agents.seat_call.SeatCall`; it goes through
:func:`wolf_eval.agents.call.ask`, the project's one path to a model. A reply that cannot be used
becomes the rules' fallback, recorded with the raw output and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from inspect_ai.model import GenerateConfig, Model, ResponseSchema

from wolf_eval.agents.call import Caller, ask, call_seed, stage
from wolf_eval.agents.observation import Observation, RecordViews, in_flight, observe
from wolf_eval.agents.seat_call import SeatCall, call_messages, layout_of, plan
from wolf_eval.agents.thinking import Thought
from wolf_eval.engine import Decision, GameState, Request, Role
from wolf_eval.engine.seating import fixed_key
from wolf_eval.settings import Calls, History
from wolf_eval.store import ThoughtRow, TokenUsage


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


def resolve_temperature(model: Model, eval_config: GenerateConfig, task_temperature: float | None) -> float | None:
    """A role's own config wins, then the eval's --temperature (``eval_config``, its model's), then the task's."""
    if model.config.temperature is not None:
        return model.config.temperature
    if eval_config.temperature is not None:
        return eval_config.temperature
    return task_temperature


@dataclass
class Agent:
    """Plays every seat of one game and counts its model calls."""

    seats: dict[str, Seat]
    history: History  # as the eval's settings give it (their one default)
    call_plan: Calls  # "per_decision": one call per decision (wolf_eval.agents.seat_call)
    structured_output: bool = True
    calls: int = 0
    jester_lessons: dict[str, tuple[str, ...]] = field(default_factory=dict)
    game: str = ""  # how a failure names the game, e.g. "game 3 (seed 1234)"
    usage: dict[str, TokenUsage] = field(default_factory=dict)  # by seat model
    views: RecordViews = field(default_factory=RecordViews)  # each seat's records so far, extended call by call
    eval_seed: int | None = None  # the eval's --seed
    watched: bool = False  # -T watched: every seat's prompt says its private reasoning is read
    thoughts: list[ThoughtRow] = field(default_factory=list)  # each call's private reasoning, in the order answered

    def plan(self, requests: list[Request]) -> list[list[int]]:
        """Which of a wave's requests each call answers (indices)."""
        return plan(requests, self.call_plan)

    def _view(self, state: GameState, request: Request) -> Observation:
        seat = self.seats[request.seat]
        obs = observe(state, request, self.history, self.views, self.call_plan)
        if self.jester_lessons and seat.role is Role.JESTER:
            obs = obs.model_copy(update={"lessons": self.jester_lessons})
        if self.watched:
            obs = obs.model_copy(update={"watched": True})
        return obs

    def _seed(self, state: GameState, request: Request, again: bool = False) -> int:
        key = fixed_key(state, request) + (":again" if again else "")  # not keyed by a drawn name
        return call_seed(state.seed, key, self.eval_seed)

    def _config(self, state: GameState, seat: Seat, seed: int, schema: ResponseSchema | None) -> GenerateConfig:
        # a seat's calls share its rules, role and record so far: Anthropic caches them (cache_prompt), and an
        # OpenAI server routes them by their cache key to the machine that holds the seat's prefix; no call replays
        # reasoning (a seat's prompt never carries any: wolf_eval.agents.thinking)
        body = {"prompt_cache_key": cache_key(state, seat)} if keyed(seat.model_name) else None
        return GenerateConfig(temperature=seat.temperature, seed=seed, cache_prompt=True, reasoning_history="none",
                              response_schema=schema if self.structured_output else None, extra_body=body)

    def _caller(self, state: GameState, request: Request, decision: str) -> Caller:
        seat = self.seats[request.seat]
        return Caller(self.game or f"the game of seed {state.seed}", decision, request.day,
                      seat.name, seat.role.value, request.phase.value)

    def _count(self, seat: Seat, decisions: int) -> None:
        self.calls += 1
        tally = self.usage.setdefault(seat.model_name, TokenUsage())
        tally.decisions += decisions

    async def decide(self, state: GameState, requests: list[Request]) -> list[Decision]:
        """One seat's decisions of a wave (one, or as many as ``plan`` gave the call), asked in one call, in
        ``requests`` order; the decisions a reply left unanswered are asked once more, in a call of their own."""
        call = SeatCall.of(requests, layout_of(self.call_plan, len(requests)))
        got = await self._ask(state, call)
        unanswered = [r for r, d in zip(call.requests, got, strict=True) if d is None]
        if unanswered:
            self.usage.setdefault(self.seats[call.requests[0].seat].model_name, TokenUsage()).reasks += len(unanswered)
            again = SeatCall.of(unanswered, call.layout)
            answered = dict(zip((r.key for r in again.requests), await self._ask(state, again, last=True), strict=True))
            got = [answered[r.key] if d is None else d for r, d in zip(call.requests, got, strict=True)]
        return call.in_order([d for d in got if d is not None], requests)

    async def _ask(self, state: GameState, call: SeatCall, last: bool = False) -> list[Decision | None]:
        """Ask ``call`` once; its decisions in call order, None for one left unanswered (unless ``last``)."""
        stage("observe")
        seat = self.seats[call.requests[0].seat]
        views = [self._view(state, r) for r in call.requests]
        stage("config")
        seeds = [self._seed(state, r, again=last) for r in call.requests]
        config = self._config(state, seat, call.seed(state.seed, seeds), call.schema(state, views))
        refs = [f"{state.seed}:{r.key}" for r in call.requests]
        with in_flight(dict(zip(refs, views, strict=True))):
            stage("prompt")
            messages = call_messages(views, refs, seeds, self.structured_output, again=last, layout=call.layout)
            caller = self._caller(state, call.requests[0], call.decision)
            reply = await ask(seat.model, messages, config, caller,
                              read=lambda raw: call.read(raw, state, last),
                              fallback=lambda reason, raw: call.fall_back(state, reason, raw),
                              usage=self.usage)
        self._count(seat, 0 if last else len(call.requests))
        self._keep(caller, reply.thought)
        return reply.value

    def _keep(self, caller: Caller, thought: Thought) -> None:
        """Keep a call's private reasoning (or that none was readable) for the game's record, never for a prompt."""
        self.thoughts.append(ThoughtRow(day=caller.day, phase=caller.phase or "", seat=caller.seat or "",
                                        role=caller.role or "", call=caller.label, kind=thought.kind,
                                        text=thought.text))


def cache_key(state: GameState, seat: Seat) -> str:
    """A seat's prompt cache key: its game and seat, so an OpenAI server routes all of a seat's calls, and only
    those, by its prefix (the seat's schema, rules, role and record) to one machine."""
    return f"wolf-eval:{state.seed}:{state.player(seat.name).seat}"


def keyed(model: str) -> bool:
    """Whether a model's provider takes a ``prompt_cache_key`` in the request body (OpenAI's, and servers
    that speak its API); other providers are sent none."""
    return model.split("/", 1)[0] in CACHE_KEY_PROVIDERS


#: The providers whose requests carry a seat's ``prompt_cache_key``: OpenAI's, servers of its API, and the
#: ``wolfbot`` players (which ignore it), so their logs show what a run on OpenAI sends and the cost
#: benchmarks price it so.
CACHE_KEY_PROVIDERS = ("openai", "openai-api", "wolfbot")
