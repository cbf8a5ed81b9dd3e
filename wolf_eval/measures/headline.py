"""The few figures an eval log leads with, chosen for comparing models, and every per-game value behind them.

An eval's results show ten pooled figures, one scorer each (and the judge's, an eleventh), each
scorer's one metric named after it, so that ``inspect view``'s log list, ``evals_df`` (columns
``score_<name>_<name>``) and ``samples_df`` (``score_<name>``) carry plain numbers under their own
names (NaN where a figure does not apply). No figure pools over a role mix that play draws: each is
one faction's or role's figure, or a fixed equal-weight mean of per-role figures, so a longer game
or a talkative Jester cannot move it when no role's figure moved.

- ``village_win``, ``wolves_win``, ``jester_win``, ``draw``: the share of games each side won (the
  Jester's over games with a Jester) and the share that hit the day cap, so the four add up to 1.
  ``village_win`` leads: the village wins only by finding the wolves without exiling the Jester, so
  it moves with how well a model reasons about three factions;
- ``day1_self_sabotage``: a wolf voted for the Jester in day 1's deciding ballot (games with a Jester);
- ``wolf_self_label_gap``: the wolves' own figure, the deceivers': over the wolves' statements that
  carry both the speaker's label and a peer's, observers' flag rate minus the wolves' self-label
  rate (negative: wolves own to more deception than their listeners catch). The report's
  calibration table prints it as the werewolf row's Gap (all units);
- ``self_label_agreement``: per speaker role, the share of peer flags that agree with the speaker's
  own label (its accuracy, every flag of the role's statements pooled over games); then the mean of
  those per-role figures with equal weight over the roles that were flagged. Agreement with a label
  the speaker chose, not with the truth; the mean of the report's Accuracy column (all units).
  Accuracy, not F1: a role whose statements are all self-labelled one way (villagers never own to
  deceiving, the baseline wolves always do) has an F1 of 0 or none by construction;
- ``village_wolf_auroc``: detection against the game's truth (:mod:`wolf_eval.measures.truth`):
  per village role (Villager, Seer, Doctor), how well its suspicion row at each ballot ranks the
  living wolves above every other living player (AUROC, its pairs pooled over games); then the
  equal-weight mean over the village roles that observed. The mean of the report's AUROC wolves
  over those role rows, not its "village (all its roles)" row, which pools pairs;
- ``fallback_rate``: fallbacks per model call, which every comparison should show beside it;
- ``third_order_lessons``: the share of the Jester's new lessons at ToM order 3 (with learning).

Each is pooled as sums over games, never as a mean of per-game rates, from a few counts per game
(:data:`HEADLINE`'s ``counts``, logged in each score's metadata); a game's own figure is the same
pooling over that one game, rounded to :data:`DIGITS` places for the samples list (the metric reads
the counts, never the rounded value). Every other per-game value (:func:`game_values`) goes to the
first score's metadata and to the report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wolf_eval.engine import GameState
from wolf_eval.measures import calibration as cal
from wolf_eval.measures import identification as jud
from wolf_eval.measures import lessons as les
from wolf_eval.measures import truth as tru
from wolf_eval.measures.outcome import FACTIONS, decisions_asked, outcome_values
from wolf_eval.measures.pooling import Values
from wolf_eval.measures.quality import quality_values
from wolf_eval.measures.rates import Auroc, Confusion, LabelRates, Summed, ratio
from wolf_eval.measures.sabotage import sabotage_values
from wolf_eval.store import GameRecord
from wolf_eval.vocabulary import Role, Winner

#: The per-game value sets, by the name the report and the replay know them by.
VALUE_SETS = ("outcome", "self_sabotage", "calibration", "quality", "lessons", "judge")
ROLES = cal.ROLES
VILLAGE_ROLES = tru.VILLAGE_ROLES


@dataclass(frozen=True)
class GameValues:
    """Every per-game value of a finished game: fixed-name value sets, the typed calibration counts, and the
    detection counts against the truth (not logged among the values: the report computes them from the game)."""

    outcome: Mapping[str, float]
    self_sabotage: Mapping[str, float]
    calibration: cal.UnitCalibration
    quality: Mapping[str, float]
    lessons: Mapping[str, float]
    judge: Mapping[str, float]
    truth: tru.GameDetection = field(default_factory=tru.GameDetection)

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
        truth=tru.game_detection(game, record.seat_models, rows),
    )


#: Decimal places of a game's own figure as its score logs it; the pooled metrics read the counts.
DIGITS = 3
#: Counts of a confusion matrix and of an AUROC, under their logged names.
_CONFUSION = ("tp", "fp", "fn", "tn")
_AUROC = ("concordant", "ties", "pairs")
_PAIRED = ("paired", "paired_self_deceptive", "paired_flag_share")


@dataclass(frozen=True)
class Figure:
    """One headline figure: what it means, what one game adds to it, and its pooling over games."""

    description: str
    counts: Callable[[GameValues], dict[str, float]]
    pool: Callable[[Sequence[Values]], float]


def _mean(xs: Sequence[float]) -> float:
    played = [x for x in xs if not math.isnan(x)]
    return sum(played) / len(played) if played else math.nan


def _sum(logged: Sequence[Values], make: Callable[..., Summed], keys: Sequence[str], prefix: str = "") -> Summed | None:
    """The counts under ``prefix + key`` summed over the games they apply to; None where none does."""
    kept = [make(*(float(v[prefix + k]) for k in keys)) for v in logged
            if not math.isnan(float(v.get(prefix + keys[0], math.nan)))]
    return sum(kept[1:], kept[0]) if kept else None


def _role_mean(logged: Sequence[Values], roles: Sequence[Role], make: Callable[..., Summed], keys: Sequence[str],
               figure: Callable[[Any], float]) -> float:
    """Each role's figure from its counts pooled over games, then their mean with equal weight."""
    pooled = [_sum(logged, make, keys, f"{role}_") for role in roles]
    return _mean([figure(c) for c in pooled if c is not None])


