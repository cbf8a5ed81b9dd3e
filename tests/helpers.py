"""Helpers to run evals offline and read games back out of their logs."""

from __future__ import annotations

from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, EvalSample

from wolf_eval.analysis.questions import QUESTIONS, WIN
from wolf_eval.engine import Decision, GameState, Request
from wolf_eval.store import logged_record

#: A made-up comparison row's counts of every question but the win rate, undefined: a row that records who won.
WINS_ONLY = {c: float("nan") for q in QUESTIONS if q is not WIN for c in q.columns}


def run(task: str, model: Any = "wolfbot/cue", log_dir: Any = None, **kwargs: Any) -> EvalLog:
    task_args = dict(kwargs.pop("task_args", {}))
    if task == "wolf":
        task_args.pop("max_explanation_turns", None)  # the wolf task has no defence and rejects it
    [log] = inspect_eval(f"wolf_eval/{task}", model=model, task_args=task_args, log_dir=str(log_dir),
                         display="none", **kwargs)
    return log


def learned(model: Any = "wolfbot/cue", log_dir: Any = None, games: int = 1, **kwargs: Any) -> list[EvalLog]:
    """A triadic learning run played offline by ``wolf-eval learn``'s function: each game's log, in order."""
    from wolf_eval.lessons.run import learn

    return learn("triadic", model, games, dict(kwargs.pop("task_args", {})), str(log_dir), display="none", **kwargs)


def final_state(sample: EvalSample) -> GameState:
    return logged_record(sample.store).game()


def store_field(sample: EvalSample, name: str) -> Any:
    return logged_record(sample.store).model_dump(mode="json")[name]


def scripted_model(rewrite: Any = None, policy: str = "cue", whole: bool = False) -> Any:
    """A mockllm model that plays the wolfbot policy, with ``rewrite(obs, content) -> content`` applied to
    each decision's reply (a joint call's parts are rewritten one by one, then joined; with ``whole``, the
    joined reply is rewritten once, with the view of its first decision).

    Usage is always set: without it Inspect would try to download a tokenizer.
    """
    import json
    import random

    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from wolf_eval.baseline.bots import POLICIES
    from wolf_eval.providers.wolfbot import answer as wolfbot_answer
    from wolf_eval.providers.wolfbot import find_parts

    def reply_for(obs, seed):  # type: ignore[no-untyped-def]
        content = json.dumps(POLICIES[policy](obs, random.Random(seed)))
        return content if rewrite is None or whole else rewrite(obs, content)

    def answer(input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        content = wolfbot_answer(reply_for, input, config.seed)  # a joint call: each decision rewritten alone
        if rewrite is not None and whole:
            content = rewrite(find_parts(input)[0][0], content)
        out = ModelOutput.from_content(model="scripted", content=content)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/model", custom_outputs=answer, memoize=False)


def game_scores(sample: EvalSample) -> dict[str, dict[str, float]]:
    """Every per-game value the log holds for a game (the headline score's metadata)."""
    return sample.scores["village_win"].metadata["values"]  # type: ignore[index,no-any-return]


def interpret(raw: str, request: Request, players: tuple[str, ...], taxonomy: tuple[str, ...] = ()) -> Decision:
    """One decision read from a raw reply as a call reads each of its parts (``SeatCall.read``): the reply's
    first JSON object, then ``interpret_object``; an empty reply is an ``InvalidReply``."""
    from wolf_eval.agents.parse import InvalidReply, first_json_object, interpret_object

    if not raw or not raw.strip():
        raise InvalidReply("empty reply")
    return interpret_object(first_json_object(raw), request, players, taxonomy)
