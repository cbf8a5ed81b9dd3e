"""The three tasks: ``wolf_eval/wolf``, ``wolf_eval/triadic`` and ``wolf_eval/dyadic``.

Every sample is one complete game. The ``-T`` parameters are checked together by
``wolf_eval.settings.Settings`` before any game starts; a mistyped name is refused, not ignored.
"""

from __future__ import annotations

from inspect import signature
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer
from wolf_eval.scorers.headline import LEAD, headline_scorers
from wolf_eval.scorers.judge import judge
from wolf_eval.solvers.game import play_game
from wolf_eval.solvers.learning import Learning
from wolf_eval.solvers.order import LearningOrder

from wolf_eval.lessons.store import check_writable, default_lessons_dir
from wolf_eval.settings import Settings

_DESCRIPTION = {
    "wolf": "WOLF Werewolf: 4 Villagers, 2 Werewolves, 1 Seer, 1 Doctor",
    "triadic": "Triadic Werewolf: 6 Villagers, 1 Doctor, 2 Werewolves, 1 Jester",
    "dyadic": "Dyadic control: the triadic roster with the Jester seat played as a Villager",
}


def game_scorers() -> list[Scorer]:
    """The headline scores (``village_win`` first, the log list's SCORE column), then the judge's."""
    return [*headline_scorers(), judge()]


def headline() -> dict[str, Any]:
    """``village_win`` declared the eval's headline metric, on Inspect releases that take one (0.3.27x on)."""
    if "headline_metric" not in signature(Task.__init__).parameters:
        return {}
    from inspect_ai.log import HeadlineMetric

    return {"headline_metric": HeadlineMetric(scorer=LEAD, metric="pooled")}


def game_task(settings: Settings) -> Task:
    """One sample per game; the settings go whole to the solver and into every sample's metadata.

    With ``jester_learning`` the solver and the Task share a ``LearningOrder``: as the Task's
    early-stopping manager (it stops nothing) it learns the eval's identity and plan, which the
    solver needs to play the learning games in their place order, across ``eval-retry`` too.
    """
    learning = None
    if settings.jester_learning:
        folder = Path(settings.lessons_dir).expanduser() if settings.lessons_dir else default_lessons_dir()
        check_writable(folder)
        learning = Learning(folder, LearningOrder(settings.games))
    variant = settings.variant
    recorded = settings.model_dump(mode="json")
    samples = [
        Sample(id=i, input=f"{_DESCRIPTION[variant]}: game {i} (seed {settings.seed})",
               metadata={"variant": variant, "game": i, "seed": settings.seed, "settings": recorded})
        for i in range(1, settings.games + 1)
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"werewolf-{variant}"),
        solver=play_game(settings=settings, learning=learning),
        scorer=game_scorers(),
        **headline(),
        early_stopping=learning.order if learning else None,
        metadata={"variant": variant, "settings": recorded},
    )


def _given(params: dict[str, Any]) -> dict[str, Any]:
    """A task function's parameters as given, with any unknown ``-T`` names among them."""
    unknown = params.pop("unknown")
    return {**params, **unknown}


@task
def wolf(
    games: int = 10, seed: int = 0, shuffle_roles: bool = True,
    roles: str | list[str] | dict[str, int] = "villager:4,werewolf:2,seer:1,doctor:1",
    max_debate_turns: int = 12, max_explanation_turns: int | None = None, max_days: int = 10,
    max_statement_words: int = 20, temperature: float | None = 1.0, reveal_roles: bool = False,
    structured_output: bool = True, jester_learning: bool = False, lessons_dir: str | None = None,
    history: str = "full", deception_analysis: bool = True, **unknown: Any,
) -> Task:
    """WOLF (8 seats, with a Seer): debate, then one vote with public reasons."""
    return game_task(Settings.from_task_args("wolf", **_given(locals())))


@task
def triadic(
    games: int = 10, seed: int = 0, shuffle_roles: bool = True,
    roles: str | list[str] | dict[str, int] = "villager:6,doctor:1,werewolf:2,jester:1",
    max_debate_turns: int = 12, max_explanation_turns: int = 6, max_days: int = 10,
    max_statement_words: int = 50, temperature: float | None = 1.0, reveal_roles: bool = False,
    structured_output: bool = True, jester_learning: bool = False, lessons_dir: str | None = None,
    history: str = "full", deception_analysis: bool = True, **unknown: Any,
) -> Task:
    """Triadic Werewolf (10 seats, with a Jester): debate, vote, defence, revote."""
    return game_task(Settings.from_task_args("triadic", **_given(locals())))


@task
def dyadic(
    games: int = 10, seed: int = 0, shuffle_roles: bool = True,
    roles: str | list[str] | dict[str, int] = "villager:6,doctor:1,werewolf:2,jester:1",
    max_debate_turns: int = 12, max_explanation_turns: int = 6, max_days: int = 10,
    max_statement_words: int = 50, temperature: float | None = 1.0, reveal_roles: bool = False,
    structured_output: bool = True, jester_learning: bool = False, lessons_dir: str | None = None,
    history: str = "full", deception_analysis: bool = True, **unknown: Any,
) -> Task:
    """The dyadic control: triadic rules with the Jester seat made a Villager."""
    return game_task(Settings.from_task_args("dyadic", **_given(locals())))