def _win(winner: Winner) -> Figure:
    def counts(values: GameValues) -> dict[str, float]:
        return {str(w): values.outcome[w] for w in FACTIONS}

    return Figure(f"share of games {_WON[winner]}", counts, lambda logged: _mean([v[str(winner)] for v in logged]))


_WON = {Winner.VILLAGERS: "the village won", Winner.WEREWOLVES: "the wolves won",
        Winner.JESTER: "the Jester won (over games with a Jester)", Winner.DRAW: "that hit the day cap (a draw)"}


def _wolf_paired(values: GameValues) -> dict[str, float]:
    wolves = values.calibration.roles.get(Role.WEREWOLF)
    if wolves is None or not wolves.paired.labelled:
        return dict.fromkeys(_PAIRED, math.nan)
    p = wolves.paired
    return dict(zip(_PAIRED, (p.labelled, p.self_deceptive, p.flag_share), strict=True))


def _wolf_gap(logged: Sequence[Values]) -> float:
    paired = _sum(logged, lambda n, s, f: LabelRates(n, s, n, f), _PAIRED)
    return paired.gap if isinstance(paired, LabelRates) else math.nan


def _agreement_counts(values: GameValues) -> dict[str, float]:
    out = {f"{r}_{k}": math.nan for r in ROLES for k in _CONFUSION}
    for role, c in values.calibration.roles.items():
        if c.confusion.labels:
            out.update({f"{role}_{k}": getattr(c.confusion, k) for k in _CONFUSION})
    return out


def _auroc_counts(values: GameValues) -> dict[str, float]:
    out = {f"{r}_{k}": math.nan for r in VILLAGE_ROLES for k in _AUROC}
    for role, d in values.truth.roles.items():
        if role in VILLAGE_ROLES and d.wolves.pairs:
            out.update({f"{role}_{k}": getattr(d.wolves, k) for k in _AUROC})
    return out


def _ratio_of(numerator: str, denominator: str) -> Callable[[Sequence[Values]], float]:
    def pool(logged: Sequence[Values]) -> float:
        kept = [(v[numerator], v[denominator]) for v in logged
                if not (math.isnan(v[numerator]) or math.isnan(v[denominator]))]
        return ratio(sum(n for n, _ in kept), sum(d for _, d in kept))

    return pool


