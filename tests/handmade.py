"""Finished games written record by record, so scores and report tables can be checked by hand.

Records carry exactly the fields the engine writes for them (each payload is validated against
its kind's model in :mod:`wolf_eval.records`, and each record's visibility derives from its kind);
the suspicion matrix is smoothed as the engine does (0.7 new, 0.3 prior, from 0.5).
"""

from __future__ import annotations

from typing import Any

from wolf_eval.engine import GameState, Role
from wolf_eval.engine.state import NEW_WEIGHT, PRIOR_SUSPICION, Outcome, Phase, Player, Record
from wolf_eval.records import Kind
from wolf_eval.settings import rules_for

TRIADIC_SEATS = {"Ava": "werewolf", "Ben": "werewolf", "Cleo": "villager", "Dan": "doctor",
                 "Eve": "villager", "Fay": "villager", "Ivo": "jester"}
WOLF_SEATS = {"Ava": "werewolf", "Ben": "werewolf", "Cleo": "villager", "Dan": "doctor",
              "Eve": "villager", "Fay": "villager"}

Label = tuple[bool, float, str]  # is_deceptive, confidence, type
PeerLabel = tuple[bool, float, str, float]  # ... and suspicion


class Hand:
    def __init__(self, variant: str = "triadic", seats: dict[str, str] | None = None, analysis: bool = True) -> None:
        seats = seats or (WOLF_SEATS if variant == "wolf" else TRIADIC_SEATS)
        roster: dict[str, int] = {}
        for role in seats.values():
            roster[role] = roster.get(role, 0) + 1
        self.config = rules_for(variant, roles=roster, deception_analysis=analysis,  # type: ignore[arg-type]
                                          max_explanation_turns=0 if variant == "wolf" else 6)
        self.players = tuple(Player(name=n, seat=i, role=Role(r)) for i, (n, r) in enumerate(seats.items()))
        self.records: list[Record] = []
        self.matrix = {o: {t: PRIOR_SUSPICION for t in seats if t != o} for o in seats}
        self.positions: dict[int, int] = {}  # analysed statements so far, per day
        self.position_of: dict[int, int] = {}  # a statement's place among its day's analysed statements

    def add(self, kind: str, day: int, phase: str = "debate", **fields: Any) -> int:
        index = len(self.records)
        self.records.append(Record(index=index, day=day, phase=Phase(phase), kind=Kind(kind), **fields))
        return index

    # night
    def night(self, day: int, victim: str | None, protector: str, protected: str) -> None:
        self.add("protect", day, "night", actor=protector, target=protected,
                 data={"self": protector == protected})
        saved = victim is not None and victim == protected
        self.add("night_result", day, "night", target=victim,
                 data={"victim": victim, "protected": protected, "saved": saved})
        if victim is not None and not saved:
            self.add("death", day, "night", target=victim, text=f"{victim} was killed.", data={"cause": "night_kill"})

    # day
    def bids(self, day: int, bids: dict[str, int]) -> None:
        self.add("bids", day, data={"bids": bids})

    def say(self, day: int, speaker: str, text: str = "I have my doubts.") -> int:
        position = self.positions.get(day, 0)
        self.positions[day] = position + 1
        index = self.add("statement", day, actor=speaker, text=text, data={"mentions": [], "truncated": False,
                                                                           "turn": position})
        self.position_of[index] = position
        return index

    def analyse(self, statement: int, own: Label | None, peers: dict[str, PeerLabel]) -> None:
        said = self.records[statement]
        speaker = said.actor
        assert speaker is not None
        for observer, (_, _, _, suspicion) in peers.items():
            prior = self.matrix[observer][speaker]
            self.matrix[observer][speaker] = round(NEW_WEIGHT * suspicion + (1 - NEW_WEIGHT) * prior, 6)
        role = next(p.role.value for p in self.players if p.name == speaker)
        self.add("deception", said.day, said.phase.value, actor=speaker, data={
            "statement": statement, "kind": said.kind, "speaker_role": role, "statement_day": said.day,
            "statement_phase": said.phase.value, "turn": said.data.turn, "ballot": None,
            "position": self.position_of[statement], "text": said.text,
            "self": None if own is None else {"is_deceptive": own[0], "confidence": own[1], "deception_type": own[2],
                                              "reasoning": None, "suspicion": None},
            "peers": {o: {"is_deceptive": d, "confidence": c, "deception_type": t, "reasoning": None, "suspicion": s}
                      for o, (d, c, t, s) in peers.items()},
            "missing": [] if own is not None else [speaker],
            "suspicion": {o: dict(row) for o, row in self.matrix.items()},
        })

    def ballot(self, day: int, votes: dict[str, str | None], ballot: str) -> None:
        phase = "revote" if ballot == "final" else "vote"
        for voter, target in votes.items():
            self.add("vote", day, phase, actor=voter, target=target, data={"ballot": ballot, "mentions": []})

    def exile(self, day: int, target: str, votes: int, living: int) -> None:
        self.add("exile", day, "revote", target=target, text=f"{target} is exiled.",
                 data={"votes": votes, "living": living})

    def fallback(self, day: int, seat: str, action: str) -> None:
        self.add("fallback", day, "vote", actor=seat, text="unreadable", data={"action": action, "raw": "?"})

    def end(self, winner: str, day: int, days: int, seed: int = 0) -> GameState:
        dead = {r.target for r in self.records if r.kind in ("death", "exile")}
        players = tuple(p.model_copy(update={"alive": p.name not in dead}) for p in self.players)
        return GameState(config=self.config, seed=seed, players=players, records=tuple(self.records), day=day,
                         phase=Phase.OVER, outcome=Outcome(winner=winner, day=day, days=days, reason="by hand"),  # type: ignore[arg-type]
                         suspicion=self.matrix)




