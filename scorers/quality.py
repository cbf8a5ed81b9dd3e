"""Play quality (SPEC section 7): how the Doctor protects and how the Jester bids.

Per game, as counts so the eval pools them (sum of numerators over sum of denominators):
``doctor_protects`` nights the Doctor protected someone, ``doctor_self_protects`` of them on
itself, ``doctor_saves`` nights its protection stopped the kill; ``jester_first_bid`` the
Jester's first bid (NaN if it never bid or none is seated) and ``jester_spoke_d1`` whether it
made a public statement on day 1 (NaN without a Jester). Fallbacks per model and action are in
the ``outcome`` score's metadata.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from wolf_eval.engine import GameState, Role
from wolf_eval.scorers.pooling import mean_where_applicable, pooled_ratio
from wolf_eval.solvers.game import finished_game

KEYS = ("doctor_protects", "doctor_self_protects", "doctor_saves", "jester_first_bid", "jester_spoke_d1")


def quality_values(game: GameState) -> dict[str, float]:
    protects = [r for r in game.records if r.kind == "protect"]
    saves = sum(1 for r in game.records if r.kind == "night_result" and r.data.get("saved"))
    values = {
        "doctor_protects": float(len(protects)),
        "doctor_self_protects": float(sum(1 for r in protects if r.data.get("self"))),
        "doctor_saves": float(saves),
        "jester_first_bid": math.nan,
        "jester_spoke_d1": math.nan,
    }
    jester = next((p.name for p in game.players if p.role is Role.JESTER), None)
    if jester is not None:
        bids = [r.data["bids"][jester] for r in game.records if r.kind == "bids" and jester in r.data["bids"]]
        if bids:
            values["jester_first_bid"] = float(bids[0])
        values["jester_spoke_d1"] = float(any(
            r.actor == jester and r.day == 1 and r.kind in ("statement", "defence") for r in game.records))
    return values


@metric
def play_quality() -> Metric:
    """Doctor self-protect and save rates per protection; the Jester's mean first bid and day-1 speaking rate."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return {
            "doctor_self_protect_rate": pooled_ratio(scores, "doctor_self_protects", "doctor_protects"),
            "doctor_save_rate": pooled_ratio(scores, "doctor_saves", "doctor_protects"),
            "jester_first_bid": mean_where_applicable(scores, "jester_first_bid"),
            "jester_spoke_d1": mean_where_applicable(scores, "jester_spoke_d1"),
        }

    return compute


@scorer(metrics=[play_quality()])
def quality() -> Scorer:
    """Counts behind the play-quality rates of one game."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=quality_values(finished_game()))

    return score
