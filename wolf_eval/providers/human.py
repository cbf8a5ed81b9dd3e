"""The ``human`` model provider: a person takes a seat, ``--model-role villager=human/<name>``.

The seat plays through the same call as a model's (``wolf_eval/agents/seat_call.py``): the provider reads the
views of the call's decisions from the prompt's metadata (as ``wolfbot`` does; the call is in flight in this
process), shows the person that seat's view for reading and asks each decision in plain words
(``wolf_eval/providers/human_asking.py``), then puts the answers together as the call's reply, which the game
reads exactly as a model's. So the log binds the seat as ``human/<name>``, the person's replies are that seat's
calls in the transcript, and every score, ``compare``, ``rate`` and the report treat the person as a model. Its
usage is zero tokens and its price zero (``wolf_eval/measures/cost.py``); the seconds each decision took are in
the call's output metadata under ``human``.

The model's arguments (``--model-role 'jester={model: human/ann, model_args: {timeout: 120}}'``): ``timeout``
gives each decision that many seconds (off by default), then forfeits it; ``judging: false`` leaves every
statement unjudged (recorded as missing) instead of asking its labels. Answers come from the
terminal through Inspect's input screen, or, from Python, from any :class:`~wolf_eval.providers.human_input.InputSource`
put in force with ``answers_from(Scripted(...))`` around the eval: tests play whole games that way.
"""

from __future__ import annotations

import json
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from wolf_eval.agents.observation import Observation
from wolf_eval.agents.prompts import METADATA_KEY
from wolf_eval.agents.seat_call import call_of, logged_parts, reply_fields
from wolf_eval.measures.cost import HUMAN
from wolf_eval.providers.human_asking import Person, decide, page
from wolf_eval.providers.human_input import InputSource, Terminal, plugged
from wolf_eval.providers.wolfbot import find_parts
from wolf_eval.refusal import ValueRefused

#: Where a call's output metadata keeps what the person did: seconds per decision, answers asked again, forfeits.
METADATA = "human"
NOT_A_SEAT = ("a person answers only a seat's decisions in the game; bind human/<name> to a seat's role, "
              "not to the judge or the lesson tagger")


@modelapi(name=HUMAN)
class Human(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 (Inspect's ModelAPI signature)
        timeout: float | None = None,
        judging: bool = True,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_args:
            raise ValueRefused("human takes only the model arguments timeout (seconds) and judging (true or false), "
                               f"got: {', '.join(model_args)}")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or timeout <= 0):
            raise ValueRefused(f"human: timeout must be a number of seconds above 0, got {timeout!r}")
        if not isinstance(judging, bool):
            raise ValueRefused(f"human: judging must be true or false, got {judging!r}")
        self.timeout = None if timeout is None else float(timeout)
        self.judging = judging
        self.terminal = Terminal()
        self.people: dict[tuple[str, str], Person] = {}

    def max_connections(self) -> int:
        return 1  # one person answers one call at a time

    def person(self, game: str, obs: Observation) -> Person:
        """The person at ``obs``'s seat in ``game``: a new game starts a new page."""
        key = (game, obs.seat)
        known = self.people.get(key)
        if known is None or (obs.records and max(r.index for r in obs.records) < known.shown_upto):
            known = self.people[key] = Person(judging=self.judging)
        return known

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        parts = find_parts(input)
        if parts is None:
            out = ModelOutput.from_content(model=f"{HUMAN}/{self.model_name}", content="")
            out.error = NOT_A_SEAT
            out.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
            return out
        views = [obs for obs, _ in parts]  # in call order, as the call's requests
        call = call_of(views)
        first = views[0]
        person = self.person(_game_of(input), first)
        before = (len(person.seconds), person.reasks, person.forfeits)
        where = f"night {first.day}" if first.phase.value == "night" else f"day {first.day}"
        source: InputSource = plugged() or self.terminal
        async with source.screen(f"{first.seat} ({first.role.value}) · {where}") as screen:
            screen.show(page(first, person))
            replies = [await decide(screen, v, r, person, self.timeout)
                       for v, r in zip(views, call.requests, strict=True)]
        content = call.assemble([json.dumps(p) for p in replies], reply_fields(first))
        out = ModelOutput.from_content(model=f"{HUMAN}/{self.model_name}", content=content)
        out.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        out.metadata = {METADATA: {"seconds": person.seconds[before[0]:], "asked_again": person.reasks - before[1],
                                   "forfeits": person.forfeits - before[2]}}
        return out


def _game_of(input: list[ChatMessage]) -> str:
    """The game a prompt belongs to: the seed its decisions' refs open with (``<seed>:<decision>``)."""
    for message in reversed(input):
        meta = (message.metadata or {}).get(METADATA_KEY)
        if isinstance(meta, dict):
            refs = [p.get("ref") for p in logged_parts(meta)]
            return str(refs[0]).split(":", 1)[0] if refs and refs[0] else ""
    return ""