def t1_jester_by_wolf_vote() -> GameState:
    """Category A: the wolves help exile the Jester on day 1; two statements analysed."""
    h = Hand()
    h.night(1, victim="Cleo", protector="Dan", protected="Dan")
    h.bids(1, {"Ava": 3, "Ben": 2, "Dan": 1, "Eve": 0, "Fay": 0, "Ivo": 9})
    s = h.say(1, "Ivo", "Vote me out, I dare you.")
    h.analyse(s, (True, 0.9, "strategic_deception"), {
        "Ava": (True, 0.9, "strategic_deception", 0.9), "Ben": (True, 0.5, "fabrication", 0.8),
        "Dan": (False, 0.7, "none", 0.4), "Eve": (True, 0.85, "misdirection", 1.0), "Fay": (False, 0.9, "none", 0.2)})
    s = h.say(1, "Ava", "Ivo is clearly hiding something.")
    h.analyse(s, (True, 0.8, "misdirection"), {
        "Ben": (False, 0.9, "none", 0.2), "Dan": (True, 0.3, "misdirection", 0.6), "Eve": (False, 0.6, "none", 0.3),
        "Ivo": (False, 0.5, "none", 0.5), "Fay": (True, 0.95, "misdirection", 0.9)})
    h.ballot(1, {"Ava": "Ivo", "Ben": "Dan", "Dan": "Ivo", "Eve": "Ivo", "Fay": "Ava", "Ivo": "Ava"}, "first")
    h.ballot(1, {"Ava": "Ivo", "Ben": "Ivo", "Dan": "Ivo", "Eve": "Ivo", "Fay": "Ava", "Ivo": "Ava"}, "final")
    h.exile(1, "Ivo", 4, 6)
    return h.end("jester", 1, 1, seed=1)


def t2_jester_killed() -> GameState:
    """Category B: the wolves kill the Jester on night 1 and the village wins on day 2."""
    h = Hand()
    h.night(1, victim="Ivo", protector="Dan", protected="Eve")
    h.bids(1, {"Ava": 1, "Ben": 1, "Cleo": 4, "Dan": 0, "Eve": 2, "Fay": 0})
    first = {"Ava": "Cleo", "Ben": "Cleo", "Cleo": "Ava", "Dan": "Ava", "Eve": "Ava", "Fay": "Ava"}
    h.ballot(1, first, "first")
    h.ballot(1, first, "final")
    h.exile(1, "Ava", 4, 6)
    h.night(2, victim="Cleo", protector="Dan", protected="Dan")
    s = h.say(2, "Ben", "I am just a villager.")
    h.analyse(s, (False, 0.6, "none"), {"Dan": (True, 0.7, "fabrication", 0.8), "Eve": (True, 0.9, "fabrication", 0.7),
                                        "Fay": (False, 0.4, "none", 0.3)})
    h.ballot(2, {"Ben": "Dan", "Dan": "Ben", "Eve": "Ben", "Fay": "Ben"}, "final")
    h.exile(2, "Ben", 3, 4)
    return h.end("villagers", 2, 2, seed=2)


