"""The headline scores (:mod:`wolf_eval.measures.headline`): one number per game, three metrics each.

Every score value is a plain number (NaN where the figure does not apply), rounded to a few places
so the samples list reads it, so ``samples_df`` and ``evals_df`` give numeric columns and the log
list's SCORE column is ``village_win``. Each score's metrics carry the score's own name (the log
list's Columns › Metrics lists every figure under its name, not ten columns called alike): the
figure, pooled from the counts the score's metadata logs (never the rounded values), then the ends
of its 95% interval over the games, ``<name>_low`` and ``<name>_high``, from the same counts
(:func:`wolf_eval.resample.figure_interval`), so the log list and a CI gate read an interval (widened where every
game ended on the same day below the day cap: each score logs its game's ``length``, the days it lasted and its
cap). Each score's ``answer`` is
the winner, the samples list's ANSWER column whichever headline scorer it shows; the outcome stays
in the values too (``answer`` survives only where epochs agree). The scorer's metadata holds its
``description``, what the number means, in the log's results.

The first score's metadata carries every per-game value (the judge's are its own score's, which
runs after), the game's tokens and estimated cost and the settings its providers ignored, and its
explanation is the game, every day of it; every other score's explanation says what it counted in
this game.

The ``cost`` score, last, is what the game's seat models spent: its value holds the game's ``usd``
(NaN when a seat model has no price) and ``tokens``; its one metric gives four figures in the
eval's results, ``usd_per_game``, ``usd``, ``tokens_per_game`` and ``tokens``, summed over the games
from each score's logged cost (:func:`wolf_eval.measures.cost.pooled_cost`: a total over a game
of unknown cost is NaN, never the sum of the rest). It is one score, so the results stay at thirteen
scores. Inspect reduces a sample's epochs to the first one's metadata before any metric, so with
``--epochs`` the totals are over each sample's first game, as every headline metric is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from weakref import WeakKeyDictionary

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from wolf_eval.engine import GameState
from wolf_eval.measures import cost as cost_
from wolf_eval.measures.cost import game_cost
from wolf_eval.measures.headline import FIGURES, HEADLINE, GameValues, game_values, pooled_from_log, rounded
from wolf_eval.measures.outcome import fallback_counts, logged_fallbacks
from wolf_eval.measures.pooling import ENDS, bound_name
from wolf_eval.resample import Length, figure_interval, seed_of
from wolf_eval.scorers.explain import figure_explanation, game_summary
from wolf_eval.store import GameRecord, current_record

LEAD = next(iter(HEADLINE))
#: The finished game of each attempt being scored and its values, kept with the attempt's own ``TaskState`` for as
#: long as it lives: the headline scorers score the same game one after another, and validating the game and
#: walking all of it (:func:`game_values`) once is enough. Not by the sample's uuid: Inspect keeps it when it retries
#: a sample (``--retry-on-error``), and the retry plays another game.
_SCORED: WeakKeyDictionary[TaskState, tuple[GameState, GameValues]] = WeakKeyDictionary()


def scored_game(state: TaskState) -> tuple[GameState, GameValues]:
    """The attempt's finished game and its :func:`game_values`, worked out once for all the game's scorers."""
    held = _SCORED.get(state)
    if held is None:
        record = GameRecord(store=state.store)
        game = record.game()
        held = _SCORED[state] = (game, game_values(game, record))
    return held


def _logged(scores: list[SampleScore], key: str = "counts") -> list[Any]:
    """What each game's score logged under ``key`` (its counts, or its cost); a score without it is an error."""
    if any(s.score.metadata is None or key not in s.score.metadata for s in scores):
        raise ValueError(f"a game's score carries no {key!r} in its metadata: was it scored by wolf_eval's scorers?")
    return [s.score.metadata[key] for s in scores if s.score.metadata is not None]


