"""The game state: players, an append-only record with visibilities, and what is pending.

Everything is a frozen Pydantic model; the engine returns a new state for every
step, so a state can be logged, compared and replayed as plain JSON.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from wolf_eval.engine.config import GameConfig
from wolf_eval.records import MODERATOR, PUBLIC, WOLVES, Analysis, Kind, Record, Stance
from wolf_eval.vocabulary import FACTION_OF, Action, Faction, Phase, Role, Winner

NIGHT_ACTIONS = (Action.NIGHT_KILL, Action.PROTECT, Action.INVESTIGATE)
SPEECH_ACTIONS = (Action.STATEMENT, Action.DEFENCE)
ANALYSIS_ACTIONS = (Action.SELF_ANALYSIS, Action.PEER_ANALYSIS)

#: Smoothing of the suspicion matrix: S[o][t] = NEW_WEIGHT * s_new + (1 - NEW_WEIGHT) * S[o][t].
NEW_WEIGHT = 0.7
PRIOR_SUSPICION = 0.5

__all__ = ["MODERATOR", "PUBLIC", "WOLVES", "Action", "Analysis", "Decision", "Fallback", "GameState",
           "Outcome", "Phase", "Player", "Record", "Request", "Winner"]


class Player(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    seat: int
    role: Role
    alive: bool = True

    @property
    def faction(self) -> Faction:
        return FACTION_OF[self.role]


class Request(BaseModel):
    """A decision the engine waits for: who, what, and the legal choices."""

    model_config = ConfigDict(frozen=True)

    seat: str
    action: Action
    day: int
    phase: Phase
    turn: int
    options: tuple[str, ...] = ()
    subject: int | None = None  # the statement record under analysis
    withheld: bool = False  # deception=optional: the seat's words at this turn were withheld, and it speaks again

    @property
    def key(self) -> str:
        about = "" if self.subject is None else f".s{self.subject}"
        return f"d{self.day}.{self.phase}.t{self.turn}.{self.action}.{self.seat}{about}" + (
            ".withheld" if self.withheld else "")


class Fallback(BaseModel):
    """Why a model's reply was replaced by the conservative default."""

    model_config = ConfigDict(frozen=True)

    reason: str
    raw: str


class Decision(BaseModel):
    """A validated answer to a Request.

    ``target`` is a player name (night actions, vote), ``bid`` an integer,
    ``text`` the statement or defence. ``None`` target on a vote abstains;
    ``None`` text on a speech passes the turn.
    """

    model_config = ConfigDict(frozen=True)

    seat: str
    action: Action
    target: str | None = None
    bid: int | None = None
    text: str | None = None
    reason: str | None = None
    notes: str | None = None
    subject: int | None = None
    analysis: Analysis | None = None
    fallback: Fallback | None = None
    false: str | None = None  # the moderator's reading of an open wolf's words: what in them is false (None: nothing)


class Outcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    winner: Winner
    day: int
    days: int  # days whose day phase was played: a game decided on night N played N - 1
    reason: str


class GameState(BaseModel):
    model_config = ConfigDict(frozen=True)

    config: GameConfig
    seed: int
    players: tuple[Player, ...]
    day: int = 1
    phase: Phase = Phase.NIGHT
    turn: int = 0
    floor: str | None = None
    defence_queue: tuple[str, ...] = ()
    explanation_turns: int = 0
    records: tuple[Record, ...] = ()
    outcome: Outcome | None = None
    waves: int = 0  # waves of decisions applied so far
    analysis_queue: tuple[int, ...] = ()  # public statements waiting for their analysis wave
    ballot_waiting: bool = False  # the latest tally is resolved once its reasons are analysed
    suspicion: dict[str, dict[str, float]] = Field(default_factory=dict)  # observer -> target -> score
    stance_waiting: bool = False  # deception=optional: the day waits for each living wolf's stance

    # --- derived views -------------------------------------------------
    def player(self, name: str) -> Player:
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)

    @property
    def living(self) -> tuple[Player, ...]:
        return tuple(p for p in self.players if p.alive)

    @property
    def living_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players if p.alive)

    def living_with(self, role: Role) -> tuple[Player, ...]:
        return tuple(p for p in self.players if p.alive and p.role is role)

    def wolves(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players if p.role is Role.WEREWOLF)

    def can_see(self, name: str, record: Record) -> bool:
        """The information-set rule: which record a seat may ever be shown."""
        vis = record.visibility
        if vis == PUBLIC or vis == name:
            return True
        if vis == WOLVES:
            return self.player(name).role is Role.WEREWOLF
        return False

    def visible_records(self, name: str) -> tuple[Record, ...]:
        return tuple(r for r in self.records if self.can_see(name, r))

    def stance(self, name: str, day: int | None = None) -> str | None:
        """The stance ``name`` chose for ``day`` (today if None) with ``deception=optional``; None if it chose none."""
        day = self.day if day is None else day
        return next((r.data.stance for r in reversed(self.records) if r.kind is Kind.STANCE and r.actor == name
                     and r.day == day and isinstance(r.data, Stance)), None)

    @property
    def over(self) -> bool:
        return self.outcome is not None
