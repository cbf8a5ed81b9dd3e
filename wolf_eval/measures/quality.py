"""Play quality (docs/design.md, § Scores): how the Doctor protects and how the Jester bids.

Per game, as counts so they pool over games: ``doctor_protects`` nights the Doctor protected
someone, ``doctor_self_protects`` of them on itself, ``doctor_saves`` nights its protection
stopped the kill (all three NaN without a Doctor: no protection to count, not none made; the
Doctor acts on night 1 alongside the kill, so a seated Doctor always had its chance);
``jester_first_bid`` the Jester's first bid (NaN if it never bid or none is seated) and
``jester_spoke_d1`` whether it made a public statement on day 1 (NaN without a Jester, and for a
Jester killed on night 1, who never had the chance: not applicable, not a no). Fallbacks per
model and action are in :mod:`wolf_eval.measures.outcome`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

from wolf_eval.engine import GameState, Role
from wolf_eval.measures.pooling import (
    Logged,
    Values,
    count_where_applicable,
    mean_where_applicable,
    pooled_ratio,
    pooled_sum,
)
from wolf_eval.records import SPEECH_KINDS, Bids, Death, NightResult, Phase, Protect


def killed_before_day_one(game: GameState, name: str) -> bool:
    """Whether ``name`` died on night 1, before the first day: no day measure applies to them."""
    return any(isinstance(r.data, Death) and r.target == name and r.day == 1 and r.phase is Phase.NIGHT
               for r in game.records)


@dataclass(frozen=True)
class PlayCounts(Logged):
    """One game's Doctor protections and the Jester's first bid and day-1 speech (NaN where not applicable)."""

    doctor_protects: float = math.nan
    doctor_self_protects: float = math.nan
    doctor_saves: float = math.nan
    jester_first_bid: float = math.nan
    jester_spoke_d1: float = math.nan

    def flat(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_flat(cls, values: Values) -> PlayCounts:
        """The counts a score's metadata logged (:meth:`flat`); NaN for one it lacks."""
        return cls(**{f.name: float(values.get(f.name, math.nan)) for f in fields(cls)})


#: The counts' logged names.
KEYS = tuple(f.name for f in fields(PlayCounts))


def quality_values(game: GameState) -> PlayCounts:
    counts = PlayCounts()
    if any(p.role is Role.DOCTOR for p in game.players):
        protects = [r.data for r in game.records if isinstance(r.data, Protect)]
        saves = sum(1 for r in game.records if isinstance(r.data, NightResult) and r.data.saved)
        counts = PlayCounts(float(len(protects)), float(sum(1 for d in protects if d.self)), float(saves))
    jester = next((p.name for p in game.players if p.role is Role.JESTER), None)
    if jester is not None and not killed_before_day_one(game, jester):
        bids = [r.data.bids[jester] for r in game.records if isinstance(r.data, Bids) and jester in r.data.bids]
        spoke = any(r.actor == jester and r.day == 1 and r.kind in SPEECH_KINDS for r in game.records)
        counts = replace(counts, jester_first_bid=float(bids[0]) if bids else math.nan, jester_spoke_d1=float(spoke))
    return counts


def play_quality(counts: Sequence[PlayCounts]) -> dict[str, float]:
    """Doctor self-protect and save rates per protection; the Jester's mean first bid and day-1 speaking rate.

    Each with its n (``_n``): the protections the Doctor rates are over, the games the Jester's figures
    apply to (a Jester killed on night 1 is left out, not counted as silent).
    """
    protects = [c.doctor_protects for c in counts]
    bids, spoke = [c.jester_first_bid for c in counts], [c.jester_spoke_d1 for c in counts]
    return {
        "doctor_self_protect_rate": pooled_ratio([c.doctor_self_protects for c in counts], protects),
        "doctor_save_rate": pooled_ratio([c.doctor_saves for c in counts], protects),
        "doctor_protects_n": pooled_sum(protects),
        "jester_first_bid": mean_where_applicable(bids),
        "jester_first_bid_n": float(count_where_applicable(bids)),
        "jester_spoke_d1": mean_where_applicable(spoke),
        "jester_spoke_d1_n": float(count_where_applicable(spoke)),
    }