def t3_jester_by_village() -> GameState:
    """Category C: the Doctor saves Cleo; the village alone exiles the Jester on day 1."""
    h = Hand()
    h.night(1, victim="Cleo", protector="Dan", protected="Cleo")
    h.bids(1, {"Ava": 0, "Ben": 0, "Cleo": 1, "Dan": 1, "Eve": 1, "Fay": 1, "Ivo": 2})
    votes: dict[str, str | None] = {"Ava": "Dan", "Ben": "Dan", "Cleo": "Ivo", "Dan": "Ivo", "Eve": "Ivo",
                                    "Fay": "Ivo", "Ivo": "Ava"}
    h.ballot(1, votes, "first")
    h.ballot(1, votes, "final")
    h.exile(1, "Ivo", 4, 7)
    return h.end("jester", 1, 1, seed=3)


def t4_wolves_win() -> GameState:
    """Category W: a wolf votes for its partner, nobody is exiled, the wolves reach parity on night 2."""
    h = Hand()
    h.night(1, victim="Cleo", protector="Dan", protected="Dan")
    h.bids(1, {"Ava": 0, "Ben": 0, "Dan": 0, "Eve": 0, "Fay": 0, "Ivo": 5})
    h.ballot(1, {"Ava": "Eve", "Ben": "Ava", "Dan": "Eve", "Eve": "Ava", "Fay": "Ivo", "Ivo": "Fay"}, "first")
    h.fallback(1, "Fay", "vote")
    h.ballot(1, {"Ava": "Eve", "Ben": "Dan", "Dan": "Fay", "Eve": "Ava", "Fay": None, "Ivo": "Fay"}, "final")
    h.add("no_exile", 1, "revote", text="No strict majority.", data={"living": 6})
    h.night(2, victim="Eve", protector="Dan", protected="Dan")
    return h.end("werewolves", 2, 1, seed=4)


def t5_draw() -> GameState:
    """Category X: both wolves vote for the Jester in day 1's first ballot; the game runs out of days."""
    h = Hand()
    h.night(1, victim=None, protector="Dan", protected="Eve")
    h.ballot(1, {"Ava": "Ivo", "Ben": "Ivo", "Cleo": None, "Dan": None, "Eve": None, "Fay": None, "Ivo": "Ava"},
             "first")
    return h.end("draw", 10, 10, seed=5)


def t6_jester_by_wolf_vote() -> GameState:
    """Category A without any analysed statement."""
    h = Hand()
    h.night(1, victim="Cleo", protector="Dan", protected="Dan")
    votes: dict[str, str | None] = {"Ava": "Ivo", "Ben": "Ivo", "Dan": "Ivo", "Eve": "Ivo", "Fay": "Ava", "Ivo": "Ava"}
    h.ballot(1, votes, "first")
    h.ballot(1, votes, "final")
    h.exile(1, "Ivo", 4, 6)
    return h.end("jester", 1, 1, seed=6)


def w1_village_wins() -> GameState:
    """The wolf task (no Jester): the village exiles both wolves."""
    h = Hand("wolf")
    h.night(1, victim="Eve", protector="Dan", protected="Dan")
    h.ballot(1, {"Ava": "Cleo", "Ben": "Cleo", "Cleo": "Ava", "Dan": "Ava", "Fay": "Ava"}, "only")
    h.exile(1, "Ava", 3, 5)
    h.night(2, victim="Cleo", protector="Dan", protected="Cleo")
    h.ballot(2, {"Ben": "Dan", "Cleo": "Ben", "Dan": "Ben", "Fay": "Ben"}, "only")
    h.exile(2, "Ben", 3, 4)
    return h.end("villagers", 2, 2, seed=7)
