"""The three tasks: ``wolf_eval/wolf``, ``wolf_eval/triadic`` and ``wolf_eval/dyadic``.

Every sample is one complete game. Each task takes the ``-T`` parameters of the parameter table
(``wolf_eval.settings.Settings``): ``@task_parameters`` gives the function its signature from the
table, so Inspect lists, defaults and logs every one, and ``Settings.from_task_args`` checks them
together before any game starts; a mistyped name is refused, not ignored. The parameters, their
defaults and what each does: docs/parameters.md (written from the same table).
"""

from __future__ import annotations

from inspect import signature
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer

from wolf_eval.engine.variants import VARIANTS
from wolf_eval.lessons.book import check_writable
from wolf_eval.lessons.run import Learning
from wolf_eval.scorers.game_scores import LEAD, cost_scorer, headline_scorers
from wolf_eval.scorers.judge import judge
from wolf_eval.scorers.monitor_scores import monitor_scorers
from wolf_eval.scorers.propensity_scores import propensity_scorers
from wolf_eval.settings import Settings, task_parameters
from wolf_eval.solvers.play import play_game


def game_scorers(monitor: str = "off", deception: str = "dealt") -> list[Scorer]:
    """The headline scores (``village_win`` first, the log list's SCORE column), the judge's, the monitor's (with a
    ``-T monitor`` source), the propensity's (with ``-T deception=optional``), then the game's cost."""
    return [*headline_scorers(), judge(), *monitor_scorers(monitor), *propensity_scorers(deception), cost_scorer()]


#: The log list's SCORE column has no name: each eval's tags, which the list shows, name the score it is.
HEADLINE_TAG = f"SCORE: {LEAD}"


def headline() -> dict[str, Any]:
    """``village_win`` declared the eval's headline metric, on Inspect releases that take one (0.3.27x on)."""
    if "headline_metric" not in signature(Task.__init__).parameters:
        return {}
    from inspect_ai.log import HeadlineMetric

    return {"headline_metric": HeadlineMetric(scorer=LEAD, metric=LEAD)}


def game_task(settings: Settings) -> Task:
    """One sample per game; the settings go whole to the solver and into every sample's metadata.

    With ``jester_learning`` the eval plays one game, ``learning_step`` (``wolf-eval learn`` plays them in order).
    An eval that could not seat its players as asked (no model, a role no seat takes), or whose
    Jester's lessons folder or snapshot cannot be used, is refused here (the seats and the snapshot by
    ``play_game`` as it is built), before any game or log.
    """
    learning = Learning.of(settings)
    if learning is not None:
        check_writable(learning.lessons_dir)
    variant = settings.variant
    recorded = settings.model_dump(mode="json")
    samples = [
        Sample(id=i, input=f"{VARIANTS[variant].title}: game {i} (seed {settings.seed})",
               metadata={"variant": variant, "game": i, "seed": settings.seed, "settings": recorded})
        for i in ([learning.step] if learning else range(1, settings.games + 1))
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"werewolf-{variant}"),
        solver=play_game(settings=settings, learning=learning),
        scorer=game_scorers(settings.monitor, settings.deception),
        **headline(),
        metadata={"variant": variant, "settings": recorded},
        tags=[HEADLINE_TAG],
    )


@task
@task_parameters("wolf")
def wolf(**params: Any) -> Task:
    """WOLF (8 seats, with a Seer): debate, then one vote with public reasons."""
    return game_task(Settings.from_task_args("wolf", **params))


@task
@task_parameters("triadic")
def triadic(**params: Any) -> Task:
    """Triadic Werewolf (10 seats, with a Jester): debate, vote, defence, revote."""
    return game_task(Settings.from_task_args("triadic", **params))


@task
@task_parameters("dyadic")
def dyadic(**params: Any) -> Task:
    """The dyadic control: triadic rules with the Jester seat made a Villager."""
    return game_task(Settings.from_task_args("dyadic", **params))
