"""The sample store's schema: what a finished game leaves in its Inspect sample.

The solver writes it, scorers read it during the eval, and the report, replay and export
read it back out of logs, all through :class:`GameRecord`, so no store key is typed by hand.
"""

from __future__ import annotations

import builtins
from typing import Any

from inspect_ai.util import Store, StoreModel, store_as
from pydantic import BaseModel, ConfigDict, Field

from wolf_eval.engine.state import GameState


class LessonRow(BaseModel):
    """A lesson as a sample records it: its list, its text and the tagger's reading of it."""

    model_config = ConfigDict(frozen=True)

    list: str
    text: str
    order: int
    categories: builtins.list[str]  # the builtin: ``list`` in this class is the field above


class TaggerReading(BaseModel):
    """The model tagger's reading of one added lesson; ``problem`` says why a lost reading has no order."""

    model_config = ConfigDict(frozen=True)

    text: str
    order: int | None = None
    categories: list[str]
    problem: str | None = None


class TokenUsage(BaseModel):
    """One seat model's tokens over a game, as its provider reported them to Inspect."""

    calls: int = 0
    decisions: int = 0  # game decisions its calls asked (a joint call asks several); 0: logged before 0.4.0
    reasks: int = 0  # decisions a reply left unanswered, asked again (calls=per_seat, since 0.5.0)
    input: int = 0  # charged at the full rate
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0


class ThoughtRow(BaseModel):
    """One seat call's private reasoning as the game's record keeps it (``wolf_eval.agents.thinking``): read by
    the moderator, the scorers, the monitor and the viewer, shown to no seat."""

    model_config = ConfigDict(frozen=True)

    day: int
    phase: str
    seat: str
    role: str
    call: str  # the call's label in the transcript: "Ivo (villager) · revote · day 2"
    kind: str  # "reasoning", "summary" or "unavailable"
    text: str = ""


class VerdictRow(BaseModel):
    """The monitor's reading of one seat's text of one day from one source, without its role: P(wolf) and, with
    a Jester in the game, P(jester); None where the reply could not be read (``problem`` says why)."""

    model_config = ConfigDict(frozen=True)

    day: int
    seat: str
    source: str  # "reasoning", "speech" or "both"
    wolf: float | None = None
    jester: float | None = None
    problem: str | None = None


class GameRecord(StoreModel):
    """A finished game, who played it, and (with ``jester_learning``) the lessons call after it."""

    state: dict[str, Any] | None = Field(default=None)  # the final GameState as JSON
    seat_models: dict[str, str] = Field(default_factory=dict)
    seat_temperatures: dict[str, float | None] = Field(default_factory=dict)
    calls: int = Field(default=0)  # model calls (the lessons call and the monitor's included)
    usage: dict[str, TokenUsage] = Field(default_factory=dict)  # by model (the lessons call and the monitor's included)
    lessons_file: str | None = Field(default=None)  # jester_learning: the Jester model's lessons file
    learning_step: int | None = Field(default=None)  # this game's place in the learning sequence
    lessons_read: list[LessonRow] = Field(default_factory=list)
    lessons_added: list[LessonRow] = Field(default_factory=list)
    lessons_reply: str | None = Field(default=None)
    lessons_problem: str | None = Field(default=None)
    tagger_model: str | None = Field(default=None)  # the model bound to ``--model-role tagger=``, if any
    lessons_added_tagger: list[TaggerReading] = Field(default_factory=list)  # its reading of lessons_added
    judge: dict[str, float] | None = Field(default=None)  # the judge score's per-role counts, when a judge ran
    ignored: dict[str, list[str]] = Field(default_factory=dict)  # settings each seat model's provider ignored
    reasoning: list[ThoughtRow] = Field(default_factory=list)  # every seat call's private reasoning, in call order
    monitor_model: str | None = Field(default=None)  # the model bound to ``--model-role monitor=``, with -T monitor
    monitor: list[VerdictRow] = Field(default_factory=list)  # its verdicts, per day, seat and source

    def game(self) -> GameState:
        """The finished game; refuses a sample whose game never ended."""
        if self.state is None:
            raise ValueError("no finished wolf-eval game in this sample (did it fail?)")
        return GameState.model_validate(self.state)


def current_record() -> GameRecord:
    """The running sample's record (solver and scorers)."""
    return store_as(GameRecord)


def logged_record(store: dict[str, Any]) -> GameRecord:
    """The record of a logged sample, from its store as the log keeps it."""
    return GameRecord(store=Store(store))