def logged_lengths(metadata: Sequence[Mapping[str, Any]]) -> list[Length] | None:
    """Each game's days and day cap as its figure score's metadata logged them (``length``), or None where any game
    logged none (a release before 0.8.0): its intervals are then drawn as that release drew them."""
    logged = [m.get("length") for m in metadata]
    return [(float(x[0]), float(x[1])) for x in logged if x is not None] if all(logged) else None


def _lengths(scores: list[SampleScore]) -> list[Length] | None:
    return logged_lengths([s.score.metadata or {} for s in scores])


def _pooled(figure: str) -> Callable[[], Metric]:
    """The metric of one figure, registered under the figure's own name: the figure over all games,
    pooled from the counts each score logged (sums, never a mean of per-game rates)."""

    def pooled() -> Metric:
        def compute(scores: list[SampleScore]) -> float:
            if not scores:  # no game scored (Inspect asks so, to know the metric's empty value)
                return math.nan
            return pooled_from_log(figure, _logged(scores))

        return compute

    return metric(name=figure)(pooled)


def _end(figure: str, end: str) -> Callable[[], Metric]:
    """The metric of one end (``low`` or ``high``) of a figure's 95% interval over the games, registered as
    ``<figure>_<end>``: from the per-game counts each score logged, so it is clustered by game (a share of
    games has the binomial one). Two metrics of one number each, not one of both, so that their names stay
    the same when a figure has no interval (Inspect names an all-NaN dict after the metric instead).

    Inspect's own ``stderr`` reads each game's rounded figure as one draw of a mean; a pooled ratio is no
    such mean (a game with more pairs weighs more), so its spread is worked out from the counts here.
    """

    def interval() -> Metric:
        def compute(scores: list[SampleScore]) -> float:
            if not scores:  # no game scored: no interval (Inspect asks so, to know the metric's empty value)
                return math.nan
            f = FIGURES[figure]
            iv = figure_interval(f.sums(_logged(scores)), f.of_sums, seed_of(figure, len(scores)), f.per_game,
                                 f.bounds, _lengths(scores))
            return float(getattr(iv, end))

        return compute

    return metric(name=bound_name(figure, end))(interval)


#: Each figure's metrics, the judge's included, by the figure's name: the figure, then its interval's ends.
METRICS: dict[str, tuple[Callable[[], Metric], ...]] = {
    figure: (_pooled(figure), *(_end(figure, end) for end in ENDS)) for figure in FIGURES}


def figure_metrics(figure: str) -> list[Metric]:
    """A figure's scorer's metrics: the pooled figure under its own name, then its interval's low and high ends."""
    return [make() for make in METRICS[figure]]


#: How a figure pooled over games' statements, ballots or decisions is given its interval where the games show too
#: little: what its scorer's description says in the log's results (:func:`wolf_eval.resample.one_length`).
TOO_FEW = ("Its interval (_low, _high) is NaN where one game defines it, and widened where every game ended on the "
           "same day while the day cap allowed longer games, which can differ: it then reaches at least "
           "1 - 0.025^(1/n) of the way from the figure to either end of its range (wolf-eval report says which)")

#: What a figure's scorer says of its game beside the value: the explanation and any metadata besides the counts,
#: from the game, its values and the figure's rounded value in this game.
Telling = Callable[[GameState, GameValues, float], tuple[str, dict[str, Any]]]


def figure_scorer(figure: str, tell: Telling) -> Scorer:
    """The scorer of one figure of :data:`FIGURES`, registered under its name with its three metrics.

    Every figure's score is made alike (the headline's, the monitor's): its value is the game's figure, rounded,
    from the counts its metadata logs first (what the metrics pool), and its answer is the winner; ``tell`` says
    the rest, so a scorer differs from another only in what it explains and logs besides.
    """
    f = FIGURES[figure]
    description = f.description if f.per_game else f"{f.description}. {TOO_FEW}"

    @scorer(metrics=figure_metrics(figure), name=figure, description=description)
    def make() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            game, values = scored_game(state)
            assert game.outcome is not None
            counts = f.counts(values)
            value = rounded(f.pool([counts]))
            explanation, metadata = tell(game, values, value)
            return Score(value=value, answer=str(game.outcome.winner), explanation=explanation,
                         metadata={"counts": counts, "length": list(values.outcome.length), **metadata})

        return score

    return make()


