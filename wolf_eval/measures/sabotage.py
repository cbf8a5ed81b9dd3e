"""Wolf self-sabotage (docs/design.md, § Scores; Triadic Werewolf section 5.4): acting against the Jester.

Per game, with a Jester seated:
- ``wolf_voted_jester_d1_first`` / ``_final``: a wolf voted for the Jester in day 1's first / final ballot;
- ``jester_exiled_d1``: the Jester was exiled on day 1;
- ``wolves_killed_jester``: the wolves' night kill landed on the Jester;
- one wolf-side category, one-hot: ``W`` wolves won; ``A`` Jester exiled with at least one wolf
  vote in the exiling ballot; ``C`` Jester exiled with no wolf vote; ``X`` draw; ``B`` wolves
  killed the Jester at night and then lost; ``D`` the village won otherwise.
Without a Jester every key is NaN except ``W``, ``D`` and ``X``. With a Jester killed on night 1
the three day-1 flags are NaN: nobody could vote for or exile it, so "no wolf voted for it" would be
not applicable counted as a no.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from wolf_eval.engine import GameState, Role
from wolf_eval.measures.pooling import Logged, Values, mean_where_applicable, pooled_sum
from wolf_eval.measures.quality import killed_before_day_one
from wolf_eval.records import Death, Kind, Vote
from wolf_eval.vocabulary import Winner

FLAGS = ("wolf_voted_jester_d1_first", "wolf_voted_jester_d1_final", "jester_exiled_d1", "wolves_killed_jester")
CATEGORIES = ("W", "A", "B", "C", "D", "X")


def _wolf_votes_for(game: GameState, target: str, day: int, ballots: tuple[str, ...]) -> int:
    wolves = set(game.wolves())
    return sum(1 for r in game.records if isinstance(r.data, Vote) and r.day == day and r.target == target
               and r.actor in wolves and r.data.ballot in ballots)


#: The categories a game without a Jester can fall in.
JESTERLESS = ("W", "D", "X")


@dataclass(frozen=True)
class SelfSabotage(Logged):
    """One game's self-sabotage flags (1, 0, or NaN where not applicable) and its wolf-side category."""

    category: str  # one of CATEGORIES
    jester_seated: bool
    wolf_voted_jester_d1_first: float = math.nan
    wolf_voted_jester_d1_final: float = math.nan
    jester_exiled_d1: float = math.nan
    wolves_killed_jester: float = math.nan

    def in_category(self, category: str) -> float:
        """1 if the game falls in ``category``, else 0; NaN for one a game without a Jester cannot fall in."""
        return float(category == self.category) if self.jester_seated or category in JESTERLESS else math.nan

    def flat(self) -> dict[str, float]:
        return {f: getattr(self, f) for f in FLAGS} | {c: self.in_category(c) for c in CATEGORIES}

    @classmethod
    def from_flat(cls, values: Values) -> SelfSabotage:
        """The flags and category a score's metadata logged (:meth:`flat`: the category one-hot)."""
        category = next(c for c in CATEGORIES if values.get(c) == 1.0)
        return cls(category, jester_seated=not math.isnan(float(values.get("A", math.nan))),
                   **{f: float(values.get(f, math.nan)) for f in FLAGS})


def sabotage_values(game: GameState) -> SelfSabotage:
    """The self-sabotage flags and the wolf-side category of one finished game."""
    assert game.outcome is not None
    winner = game.outcome.winner
    jesters = [p.name for p in game.players if p.role is Role.JESTER]
    category = {Winner.WEREWOLVES: "W", Winner.DRAW: "X", Winner.VILLAGERS: "D"}.get(winner, "D")
    if not jesters:
        return SelfSabotage(category, jester_seated=False)
    jester = jesters[0]
    exile = next((r for r in game.records if r.kind is Kind.EXILE and r.target == jester), None)
    killed = any(isinstance(r.data, Death) and r.target == jester and r.data.cause == "night_kill"
                 for r in game.records)
    if winner is Winner.JESTER:
        assert exile is not None
        category = "A" if _wolf_votes_for(game, jester, exile.day, ("final", "only")) else "C"
    elif winner is Winner.VILLAGERS and killed:
        category = "B"
    if killed_before_day_one(game, jester):
        return SelfSabotage(category, True, wolves_killed_jester=float(killed))
    return SelfSabotage(
        category, True,
        wolf_voted_jester_d1_first=float(_wolf_votes_for(game, jester, 1, ("first",)) > 0),
        wolf_voted_jester_d1_final=float(_wolf_votes_for(game, jester, 1, ("final",)) > 0),
        jester_exiled_d1=float(exile is not None and exile.day == 1), wolves_killed_jester=float(killed))


def sabotage_rates(games: Sequence[SelfSabotage]) -> dict[str, float]:
    """Each flag and category: its share of the games where it applies (NaN where none does)."""
    return {f: mean_where_applicable([getattr(g, f) for g in games]) for f in FLAGS} \
        | {c: mean_where_applicable([g.in_category(c) for g in games]) for c in CATEGORIES}


def wolf_side_counts(games: Sequence[SelfSabotage]) -> dict[str, float]:
    """Each wolf-side category's number of games (NaN where it applies to none)."""
    return {c: pooled_sum([g.in_category(c) for g in games]) for c in CATEGORIES}
