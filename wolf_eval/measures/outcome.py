"""Who won, on which day, and how clean the game was: win rates, game length and fallbacks.

Per game (:func:`outcome_values`, an :class:`Outcome`): the winner, logged one-hot per faction
(``jester`` NaN where no Jester is seated), ``days`` played, model ``calls``, the ``decisions`` they asked,
``fallbacks``, ``reasks`` (decisions asked a second time) and the ``day_cap``. Pooled: each faction's win
rate with its 95% interval (Wilson's, continuity-corrected), mean days, fallbacks per call, and, over games in play
order, the win rates of the first and second half and the Jester's learning curve.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from wolf_eval.engine import Action, GameState, Role
from wolf_eval.measures.pooling import Logged, Values, applying, mean_where_applicable, pooled_ratio, pooled_sum
from wolf_eval.measures.role_play import refused_fallback
from wolf_eval.records import FallbackNote
from wolf_eval.stats import wilson_cc
from wolf_eval.store import GameRecord
from wolf_eval.vocabulary import Winner

#: The outcome keys: each way a game can end.
FACTIONS = tuple(Winner)
CURVE_BLOCK = 5  # games per block of the learning curve


def fallback_counts(game: GameState, seat_models: Mapping[str, str]) -> dict[tuple[str, Action], int]:
    """Fallbacks keyed by (the seat's model, ``?`` if unknown; the action), from the game record. A deceiving
    seat's refusal is counted as a refusal (:mod:`wolf_eval.measures.role_play`), not here."""
    counts: Counter[tuple[str, Action]] = Counter()
    for r in game.records:
        if isinstance(r.data, FallbackNote) and r.actor and not refused_fallback(game, r):
            counts[(seat_models.get(r.actor, "?"), r.data.action)] += 1
    return dict(counts)


def logged_fallbacks(counts: Mapping[tuple[str, Action], int]) -> dict[str, int]:
    """Fallback counts as a score's metadata logs them (``fallbacks_by_model_action``): keyed ``model|action``."""
    return {f"{model}|{action}": n for (model, action), n in counts.items()}


@dataclass(frozen=True)
class Outcome(Logged):
    """How one game ended and what it took: the winner, whether a Jester was seated, and the game's counts."""

    winner: Winner
    jester_seated: bool
    days: float
    calls: float
    decisions: float  # the decisions the calls asked (before 0.4.0 every call asked one)
    fallbacks: float
    reasks: float  # decisions a reply left unanswered and a second call asked again (calls=per_seat, since 0.5.0)
    day_cap: float = math.nan  # the days the game could last (max_days); NaN in a log written before it was kept

    def won(self, side: Winner) -> float:
        """1 if ``side`` won, else 0; NaN for the Jester where none is seated (it could not win)."""
        return math.nan if side is Winner.JESTER and not self.jester_seated else float(self.winner == side)

    @property
    def length(self) -> tuple[float, float]:
        """The days the game lasted and its day cap: what decides whether a headline's interval over its games is
        widened for games of another length (:func:`wolf_eval.resample.one_length`)."""
        return (self.days, self.day_cap)

    def flat(self) -> dict[str, float]:
        counts = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("winner", "jester_seated")}
        return {str(side): self.won(side) for side in FACTIONS} | counts

    @classmethod
    def from_flat(cls, values: Values) -> Outcome:
        """The outcome a score's metadata logged (:meth:`flat`: the winner one-hot). A release whose every call
        asked one decision logged no decisions: its calls are its decisions; one before re-asks logged none."""
        winner = next(side for side in FACTIONS if values.get(str(side)) == 1.0)
        calls = float(values.get("calls", math.nan))
        return cls(winner, jester_seated=not math.isnan(float(values.get(str(Winner.JESTER), math.nan))),
                   days=float(values.get("days", math.nan)), calls=calls,
                   decisions=float(values.get("decisions", calls)), fallbacks=float(values.get("fallbacks", math.nan)),
                   reasks=float(values.get("reasks", 0.0)), day_cap=float(values.get("day_cap", math.nan)))


