"""The three tasks: ``wolf_eval/wolf``, ``wolf_eval/triadic`` and ``wolf_eval/dyadic``.

Every sample is one complete game. Each task takes the ``-T`` parameters of the parameter table
(``wolf_eval.settings.Settings``): ``@task_parameters`` gives the function its signature from the
table, so Inspect lists, defaults and logs every one, and ``Settings.from_task_args`` checks them
together before any game starts; a mistyped name is refused, not ignored. The parameters, their
defaults and what each does: docs/parameters.md (written from the same table).
"""

from __future__ import annotations

from inspect import signature
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer

from wolf_eval.engine.variants import VARIANTS
from wolf_eval.lessons.book import check_writable, default_lessons_dir
from wolf_eval.lessons.remote import is_remote
from wolf_eval.lessons.turnstile import Learning, LearningRun
from wolf_eval.scorers.game_scores import LEAD, cost_scorer, headline_scorers
from wolf_eval.scorers.judge import judge
from wolf_eval.scorers.monitor_scores import monitor_scorers
from wolf_eval.settings import Settings, task_parameters
from wolf_eval.solvers.play import play_game


def game_scorers(monitor: str = "off") -> list[Scorer]:
    """The headline scores (``village_win`` first, the log list's SCORE column), the judge's, the monitor's (with a
    ``-T monitor`` source), then the game's cost."""
    return [*headline_scorers(), judge(), *monitor_scorers(monitor), cost_scorer()]


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

    With ``jester_learning`` the dataset is a ``LearningRun``, which adds each game once the one
    before it is logged, so the games are played in order, across ``eval-retry`` too.
    An eval that could not seat its players as asked (no model, a role no seat takes), or whose
    Jester's lessons folder or file cannot be used, is refused here (the seats and the file by
    ``play_game`` as it is built), before any game or log.
    """
    learning = None
    if settings.jester_learning:
        folder: Path | str = default_lessons_dir()
        if settings.lessons_dir and is_remote(settings.lessons_dir):
            folder = settings.lessons_dir
        elif settings.lessons_dir:
            folder = Path(settings.lessons_dir).expanduser()
        check_writable(folder)
        learning = Learning(folder)
    variant = settings.variant
    recorded = settings.model_dump(mode="json")
    samples = [
        Sample(id=i, input=f"{VARIANTS[variant].title}: game {i} (seed {settings.seed})",
               metadata={"variant": variant, "game": i, "seed": settings.seed, "settings": recorded})
        for i in range(1, settings.games + 1)
    ]
    return Task(
        dataset=LearningRun(samples, learning) if learning else MemoryDataset(samples, name=f"werewolf-{variant}"),
        solver=play_game(settings=settings, learning=learning),
        scorer=game_scorers(settings.monitor),
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
