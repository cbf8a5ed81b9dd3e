"""Each analysed public statement as one row: who said it, how the speaker labelled it, how peers read it.

Built from the moderator's ``deception`` records, so scorers and the report read the same
numbers the game logged.
"""

from __future__ import annotations

from dataclasses import dataclass

from wolf_eval.engine import GameState


@dataclass(frozen=True)
class PeerLabel:
    observer: str
    observer_role: str
    is_deceptive: bool
    confidence: float
    deception_type: str
    suspicion: float | None


@dataclass(frozen=True)
class StatementRow:
    statement: int  # index of the public record
    day: int
    kind: str  # statement, defence or vote
    position: int  # order in the day among analysed statements (0 = first)
    speaker: str
    role: str
    self_deceptive: bool | None  # None: the speaker's self-analysis fell back
    self_confidence: float | None
    self_type: str | None
    peers: tuple[PeerLabel, ...]

    @property
    def flags(self) -> int:
        return sum(1 for p in self.peers if p.is_deceptive)

    @property
    def flag_share(self) -> float | None:
        return self.flags / len(self.peers) if self.peers else None

    @property
    def suspicions(self) -> list[float]:
        return [p.suspicion for p in self.peers if p.suspicion is not None]


def statement_rows(game: GameState) -> list[StatementRow]:
    """Every analysed statement of the game in record order (empty when analysis was off)."""
    roles = {p.name: p.role.value for p in game.players}
    rows = []
    for r in game.records:
        if r.kind != "deception":
            continue
        d = r.data
        own = d.get("self")
        peers = tuple(
            PeerLabel(observer=o, observer_role=roles[o], is_deceptive=bool(a["is_deceptive"]),
                      confidence=float(a["confidence"]), deception_type=a["deception_type"],
                      suspicion=None if a.get("suspicion") is None else float(a["suspicion"]))
            for o, a in d["peers"].items() if a is not None
        )
        rows.append(StatementRow(
            statement=d["statement"], day=d["statement_day"], kind=d["kind"], position=d["position"],
            speaker=r.actor or "", role=d["speaker_role"],
            self_deceptive=None if own is None else bool(own["is_deceptive"]),
            self_confidence=None if own is None else float(own["confidence"]),
            self_type=None if own is None else own["deception_type"],
            peers=peers,
        ))
    return rows
