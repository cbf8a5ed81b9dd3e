"""What two models are compared on: each question's counts from one game of a faction's seats, and its figure.

A question is a figure of one faction's play that every game defines from records it already
keeps: whether the faction won; how well its observers' suspicion picked out the wolves at each
ballot (detection against the truth, :mod:`wolf_eval.measures.truth`); how little the suspicion of
the players around its wolves singled them out at each ballot, or how high its Jester stood in the
suspicion it courts (deception against the truth, :mod:`wolf_eval.measures.deception`: the wolves'
evasion, the Jester's rank in suspicion, each the equal-weight mean over the observer roles it aims
at). Against reference opponents the observers are the same players for both models, so a difference
of evasion is the two wolf models' deception and nothing else. A game gives a question's
counts for the seats one model played in one faction; the figure of a set of games is the figure
of their summed counts (a ratio of sums, so a game weighs by its pairs, never a mean of per-game
rates), and one game's figure, a number in [0, 1], is what a sequential comparison differences
deal by deal (:mod:`wolf_eval.analysis.sequential`).

The comparison tables (:mod:`wolf_eval.analysis.compare`), the stopping rule and the planner
(:mod:`wolf_eval.analysis.plan`) read questions only through :data:`QUESTIONS`. A new question is one
more :class:`Question` there, then compared, stopped on and planned for with no other change.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from wolf_eval.engine import GameState
from wolf_eval.measures import deception as dec
from wolf_eval.measures import truth
from wolf_eval.measures.pooling import logged_name
from wolf_eval.measures.rates import Auroc, ratio
from wolf_eval.vocabulary import Faction, Role


@dataclass(frozen=True)
class Question:
    """One figure two models can be compared on, in the factions it applies to."""

    name: str  # the prefix of its columns in a comparison's rows, and its name in the tables
    label: str  # what it measures, as the tables print it
    factions: frozenset[Faction]  # the factions whose seats it scores
    columns: tuple[str, ...]  # its per-game counts, in the order ``figure`` reads them
    counts: Callable[[GameState, Faction, frozenset[str]], Sequence[float]]  # one game's, for the faction's seats
    figure: Callable[[Any], Any]  # the figure of summed counts (rows in ``columns`` order), element-wise on arrays
    spread_at: Callable[[float], float] | None = None  # one game's sd at a value, where the value fixes it

    def applies(self, faction: Faction) -> bool:
        return faction in self.factions

    def per_game(self, counts: np.ndarray) -> np.ndarray:
        """Each game's own figure from its counts ((games, columns)); NaN where a game does not define it."""
        return np.asarray(self.figure(np.asarray(counts, dtype=float).T), dtype=float)


def _won(game: GameState, faction: Faction, seats: frozenset[str]) -> tuple[float, float]:
    """1 for a game the faction won, and the game counted once."""
    assert game.outcome is not None
    return (float(game.outcome.winner == faction), 1.0)


def _detected(game: GameState, faction: Faction, seats: frozenset[str]) -> tuple[float, float, float]:
    """The faction's non-wolf seats' AUROC counts for "is a wolf" over their suspicion rows at every ballot."""
    found = [d.wolves for seat, d in truth.seat_detection(game).items() if seat in seats]
    pooled = sum(found, Auroc())
    return (pooled.concordant, pooled.ties, pooled.pairs)


#: The seat model a deceiving faction's own seats are counted under when its counts are read for one game.
MINE = "mine"


def _deceived(role: Role) -> Callable[[GameState, Faction, frozenset[str]], list[float]]:
    """The counts of a deceiving role's figure (:func:`wolf_eval.measures.deception.columns`) for the faction's
    seats, seen by every observer of the other seats."""
    def counts(game: GameState, faction: Faction, seats: frozenset[str]) -> list[float]:
        seen = dec.game_deception(game, {p.name: MINE if p.name in seats else p.name for p in game.players})
        return dec.columns(role, dec.seen_by(seen, role, MINE))

    return counts


def _aimed(role: Role, faction: Faction, label: str) -> Question:
    """A deceiving role's own figure against the truth as a question of its faction."""
    names = tuple(logged_name(dec.AIM_NAMES[role], o.value, c) for o in dec.AIMED_AT[role] for c in dec.COLUMNS)
    return Question(dec.AIM_NAMES[role], label, frozenset({faction}), names, _deceived(role),
                    dec.aim_figures(role)[dec.AIM_NAMES[role]])


WIN = Question("win", "win rate", frozenset(Faction), ("won", "played"), _won, lambda s: ratio(s[0], s[1]),
               lambda p: math.sqrt(p * (1 - p)))
DETECTION = Question("detection", "detection against the truth (per-ballot AUROC for wolves)",
                     frozenset({Faction.VILLAGERS}), ("detect_concordant", "detect_ties", "detect_pairs"),
                     _detected, lambda s: Auroc(s[0], s[1], s[2]).value)
EVASION = _aimed(Role.WEREWOLF, Faction.WEREWOLVES, "evasion against the truth (per-ballot 1 − AUROC)")
SUSPICION_RANK = _aimed(Role.JESTER, Faction.JESTER, "rank in suspicion against the truth (per-ballot AUROC)")
#: Every question a comparison asks, in the order its tables print them.
QUESTIONS: tuple[Question, ...] = (WIN, DETECTION, EVASION, SUSPICION_RANK)


def game_counts(game: GameState, faction: Faction, seats: frozenset[str]) -> dict[str, float]:
    """Every question's counts for one faction's seats in one game, as a comparison row's columns."""
    out: dict[str, float] = {}
    for q in QUESTIONS:
        values = q.counts(game, faction, seats) if q.applies(faction) else (np.nan,) * len(q.columns)
        out |= dict(zip(q.columns, (float(v) for v in values), strict=True))
    return out


def asked(faction: Faction) -> list[Question]:
    """The questions that apply to a faction."""
    return [q for q in QUESTIONS if q.applies(faction)]
