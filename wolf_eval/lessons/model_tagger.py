"""An optional model-based lesson tagger: one schema-constrained call per lesson.

The regex tagger (``tagger.py``) is the default and the one the scores use; this one exists to be
measured against the same labelled lessons (``benchmarks/tagger_agreement.py --model``) and for a
second reading of a lessons file. The prompt (``prompts/lesson_tagger.txt``) gives the model the
definitions the labelling guide (``tests/data/lessons_gold.md``) gives a human. A reply that cannot
be read gives no tags (``None``) and says why: a lost reading, never the regex tagger's in disguise.
"""

from __future__ import annotations

from typing import Literal

from inspect_ai.model import ChatMessageUser, GenerateConfig, Model, ResponseSchema
from inspect_ai.util import json_schema
from pydantic import BaseModel, ConfigDict

from wolf_eval.agents.call import Answer, Caller, ask
from wolf_eval.agents.parse import InvalidReply, first_json_object
from wolf_eval.agents.prompts import template
from wolf_eval.lessons.tagger import CATEGORIES, Tags


class TagReply(BaseModel):
    """What the model is asked for: one order and any categories."""

    model_config = ConfigDict(extra="forbid")
    order: Literal[1, 2, 3]
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
