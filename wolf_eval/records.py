"""The record vocabulary: every kind of game record, its typed payload and who may see it.

A game is an append-only list of records. Each record has a ``kind`` from :class:`Kind`, a
payload whose model is fixed by that kind (``PAYLOADS``) and an audience fixed by that kind
(``AUDIENCE``): everyone, the wolves' channel, the moderator only, or the one seat it is about.
Engine, agents, measures, export and replay all read records through these types, so a
misspelt kind or payload key fails where it is written instead of reading as missing.

Payload field names are the JSON keys the first release wrote, so its logs load unchanged.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from wolf_eval.vocabulary import Action, Phase, Role, Winner


class Kind(StrEnum):
    """Every kind of game record, in roughly the order a game writes them."""

    GAME_START = "game_start"
    ROLE = "role"
    WOLF_PROPOSAL = "wolf_proposal"
    WOLF_CHOICE = "wolf_choice"
    PROTECT = "protect"
    INVESTIGATE = "investigate"
    NIGHT_RESULT = "night_result"
    DEATH = "death"
    DAWN = "dawn"
    BIDS = "bids"
    FLOOR = "floor"
    SILENCE = "silence"
    STATEMENT = "statement"
    DEFENCE = "defence"
    PASS = "pass"
    VOTE = "vote"
    TALLY = "tally"
    DECEPTION = "deception"
    EXILE = "exile"
    NO_EXILE = "no_exile"
    NOTE = "note"
    FALLBACK = "fallback"
    GAME_OVER = "game_over"
    STANCE = "stance"
    WITHHELD = "withheld"


class Audience(StrEnum):
    """Who may ever see a record of a kind; ``SEAT`` is the one player named as its actor."""

    PUBLIC = "public"
    WOLVES = "wolves"
    MODERATOR = "moderator"
    SEAT = "seat"


PUBLIC = Audience.PUBLIC.value
WOLVES = Audience.WOLVES.value
MODERATOR = Audience.MODERATOR.value

#: Speech: the public statements a player makes in its own words.
SPEECH_KINDS = (Kind.STATEMENT, Kind.DEFENCE)
#: Units of deception analysis (docs/design.md, § Deception measurement): debate statements, defences and vote reasons.
ANALYSED_KINDS = (Kind.STATEMENT, Kind.DEFENCE, Kind.VOTE)

Ballot = Literal["first", "final", "only"]


class Payload(BaseModel):
    """What a record of one kind carries beyond its actor, target and text."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Empty(Payload):
    """Kinds whose text says it all (the dawn, a silence, a wolf's proposal, a private note)."""


class GameStart(Payload):
    players: list[str]
    roles_in_play: dict[Role, int]


class RoleDealt(Payload):
    role: Role
    fellow_wolves: list[str] | None = None  # wolves only


class WolfChoice(Payload):
    unanimous: bool


class Protect(Payload):
    self: bool  # the Doctor protected itself


class Investigate(Payload):
    is_werewolf: bool


class NightResult(Payload):
    victim: str | None
    protected: str | None
    saved: bool


class Death(Payload):
    cause: Literal["night_kill"]
    role: Role | None = None  # only with reveal_roles


class Bids(Payload):
    bids: dict[str, int]


class Floor(Payload):
    bid: int
    tied: list[str]


class Speech(Payload):
    mentions: list[str]
    truncated: bool
    turn: int


class Pass(Payload):
    turn: int


class Vote(Payload):
    ballot: Ballot
    mentions: list[str]


class Tally(Payload):
    ballot: Ballot
    tally: dict[str, int]
    living: int
    abstained: list[str]


class Analysis(BaseModel):
    """One player's private reading of one public statement (docs/design.md, § Deception measurement)."""

    model_config = ConfigDict(frozen=True)

    is_deceptive: bool
    confidence: float = Field(ge=0.0, le=1.0)
    deception_type: str
    reasoning: str | None = None
    suspicion: float | None = Field(default=None, ge=0.0, le=1.0)  # peers only


class Deception(Payload):
    """One analysed statement: the speaker's own label, every peer's, and the suspicion matrix after it."""

    statement: int  # index of the analysed record
    kind: Kind
    speaker_role: Role
    statement_day: int
    statement_phase: Phase
    turn: int | None
    ballot: Ballot | None
    position: int  # order among the day's analysed statements (0 = first)
    text: str | None
    self: Analysis | None  # None: the speaker's self-analysis fell back
    peers: dict[str, Analysis | None]
    missing: list[str]
    suspicion: dict[str, dict[str, float]]


class Exile(Payload):
    votes: int
    living: int
    role: Role | None = None  # only with reveal_roles


class NoExile(Payload):
    living: int


class FallbackNote(Payload):
    action: Action
    raw: str
    subject: int | None = None  # the statement an analysis was about


class Stance(Payload):
    """A wolf's choice for one day with ``deception=optional``, seen by that wolf alone (and the moderator)."""

    stance: Literal["open", "deceive"]
    chosen: bool = True  # False: the reply could not be used, and the day is played as dealt (deceive)


class Withheld(Payload):
    """Public words of a wolf playing open that the moderator read as false and did not publish."""

    action: Action  # statement, defence or vote (a vote stands; its reason is withheld)
    said: str
    why: str
    asked_again: bool  # the first of a turn: the seat speaks again; the second: silence instead


class GameOver(Payload):
    winner: Winner
    day: int
    days: int
    reason: str


AnyPayload = (Empty | GameStart | RoleDealt | WolfChoice | Protect | Investigate | NightResult | Death | Bids | Floor
              | Speech | Pass | Vote | Tally | Deception | Exile | NoExile | FallbackNote | GameOver | Stance
              | Withheld)

