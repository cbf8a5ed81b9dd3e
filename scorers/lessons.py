"""Lesson scores: what the Jester's learning loop wrote after each game (:mod:`wolf_eval.measures.lessons`)."""

from __future__ import annotations

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from wolf_eval.lessons.tagger import CATEGORIES
from wolf_eval.measures import lessons as m
from wolf_eval.measures.pooling import select
from wolf_eval.store import current_record

#: The figures the eval log shows (the learning games and lessons in all are the report's).
SHOWN = ("added_per_game", *(f"order_{o}" for o in m.ORDERS), *CATEGORIES)


@metric
def lesson_shares() -> Metric:
    """Lessons added per game; the added lessons' shares by ToM order and by category, pooled over games."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return select(m.lesson_shares([s.score.value for s in scores]), SHOWN)  # type: ignore[misc]

    return compute


@scorer(metrics=[lesson_shares()])
def lessons() -> Scorer:
    """Counts of the lessons one game added, by ToM order and category (NaN without jester_learning)."""

    async def score(state: TaskState, target: Target) -> Score:
        record = current_record()
        values = m.lesson_values(record)
        if record.lessons_file is None:
            return Score(value=values, explanation="played without jester_learning")
        explanation = f"step {record.learning_step}: read {len(record.lessons_read)}, added {len(record.lessons_added)}"
        if record.lessons_problem:
            explanation += f" ({record.lessons_problem})"
        return Score(value=values, explanation=explanation)

    return score
