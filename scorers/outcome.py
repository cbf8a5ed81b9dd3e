"""The outcome score: who won, on which day, and how clean the game was."""

from __future__ import annotations

import math
from collections import Counter

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import store_as

from wolf_eval.engine import GameState
from wolf_eval.solvers.game import GameRecord, finished_game
from wolf_eval.stats import wilson

FACTIONS = ("villagers", "werewolves", "jester", "draw")


@metric
def faction_win_rates() -> Metric:
    """Each faction's win rate pooled over games, with a Wilson 95% interval.

    The Jester's rate is NaN for tasks without a Jester (its per-game value is NaN).
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        out: dict[str, float] = {}
        for faction in FACTIONS:
            values = [float(s.score.value[faction]) for s in scores]  # type: ignore[index]
            played = [v for v in values if not math.isnan(v)]
            rate, low, high = wilson(sum(played), len(played))
            out[faction] = rate
            out[f"{faction}_ci_low"] = low
            out[f"{faction}_ci_high"] = high
        return out

    return compute


@metric
def game_length() -> Metric:
    """Mean days per game."""

    def compute(scores: list[SampleScore]) -> float:
        days = [float(s.score.value["days"]) for s in scores]  # type: ignore[index]
        return sum(days) / len(days) if days else math.nan

    return compute


@metric
def fallback_rate() -> Metric:
    """Fallbacks per model call, pooled over games (sum of fallbacks / sum of calls)."""

    def compute(scores: list[SampleScore]) -> float:
        calls = sum(float(s.score.value["calls"]) for s in scores)  # type: ignore[index]
        fallbacks = sum(float(s.score.value["fallbacks"]) for s in scores)  # type: ignore[index]
        return fallbacks / calls if calls else math.nan

    return compute


def fallback_counts(game: GameState, seat_models: dict[str, str]) -> dict[str, int]:
    """Fallbacks keyed ``model|action``, from the game record."""
    counts: Counter[str] = Counter()
    for r in game.records:
        if r.kind == "fallback" and r.actor:
            counts[f"{seat_models.get(r.actor, '?')}|{r.data['action']}"] += 1
    return dict(counts)


@scorer(metrics=[faction_win_rates(), game_length(), fallback_rate()])
def outcome() -> Scorer:
    """Winner (one-hot per faction, Jester NaN where none is seated), days, calls and fallbacks."""

    async def score(state: TaskState, target: Target) -> Score:
        record = store_as(GameRecord)
        game = finished_game()
        assert game.outcome is not None
        winner = game.outcome.winner
        has_jester = any(p.role.value == "jester" for p in game.players)
        value: dict[str, float] = {f: float(winner == f) for f in FACTIONS}
        if not has_jester:
            value["jester"] = math.nan
        fallbacks = fallback_counts(game, record.seat_models)
        value["days"] = float(game.outcome.days)
        value["calls"] = float(record.calls)
        value["fallbacks"] = float(sum(fallbacks.values()))
        return Score(
            value=value,
            answer=winner,
            explanation=f"{winner} won on day {game.outcome.day}: {game.outcome.reason}",
            metadata={
                "winner": winner,
                "roles": {p.name: p.role.value for p in game.players},
                "seat_models": record.seat_models,
                "fallbacks_by_model_action": fallbacks,
            },
        )

    return score
