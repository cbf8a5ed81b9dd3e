"""The Jester's lessons call (docs/design.md, § The Jester's lessons): after a game, its Jester's
model writes down what it learned.

The call sees what the Jester saw (the public record and its own notes, through the same view as
every other decision) plus the lessons it already has, and answers with three lists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspect_ai.model import GenerateConfig

from wolf_eval.agents.call import Answer, Caller, ask, call_seed, stage
from wolf_eval.agents.observation import Observation, in_flight, observe
from wolf_eval.agents.parse import InvalidReply, first_json_object, pick
from wolf_eval.agents.seat_call import call_messages, call_of
from wolf_eval.engine import Action, GameState, Request
from wolf_eval.lessons.book import LISTS, Lesson
from wolf_eval.settings import PAPERS_CALLS, PAPERS_HISTORY

if TYPE_CHECKING:
    from wolf_eval.agents.player import Agent, Seat

MAX_LESSONS_PER_LIST = 10
MAX_LESSON_CHARS = 400


def most_recent(lessons: list[Lesson], budget: int) -> list[Lesson]:
    """The lessons a Jester's prompt carries: the last ``budget`` in the file's order, the order its run wrote them.

    The most recent, not a summary (a model-written summary would be a second, unmeasured learner)
    nor the "most useful" (no score says which lesson helped): the newest lessons already
    restate or correct older ones, since each lessons call sees the lessons shown to it. The rest
    stay in the file and in the report; only the prompt is bounded (``lessons_shown``).
    """
    return lessons[-budget:] if len(lessons) > budget else list(lessons)


def lessons_by_list(lessons: list[Lesson]) -> dict[str, tuple[str, ...]]:
    return {name: tuple(x.text for x in lessons if x.list == name) for name in LISTS
            if any(x.list == name for x in lessons)}


def lessons_view(state: GameState, seat: str, lessons: list[Lesson]) -> Observation:
    """The Jester's view of the finished game, asking for lessons."""
    request = Request(seat=seat, action=Action.LESSONS, day=state.day, phase=state.phase, turn=0)
    # the whole record in full and a call of its own, whatever the eval's -T history and -T calls: the one call
    # after the game, from which the Jester learns, reads every day's words (docs/learning.md)
    obs = observe(state, request, history=PAPERS_HISTORY, calls=PAPERS_CALLS)
    return obs.model_copy(update={"lessons": lessons_by_list(lessons)})


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


async def ask_for_lessons(game: GameState, seat: Seat, known: list[Lesson],
                          agent: Agent) -> Answer[list[tuple[str, str]]]:
    """One call to the Jester's model for its lessons, made as the game's every call is (``agent``'s reply schema,
    seed from the eval's ``--seed``, token count and the game's name); an unreadable reply proposes none and says
    why."""
    stage("observe")
    obs = lessons_view(game, seat.name, known)
    stage("config")
    seed = call_seed(game.seed, "lessons", agent.eval_seed)
    schema = call_of([obs]).schema(game, [obs]) if agent.structured_output else None
    config = GenerateConfig(temperature=seat.temperature, seed=seed, response_schema=schema)
    caller = Caller(agent.game or f"the game of seed {game.seed}", "lessons", game.day, seat.name, seat.role.value)
    ref = f"{game.seed}:lessons:{seat.name}"
    with in_flight({ref: obs}):
        stage("prompt")
        answer = await ask(seat.model, call_messages([obs], [ref], [seed], agent.structured_output), config, caller,
                           read=parse_lessons, fallback=lambda reason, raw: [], usage=agent.usage)
    return answer if answer.problem is None else \
        Answer(answer.value, answer.raw, f"unreadable lessons reply: {answer.problem}")
