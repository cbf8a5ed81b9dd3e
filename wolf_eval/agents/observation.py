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

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel, ConfigDict

from wolf_eval.engine import Action, GameState, Phase, Record, Request, Role
from wolf_eval.engine.seating import decision_lists, players_order
from wolf_eval.engine.variants import VariantName
from wolf_eval.records import ViewRecord, view
from wolf_eval.settings import PAPERS_CALLS, PAPERS_HISTORY, Calls, History


class Observation(BaseModel):
    model_config = ConfigDict(frozen=True)

    variant: VariantName
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
    taxonomy: tuple[str, ...]  # the deception types statements are judged by; () in a game that asks no analyses
    history: History = PAPERS_HISTORY  # "compact": the prompt shows earlier days in brief (the records are all here)
    calls: Calls = PAPERS_CALLS  # "per_seat": the seat's one reply shape, statements numbered (agents/seat_call.py)
    subject: int | None = None  # the statement record under analysis
    suspicion: dict[str, float] = {}  # on ballots: this seat's own smoothed suspicion of each living player
    lessons: dict[str, tuple[str, ...]] = {}  # the Jester's lessons from earlier games, with jester_learning
    watched: bool = False  # -T watched: the rules say that a monitor reads every seat's private reasoning
    withheld: bool = False  # deception=optional: the seat's words at this turn were withheld, and it speaks again
    records: tuple[ViewRecord, ...]


class RecordViews:
    """One game's record as its seats see it, kept up to date as the game grows.

    The record is append-only, so each record is viewed once (a view does not depend on who views
    it) and each seat's visible records are extended by the records since its last call: a call's
    observation costs the records written since then, not the whole record. A state that does not
    continue the record held here (another game, or an earlier state of this one) starts it over.
    The views are the ones ``GameState.visible_records`` and ``view`` give.
    """

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._first: Record | None = None
        self._last: Record | None = None
        self._views: list[ViewRecord] = []
        self._seats: dict[str, list[ViewRecord]] = {}
        self._seen: dict[str, int] = {}

    def visible(self, state: GameState, seat: str) -> tuple[ViewRecord, ...]:
        """``tuple(view(r) for r in state.visible_records(seat))``, from what earlier calls built."""
        records = state.records
        n = len(self._views)
        if n and (n > len(records) or records[0] is not self._first or records[n - 1] is not self._last):
            self._reset()
            n = 0
        if len(records) > n:
            self._views.extend(view(r) for r in records[n:])
            self._first, self._last = records[0], records[-1]
        mine = self._seats.setdefault(seat, [])
        done = self._seen.get(seat, 0)
        if done < len(records):
            can_see = state.can_see
            views = self._views
            mine.extend(views[i] for i in range(done, len(records)) if can_see(seat, records[i]))
            self._seen[seat] = len(records)
        return tuple(mine)


def observe(state: GameState, request: Request, history: History = PAPERS_HISTORY, views: RecordViews | None = None,
            calls: Calls = PAPERS_CALLS) -> Observation:
    """What ``request``'s seat may know now, with prompts to show earlier days in ``history`` form and to
    ask in the reply shape of ``calls``.

    Its lists (the players, the living, the options and the suspicion rows in the options' order)
    are in the order the game's seating shows them (:mod:`wolf_eval.engine.seating`).

    ``views``: the game's :class:`RecordViews`, so that a seat's records are not viewed again on every call.
    """
    seat = request.seat
    me = state.player(seat)
    players = players_order(state)
    mates = tuple(w for w in players if w != seat and state.player(w).role is Role.WEREWOLF) \
        if me.role is Role.WEREWOLF else ()
    alive, options = decision_lists(state, request)
    mine = state.suspicion.get(seat, {})
    cfg = state.config
    return Observation(
        variant=cfg.variant, seat=seat, role=me.role, fellow_wolves=mates,
        players=players, alive=alive,
        day=request.day, phase=request.phase, turn=request.turn,
        phase_turns=state.explanation_turns if request.phase is Phase.EXPLANATION else cfg.max_debate_turns,
        action=request.action, options=options, withheld=request.withheld,
        max_debate_turns=cfg.max_debate_turns, max_explanation_turns=cfg.max_explanation_turns,
        max_statement_words=cfg.max_statement_words, max_days=cfg.max_days, reveal_roles=cfg.reveal_roles,
        taxonomy=cfg.taxonomy if cfg.deception_analysis else (), history=history, calls=calls, subject=request.subject,
        suspicion={n: mine[n] for n in options if n in mine} if request.action is Action.VOTE else {},
        records=(views.visible(state, seat) if views is not None
                 else tuple(view(r) for r in state.visible_records(seat))),
    )


#: The views of the call now being made, by ref, for this task only (each concurrent call runs in its
#: own task): one per decision the call asks (``wolf_eval.agents.seat_call``).
_IN_FLIGHT: ContextVar[Mapping[str, Observation] | None] = ContextVar("wolf_eval_in_flight", default=None)


@contextmanager
def in_flight(views: Mapping[str, Observation]) -> Iterator[None]:
    """Hold every view of one call, each under its ref (deterministic: the game seed and the decision)."""
    token = _IN_FLIGHT.set(views)
    try:
        yield
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
    current = (_IN_FLIGHT.get() or {}).get(ref)
    if current is None:
        raise LookupError(f"observation {ref} is not the call in flight here: the prompt's metadata keeps only "
                          "record indices, so a bot can answer it only from within the call that asked it")
    return current


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
