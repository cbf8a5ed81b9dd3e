"""One model call: the single path by which the project asks any model for a reply.

A seat's decision, the Jester's lessons and the judge all come through :func:`ask`, so they share
one seed rule, one way of naming a provider that cannot answer (the sample fails: a broken
provider is never scored as a bad move), one record of a reply that cannot be used (the
caller's fallback, with the reason and the raw reply cut to ``MAX_RAW_CHARS``) and one label in
the transcript: each call is an Inspect subtask named for who asked what and when ("Ivo
(villager) · revote · day 2"), which ``inspect view`` shows folded, with the model as its input
and the start of the reply as its output, and the model call (prompt and whole reply) inside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput
from inspect_ai.util import LimitExceededError, subtask

from wolf_eval.agents.parse import InvalidReply
from wolf_eval.agents.thinking import UNAVAILABLE, Thought, thought_of
from wolf_eval.engine.rng import derive_seed
from wolf_eval.store import TokenUsage
from wolf_eval.text import clean_text

T = TypeVar("T")

#: Raw outputs kept in the game record are cut to this many characters (the model event keeps all of it).
MAX_RAW_CHARS = 2000


#: The stages of a call, in the order it enters them: the caller's view, the call's settings, the
#: prompt, the model call (an await: other calls run meanwhile), the reply (usage, checks, parsing),
#: then done. Every stage but ``model`` runs without awaiting, so its time is one unbroken interval.
STAGES = ("observe", "config", "prompt", "model", "reply", "done")

_stage_watch: Callable[[str], None] | None = None


@contextmanager
def decision_stages(watch: Callable[[str], None]) -> Iterator[None]:
    """Call ``watch`` with each stage of ``STAGES`` as a model call enters it, while the block runs.

    For profilers (``benchmarks/concurrency.py`` splits a call's time with it) that must not change
    the code they time; ``watch`` runs on the event loop's thread and must neither await nor raise.
    """
    global _stage_watch
    before, _stage_watch = _stage_watch, watch
    try:
        yield
    finally:
        _stage_watch = before


def stage(name: str) -> None:
    """Tell the watcher of :func:`decision_stages`, if any, that the call in progress enters ``name``."""
    if _stage_watch is not None:
        _stage_watch(name)


class ProviderFailure(RuntimeError):
    """The provider could not produce a reply at all (an error after Inspect's retries, a context overflow).

    Raised, so the sample fails: a broken provider must never be scored as a player's bad move.
    """


#: The start of a reply a call's subtask shows as its output (the model call inside has all of it).
PREVIEW_CHARS = 200


@dataclass(frozen=True)
class Caller:
    """Who asks and for what: the words a provider failure names and the label of the call in the transcript."""

    game: str
    decision: str
    day: int
    seat: str | None = None
    role: str | None = None
    phase: str | None = None

    def __str__(self) -> str:
        who = f"{self.seat} ({self.role})" if self.seat else f"the {self.role}" if self.role else None
        return ", ".join(p for p in (self.game, who, f"{self.decision} on day {self.day}") if p)

    @property
    def label(self) -> str:
        """The call's name in the transcript, found by seat, role, action and day: "Ivo (villager) · revote · day 2"."""
        who = f"{self.seat} ({self.role})" if self.seat else self.role or "model"
        action = "revote" if (self.decision, self.phase) == ("vote", "revote") else self.decision.replace("_", " ")
        when = f"night {self.day}" if self.phase == "night" else f"day {self.day}"
        return f"{who} · {action} · {when}"


@dataclass(frozen=True)
class Answer(Generic[T]):
    """What a call produced: the value read (or the fallback), the raw text, why it fell back, and the
    model's private reasoning as far as it is readable (``wolf_eval.agents.thinking``)."""

    value: T
    raw: str
    problem: str | None = None
    thought: Thought = UNAVAILABLE


def call_seed(game_seed: int, key: str, eval_seed: int | None) -> int:
    """A call's sampling seed: the game seed and what is decided, plus the eval's ``--seed`` if given."""
    parts = (game_seed, key) if eval_seed is None else (game_seed, key, eval_seed)
    return derive_seed(*parts) % 2**31


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


def read_reply(raw: str, read: Callable[[str], T], fallback: Callable[[str, str], T]) -> Answer[T]:
    """Read a raw reply, or fall back with the reason and the cut raw text; a reply never crashes a game.

    Also what replay calls, so a recorded reply is read exactly as it was in play.
    """
    try:
        return Answer(read(raw), raw)
    except InvalidReply as err:
        reason = str(err)
    except Exception as err:
        reason = f"unreadable reply ({type(err).__name__}: {str(err)[:200]})"
    return Answer(fallback(reason, clean_text(raw)[:MAX_RAW_CHARS]), raw, reason)


async def ask(model: Model, messages: list[ChatMessage], config: GenerateConfig, caller: Caller,
              read: Callable[[str], T], fallback: Callable[[str, str], T],
              usage: dict[str, TokenUsage] | None = None) -> Answer[T]:
    """Generate once, count the tokens, fail the sample on a provider that cannot answer, then read the reply.

    ``read`` turns the raw text into a value or raises; ``fallback(reason, raw)`` gives the value
    used instead. ``usage`` (by model name) gets the call's tokens when given.
    """
    stage("model")
    try:
        output = await _labelled_call(model, messages, config, caller)
    except LimitExceededError:
        raise
    except Exception as err:  # after Inspect's own retries: name the decision that was lost
        raise ProviderFailure(f"{model} failed in {caller}: {type(err).__name__}: {err}; "
                              "the game is not scored") from err
    stage("reply")
    if usage is not None:
        count_usage(usage, str(model), output)
    if output.stop_reason == "model_length" or output.error:
        raise ProviderFailure(f"{model} could not answer in {caller} "
                              f"(stop_reason={output.stop_reason}, error={output.error!r}); the game is not scored")
    answer = replace(read_reply(output.completion or "", read, fallback), thought=thought_of(output))
    stage("done")
    return answer


async def _labelled_call(model: Model, messages: list[ChatMessage], config: GenerateConfig,
                         caller: Caller) -> ModelOutput:
    """``model.generate`` as a subtask named :attr:`Caller.label`: the viewer folds it and names it."""
    outputs: list[ModelOutput] = []

    async def call() -> str:
        outputs.append(await model.generate(messages, config=config))
        return clean_text(outputs[0].completion or "")[:PREVIEW_CHARS]

    await subtask(caller.label, input={"model": str(model)})(call)()
    return outputs[0]
