"""An optional model-based lesson tagger: one schema-constrained call per lesson.

The regex tagger (``wolf_eval.measures.tagger``) is the default and the one the scores use (``third_order_lessons``
among them), because it is free, deterministic and replays exactly; this one is a second reading,
bound with ``--model-role tagger=<model>`` in a learning eval (each added lesson's reading goes to
the game's record and the report's lessons table), asked for with ``wolf-eval lessons tag FILE
--model M``, and measured against the labelled lessons with ``benchmarks/tagger_agreement.py --model``.
The prompt (``prompts/lesson_tagger.txt``) gives the model the definitions the labelling guide
(``tests/data/lessons_gold.md``) gives a human. A reply that cannot be read gives no tags
(``None``) and says why: a lost reading, never the regex tagger's in disguise.

It lives with the agents, as the monitor's call does, because it asks a model (which no measure does); it
measures the lessons and never feeds the learning loop: the Jester reads the lessons' text only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from inspect_ai.model import ChatMessageUser, GenerateConfig, Model, ResponseSchema
from inspect_ai.util import json_schema
from pydantic import BaseModel, ConfigDict

from wolf_eval.agents.call import Answer, Caller, ask, call_seed
from wolf_eval.agents.parse import InvalidReply, first_json_object
from wolf_eval.agents.prompts import template
from wolf_eval.measures.tagger import CATEGORIES, Tags
from wolf_eval.store import TaggerReading
from wolf_eval.vocabulary import TAGGER_ROLE


class TagReply(BaseModel):
    """What the model is asked for: one order and any categories."""

    model_config = ConfigDict(extra="forbid")
    order: Literal[1, 2, 3]
    # the tagger's categories as a Literal built from their list, which a type checker cannot read
    categories: list[Literal[tuple(CATEGORIES)]]  # type: ignore[valid-type]


SCHEMA = ResponseSchema(name="wolf_lesson_tags", json_schema=json_schema(TagReply), strict=True)


def parse_tags(raw: str) -> Tags:
    """The reply's order and categories; raises InvalidReply on an order or a category the SPEC has not."""
    obj = first_json_object(raw)
    order = obj.get("order")
    if isinstance(order, str) and order.strip().isdigit():
        order = int(order)
    if order not in (1, 2, 3) or isinstance(order, bool):
        raise InvalidReply(f"order is not 1, 2 or 3: {str(order)[:40]!r}")
    named = obj.get("categories", [])
    if not isinstance(named, list) or not all(isinstance(c, str) for c in named):
        raise InvalidReply(f"categories is not a list of names: {str(named)[:60]!r}")
    unknown = sorted(set(named) - set(CATEGORIES))
    if unknown:
        raise InvalidReply(f"unknown categories: {', '.join(unknown)[:80]}")
    return Tags(categories=tuple(c for c in CATEGORIES if c in named), order=order)


async def model_tags(model: Model, lesson: str, seed: int | None = None) -> Answer[Tags | None]:
    """One call for one lesson at temperature 0; ``value`` is None, with the reason, when the reply is unreadable."""
    prompt = template("lesson_tagger").substitute(lesson=lesson)
    config = GenerateConfig(temperature=0.0, seed=seed, response_schema=SCHEMA)
    caller = Caller(f"tagging the lesson {lesson[:60]!r}", "lesson tags", 0, role="tagger")
    return await ask(model, [ChatMessageUser(content=prompt)], config, caller, read=parse_tags,
                     fallback=lambda reason, raw: None)


async def tagger_readings(model: Model, lessons: Sequence[str], seeds: Sequence[int | None]) -> list[TaggerReading]:
    """Each lesson's reading by ``model``, one call each; an unreadable reply is a lost reading with its reason."""
    out = []
    for lesson, seed in zip(lessons, seeds, strict=True):
        answer = await model_tags(model, lesson, seed)
        tags = answer.value
        out.append(TaggerReading(text=lesson, order=tags.order if tags else None,
                                 categories=list(tags.categories) if tags else [], problem=answer.problem))
    return out


async def bound_tagger_readings(model: Model, lessons: Sequence[str], game_seed: int,
                                eval_seed: int | None) -> tuple[str, list[TaggerReading]]:
    """The bound tagger's name and its readings of a game's added lessons (the solver resolves the tagger).

    Each call's seed comes from the game's seed and the lesson's place (plus the eval's ``--seed``),
    as every other call's does, so a game asks the same way whenever it is played again.
    """
    seeds = [call_seed(game_seed, f"{TAGGER_ROLE} {i}", eval_seed) for i in range(len(lessons))]
    return str(model), await tagger_readings(model, lessons, seeds)
