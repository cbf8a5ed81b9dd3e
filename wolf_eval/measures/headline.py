"""The few figures an eval log leads with, chosen for comparing models, and every per-game value behind them.

An eval's results show nine pooled figures, one scorer each (and the judge's, a tenth), so that
``inspect view``'s log list, ``evals_df`` and ``samples_df`` carry plain numbers (NaN where a figure
does not apply):

- ``village_win``, ``wolves_win``, ``jester_win``, ``draw``: the share of games each side won (the
  Jester's over games with a Jester) and the share that hit the day cap, so the four add up to 1.
  ``village_win`` leads: the village wins only by finding the wolves without exiling the Jester, so
  it moves with how well a model reasons about three factions;
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
from dataclasses import dataclass

from wolf_eval.engine import GameState
from wolf_eval.measures import calibration as cal
from wolf_eval.measures import identification as jud
from wolf_eval.measures import lessons as les
from wolf_eval.measures.outcome import FACTIONS, outcome_values
from wolf_eval.measures.pooling import Values
from wolf_eval.measures.quality import quality_values
from wolf_eval.measures.rates import Confusion, LabelRates, ratio
from wolf_eval.measures.sabotage import sabotage_values
from wolf_eval.store import GameRecord
from wolf_eval.vocabulary import Winner

#: The per-game value sets, by the name the report and the replay know them by.
VALUE_SETS = ("outcome", "self_sabotage", "calibration", "quality", "lessons", "judge")


@dataclass(frozen=True)
class GameValues:
    """Every per-game value of a finished game: fixed-name value sets, and the typed calibration counts."""

    outcome: Mapping[str, float]
    self_sabotage: Mapping[str, float]
    calibration: cal.UnitCalibration
    quality: Mapping[str, float]
    lessons: Mapping[str, float]
    judge: Mapping[str, float]

    def flat(self) -> dict[str, dict[str, float]]:
        """The values as a score's metadata logs them (``values``) and a replay compares them."""
        return {"outcome": dict(self.outcome), "self_sabotage": dict(self.self_sabotage),
                "calibration": self.calibration.flat(), "quality": dict(self.quality),
                "lessons": dict(self.lessons), "judge": dict(self.judge)}


def game_values(game: GameState, record: GameRecord, rows: Sequence[cal.StatementRow] | None = None,
                calibration: cal.UnitCalibration | None = None) -> GameValues:
    """Every per-game value of a finished game, from its record alone (the judge's from its score).

    ``rows``: the game's :func:`~wolf_eval.measures.calibration.statement_rows`, and ``calibration``
    its :func:`~wolf_eval.measures.calibration.unit_calibration` over all of them, when the caller has
    built them already.
    """
    return GameValues(
        outcome=outcome_values(game, record), self_sabotage=sabotage_values(game),
        calibration=calibration if calibration is not None else cal.unit_calibration(game, rows),
        quality=quality_values(game),
        lessons=les.lesson_values(record),
        judge=dict(record.judge) if record.judge is not None else jud.no_judge(),
    )


@dataclass(frozen=True)
class HeadlineCounts:
    """What one game adds to the headline figures; ``None`` where a figure does not apply to it."""

    winners: Mapping[Winner, float]  # one-hot, NaN for the Jester without one
    self_sabotage: float  # a wolf voted for the Jester in day 1's deciding ballot
    labels: LabelRates | None  # every analysed statement of the roles the measure applies to
    confusion: Confusion | None
    paired: LabelRates | None  # the statements with both the speaker's label and a peer's
    calls: float
    fallbacks: float
    lessons_added: float
    order_3: float

    def flat(self) -> dict[str, float]:
        """The counts under the names a score's metadata logs them (``counts``)."""
        nan = math.nan
        lab, con, par = self.labels, self.confusion, self.paired
        return {
            **{str(w): self.winners[w] for w in FACTIONS},
            "wolf_voted_jester_d1_final": self.self_sabotage,
            "statements": lab.labelled if lab else nan, "self_deceptive": lab.self_deceptive if lab else nan,
            "observed": lab.observed if lab else nan, "flag_share": lab.flag_share if lab else nan,
            **{k: getattr(con, k) if con else nan for k in ("tp", "fp", "fn", "tn")},
            "paired": par.labelled if par else nan, "paired_self_deceptive": par.self_deceptive if par else nan,
            "paired_flag_share": par.flag_share if par else nan,
            "calls": self.calls, "fallbacks": self.fallbacks,
            "lessons_added": self.lessons_added, "order_3": self.order_3,
        }

    @staticmethod
    def from_flat(v: Values) -> HeadlineCounts:
        """The counts a score's metadata logged (:meth:`flat`), typed again."""
        applies = not math.isnan(v.get("statements", math.nan))
        return HeadlineCounts(
            winners={w: float(v[str(w)]) for w in FACTIONS},
            self_sabotage=float(v["wolf_voted_jester_d1_final"]),
            labels=(LabelRates(v["statements"], v["self_deceptive"], v["observed"], v["flag_share"])
                    if applies else None),
            confusion=Confusion(v["tp"], v["fp"], v["fn"], v["tn"]) if applies else None,
            paired=(LabelRates(v["paired"], v["paired_self_deceptive"], v["paired"], v["paired_flag_share"])
                    if applies and "paired" in v else None),
            calls=float(v["calls"]), fallbacks=float(v["fallbacks"]),
            lessons_added=float(v["lessons_added"]), order_3=float(v["order_3"]),
        )


