"""The prompt templates: every one is read by some prompt, and a seat's prompt reads from few files.

Every template is looked up by name through ``wolf_eval.agents.prompts.library``; here that lookup is
recorded while every kind of prompt the package sends is built (every decision of played games under
both ways of asking, the Jester's lessons, the judge's roles and its reading of replies, and the lesson
tagger), so a template nothing reads fails the first test.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from wolf_eval.agents import prompts
from wolf_eval.agents.call import ProviderFailure
from wolf_eval.agents.model_tagger import model_tags
from wolf_eval.agents.monitor import day_views, monitor_messages
from wolf_eval.agents.observation import observe
from wolf_eval.agents.reply_reading import ReplyReading, reading_messages
from wolf_eval.agents.role_guesses import judge_messages, judge_view
from wolf_eval.agents.seat_call import call_messages, plan
from wolf_eval.engine import Action, Decision, GameState, Request, Role, advance, fallback_decision, new_game, pending
from wolf_eval.lessons.asking import lessons_view
from wolf_eval.settings import rules_for


class Recording(dict[str, Any]):
    """The template library, noting each name looked up."""

    def __init__(self, library: dict[str, Any]) -> None:
        super().__init__(library)
        self.read: list[str] = []

    def __getitem__(self, name: str) -> Any:
        self.read.append(name)
        return super().__getitem__(name)


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recording]:
    library = Recording(prompts.library())
    monkeypatch.setattr(prompts, "library", lambda: library)
    yield library


def file_of(name: str) -> str:
    return f"{name.split('.')[0]}.txt"


def move(state: GameState, r: Request) -> Decision:
    """A legal decision that keeps the game talking: every seat bids, speaks and votes with a reason."""
    if r.action is Action.BID:
        return Decision(seat=r.seat, action=r.action, bid=5)
    if r.action in (Action.STATEMENT, Action.DEFENCE):
        return Decision(seat=r.seat, action=r.action, text=f"I am {r.seat}, day {r.day}.")
    if r.action is Action.VOTE:
        return Decision(seat=r.seat, action=r.action, target=r.options[0], reason="Too quiet.")
    return fallback_decision(state, r, "test", "")


def play(state: GameState) -> GameState:
    return advance(state, [move(state, r) for r in pending(state)])


def games() -> Iterator[GameState]:
    """States of a played game of each variant at each wave: a Jester, deception analyses, two ballots, nights; and
    a triadic game with deception=optional, whose wolves choose a stance each morning."""
    for variant, deception in (("triadic", "dealt"), ("wolf", "dealt"), ("dyadic", "dealt"), ("triadic", "optional")):
        state = new_game(rules_for(variant, max_days=1, deception=deception), 1)
        while not state.over:
            yield state
            state = play(state)
        yield state


def ask_everything(state: GameState) -> None:
    """Build the prompt of every call of the state's wave, as each way of asking groups it."""
    requests = pending(state)
    for calls in ("per_seat", "per_decision"):
        for group in plan(requests, calls):
            views = [observe(state, requests[i], "compact", calls=calls) for i in group]
            call_messages(views, structured=calls == "per_seat", again=calls == "per_seat")


def test_every_template_is_read_by_a_prompt(recording: Recording) -> None:
    for state in games():
        if state.over:
            jester = next((p.name for p in state.players if p.role is Role.JESTER), None)
            if jester:
                call_messages([lessons_view(state, jester, [])])
            judge_messages(judge_view(state))
            reading_messages(ReplyReading(replies=(("werewolf", "I am a villager."),), classes=("played",)))
            for view in day_views(state, [], 1, "both"):  # the monitor's reading of a seat's day
                monitor_messages(view)
        else:
            ask_everything(state)
    reply = ModelOutput.from_content("mockllm/model", '{"order": 1, "categories": []}')
    reply.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    try:
        asyncio.run(model_tags(get_model("mockllm/model", custom_outputs=[reply]), "Act like a wolf."))
    except ProviderFailure:  # the prompt was built: the template is read whether or not the stand-in answers
        pass
    watched = new_game(rules_for("triadic"), 3)  # -T watched: the rules say the reasoning is read
    prompts.system_prompt(observe(watched, pending(watched)[0]).model_copy(update={"watched": True}))
    unread = sorted(set(prompts.library()) - set(recording.read))
    assert not unread, f"templates no prompt reads: {unread}"


def test_a_voting_wolf_s_prompt_reads_three_template_files(recording: Recording) -> None:
    """The rules, the roles and the decisions: a wolf voting after labelling statements, in the triadic
    game (taxonomy, Jester warning, the seat's reply shape), asked once and again."""
    state = new_game(rules_for("triadic"), 3)
    while not any(r.action is Action.VOTE for r in pending(state)):
        state = play(state)
    requests = pending(state)
    wolf = next(r for r in requests if r.action is Action.VOTE and state.player(r.seat).role is Role.WEREWOLF)
    views = [observe(state, r, "compact", calls="per_seat") for r in requests if r.seat == wolf.seat]
    for structured, again in ((True, False), (False, True)):
        call_messages(views, structured=structured, again=again)
    assert {file_of(n) for n in recording.read} == {"rules.txt", "roles.txt", "actions.txt"}
    assert {"actions.vote", "roles.werewolf", "rules.replies", "rules.taxonomy_triadic"} <= set(recording.read)