def headline_scorer(figure: str) -> Scorer:
    """The scorer of one headline figure; the first one's score carries the whole game (:func:`the_game`)."""
    if figure == LEAD:
        return figure_scorer(figure, the_game)
    return figure_scorer(figure, lambda game, values, value: (figure_explanation(figure, values, value), {}))


def the_game(game: GameState, values: GameValues, value: float) -> tuple[str, dict[str, Any]]:
    """The first score's explanation, every day of the game, and its metadata: every per-game value (the judge's
    are its own score's), the fallbacks by seat model and action, the game's cost and the settings ignored."""
    record = current_record()
    fallbacks = logged_fallbacks(fallback_counts(game, record.seat_models))
    return game_summary(game, values), {"values": {k: v for k, v in values.flat().items() if k != "judge"},
                                        "fallbacks_by_model_action": fallbacks,
                                        "cost": game_cost(record.usage),
                                        "ignored_settings": record.ignored}


def headline_scorers() -> list[Scorer]:
    """The headline scorers, ``village_win`` first."""
    return [headline_scorer(figure) for figure in HEADLINE]


#: What the cost score means (the scorer's ``description`` in the log's results).
COST_MEANS = ("the game's tokens (prompt, cached prompt and output, over every seat model's calls, the Jester's "
              "lessons call and the monitor's calls included, the judge's not) and their estimated US dollars at the "
              "price table's list prices (wolf_eval/data/prices.json, WOLF_EVAL_PRICES on top); usd NaN when a seat "
              "model has no price. Metrics: per game and summed over the eval's games, NaN when any game's figure is "
              "unknown")
#: The cost metric's figures, in the order the eval's results show them.
COST_FIGURES = ("usd_per_game", "usd", "tokens_per_game", "tokens")


@metric(name="cost")
def cost_metric() -> Metric:
    """The eval's tokens and dollars, per game and in total, pooled from each game's logged cost."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        pooled = cost_.pooled_cost(_logged(scores, "cost"))
        total = cost_.tokens(pooled)
        per_game = total / pooled["games"] if pooled["games"] else math.nan
        return dict(zip(COST_FIGURES, (pooled["usd_per_game"], pooled["usd"], per_game, total), strict=True))

    return compute


def cost_explanation(by_model: Mapping[str, Mapping[str, float]]) -> str:
    """The game's tokens and dollars per seat model, in words, as the sample's score explanation shows them."""
    def line(model: str, c: Mapping[str, float]) -> str:
        usd = "no known price" if math.isnan(c["usd"]) else f"${c['usd']:,.4f}"
        return (f"- `{model}`: {cost_.tokens(c):,.0f} tokens ({c['input_tokens']:,.0f} prompt, "
                f"{c['cached_tokens']:,.0f} cached, {c['output_tokens']:,.0f} output), {usd}")

    if not by_model:
        return "**cost**: unknown: the game recorded no token usage"
    return "\n".join(["**cost** of the game's seat models:", *(line(m, c) for m, c in by_model.items())])


@scorer(metrics=[cost_metric()], name="cost", description=COST_MEANS)
def cost_scorer() -> Scorer:
    """The game's tokens and estimated dollars, every seat model's calls summed."""

    async def score(state: TaskState, target: Target) -> Score:
        usage = current_record().usage
        game = game_cost(usage)
        by_model = {m: cost_.model_cost(m, u) for m, u in sorted(usage.items())}
        usd = game["usd"] if math.isnan(game["usd"]) else round(game["usd"], 4)
        return Score(value={"usd": usd, "tokens": cost_.tokens(game)}, explanation=cost_explanation(by_model),
                     metadata={"cost": game, "by_model": by_model, "unpriced": cost_.unpriced([usage])})

    return score
