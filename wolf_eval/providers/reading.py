"""What a baseline bot reads off its observation: who said what about whom.

Only the Observation is read (the same facts the prompt shows), never the game
state, so the bots play under the same information sets as a model.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from wolf_eval.agents.observation import Observation
from wolf_eval.records import ANALYSED_KINDS, GameStart, Investigate, Kind

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
                return r.data.roles_in_play.get("jester", 0) > 0
        return False


def read(obs: Observation) -> Reading:
    rd = Reading(obs=obs)
    names = obs.players
    for r in obs.records:
        if isinstance(r.data, Investigate) and r.target is not None:
            rd.my_checks[r.target] = r.data.is_werewolf
        if r.kind not in ANALYSED_KINDS or r.actor is None:
            continue
        text = r.text or ""
        speaker = r.actor
        named = [n for n in names if n != speaker and re.search(rf"\b{n}\b", text)]
        if r.kind is Kind.VOTE:
            if r.day == obs.day and r.target:
                rd.votes_today[r.target] += 1
            continue
        rd.statements[speaker] += 1
        if r.day == obs.day:
            rd.spoke_today.add(speaker)
            rd.statements_today[speaker] += 1
        rd.last_speaker_mentions = named
        rd.jester_tells[speaker] += count_tells(text, JESTER_TELLS)
        rd.wolf_tells[speaker] += count_tells(text, WOLF_TELLS)
        if _SEER_CLAIM.search(text):
            rd.seer_claims.add(speaker)
            for n in named:
                if re.search(rf"\b{n}\b is a werewolf", text, re.I):
                    rd.seer_says_wolf.add(n)
                elif re.search(rf"\b{n}\b is not a werewolf", text, re.I):
                    rd.seer_says_clear.add(n)
        if _ACCUSE.search(text.lower()):
            for n in named:
                if r.day == obs.day:
                    rd.accused_today_by.setdefault(speaker, set()).add(n)
                rd.accused[n] += 1
                rd.accusations_by.setdefault(speaker, Counter())[n] += 1
    return rd
