"""Judge identification accuracy per true role (SPEC section 8; Triadic Werewolf section 5.4).

Runs only when a model is bound to the ``judge`` role (``--model-role judge=...``); otherwise
every key is NaN. Per game and true role: ``{role}_n`` seated players and ``{role}_correct``
the judge named correctly. A reply with no usable mapping scores every guess as wrong and sets
``unreadable``; the raw reply is kept in the score's metadata.
"""

from __future__ import annotations

import math

from inspect_ai.model import GenerateConfig, get_model, model_roles
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from wolf_eval.agents.judge import JUDGE_ROLE, judge_messages, judge_view, parse_guesses
from wolf_eval.agents.parse import InvalidReply
from wolf_eval.agents.player import MAX_RAW_CHARS, ProviderFailure
from wolf_eval.engine import GameState, Role
from wolf_eval.engine.rng import derive_seed
from wolf_eval.scorers.pooling import mean_where_applicable, pooled_ratio, pooled_sum
from wolf_eval.solvers.game import finished_game

ROLES = tuple(r.value for r in Role)
KEYS = (*(f"{r}_{c}" for r in ROLES for c in ("correct", "n")), "unreadable")


def judge_values(game: GameState, guesses: dict[str, str | None]) -> dict[str, float]:
    values = dict.fromkeys(KEYS, math.nan)
    for p in game.players:
        role = p.role.value
        if math.isnan(values[f"{role}_n"]):
            values[f"{role}_n"] = values[f"{role}_correct"] = 0.0
        values[f"{role}_n"] += 1
        values[f"{role}_correct"] += guesses.get(p.name) == role
    return values


@metric
def judge_accuracy() -> Metric:
    """Share of players of each true role the judge named correctly, and over all players."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        out = {r: pooled_ratio(scores, f"{r}_correct", f"{r}_n") for r in ROLES}
        seated = [r for r in ROLES if not math.isnan(pooled_sum(scores, f"{r}_n"))]
        total = sum(pooled_sum(scores, f"{r}_n") for r in seated)
        out["all"] = sum(pooled_sum(scores, f"{r}_correct") for r in seated) / total if total else math.nan
        out["unreadable"] = mean_where_applicable(scores, "unreadable")
        if math.isnan(out["unreadable"]):
            return {"all": math.nan}  # no judge was bound: one NaN says so
        return out

    return compute


@scorer(metrics=[judge_accuracy()])
def judge() -> Scorer:
    """Ask the judge model, if one is bound, to name every role from the public record."""

    async def score(state: TaskState, target: Target) -> Score:
        if JUDGE_ROLE not in model_roles():
            return Score(value=dict.fromkeys(KEYS, math.nan), explanation="no judge (bind one with --model-role judge=...)")
        game = finished_game()
        model = get_model(role=JUDGE_ROLE)
        jv = judge_view(game)
        output = await model.generate(judge_messages(jv),
                                      config=GenerateConfig(seed=derive_seed(game.seed, JUDGE_ROLE) % 2**31))
        if output.stop_reason == "model_length" or output.error:
            raise ProviderFailure(f"the judge {model} could not answer (stop_reason={output.stop_reason}, "
                                  f"error={output.error!r})")
        raw = output.completion or ""
        try:
            guesses, problems = parse_guesses(raw, jv.players, tuple(jv.roles_in_play))
            unreadable = 0.0
        except InvalidReply as err:
            guesses, problems, unreadable = {}, [str(err)], 1.0
        values = judge_values(game, guesses)
        values["unreadable"] = unreadable
        right = sum(values[f"{r}_correct"] for r in ROLES if not math.isnan(values[f"{r}_n"]))
        return Score(
            value=values,
            explanation=f"the judge ({model}) named {int(right)} of {len(game.players)} roles"
                        + (f"; problems: {'; '.join(problems)}" if problems else ""),
            metadata={"judge_model": str(model), "guesses": guesses, "problems": problems, "raw": raw[:MAX_RAW_CHARS]},
        )

    return score