PAYLOADS: dict[Kind, type[Payload]] = {
    Kind.GAME_START: GameStart,
    Kind.ROLE: RoleDealt,
    Kind.WOLF_PROPOSAL: Empty,
    Kind.WOLF_CHOICE: WolfChoice,
    Kind.PROTECT: Protect,
    Kind.INVESTIGATE: Investigate,
    Kind.NIGHT_RESULT: NightResult,
    Kind.DEATH: Death,
    Kind.DAWN: Empty,
    Kind.BIDS: Bids,
    Kind.FLOOR: Floor,
    Kind.SILENCE: Empty,
    Kind.STATEMENT: Speech,
    Kind.DEFENCE: Speech,
    Kind.PASS: Pass,
    Kind.VOTE: Vote,
    Kind.TALLY: Tally,
    Kind.DECEPTION: Deception,
    Kind.EXILE: Exile,
    Kind.NO_EXILE: NoExile,
    Kind.NOTE: Empty,
    Kind.FALLBACK: FallbackNote,
    Kind.GAME_OVER: GameOver,
    Kind.STANCE: Stance,
    Kind.WITHHELD: Withheld,
}

AUDIENCE: dict[Kind, Audience] = {
    Kind.GAME_START: Audience.PUBLIC,
    Kind.ROLE: Audience.SEAT,
    Kind.WOLF_PROPOSAL: Audience.WOLVES,
    Kind.WOLF_CHOICE: Audience.WOLVES,
    Kind.PROTECT: Audience.SEAT,
    Kind.INVESTIGATE: Audience.SEAT,
    Kind.NIGHT_RESULT: Audience.MODERATOR,
    Kind.DEATH: Audience.PUBLIC,
    Kind.DAWN: Audience.PUBLIC,
    Kind.BIDS: Audience.MODERATOR,
    Kind.FLOOR: Audience.MODERATOR,
    Kind.SILENCE: Audience.PUBLIC,
    Kind.STATEMENT: Audience.PUBLIC,
    Kind.DEFENCE: Audience.PUBLIC,
    Kind.PASS: Audience.PUBLIC,
    Kind.VOTE: Audience.PUBLIC,
    Kind.TALLY: Audience.PUBLIC,
    Kind.DECEPTION: Audience.MODERATOR,
    Kind.EXILE: Audience.PUBLIC,
    Kind.NO_EXILE: Audience.PUBLIC,
    Kind.NOTE: Audience.SEAT,
    Kind.FALLBACK: Audience.MODERATOR,
    Kind.GAME_OVER: Audience.PUBLIC,
    Kind.STANCE: Audience.SEAT,
    Kind.WITHHELD: Audience.SEAT,
}


def visibility_of(kind: Kind, actor: str | None) -> str:
    """The ``visibility`` a record of ``kind`` by ``actor`` must carry: an audience, or the seat's name."""
    audience = AUDIENCE[kind]
    if audience is Audience.SEAT:
        if not actor:
            raise ValueError(f"a {kind.value} record is private to its actor, and has none")
        return actor
    return audience.value


def _typed_payload(values: Any) -> Any:
    """Turn a dict payload (from JSON, or written by hand) into the model its kind fixes."""
    if isinstance(values, dict):
        kind = Kind(values["kind"])
        data = values.get("data")
        model = PAYLOADS[kind]
        if data is None:
            data = {}
        if not isinstance(data, model):
            values = {**values, "data": model.model_validate(data)}
    return values


class Record(BaseModel):
    """One entry of the game record; ``visibility`` says who may ever see it (derived from its kind)."""

    model_config = ConfigDict(frozen=True)

    index: int
    day: int
    phase: Phase
    kind: Kind
    visibility: str = ""
    actor: str | None = None
    target: str | None = None
    text: str | None = None
    data: AnyPayload = Field(default_factory=Empty)
    wave: int = 0  # the concurrent wave of decisions that produced it (0: the deal)

    @model_validator(mode="before")
    @classmethod
    def _type_payload(cls, values: Any) -> Any:
        values = _typed_payload(values)
        if isinstance(values, dict):
            due = visibility_of(Kind(values["kind"]), values.get("actor"))
            given = values.get("visibility") or due
            if given != due:
                raise ValueError(f"a {values['kind']} record is visible to {due!r}, not {given!r}")
            values = {**values, "visibility": due}
        return values

    @property
    def analysed(self) -> bool:
        """Whether this is a unit of deception analysis: a public statement, defence or vote reason with words."""
        return self.kind in ANALYSED_KINDS and bool(self.text)


class ViewRecord(BaseModel):
    """A record as one seat sees it: the channel it came through, not who else saw it."""

    model_config = ConfigDict(frozen=True)

    index: int
    day: int
    phase: Phase
    kind: Kind
    channel: Literal["public", "wolves", "private"]
    actor: str | None = None
    target: str | None = None
    text: str | None = None
    data: AnyPayload = Field(default_factory=Empty)
    wave: int = 0  # the wave that produced it: prompts block a seat's record by wave

    @model_validator(mode="before")
    @classmethod
    def _type_payload(cls, values: Any) -> Any:
        return _typed_payload(values)


def view(record: Record) -> ViewRecord:
    """The record as its viewer receives it (the caller has checked that the viewer may).

    Every prompt re-views a seat's whole record, so this is on each call's path; the record was
    validated when it was written, so its view is built without validating it again.
    """
    channel = record.visibility if record.visibility in (PUBLIC, WOLVES) else "private"
    return ViewRecord.model_construct(index=record.index, day=record.day, phase=record.phase, kind=record.kind,
                                      channel=channel, actor=record.actor, target=record.target, text=record.text,
                                      data=record.data, wave=record.wave)
