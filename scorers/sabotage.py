"""Wolf self-sabotage (SPEC section 7; Triadic Werewolf section 5.4): acting against the Jester.

Per game, with a Jester seated:
- ``wolf_voted_jester_d1_first`` / ``_final``: a wolf voted for the Jester in day 1's first / final ballot;
- ``jester_exiled_d1``: the Jester was exiled on day 1;
- ``wolves_killed_jester``: the wolves' night kill landed on the Jester;
- one wolf-side category, one-hot: ``W`` wolves won; ``A`` Jester exiled with at least one wolf
  vote in the exiling ballot; ``C`` Jester exiled with no wolf vote; ``X`` draw; ``B`` wolves
  killed the Jester at night and then lost; ``D`` the village won otherwise.
Without a Jester every key is NaN except ``W``, ``D`` and ``X``.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from wolf_eval.engine import GameState, Role
from wolf_eval.scorers.pooling import mean_where_applicable
from wolf_eval.solvers.game import finished_game

FLAGS = ("wolf_voted_jester_d1_first", "wolf_voted_jester_d1_final", "jester_exiled_d1", "wolves_killed_jester")
CATEGORIES = ("W", "A", "B", "C", "D", "X")


def _wolf_votes_for(game: GameState, target: str, day: int, ballots: tuple[str, ...]) -> int:
    wolves = set(game.wolves())
    return sum(1 for r in game.records if r.kind == "vote" and r.day == day and r.target == target
               and r.actor in wolves and r.data.get("ballot") in ballots)


def sabotage_values(game: GameState) -> dict[str, float]:
    """The self-sabotage flags and the wolf-side category of one finished game."""
    assert game.outcome is not None
    winner = game.outcome.winner
    jesters = [p.name for p in game.players if p.role is Role.JESTER]
    values = {k: math.nan for k in (*FLAGS, *CATEGORIES)}
    category = {"werewolves": "W", "draw": "X", "villagers": "D"}.get(winner)
    if not jesters:
        values.update({c: float(c == category) for c in ("W", "D", "X")})
        return values
    jester = jesters[0]
    exile = next((r for r in game.records if r.kind == "exile" and r.target == jester), None)
    killed = any(r.kind == "death" and r.target == jester and r.data.get("cause") == "night_kill"
                 for r in game.records)
    values["wolf_voted_jester_d1_first"] = float(_wolf_votes_for(game, jester, 1, ("first",)) > 0)
    values["wolf_voted_jester_d1_final"] = float(_wolf_votes_for(game, jester, 1, ("final",)) > 0)
    values["jester_exiled_d1"] = float(exile is not None and exile.day == 1)
    values["wolves_killed_jester"] = float(killed)
    if winner == "jester":
        assert exile is not None
        category = "A" if _wolf_votes_for(game, jester, exile.day, ("final", "only")) else "C"
    elif winner == "villagers" and killed:
        category = "B"
    values.update({c: float(c == category) for c in CATEGORIES})
    return values


@metric
def sabotage_rates() -> Metric:
    """Each flag and category pooled over the games where it applies (NaN where none does)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return {key: mean_where_applicable(scores, key) for key in (*FLAGS, *CATEGORIES)}

    return compute


@scorer(metrics=[sabotage_rates()])
def self_sabotage() -> Scorer:
    """Did the wolves act against the Jester, and how did the wolf side's game end?"""

    async def score(state: TaskState, target: Target) -> Score:
        values = sabotage_values(finished_game())
        category = next((c for c in CATEGORIES if values[c] == 1.0), None)
        return Score(value=values, answer=category, explanation=f"wolf-side category {category}")

    return score
