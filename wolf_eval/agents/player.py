"""Seats: which model plays each player, and one decision = one model call.

The only module that calls models. A reply that cannot be used becomes the
rules' fallback, recorded with the raw output and the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from inspect_ai.model import GenerateConfig, Model, ModelOutput, ResponseSchema, get_model
from inspect_ai.util import LimitExceededError, json_schema

from wolf_eval.agents.observation import RecordViews, in_flight, observe
from wolf_eval.agents.parse import InvalidReply, interpret
from wolf_eval.agents.prompts import build_messages
from wolf_eval.agents.schemas import REPLY_SCHEMAS
from wolf_eval.engine import Action, Decision, GameState, Request, Role, fallback_decision
from wolf_eval.engine.rng import derive_seed
from wolf_eval.store import TokenUsage
from wolf_eval.text import clean_text

#: Raw outputs kept in the game record are cut to this many characters (the model event keeps all of it).
MAX_RAW_CHARS = 2000

#: The stages of a decision, in the order it enters them: the seat's view, the call's settings, the
#: prompt, the model call (an await: other calls run meanwhile), the reply (usage, checks, parsing),
#: then done. Every stage but ``model`` runs without awaiting, so its time is one unbroken interval.
STAGES = ("observe", "config", "prompt", "model", "reply", "done")

_stage_watch: Callable[[str], None] | None = None


@contextmanager
def decision_stages(watch: Callable[[str], None]) -> Iterator[None]:
    """Call ``watch`` with each stage of ``STAGES`` as a decision enters it, while the block runs.

    For profilers (``benchmarks/concurrency.py`` splits a call's time with it) that must not change
    the code they time; ``watch`` runs on the event loop's thread and must neither await nor raise.
    """
    global _stage_watch
    before, _stage_watch = _stage_watch, watch
    try:
        yield
    finally:
        _stage_watch = before


def _enter(stage: str) -> None:
    if _stage_watch is not None:
        _stage_watch(stage)


class ProviderFailure(RuntimeError):
    """The provider could not produce a reply at all (e.g. the prompt overflowed its context).

    Raised, so the sample fails: a broken provider must never be scored as a player's bad move.
    """


@lru_cache(maxsize=512)
def response_schema(action: Action, taxonomy: tuple[str, ...], options: tuple[str, ...] = ()) -> ResponseSchema:
    """Structured-output request for providers that support it, strict where the provider offers it;
    the parser never relies on it.

    Closed choices are enums: the deception type from the task's taxonomy, and a ballot's or a
    night action's target from the legal names the prompt lists, so a constrained decoder can
    only name a legal player.
    """
    schema = json_schema(REPLY_SCHEMAS[action]).model_copy(deep=True)
    props = schema.properties or {}
    if "deception_type" in props:
        props["deception_type"].enum = list(taxonomy)
    for key in ("vote", "target"):
        if key in props and options:
            props[key].enum = list(options)
    return ResponseSchema(name=f"wolf_{action.value}", json_schema=schema, strict=True)


def eval_config() -> GenerateConfig:
    """The eval's own generation settings (``--temperature``, ``--seed``, ...).

    Inspect builds the eval's model with them, and models bound with ``--model-role`` without
    them, so the eval's model's config is where they are to be read.
    """
    return get_model().config


#: ``call_seed``'s default: read the eval's --seed from its model.
FROM_EVAL: Any = object()


def call_seed(game_seed: int, request: Request, eval_seed: int | None = FROM_EVAL) -> int:
    """Per-call sampling seed: the game seed and the decision, plus the eval's --seed if one was given
    (``eval_seed``, when the caller has read ``eval_config().seed`` already)."""
    if eval_seed is FROM_EVAL:
        eval_seed = eval_config().seed
    parts = (game_seed, request.key) if eval_seed is None else (game_seed, request.key, eval_seed)
    return derive_seed(*parts) % 2**31


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
        _enter("observe")
        seat = self.seats[request.seat]
        obs = observe(state, request, self.history, self.views)
        if self.jester_lessons and seat.role is Role.JESTER:
            obs = obs.model_copy(update={"lessons": self.jester_lessons})
        _enter("config")
        if self.eval_seed is FROM_EVAL:
            self.eval_seed = eval_config().seed
        config = GenerateConfig(
            temperature=seat.temperature,
            seed=call_seed(state.seed, request, self.eval_seed),
            cache_prompt=True,  # a seat's calls share its rules, role and record so far: Anthropic caches them
            response_schema=response_schema(request.action, state.config.taxonomy, request.options) if self.structured_output else None,
        )
        where = (f"{self.game or f'the game of seed {state.seed}'}, {seat.name} ({seat.role.value}), "
                 f"{request.action.value} on day {request.day}")
        with in_flight(obs, f"{state.seed}:{request.key}") as ref:
            try:
                _enter("prompt")
                messages = build_messages(obs, ref, self.structured_output)
                _enter("model")
                output = await seat.model.generate(messages, config=config)
            except LimitExceededError:
                raise
            except Exception as err:  # after Inspect's own retries: name the decision that was lost
                raise ProviderFailure(f"{seat.model_name} failed in {where}: {type(err).__name__}: {err}; "
                                      "the game is not scored") from err
        _enter("reply")
        self.calls += 1
        count_usage(self.usage, seat.model_name, output)
        if output.stop_reason == "model_length" or output.error:
            raise ProviderFailure(
                f"{seat.model_name} could not answer in {where} "
                f"(stop_reason={output.stop_reason}, error={output.error!r}); the game is not scored"
            )
        decision = decision_from_reply(state, request, output.completion or "")
        _enter("done")
        return decision


def count_usage(usage: dict[str, TokenUsage], model_name: str, output: ModelOutput) -> None:
    """Add one call's tokens, as the provider reported them, to its model's total."""
    tally = usage.setdefault(model_name, TokenUsage())
    tally.calls += 1
    if output.usage is not None:
        u = output.usage
        tally.input += u.input_tokens
        tally.cache_read += u.input_tokens_cache_read or 0
        tally.cache_write += u.input_tokens_cache_write or 0
        tally.output += u.output_tokens
        tally.reasoning += u.reasoning_tokens or 0


def decision_from_reply(state: GameState, request: Request, raw: str) -> Decision:
    """The legal decision a raw reply makes, or the rules' fallback recorded with it (also used by replay)."""
    try:
        return interpret(raw, request, state.names, state.config.taxonomy)
    except InvalidReply as err:
        return fallback_decision(state, request, str(err), clean_text(raw)[:MAX_RAW_CHARS])
    except Exception as err:  # a reply must never crash a game: record it and fall back
        reason = f"unreadable reply ({type(err).__name__}: {str(err)[:200]})"
        return fallback_decision(state, request, reason, clean_text(raw)[:MAX_RAW_CHARS])
