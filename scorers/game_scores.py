"""The headline scores (:mod:`wolf_eval.measures.headline`): one number per game, one pooled metric each.

Every score value is a plain number (NaN where the figure does not apply), so ``samples_df`` and
``evals_df`` give numeric columns and the log list's SCORE column is ``village_win``. A score's
metadata carries the counts it pools; the first score's carries every per-game value (the judge's
are its own score's, which runs after), the game's
tokens and estimated cost and the settings its providers ignored, and its explanation is the game
in a few lines.
"""

from __future__ import annotations

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from wolf_eval.engine import GameState
from wolf_eval.measures.cost import game_cost
from wolf_eval.measures.headline import HEADLINE, GameValues, game_values, headline_counts, pooled_from_log
from wolf_eval.measures.outcome import fallback_counts, logged_fallbacks
from wolf_eval.scorers.explain import game_summary
from wolf_eval.store import GameRecord, current_record

LEAD = next(iter(HEADLINE))
#: The last few games' values, each kept with its game so that its id is not reused while held: the
#: headline scorers score the same game one after another, and :func:`game_values` walks all of it.
_VALUES: dict[int, tuple[GameState, GameValues]] = {}
_HELD = 16


def values_of(game: GameState, record: GameRecord) -> GameValues:
    """The game's :func:`game_values`, computed once for all the headline scorers."""
    held = _VALUES.get(id(game))
    if held is not None and held[0] is game:
        return held[1]
    values = game_values(game, record)
    _VALUES[id(game)] = (game, values)
    while len(_VALUES) > _HELD:
        del _VALUES[next(iter(_VALUES))]
    return values


@metric
def pooled(figure: str) -> Metric:
    """The figure over all games, pooled from their counts (sums, never a mean of per-game rates)."""

    def compute(scores: list[SampleScore]) -> float:
        return pooled_from_log(figure, [s.score.metadata["counts"] for s in scores])  # type: ignore[index]

    return compute


def headline_scorer(figure: str) -> Scorer:
    """The scorer of one headline figure, registered under the figure's name."""

    @scorer(metrics=[pooled(figure)], name=figure)
    def make() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            record = current_record()
            game = record.game()
            values = values_of(game, record)
            counts = headline_counts(values)
            value, logged = HEADLINE[figure]([counts]), counts.flat()
            if figure != LEAD:
                return Score(value=value, metadata={"counts": logged})
            fallbacks = logged_fallbacks(fallback_counts(game, record.seat_models))
            return Score(value=value, explanation=game_summary(game, values),
                         metadata={"counts": logged, "values": {k: v for k, v in values.flat().items() if k != "judge"},
                                   "fallbacks_by_model_action": fallbacks,
                                   "cost": game_cost(record.usage),
                                   "ignored_settings": record.ignored})

        return score

    return make()


def headline_scorers() -> list[Scorer]:
    """The headline scorers, ``village_win`` first."""
    return [headline_scorer(figure) for figure in HEADLINE]
