"""Calibration and detection by speaker role (:mod:`wolf_eval.measures.calibration`).

The eval summary lists only what was measured: a role nobody spoke as, a type outside the
taxonomy or an empty bin is left out (the per-game scores keep every key, NaN where it does not apply).
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from wolf_eval.measures import calibration as m
from wolf_eval.measures.pooling import applicable, select
from wolf_eval.store import finished_game

#: The calibration figures the eval log shows (statement counts are the report's).
BY_ROLE = tuple(f"{r}_{k}" for r in m.ROLES
                for k in ("self_rate", "observer_rate", "gap", "accuracy", "f1", "suspicion"))


@metric
def calibration_by_role() -> Metric:
    """Per speaker role: self-rate, observer rate, gap, detection accuracy and F1, mean suspicion attracted."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return applicable(select(m.calibration_by_role([s.score.value for s in scores]), BY_ROLE))  # type: ignore[misc]

    return compute


@metric
def deception_type_shares() -> Metric:
    """Per speaker role, each deception type's share of the role's self-labelled statements."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return applicable(m.type_shares([s.score.value for s in scores]))  # type: ignore[misc]

    return compute


@metric
def confidence_calibration() -> Metric:
    """Observer deception flags binned by confidence: flags, mean confidence and hit rate per bin."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return applicable(m.confidence_bins([s.score.value for s in scores]))  # type: ignore[misc]

    return compute


@scorer(metrics=[calibration_by_role(), deception_type_shares(), confidence_calibration()])
def calibration() -> Scorer:
    """Counts behind self-rate, observer rate, detection and confidence calibration of one game."""

    async def score(state: TaskState, target: Target) -> Score:
        game = finished_game()
        values = m.calibration_values(game)
        if not game.config.deception_analysis:
            return Score(value=values, explanation="played without deception analysis (deception_analysis=false)")
        said = {r: int(values[f"{r}_statements"]) for r in m.ROLES if not math.isnan(values[f"{r}_statements"])}
        return Score(value=values, explanation="self-labelled statements by role: "
                     + ", ".join(f"{r} {n}" for r, n in said.items()))

    return score
