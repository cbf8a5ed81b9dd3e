"""The three tasks: ``wolf_eval/wolf``, ``wolf_eval/triadic`` and ``wolf_eval/dyadic``.

Every sample is one complete game; ``-T`` parameters set the rules.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer
from wolf_eval.scorers.calibration import calibration
from wolf_eval.scorers.judge import judge
from wolf_eval.scorers.lessons import lessons
from wolf_eval.scorers.outcome import outcome
from wolf_eval.scorers.quality import quality
from wolf_eval.scorers.sabotage import self_sabotage
from wolf_eval.solvers.game import play_game
from wolf_eval.solvers.learning import Learning

from wolf_eval.engine import GameConfig, Role
from wolf_eval.lessons.store import default_lessons_dir
from wolf_eval.engine.config import Variant

_DESCRIPTION = {
    "wolf": "WOLF Werewolf: 4 Villagers, 2 Werewolves, 1 Seer, 1 Doctor",
    "triadic": "Triadic Werewolf: 6 Villagers, 1 Doctor, 2 Werewolves, 1 Jester",
    "dyadic": "Dyadic control: the triadic roster with the Jester seat played as a Villager",
}


def game_scorers() -> list[Scorer]:
    """Every task's scorers, the headline (faction win rates) first so ``inspect view`` and ``evals_df`` lead with it."""
    return [outcome(), self_sabotage(), calibration(), quality(), judge(), lessons()]


def game_task(
    variant: Variant,
    games: int,
    seed: int,
    shuffle_roles: bool,
    roles: str | None,
    max_debate_turns: int,
    max_explanation_turns: int,
    max_days: int,
    max_statement_words: int,
    temperature: float | None,
    reveal_roles: bool,
    structured_output: bool,
    jester_learning: bool = False,
    lessons_dir: str | None = None,
    history: str = "full",
    deception_analysis: bool = True,
) -> Task:
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if lessons_dir is not None and not jester_learning:
        raise ValueError("lessons_dir is only read with jester_learning=true")
    if history not in ("full", "compact"):
        raise ValueError(f"history must be 'full' (every record in every prompt) or 'compact' (earlier days in brief), "
                         f"got {history!r}")
    config = GameConfig.for_task(
        variant, roles=roles, shuffle_roles=shuffle_roles, max_debate_turns=max_debate_turns,
        max_explanation_turns=max_explanation_turns, max_days=max_days,
        max_statement_words=max_statement_words, reveal_roles=reveal_roles,
        deception_analysis=deception_analysis, history=history,
    )
    if jester_learning and (config.jester_as_villager or not config.roster.get(Role.JESTER)):
        raise ValueError(f"jester_learning needs a Jester, and this wolf_eval/{variant} roster seats none")
    learning = Learning(Path(lessons_dir).expanduser() if lessons_dir else default_lessons_dir()) if jester_learning else None
    samples = [
        Sample(id=i, input=f"{_DESCRIPTION[variant]}: game {i} (seed {seed})",
               metadata={"variant": variant, "game": i, "seed": seed})
        for i in range(1, games + 1)
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"werewolf-{variant}"),
        solver=play_game(config=config, seed=seed, temperature=temperature, structured_output=structured_output,
                         learning=learning),
        scorer=game_scorers(),
        metadata={"variant": variant, "game_config": config.model_dump(mode="json")},
    )


@task
def wolf(
    games: int = 10, seed: int = 0, shuffle_roles: bool = True, roles: str | None = None,
    max_debate_turns: int = 12, max_explanation_turns: int | None = None, max_days: int = 10,
    max_statement_words: int = 20, temperature: float | None = 1.0, reveal_roles: bool = False,
    structured_output: bool = True, jester_learning: bool = False, lessons_dir: str | None = None,
    history: str = "full", deception_analysis: bool = True,
) -> Task:
    """WOLF (8 seats, with a Seer): debate, then one vote with public reasons."""
    if max_explanation_turns is not None:
        raise ValueError("max_explanation_turns does not apply to wolf_eval/wolf (one ballot, no defence)")
    return game_task("wolf", games, seed, shuffle_roles, roles, max_debate_turns, 0,
                     max_days, max_statement_words, temperature, reveal_roles, structured_output,
                     jester_learning, lessons_dir, history, deception_analysis)


@task
def triadic(
    games: int = 10, seed: int = 0, shuffle_roles: bool = True, roles: str | None = None,
    max_debate_turns: int = 12, max_explanation_turns: int = 6, max_days: int = 10,
    max_statement_words: int = 50, temperature: float | None = 1.0, reveal_roles: bool = False,
    structured_output: bool = True, jester_learning: bool = False, lessons_dir: str | None = None,
    history: str = "full", deception_analysis: bool = True,
) -> Task:
    """Triadic Werewolf (10 seats, with a Jester): debate, vote, defence, revote."""
    return game_task("triadic", games, seed, shuffle_roles, roles, max_debate_turns, max_explanation_turns,
                     max_days, max_statement_words, temperature, reveal_roles, structured_output,
                     jester_learning, lessons_dir, history, deception_analysis)


@task
def dyadic(
    games: int = 10, seed: int = 0, shuffle_roles: bool = True, roles: str | None = None,
    max_debate_turns: int = 12, max_explanation_turns: int = 6, max_days: int = 10,
    max_statement_words: int = 50, temperature: float | None = 1.0, reveal_roles: bool = False,
    structured_output: bool = True, jester_learning: bool = False, lessons_dir: str | None = None,
    history: str = "full", deception_analysis: bool = True,
) -> Task:
    """The dyadic control: triadic rules with the Jester seat made a Villager."""
    return game_task("dyadic", games, seed, shuffle_roles, roles, max_debate_turns, max_explanation_turns,
                     max_days, max_statement_words, temperature, reveal_roles, structured_output,
                     jester_learning, lessons_dir, history, deception_analysis)
