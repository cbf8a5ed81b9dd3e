"""Judge identification accuracy per true role (:mod:`wolf_eval.measures.identification`).

Runs only when a model is bound to the ``judge`` role (``--model-role judge=...``); otherwise
the score is NaN. The score is the share of all players named correctly; the per-role counts go
to the score's metadata and to the game record (for the report), with the judge's raw reply.
"""

from __future__ import annotations

import math

from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from wolf_eval.agents.call import MAX_RAW_CHARS, Caller, ask, call_seed, stage
from wolf_eval.agents.role_guesses import judge_messages, judge_view, parse_guesses
from wolf_eval.bindings import Bindings
from wolf_eval.measures import identification as m
from wolf_eval.measures.headline import rounded
from wolf_eval.scorers.game_scores import figure_metrics, scored_game
from wolf_eval.store import current_record
from wolf_eval.text import clean_text
from wolf_eval.vocabulary import JUDGE_ROLE

#: What the judge's score means (the scorer's ``description`` in the log's results).
JUDGE_MEANS = ("share of all seats whose role the judge model named from the public record, every seat "
               "counted once (the task's fixed seating, not a mix play draws); NaN without a judge")


@scorer(metrics=figure_metrics("judge"), description=JUDGE_MEANS)
def judge() -> Scorer:
    """Ask the judge model, if one is bound, to name every role from the public record."""

    async def score(state: TaskState, target: Target) -> Score:
        bindings = Bindings.running()
        if bindings.judge is None:
            return Score(value=math.nan, explanation="**judge**: not applicable: no judge (bind one with "
                                                     "--model-role judge=...)",
                         metadata={"counts": m.no_judge()})
        stage("observe")
        game, _ = scored_game(state)
        model = bindings.played_by(JUDGE_ROLE)  # never the model under evaluation
        jv = judge_view(game)
        stage("config")
        config = GenerateConfig(seed=call_seed(game.seed, JUDGE_ROLE, bindings.eval_seed))
        caller = Caller(f"game {state.sample_id} (seed {game.seed}, epoch {state.epoch})", "judging", game.day,
                        role=JUDGE_ROLE)
        stage("prompt")
        answer = await ask(model, judge_messages(jv), config, caller,
                           read=lambda raw: parse_guesses(raw, jv.players, tuple(jv.roles_in_play)),
                           fallback=lambda reason, raw: ({}, [reason]))
        (guesses, problems), raw, unreadable = answer.value, answer.raw, answer.problem is not None
        named = m.judge_values(game, guesses, unreadable)
        values = named.flat()
        current_record().judge = values
        right = sum(x.total for x in named.by_role.values())
        return Score(
            value=rounded(named.accuracy),
            explanation=f"**judge**: the judge ({model}) named {int(right)} of {len(game.players)} roles"
                        + (f"; problems: {'; '.join(problems)}" if problems else ""),
            metadata={"counts": values, "judge_model": str(model), "guesses": guesses, "problems": problems,
                      "raw": clean_text(raw)[:MAX_RAW_CHARS]},
        )

    return score
