"""What a baseline bot reads off its observation: who said what about whom.

Only the Observation is read (the same facts the prompt shows), never the game
state, so the bots play under the same information sets as a model.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from wolf_eval.agents.observation import Observation
from wolf_eval.records import ANALYSED_KINDS, Death, Exile, GameStart, Investigate, Kind, Protect, Vote
from wolf_eval.vocabulary import Role

#: Self-incriminating theatrics: the loud way to court a vote.
JESTER_TELLS = (
    "maybe i am", "catch me", "or am i", "you'll never know", "i won't explain",
    "believe what you like", "who knows what i am", "go ahead and vote me",
)
#: Deflection: the quiet way to dodge one.
WOLF_TELLS = (
    "let's not rush", "we shouldn't be hasty", "no need to point fingers",
    "trust me", "too early to tell", "let's keep calm",
)
_ACCUSE = re.compile(r"\b(suspect|suspicious|wolf|werewolf|lying|liar|exile|vote|doubt|watch|eye on|dodging)\b")
_SEER_CLAIM = re.compile(r"i am the seer", re.I)


def count_tells(text: str, tells: tuple[str, ...]) -> int:
    low = text.lower()
    return sum(1 for t in tells if t in low)


@dataclass
class Reading:
    obs: Observation
    jester_tells: Counter[str] = field(default_factory=Counter)
    wolf_tells: Counter[str] = field(default_factory=Counter)
    accused: Counter[str] = field(default_factory=Counter)
    accusations_by: dict[str, Counter[str]] = field(default_factory=dict)
    votes_today: Counter[str] = field(default_factory=Counter)
    seer_says_wolf: set[str] = field(default_factory=set)
    seer_says_clear: set[str] = field(default_factory=set)
    seer_claims: set[str] = field(default_factory=set)
    my_checks: dict[str, bool] = field(default_factory=dict)
    statements: Counter[str] = field(default_factory=Counter)
    statements_today: Counter[str] = field(default_factory=Counter)
    accused_today_by: dict[str, set[str]] = field(default_factory=dict)
    last_speaker_mentions: list[str] = field(default_factory=list)
    spoke_today: set[str] = field(default_factory=set)

    def seer_claimants(self) -> list[str]:
        return sorted(self.seer_claims)

    @property
    def jester_in_play(self) -> bool:
        for r in self.obs.records:
            if isinstance(r.data, GameStart):
                return r.data.roles_in_play.get(Role.JESTER, 0) > 0
        return False


@lru_cache(maxsize=256)
def _named(name: str) -> re.Pattern[str]:
    """A player's name as a whole word, compiled once: every reading searches every statement for every name."""
    return re.compile(rf"\b{name}\b")


class Said(NamedTuple):
    """What one statement says, as ``read`` counts it: the same text by the same speaker says the same."""

    named: tuple[str, ...]  # the other players it names, in seat order
    jester_tells: int
    wolf_tells: int
    seer_claim: bool
    says_wolf: tuple[str, ...]  # under a Seer claim: the players it calls a werewolf
    says_clear: tuple[str, ...]  # ... and the players it calls no werewolf
    accuses: bool  # it has an accusing word, so every player it names counts as accused


@lru_cache(maxsize=8192)
def said(text: str, speaker: str, names: tuple[str, ...]) -> Said:
    """One statement's reading, cached: every later prompt of the game shows the statement again, and each
    bot's reading goes through the whole record at every decision."""
    named = tuple(n for n in names if n != speaker and _named(n).search(text))
    claim = _SEER_CLAIM.search(text) is not None
    says_wolf: list[str] = []
    says_clear: list[str] = []
    for n in named if claim else ():
        if re.search(rf"\b{n}\b is a werewolf", text, re.I):
            says_wolf.append(n)
        elif re.search(rf"\b{n}\b is not a werewolf", text, re.I):
            says_clear.append(n)
    return Said(named, count_tells(text, JESTER_TELLS), count_tells(text, WOLF_TELLS), claim, tuple(says_wolf),
                tuple(says_clear), _ACCUSE.search(text.lower()) is not None)


def read(obs: Observation) -> Reading:
    rd = Reading(obs=obs)
    names = tuple(obs.players)
    for r in obs.records:
        if isinstance(r.data, Investigate) and r.target is not None:
            rd.my_checks[r.target] = r.data.is_werewolf
        if r.kind not in ANALYSED_KINDS or r.actor is None:
            continue
        if r.kind is Kind.VOTE:
            if r.day == obs.day and r.target:
                rd.votes_today[r.target] += 1
            continue
        speaker = r.actor
        s = said(r.text or "", speaker, names)
        rd.statements[speaker] += 1
        if r.day == obs.day:
            rd.spoke_today.add(speaker)
            rd.statements_today[speaker] += 1
        rd.last_speaker_mentions = list(s.named)
        rd.jester_tells[speaker] += s.jester_tells
        rd.wolf_tells[speaker] += s.wolf_tells
        if s.seer_claim:
            rd.seer_claims.add(speaker)
            rd.seer_says_wolf.update(s.says_wolf)
            rd.seer_says_clear.update(s.says_clear)
        if s.accuses:
            for n in s.named:
                if r.day == obs.day:
                    rd.accused_today_by.setdefault(speaker, set()).add(n)
                rd.accused[n] += 1
                rd.accusations_by.setdefault(speaker, Counter())[n] += 1
    return rd


