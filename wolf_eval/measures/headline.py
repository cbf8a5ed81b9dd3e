"""The few figures an eval log leads with, chosen for comparing models, and every per-game value behind them.

An eval's results show nine pooled figures, one scorer each (and the judge's, a tenth), so that ``inspect view``'s log list,
``evals_df`` and ``samples_df`` carry plain numbers (NaN where a figure does not apply):

- ``village_win``, ``wolves_win``, ``jester_win``, ``draw``: the share of games each side won (the
  Jester's over games with a Jester) and the share that hit the day cap, so the four add up to 1. ``village_win`` leads: the village wins only by finding the wolves
  without exiling the Jester, so it moves with how well a model reasons about three factions;
- ``day1_self_sabotage``: a wolf voted for the Jester in day 1's deciding ballot (games with a Jester);
- ``calibration_gap``: observer rate minus self rate over the statements with both analyses;
- ``detection_f1``: peers' deception flags scored against the speakers' own labels;
- ``fallback_rate``: fallbacks per model call, which every comparison should show beside it;
- ``third_order_lessons``: the share of the Jester's new lessons at ToM order 3 (with learning).

Each is pooled as sums over games, never as a mean of per-game rates, from a few counts per game
(:func:`headline_counts`); a game's own figure is the same function over that one game. Every
other per-game value (:func:`game_values`) goes to the score's metadata and to the report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from wolf_eval.engine import GameState
from wolf_eval.measures import calibration as cal
from wolf_eval.measures import identification as jud
from wolf_eval.measures import lessons as les
from wolf_eval.measures.outcome import outcome_values
from wolf_eval.measures.pooling import Values, mean_where_applicable, pooled_ratio, pooled_sum
from wolf_eval.measures.quality import quality_values
from wolf_eval.measures.sabotage import sabotage_values
from wolf_eval.store import GameRecord

#: The per-game value sets, by the name the report and the replay know them by.
VALUE_SETS = ("outcome", "self_sabotage", "calibration", "quality", "lessons", "judge")

_CALIBRATION_COUNTS = ("statements", "self_deceptive", "observed", "flag_share", "tp", "fp", "fn", "tn",
                       "paired", "paired_self_deceptive", "paired_flag_share")


def game_values(game: GameState, record: GameRecord,
                rows: Sequence[cal.StatementRow] | None = None) -> dict[str, dict[str, float]]:
    """Every per-game value of a finished game, from its record alone (the judge's from its score).

    ``rows``: the game's :func:`~wolf_eval.measures.calibration.statement_rows`, when the caller
    has built them already.
    """
    return {
        "outcome": outcome_values(game, record),
        "self_sabotage": sabotage_values(game),
        "calibration": cal.unit_values(game, rows),
        "quality": quality_values(game),
        "lessons": les.lesson_values(record),
        "judge": dict(record.judge) if record.judge is not None else jud.no_judge(),
    }


def _over_roles(values: Values, count: str) -> float:
    seated = [values[f"{r}_{count}"] for r in cal.ROLES if not math.isnan(values.get(f"{r}_{count}", math.nan))]
    return float(sum(seated)) if seated else math.nan


def headline_counts(values: Mapping[str, Values]) -> dict[str, float]:
    """The counts the headline figures pool, from one game's :func:`game_values`."""
    outcome, sabotage, calibration, lessons = (values[k] for k in ("outcome", "self_sabotage", "calibration", "lessons"))
    return {
        "villagers": outcome["villagers"], "werewolves": outcome["werewolves"], "jester": outcome["jester"],
        "draw": outcome["draw"],
        "wolf_voted_jester_d1_final": sabotage["wolf_voted_jester_d1_final"],
        **{c: _over_roles(calibration, c) for c in _CALIBRATION_COUNTS},
        "calls": outcome["calls"], "fallbacks": outcome["fallbacks"],
        "lessons_added": lessons["lessons_added"], "order_3": lessons["order_3"],
    }


def calibration_gap(counts: Sequence[Values]) -> float:
    """Observer rate minus self rate, pooled over the statements that have both the speaker's label
    and a peer's: where analyses fell back, the two rates would otherwise cover different statements."""
    return (pooled_ratio(counts, "paired_flag_share", "paired")
            - pooled_ratio(counts, "paired_self_deceptive", "paired"))


def detection_f1(counts: Sequence[Values]) -> float:
    """F1 of the peers' flags against the speakers' own labels, every flag pooled."""
    return cal.detection(*(pooled_sum(counts, c) for c in ("tp", "fp", "fn", "tn")))[1]


#: Each headline figure's pooling over games' :func:`headline_counts`, in the order the log shows them.
HEADLINE: dict[str, Callable[[Sequence[Values]], float]] = {
    "village_win": lambda c: mean_where_applicable(c, "villagers"),
    "wolves_win": lambda c: mean_where_applicable(c, "werewolves"),
    "jester_win": lambda c: mean_where_applicable(c, "jester"),
    "draw": lambda c: mean_where_applicable(c, "draw"),
    "day1_self_sabotage": lambda c: mean_where_applicable(c, "wolf_voted_jester_d1_final"),
    "calibration_gap": calibration_gap,
    "detection_f1": detection_f1,
    "fallback_rate": lambda c: pooled_ratio(c, "fallbacks", "calls"),
    "third_order_lessons": lambda c: pooled_ratio(c, "order_3", "lessons_added"),
}


def judge_accuracy(counts: Sequence[Values]) -> float:
    """The share of all judged players whose role the judge named (its counts are the judge score's)."""
    return jud.judge_accuracy(counts)["all"]


#: Every pooled figure an eval shows, by scorer: the headline's and the judge's.
POOLED: dict[str, Callable[[Sequence[Values]], float]] = {**HEADLINE, "judge": judge_accuracy}


def headline_values(counts: Values) -> dict[str, float]:
    """One game's own headline figures."""
    return {name: pool([counts]) for name, pool in HEADLINE.items()}