def headline_counts(values: GameValues) -> HeadlineCounts:
    """The counts the headline figures pool, from one game's :func:`game_values`."""
    total = values.calibration.total()
    outcome, lessons = values.outcome, values.lessons
    return HeadlineCounts(
        winners={w: outcome[w] for w in FACTIONS},
        self_sabotage=values.self_sabotage["wolf_voted_jester_d1_final"],
        labels=total.labels if total else None, confusion=total.confusion if total else None,
        paired=total.paired if total else None,
        calls=outcome["calls"], fallbacks=outcome["fallbacks"],
        lessons_added=lessons["lessons_added"], order_3=lessons["order_3"],
    )


def _mean(xs: Sequence[float]) -> float:
    played = [x for x in xs if not math.isnan(x)]
    return sum(played) / len(played) if played else math.nan


def _pooled_ratio(pairs: Sequence[tuple[float, float]]) -> float:
    kept = [(n, d) for n, d in pairs if not (math.isnan(n) or math.isnan(d))]
    return ratio(sum(n for n, _ in kept), sum(d for _, d in kept))


def calibration_gap(counts: Sequence[HeadlineCounts]) -> float:
    """Observer rate minus self rate, pooled over the statements that have both the speaker's label
    and a peer's: where analyses fell back, the two rates would otherwise cover different statements."""
    return sum((c.paired for c in counts if c.paired is not None), LabelRates()).gap


def detection_f1(counts: Sequence[HeadlineCounts]) -> float:
    """F1 of the peers' flags against the speakers' own labels, every flag pooled."""
    return sum((c.confusion for c in counts if c.confusion is not None), Confusion()).f1


def win_rate(winner: Winner) -> Callable[[Sequence[HeadlineCounts]], float]:
    """The share of the games where ``winner`` could win that it won (a draw: that hit the day cap)."""
    return lambda counts: _mean([c.winners[winner] for c in counts])


#: Each headline figure's pooling over games' :func:`headline_counts`, in the order the log shows them.
HEADLINE: dict[str, Callable[[Sequence[HeadlineCounts]], float]] = {
    "village_win": win_rate(Winner.VILLAGERS),
    "wolves_win": win_rate(Winner.WEREWOLVES),
    "jester_win": win_rate(Winner.JESTER),
    "draw": win_rate(Winner.DRAW),
    "day1_self_sabotage": lambda c: _mean([x.self_sabotage for x in c]),
    "calibration_gap": calibration_gap,
    "detection_f1": detection_f1,
    "fallback_rate": lambda c: _pooled_ratio([(x.fallbacks, x.calls) for x in c]),
    "third_order_lessons": lambda c: _pooled_ratio([(x.order_3, x.lessons_added) for x in c]),
}


def pooled_from_log(figure: str, logged: Sequence[Values]) -> float:
    """A figure pooled over the counts the scores' metadata logged: the headline's, or the judge's."""
    if figure == "judge":
        return jud.judge_accuracy(logged)["all"]
    return HEADLINE[figure]([HeadlineCounts.from_flat(v) for v in logged])


def headline_values(counts: HeadlineCounts) -> dict[str, float]:
    """One game's own headline figures."""
    return {name: pool([counts]) for name, pool in HEADLINE.items()}
