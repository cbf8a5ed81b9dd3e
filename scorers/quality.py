"""Play quality: how the Doctor protects and how the Jester bids (:mod:`wolf_eval.measures.quality`)."""

from __future__ import annotations

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from wolf_eval.measures import quality as m
from wolf_eval.store import finished_game


@metric
def play_quality() -> Metric:
    """Doctor self-protect and save rates per protection; the Jester's mean first bid and day-1 speaking rate."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return m.play_quality([s.score.value for s in scores])  # type: ignore[misc]

    return compute


@scorer(metrics=[play_quality()])
def quality() -> Scorer:
    """Counts behind the play-quality rates of one game."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=m.quality_values(finished_game()))

    return score
