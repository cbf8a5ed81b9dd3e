"""Lesson scores (SPEC section 7): what the Jester's learning loop wrote after each game.

Per game with ``jester_learning``: ``lessons_read`` and ``lessons_added``, the added lessons by
ToM order (``order_1/2/3``) and by strategy category (multi-label, so categories need not sum to
the lessons added). Every key is NaN when learning is off.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import store_as

from wolf_eval.lessons.tagger import CATEGORIES
from wolf_eval.scorers.pooling import mean_where_applicable, pooled_ratio
from wolf_eval.solvers.game import GameRecord

ORDERS = (1, 2, 3)
KEYS = ("lessons_read", "lessons_added", *(f"order_{o}" for o in ORDERS), *(f"category_{c}" for c in CATEGORIES))


def lesson_values(record: GameRecord) -> dict[str, float]:
    if record.lessons_file is None:
        return dict.fromkeys(KEYS, math.nan)
    added = record.lessons_added
    values = {"lessons_read": float(len(record.lessons_read)), "lessons_added": float(len(added))}
    values |= {f"order_{o}": float(sum(1 for x in added if x["order"] == o)) for o in ORDERS}
    values |= {f"category_{c}": float(sum(1 for x in added if c in x["categories"])) for c in CATEGORIES}
    return values


@metric
def lesson_shares() -> Metric:
    """Lessons added per game; the added lessons' shares by ToM order and by category, pooled over games."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        out = {"added_per_game": mean_where_applicable(scores, "lessons_added")}
        if math.isnan(out["added_per_game"]):
            return out  # played without jester_learning: one NaN says so
        out |= {f"order_{o}": pooled_ratio(scores, f"order_{o}", "lessons_added") for o in ORDERS}
        out |= {c: pooled_ratio(scores, f"category_{c}", "lessons_added") for c in CATEGORIES}
        return out

    return compute


@scorer(metrics=[lesson_shares()])
def lessons() -> Scorer:
    """Counts of the lessons one game added, by ToM order and category (NaN without jester_learning)."""

    async def score(state: TaskState, target: Target) -> Score:
        record = store_as(GameRecord)
        values = lesson_values(record)
        if record.lessons_file is None:
            return Score(value=values, explanation="played without jester_learning")
        explanation = f"step {record.learning_step}: read {len(record.lessons_read)}, added {len(record.lessons_added)}"
        if record.lessons_problem:
            explanation += f" ({record.lessons_problem})"
        return Score(value=values, explanation=explanation)

    return score