# --------------------------------------------------------------------------- the ledger of deeds

#: A player on the ballot who wants off it says so; a Jester, who wants to stay on it, does not.
_DENIAL = re.compile(r"\b(not an? (?:were)?wolf|not one of them|innocent"
                     r"|i am (?:just )?an? (?:villager|doctor|seer))\b")
_SENTENCE = re.compile(r"(?<=[.!?;:])\s+")


@lru_cache(maxsize=8192)
def accused_in(text: str, speaker: str, names: tuple[str, ...]) -> frozenset[str]:
    """The players a statement accuses, read sentence by sentence.

    ``read`` counts every name in a statement with any accusing word as accused, so "I suspect X;
    leave Y be" accuses Y too; here a name counts only in a sentence that accuses and does not
    clear it ("X is not a werewolf"). Every later prompt shows the statement again, hence the cache.
    """
    out: set[str] = set()
    for sentence in _SENTENCE.split(text):
        low = sentence.lower()
        if not _ACCUSE.search(low):
            continue
        for n in names:
            name = n.lower()
            if (n != speaker and re.search(rf"\b{name}\b", low)
                    and not re.search(rf"\b{name} is not an? (?:were)?wolf\b", low)):
                out.add(n)
    return frozenset(out)


@dataclass
class Ledger:
    """The public deeds of every seat (plus this seat's private facts), kept apart rather than summed.

    ``Reading`` folds what was said into one suspicion count; weighing what each faction wants needs
    the deeds themselves: who accused whom and on which day, who denied on the ballot and who did
    not, who voted for whom on which ballot, whom the night took and whom the ballot exiled.
    """

    obs: Observation
    wolves_in_play: int = 0
    jester_in_play: bool = False
    speeches: Counter[str] = field(default_factory=Counter)  # debate and explanation statements
    speeches_by_day: Counter[tuple[str, int]] = field(default_factory=Counter)
    targets_by_day: dict[tuple[str, int], set[str]] = field(default_factory=dict)
    jester_tells: Counter[str] = field(default_factory=Counter)  # statements with a self-incriminating line
    wolf_tells: Counter[str] = field(default_factory=Counter)  # statements with a deflecting line
    accusations: list[tuple[int, str, str]] = field(default_factory=list)  # (day, accuser, accused)
    defences: dict[str, list[bool]] = field(default_factory=dict)  # each defence: did it deny?
    ballots: list[tuple[int, str, str, str | None]] = field(default_factory=list)  # (day, ballot, voter, target)
    night_victims: list[tuple[int, str]] = field(default_factory=list)
    exiled: list[tuple[int, str]] = field(default_factory=list)
    spared: set[str] = field(default_factory=set)  # the Doctor's own saves: the wolves' target that night
    checks: dict[str, bool] = field(default_factory=dict)  # the Seer's own investigations
    seer_claims: dict[str, dict[str, bool]] = field(default_factory=dict)  # claimant -> {named: is wolf}


def ledger(obs: Observation) -> Ledger:
    """Sort the seat's records into deeds; reads the Observation only, like ``read``."""
    lg = Ledger(obs=obs)
    names = obs.players
    protected: dict[int, str] = {}
    quiet_dawns: set[int] = set()
    for r in obs.records:
        data = r.data
        if isinstance(data, GameStart):
            lg.wolves_in_play = data.roles_in_play.get(Role.WEREWOLF, 0)
            lg.jester_in_play = data.roles_in_play.get(Role.JESTER, 0) > 0
        elif isinstance(data, Investigate) and r.target is not None:
            lg.checks[r.target] = data.is_werewolf
        elif isinstance(data, Protect) and r.target is not None and r.actor == obs.seat:
            protected[r.day] = r.target
        elif isinstance(data, Death) and r.target is not None:
            lg.night_victims.append((r.day, r.target))
        elif r.kind is Kind.DAWN:
            quiet_dawns.add(r.day)
        elif isinstance(data, Exile) and r.target is not None:
            lg.exiled.append((r.day, r.target))
        elif isinstance(data, Vote) and r.actor is not None:
            lg.ballots.append((r.day, data.ballot, r.actor, r.target))
        elif r.kind in (Kind.STATEMENT, Kind.DEFENCE) and r.actor is not None:
            speaker, text = r.actor, r.text or ""
            low = text.lower()
            accused = accused_in(text, speaker, names)
            lg.accusations += [(r.day, speaker, n) for n in sorted(accused)]
            lg.targets_by_day.setdefault((speaker, r.day), set()).update(accused)
            if r.kind is Kind.DEFENCE:
                lg.defences.setdefault(speaker, []).append(bool(_DENIAL.search(low)))
            else:
                lg.speeches[speaker] += 1
                lg.speeches_by_day[(speaker, r.day)] += 1
            lg.jester_tells[speaker] += count_tells(text, JESTER_TELLS) > 0
            lg.wolf_tells[speaker] += count_tells(text, WOLF_TELLS) > 0
            if _SEER_CLAIM.search(text):
                claim = lg.seer_claims.setdefault(speaker, {})
                for n in names:
                    if re.search(rf"\b{n}\b is not a werewolf", text, re.I):
                        claim[n] = False
                    elif re.search(rf"\b{n}\b is a werewolf", text, re.I):
                        claim[n] = True
    lg.spared = {protected[d] for d in quiet_dawns if d in protected}
    return lg
