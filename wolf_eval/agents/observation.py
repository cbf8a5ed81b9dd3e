"""A seat's view of the game: the only thing prompts and baseline bots are built from.

The view is cut from the game state through ``GameState.can_see``, so the
information set is enforced in one place. The prompt's message metadata carries
it for the ``wolfbot`` players and for analysis: every field, with the records
as their indices (their words are in the prompt already, so the log does not
keep them twice). While the call is in flight the full view is held in a context
variable of the calling task, under the ``ref`` in that metadata (the game seed and
the decision), for an in-process provider to read.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel, ConfigDict

from wolf_eval.engine import Action, GameState, Phase, Request, Role
from wolf_eval.records import ViewRecord, view


class Observation(BaseModel):
    model_config = ConfigDict(frozen=True)

    variant: str
    seat: str
    role: Role
    fellow_wolves: tuple[str, ...] = ()
    players: tuple[str, ...]
    alive: tuple[str, ...]
    day: int
    phase: Phase
    turn: int
    phase_turns: int
    action: Action
    options: tuple[str, ...]
    max_debate_turns: int
    max_explanation_turns: int
    max_statement_words: int
    max_days: int
    reveal_roles: bool
    taxonomy: tuple[str, ...]
    history: str = "full"  # "compact": the prompt shows earlier days in brief (the records are all here either way)
    subject: int | None = None  # the statement record under analysis
    suspicion: dict[str, float] = {}  # on ballots: this seat's own smoothed suspicion of each living player
    lessons: dict[str, tuple[str, ...]] = {}  # the Jester's lessons from earlier games, with jester_learning
    records: tuple[ViewRecord, ...]


def observe(state: GameState, request: Request, history: str = "full") -> Observation:
    """What ``request``'s seat may know now, with prompts to show earlier days in ``history`` form."""
    seat = request.seat
    me = state.player(seat)
    mates = tuple(w for w in state.wolves() if w != seat) if me.role is Role.WEREWOLF else ()
    cfg = state.config
    return Observation(
        variant=cfg.variant, seat=seat, role=me.role, fellow_wolves=mates,
        players=state.names, alive=state.living_names,
        day=request.day, phase=request.phase, turn=request.turn,
        phase_turns=state.explanation_turns if request.phase is Phase.EXPLANATION else cfg.max_debate_turns,
        action=request.action, options=request.options,
        max_debate_turns=cfg.max_debate_turns, max_explanation_turns=cfg.max_explanation_turns,
        max_statement_words=cfg.max_statement_words, max_days=cfg.max_days, reveal_roles=cfg.reveal_roles,
        taxonomy=cfg.taxonomy, history=history, subject=request.subject,
        suspicion=({n: s for n, s in state.suspicion.get(seat, {}).items() if n in request.options}
                   if request.action is Action.VOTE else {}),
        records=tuple(view(r) for r in state.visible_records(seat)),
    )


#: The view of the call now being made, for this task only (each concurrent call runs in its own task).
_IN_FLIGHT: ContextVar[tuple[str, Observation] | None] = ContextVar("wolf_eval_in_flight", default=None)


@contextmanager
def in_flight(obs: Observation, ref: str) -> Iterator[str]:
    """Hold ``obs`` under ``ref`` (deterministic: the game seed and the decision) for one model call."""
    token = _IN_FLIGHT.set((ref, obs))
    try:
        yield ref
    finally:
        _IN_FLIGHT.reset(token)


def metadata_view(obs: Observation, ref: str | None) -> dict[str, Any]:
    """The metadata copy of a view: with a ref, records as indices; without one (a prompt built
    outside a game), the whole view."""
    if ref is None:
        return obs.model_dump(mode="json")
    return {**obs.model_dump(mode="json", exclude={"records"}), "records": [r.index for r in obs.records], "ref": ref}


def from_metadata(meta: dict[str, Any]) -> Observation:
    """The view a prompt was built from; a slim copy needs its call to be in flight in this process."""
    ref = meta.get("ref")
    if ref is None:
        return Observation.model_validate(meta)
    current = _IN_FLIGHT.get()
    if current is None or current[0] != ref:
        raise LookupError(f"observation {ref} is not the call in flight here: the prompt's metadata keeps only "
                          "record indices, so a bot can answer it only from within the call that asked it")
    return current[1]


def logged_observation(meta: dict[str, Any], game: GameState) -> Observation:
    """The view a logged prompt was built from, after the game: its metadata, with each record
    index looked up in the finished game (a view holds only records its seat could see)."""
    records = meta.get("records", [])
    if records and isinstance(records[0], int):
        seat = meta["seat"]
        if not all(game.can_see(seat, game.records[i]) for i in records):
            raise ValueError(f"the logged prompt of {seat} lists a record {seat} could not see")
        records = [view(game.records[i]) for i in records]
    return Observation.model_validate({k: v for k, v in meta.items() if k != "ref"} | {"records": records})
