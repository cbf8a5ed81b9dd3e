"""The Jester's system prompt with 0, 100 and 10,000 stored lessons, with and without the lessons budget.

    python benchmarks/jester_prompt.py

Builds the Jester's observation for its lessons call at the end of a triadic game's first night
(the same system prompt every Jester call of the game carries), gives it N stored lessons
written like a model's (varied, about 80 characters each) and measures the system prompt: all N
lessons (before ``lessons_shown``) and the ``most_recent`` selection under the default budget.
Tokens are estimated at 4 characters a token, as in ``benchmarks/prompts.py``.
"""

from __future__ import annotations

from wolf_eval.agents.observation import observe
from wolf_eval.agents.seat_call import call_messages
from wolf_eval.engine import Role, new_game, pending
from wolf_eval.lessons.asking import lessons_by_list, most_recent
from wolf_eval.lessons.book import LISTS, Lesson
from wolf_eval.settings import Settings

_OPENINGS = ("Bid high on day {n} so the village hears me first", "Accuse seat {n} softly before the vote",
             "Never defend myself too well when {n} voters lean my way", "Echo the loudest wolf theory on day {n}")


def stored_lessons(count: int) -> list[Lesson]:
    """``count`` distinct lessons, spread over the three lists."""
    return [Lesson(list=LISTS[i % 3], text=f"{_OPENINGS[i % 4].format(n=i)}; it drew the ballot to me.")  # type: ignore[arg-type]
            for i in range(count)]


def system_prompt_chars(lessons: list[Lesson]) -> int:
    settings = Settings.defaults("triadic")
    game = new_game(settings.rules, 0)
    jester = next(p.name for p in game.players if p.role is Role.JESTER)
    request = next(r for r in pending(game))
    obs = observe(game, request.model_copy(update={"seat": jester}))
    obs = obs.model_copy(update={"lessons": lessons_by_list(lessons)})
    return len(call_messages([obs])[0].text)


def main() -> None:
    budget = Settings.defaults("triadic").lessons_shown
    print(f"| stored lessons | system prompt, all lessons | system prompt, lessons_shown={budget} |")
    print("|---:|---:|---:|")
    for count in (0, 100, 10_000):
        lessons = stored_lessons(count)
        full, bounded = system_prompt_chars(lessons), system_prompt_chars(most_recent(lessons, budget))
        print(f"| {count:,} | {full:,} chars (~{full // 4:,} tokens) | {bounded:,} chars (~{bounded // 4:,} tokens) |")


if __name__ == "__main__":
    main()
