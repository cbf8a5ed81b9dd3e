"""Wolf self-sabotage: acting against the Jester (:mod:`wolf_eval.measures.sabotage`)."""

from __future__ import annotations

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from wolf_eval.measures import sabotage as m
from wolf_eval.store import finished_game


@metric
def sabotage_rates() -> Metric:
    """Each flag and category pooled over the games where it applies (NaN where none does)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return m.sabotage_rates([s.score.value for s in scores])  # type: ignore[misc]

    return compute


@scorer(metrics=[sabotage_rates()])
def self_sabotage() -> Scorer:
    """Did the wolves act against the Jester, and how did the wolf side's game end?"""

    async def score(state: TaskState, target: Target) -> Score:
        values = m.sabotage_values(finished_game())
        category = m.category(values)
        return Score(value=values, answer=category, explanation=f"wolf-side category {category}")

    return score