#: Each headline figure, in the order the log shows them (the first is the log list's SCORE column).
HEADLINE: dict[str, Figure] = {
    "village_win": _win(Winner.VILLAGERS),
    "wolves_win": _win(Winner.WEREWOLVES),
    "jester_win": _win(Winner.JESTER),
    "draw": _win(Winner.DRAW),
    "day1_self_sabotage": Figure(
        "share of games with a Jester alive on day 1 where a wolf voted for the Jester in its deciding ballot",
        lambda v: {"wolf_voted_jester_d1_final": v.self_sabotage["wolf_voted_jester_d1_final"]},
        lambda logged: _mean([v["wolf_voted_jester_d1_final"] for v in logged])),
    "wolf_self_label_gap": Figure(
        "the wolves' statements: observers' flag rate minus the wolves' own self-label rate (statements with "
        "both labels); negative when wolves own to more deception than their listeners catch",
        _wolf_paired, _wolf_gap),
    "self_label_agreement": Figure(
        "share of peer deception flags agreeing with the speaker's own label, per speaker role, then the "
        "equal-weight mean over the roles flagged (agreement with a self-chosen label, not the truth)",
        _agreement_counts,
        lambda logged: _role_mean(logged, ROLES, Confusion, _CONFUSION, lambda c: c.accuracy)),
    "village_wolf_auroc": Figure(
        "detection against the truth: per village role, the AUROC of its suspicion at each ballot for "
        "'is a wolf' over the living players, then the equal-weight mean over the village roles (0.5 is chance)",
        _auroc_counts,
        lambda logged: _role_mean(logged, VILLAGE_ROLES, Auroc, _AUROC, lambda a: a.value)),
    "fallback_rate": Figure(
        "share of decisions that fell back (a default move instead of the model's reply)",
        lambda v: {"decisions": decisions_asked(v.outcome), "fallbacks": v.outcome["fallbacks"]},
        _ratio_of("fallbacks", "decisions")),
    "third_order_lessons": Figure(
        "share of the Jester's new lessons at theory-of-mind order 3 (games with jester_learning)",
        lambda v: {"lessons_added": v.lessons["lessons_added"], "order_3": v.lessons["order_3"]},
        _ratio_of("order_3", "lessons_added")),
}


#: The headline figures built from per-role figures, and the roles each reads: ``wolf_self_label_gap`` is the
#: werewolves' own; the other two are the equal-weight mean of their roles' figures (the roles with counts).
ROLE_FIGURES: dict[str, tuple[Role, ...]] = {
    "wolf_self_label_gap": (Role.WEREWOLF,),
    "self_label_agreement": ROLES,
    "village_wolf_auroc": VILLAGE_ROLES,
}


def role_figures(figure: str, logged: Sequence[Values]) -> dict[Role, float]:
    """The per-role figures a headline of :data:`ROLE_FIGURES` is made of, each role's counts pooled over the
    games (NaN for a role without counts): what the report shows beside the headline."""
    if figure == "wolf_self_label_gap":
        return {Role.WEREWOLF: _wolf_gap(logged)}
    make, keys, value = ((Confusion, _CONFUSION, lambda c: c.accuracy) if figure == "self_label_agreement"
                         else (Auroc, _AUROC, lambda a: a.value))
    pooled = {role: _sum(logged, make, keys, f"{role}_") for role in ROLE_FIGURES[figure]}
    return {role: value(c) if c is not None else math.nan for role, c in pooled.items()}


def headline_counts(values: GameValues) -> dict[str, dict[str, float]]:
    """Per headline figure, the counts one game adds to it (its :func:`game_values`)."""
    return {name: figure.counts(values) for name, figure in HEADLINE.items()}


def rounded(value: float) -> float:
    """A game's figure as its score logs it."""
    return value if math.isnan(value) else round(value, DIGITS)


def headline_values(counts: Mapping[str, Values]) -> dict[str, float]:
    """One game's own headline figures (from its :func:`headline_counts`), rounded as its scores log them."""
    return {name: rounded(figure.pool([counts[name]])) for name, figure in HEADLINE.items()}


def pooled_from_log(figure: str, logged: Sequence[Values]) -> float:
    """A figure pooled over the counts the scores' metadata logged: the headline's, or the judge's."""
    if figure == "judge":
        return jud.judge_accuracy(logged)["all"]
    return HEADLINE[figure].pool(logged)
