"""The Jester's lessons call (SPEC section 6): after a game, its Jester's model writes down what it learned.

The call sees what the Jester saw (the public record and its own notes, through the same view as
every other decision) plus the lessons it already has, and answers with three lists.
"""

from __future__ import annotations

from typing import Any

from wolf_eval.agents.observation import Observation, observe
from wolf_eval.agents.parse import InvalidReply, first_json_object, pick
from wolf_eval.engine import Action, GameState, Request
from wolf_eval.lessons.store import LISTS, Lesson

MAX_LESSONS_PER_LIST = 10
MAX_LESSON_CHARS = 400


def lessons_by_list(lessons: list[Lesson]) -> dict[str, tuple[str, ...]]:
    return {name: tuple(x.text for x in lessons if x.list == name) for name in LISTS
            if any(x.list == name for x in lessons)}


def lessons_view(state: GameState, seat: str, lessons: list[Lesson]) -> Observation:
    """The Jester's view of the finished game, asking for lessons."""
    request = Request(seat=seat, action=Action.LESSONS, day=state.day, phase=state.phase, turn=0)
    return observe(state, request).model_copy(update={"lessons": lessons_by_list(lessons)})


def parse_lessons(raw: str) -> list[tuple[str, str]]:
    """(list, text) pairs from the reply; missing lists are empty. Raises InvalidReply on no JSON object."""
    obj = first_json_object(raw)
    found: list[tuple[str, str]] = []
    for name in LISTS:
        value: Any = pick(obj, name)
        if value is None:
            continue
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise InvalidReply(f"{name} is not a list: {str(value)[:60]!r}")
        for item in value[:MAX_LESSONS_PER_LIST]:
            if isinstance(item, str) and item.strip():
                found.append((name, " ".join(item.split())[:MAX_LESSON_CHARS]))
    return found