def outcome_values(game: GameState, record: GameRecord) -> Outcome:
    """The winner, days, calls, decisions, fallbacks and re-asks of one game."""
    assert game.outcome is not None
    return Outcome(
        winner=Winner(game.outcome.winner), jester_seated=any(p.role is Role.JESTER for p in game.players),
        days=float(game.outcome.days), calls=float(record.calls),
        # the seats' usage counts the decisions their calls asked; before 0.4.0 every call asked one
        decisions=float(sum(u.decisions for u in record.usage.values()) or record.calls),
        fallbacks=float(sum(fallback_counts(game, record.seat_models).values())),
        reasks=float(sum(u.reasks for u in record.usage.values())), day_cap=float(game.config.max_days))


@dataclass(frozen=True)
class WinRate:
    """A side's win rate over the games where it could win, its 95% interval (continuity-corrected Wilson), its wins."""

    rate: float
    low: float
    high: float
    wins: float
    games: int  # the games where the side could win


def win_rates(games: Sequence[Outcome]) -> dict[Winner, WinRate]:
    """Each way a game can end: its rate over the games where it can happen, interval and count."""
    out: dict[Winner, WinRate] = {}
    for winner in FACTIONS:
        won = [g.won(winner) for g in games]
        played = applying(won)
        out[winner] = WinRate(*wilson_cc(sum(played), len(played)), pooled_sum(won), len(played))
    return out


def mean_days(games: Sequence[Outcome]) -> float:
    """Mean days per game."""
    return mean_where_applicable([g.days for g in games])


def calls_per_game(games: Sequence[Outcome]) -> float:
    """Mean model calls per game."""
    return mean_where_applicable([g.calls for g in games])


def fallback_rate(games: Sequence[Outcome]) -> float:
    """Fallbacks per decision asked (sum of fallbacks / sum of decisions): a joint call's parts fall back
    one by one, so its decisions, not its calls, are what can fall back."""
    return pooled_ratio([g.fallbacks for g in games], [g.decisions for g in games])


def fallbacks_by_model_action(
        counts: Sequence[Mapping[tuple[str, Action], int]]) -> dict[tuple[str, Action], dict[str, float]]:
    """Per (seat model, action), sorted: fallbacks over the games and fallbacks per game."""
    total: Counter[tuple[str, Action]] = Counter()
    for game in counts:
        total.update(game)
    return {key: {"fallbacks": n, "per_game": n / len(counts)} for key, n in sorted(total.items())}


@dataclass(frozen=True)
class Halves:
    """A side's win rate over the first and the second half of the games in play order."""

    first: float
    second: float

    @property
    def change(self) -> float:
        return self.second - self.first


def halves(games: Sequence[Outcome]) -> dict[Winner, Halves]:
    """Each faction's win rate over the first and the second half of the games (in play order)."""
    half = len(games) // 2
    first, second = games[:half], games[half:]
    return {w: Halves(*(mean_where_applicable([g.won(w) for g in part]) for part in (first, second)))
            for w in (Winner.VILLAGERS, Winner.WEREWOLVES, Winner.JESTER)}


def learning_curve(games: Sequence[Outcome]) -> dict[str, Any]:
    """The Jester's win rate over consecutive blocks of games in play order, and cumulatively after each game.

    Empty when no game seats a Jester.
    """
    wins = [g.won(Winner.JESTER) for g in games]
    if not applying(wins):
        return {}
    out: dict[str, Any] = {"games": len(wins), "cumulative": [sum(wins[: i + 1]) / (i + 1) for i in range(len(wins))]}
    for start in range(0, len(wins), CURVE_BLOCK):
        block = wins[start:start + CURVE_BLOCK]
        label = f"games {start + 1}–{start + len(block)}" if len(block) > 1 else f"game {start + 1}"
        out[label] = sum(block) / len(block)
    return out
