"""A seat's view of the game: the only thing prompts and baseline bots are built from.

The view is cut from the game state through ``GameState.can_see``, so the
information set is enforced in one place. Its JSON copy travels in the prompt's
message metadata for the ``wolfbot`` players; nothing else about the game does.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from wolf_eval.engine import Action, GameState, Record, Request, Role
from wolf_eval.engine.state import PUBLIC, WOLVES


class ViewRecord(BaseModel):
    """A record as its viewer sees it: the channel it came through, not who else saw it."""

    model_config = ConfigDict(frozen=True)

    index: int
    day: int
    phase: str
    kind: str
    channel: str  # "public", "wolves" or "private"
    actor: str | None = None
    target: str | None = None
    text: str | None = None
    data: dict[str, Any] = {}


class Observation(BaseModel):
    model_config = ConfigDict(frozen=True)

    variant: str
    seat: str
    role: Role
    fellow_wolves: tuple[str, ...] = ()
    players: tuple[str, ...]
    alive: tuple[str, ...]
    day: int
    phase: str
    turn: int
    phase_turns: int
    action: str
    options: tuple[str, ...]
    max_debate_turns: int
    max_explanation_turns: int
    max_statement_words: int
    max_days: int
    reveal_roles: bool
    taxonomy: tuple[str, ...]
    subject: int | None = None  # the statement record under analysis
    suspicion: dict[str, float] = {}  # on ballots: this seat's own smoothed suspicion of each living player
    lessons: dict[str, tuple[str, ...]] = {}  # the Jester's lessons from earlier games, with jester_learning
    records: tuple[ViewRecord, ...]


def view(record: Record) -> ViewRecord:
    channel = record.visibility if record.visibility in (PUBLIC, WOLVES) else "private"
    return ViewRecord(index=record.index, day=record.day, phase=record.phase.value, kind=record.kind, channel=channel,
                      actor=record.actor, target=record.target, text=record.text, data=dict(record.data))


def observe(state: GameState, request: Request) -> Observation:
    seat = request.seat
    me = state.player(seat)
    mates = tuple(w for w in state.wolves() if w != seat) if me.role is Role.WEREWOLF else ()
    cfg = state.config
    return Observation(
        variant=cfg.variant, seat=seat, role=me.role, fellow_wolves=mates,
        players=state.names, alive=state.living_names,
        day=request.day, phase=request.phase.value, turn=request.turn,
        phase_turns=state.explanation_turns if request.phase.value == "explanation" else cfg.max_debate_turns,
        action=request.action.value, options=request.options,
        max_debate_turns=cfg.max_debate_turns, max_explanation_turns=cfg.max_explanation_turns,
        max_statement_words=cfg.max_statement_words, max_days=cfg.max_days, reveal_roles=cfg.reveal_roles,
        taxonomy=cfg.taxonomy, subject=request.subject,
        suspicion=({n: s for n, s in state.suspicion.get(seat, {}).items() if n in request.options}
                   if request.action is Action.VOTE else {}),
        records=tuple(view(r) for r in state.visible_records(seat)),
    )
