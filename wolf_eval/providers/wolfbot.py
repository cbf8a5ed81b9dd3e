"""The ``wolfbot`` model provider: offline scripted players, ``--model wolfbot/cue``.

Models: ``wolfbot/random``, ``wolfbot/cue``, ``wolfbot/tom``, ``wolfbot/faction`` (the baseline
players of ``wolf_eval/baseline/``), ``wolfbot/chaos`` (hostile replies) and ``wolfbot/monitor`` (the
scripted monitor, ``--model-role monitor=wolfbot/monitor``: it reads and plays no seat). ``wolfbot/faction`` plays
the village seats; bind the others with ``--model-role``, e.g. ``--model wolfbot/faction
--model-role jester=wolfbot/tom --model-role werewolf=wolfbot/tom``.

It answers each wolf-eval prompt from the observation the prompt was built from
(the metadata names it; the calling task holds it while the call is made), with randomness
seeded by the per-call seed the game sets, so a game on wolfbot replays exactly.
``-M latency=SECONDS`` makes every call wait that long before answering, to measure a game's
critical path at API speed; ``-M words=N`` makes every statement, defence and vote reason N
words long (the game is otherwise unchanged), to measure its tokens at the length models speak.
``-M refuse=P`` and ``-M expose=P`` make a deceiving seat's public reply a refusal of its role, or a
self-exposure, with those probabilities (``breaking.py``), so the refusal counts run offline.
``-M deceive=P`` is the share of a wolf's days it chooses to deceive with ``-T deception=optional`` (default 0.5,
each day a seeded draw), so both stances occur offline.

Every reply to a seat carries a scripted reasoning block (``wolf_eval.baseline.confessions``) beside it,
as a reasoning model's does; ``-M leak=P`` is the share of a deceiver's days whose reasoning confesses its
role (default 0.5). Its tokens are reported as reasoning tokens, not as output: the players' token counts
stay those of their replies, so a game's cost reads the same with or without it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Callable
from random import Random
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from wolf_eval.agents.monitor import MONITOR_METADATA_KEY, MonitorView
from wolf_eval.agents.observation import Observation, from_metadata
from wolf_eval.agents.prompts import METADATA_KEY
from wolf_eval.agents.reply_reading import READING_METADATA_KEY, ReplyReading
from wolf_eval.agents.role_guesses import JUDGE_METADATA_KEY, JudgeView
from wolf_eval.agents.seat_call import call_of, logged_parts, reply_fields
from wolf_eval.baseline.bots import PLAYERS, judge_reply, strict_reply
from wolf_eval.baseline.confessions import LEAK, monitor_reading, scripted_thought
from wolf_eval.baseline.policies import DECEIVE, stance
from wolf_eval.measures.role_play import classify
from wolf_eval.measures.tokenizer import count, schema_text
from wolf_eval.providers.breaking import break_role
from wolf_eval.providers.padding import lengthen
from wolf_eval.refusal import ValueRefused
from wolf_eval.vocabulary import Action, Role

#: The scripted monitor's name: ``wolfbot/monitor`` reads seats' texts (``--model-role monitor=``), plays no seat.
MONITOR = "monitor"
#: Why ``wolfbot/monitor`` answers nothing but a monitor's prompt.
PLAYS_NO_SEAT = (f"wolfbot/{MONITOR} is the scripted monitor (--model-role monitor=wolfbot/{MONITOR}): it plays no "
                 "seat and judges nothing")
#: The settings a wolfbot model starts from when Inspect passes none.
_NO_SETTINGS = GenerateConfig()


def estimate_tokens(text: str) -> int:
    """The text's tokens as gpt-4.1 counts them (o200k), so a game's usage and its ``cost`` score are in
    the tokens a provider bills, not in characters."""
    return max(1, count(text))


def prompt_tokens(messages: list[ChatMessage], config: GenerateConfig) -> int:
    """A call's prompt tokens (o200k): its response schema and each content block, counted block by block (the
    rules, a role and a record block recur from call to call, and each is counted once, then remembered)."""
    parts: list[str] = []
    for m in messages:
        parts += [m.content] if isinstance(m.content, str) else [c.text for c in m.content if c.type == "text"]
    return max(1, count(schema_text(config.response_schema)) + sum(count(p) for p in parts))


def find_parts(messages: list[ChatMessage]) -> list[tuple[Observation, int | None]] | None:
    """The views of a game prompt's decisions, in call order, each with the seed its decision would have
    had alone (None in a prompt built outside a game, which keeps no seed); None if no game prompt."""
    for message in reversed(messages):
        meta = (message.metadata or {}).get(METADATA_KEY)
        if isinstance(meta, dict):
            return [(from_metadata(p), p.get("seed")) for p in logged_parts(meta)]
    return None


def answer(reply_for: Callable[[Observation, int], str], messages: list[ChatMessage], seed: int) -> str | None:
    """The raw reply to a wolf-eval game prompt, each of its decisions answered by ``reply_for(view,
    seed)`` from its own view and the seed its decision would have had alone (so a call of several
    decisions plays the decisions separate calls would), then put together as the call's reply; a
    decision without a seed of its own is answered with the call's. None if not a game prompt."""
    parts = find_parts(messages)
    if parts is None:
        return None
    views = [obs for obs, _ in parts]
    replies = [reply_for(obs, seed if own is None else own) for obs, own in parts]
    return call_of(views).assemble(replies, reply_fields(views[0]))


def reading_reply(messages: list[ChatMessage]) -> str | None:
    """A judge's reading of the deceivers' replies, answered by the rules themselves (so offline the judge's
    reading agrees with the rules': the path is tested, not a reader); None if the prompt is no such reading."""
    for message in reversed(messages):
        if message.metadata and READING_METADATA_KEY in message.metadata:
            reading = ReplyReading.model_validate(message.metadata[READING_METADATA_KEY])
            return json.dumps({"classes": [str(classify(text, Role(role))) for role, text in reading.replies]})
    return None


def find_thought(messages: list[ChatMessage], leak: float) -> str | None:
    """The scripted reasoning of a game prompt's call (its last decision's seat thinking, once per call); None if
    no game prompt. Its game is the seed its decisions' refs name."""
    parts = find_parts(messages)
    if not parts:
        return None
    meta = next(m.metadata[METADATA_KEY] for m in reversed(messages)
                if m.metadata and isinstance(m.metadata.get(METADATA_KEY), dict))
    refs = [p.get("ref") for p in logged_parts(meta)]
    game = str(refs[-1]).split(":", 1)[0] if refs[-1] else "outside a game"
    return scripted_thought(parts[-1][0], game, leak)


def find_monitor_view(messages: list[ChatMessage]) -> MonitorView | None:
    for message in reversed(messages):
        if message.metadata and MONITOR_METADATA_KEY in message.metadata:
            return MonitorView.model_validate(message.metadata[MONITOR_METADATA_KEY])
    return None


def find_judge_view(messages: list[ChatMessage]) -> JudgeView | None:
    for message in reversed(messages):
        if message.metadata and JUDGE_METADATA_KEY in message.metadata:
            return JudgeView.model_validate(message.metadata[JUDGE_METADATA_KEY])
    return None


@modelapi(name="wolfbot")
class WolfBot(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = _NO_SETTINGS,
        latency: float = 0.0,
        words: int = 0,
        leak: float = LEAK,
        refuse: float = 0.0,
        expose: float = 0.0,
        deceive: float = DECEIVE,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if not isinstance(latency, (int, float)) or isinstance(latency, bool) or not 0 <= latency <= 600:
            raise ValueRefused(f"wolfbot: -M latency must be a number of seconds from 0 to 600, got {latency!r}")
        self.latency = float(latency)
        if not isinstance(words, int) or isinstance(words, bool) or not 0 <= words <= 1000:
            raise ValueRefused(f"wolfbot: -M words must be a whole number of words from 0 to 1000, got {words!r}")
        if words and model_name == "chaos":
            raise ValueRefused("wolfbot/chaos writes its own replies; -M words applies to the other players")
        self.words = words
        if isinstance(leak, bool) or not isinstance(leak, int | float) or not 0 <= leak <= 1:
            raise ValueRefused(f"wolfbot: -M leak must be a share from 0 to 1 (of a deceiver's days whose reasoning "
                               f"confesses its role), got {leak!r}")
        self.leak = float(leak)
        for name, p in (("refuse", refuse), ("expose", expose)):
            if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1:
                raise ValueRefused(f"wolfbot: -M {name} must be a probability from 0 to 1, got {p!r}")
        if refuse + expose > 1:
            raise ValueRefused(f"wolfbot: -M refuse and -M expose add up to {refuse + expose}, more than 1")
        self.refuse, self.expose = float(refuse), float(expose)
        if isinstance(deceive, bool) or not isinstance(deceive, int | float) or not 0 <= deceive <= 1:
            raise ValueRefused(f"wolfbot: -M deceive must be a share from 0 to 1 (of a wolf's days it chooses to "
                               f"deceive with -T deception=optional), got {deceive!r}")
        self.deceive = float(deceive)
        if model_name not in (*PLAYERS, MONITOR):
            close = difflib.get_close_matches(model_name, list(PLAYERS), n=1)
            hint = f" (did you mean wolfbot/{close[0]}?)" if close else ""
            raise ValueRefused(f"wolfbot/{model_name}: wolfbot has no policy {model_name!r}{hint}; use one of: "
                               + ", ".join(f"wolfbot/{p}" for p in (*PLAYERS, MONITOR)))
        if model_args:
            raise ValueRefused("wolfbot takes only -M latency=SECONDS, -M words=N, -M leak=P, -M refuse=P, "
                               "-M expose=P and -M deceive=P, got: " + ", ".join(model_args))
        self.player = PLAYERS.get(model_name)

    def max_connections(self) -> int:
        return 1024  # a simulated API never throttles, so a wave's calls all overlap

    def _reply(self, obs: Observation, seed: int) -> str:
        """One decision's reply: the policy's move, run on to ``-M words``, then broken by ``-M refuse``/``expose``."""
        if self.player is None:
            raise ValueRefused(PLAYS_NO_SEAT)
        if obs.action is Action.STANCE and self.model_name != "chaos":
            return json.dumps(strict_reply(obs, stance(Random(seed), self.deceive)))
        said = lengthen(self.player(obs, Random(seed)), obs, self.words, Random(f"{seed}:words"))
        return break_role(said, obs, self.refuse, self.expose, Random(f"{seed}:role_play"))

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        prompt = "\n".join(m.text for m in input)
        seed = config.seed
        if seed is None:
            seed = int.from_bytes(hashlib.sha256(prompt.encode()).digest()[:8], "big")
        content, thought = self._answer(input, seed)
        if self.latency:
            await anyio.sleep(self.latency)  # a simulated API round trip; concurrent calls overlap
        model = f"wolfbot/{self.model_name}"
        if thought is None:
            output = ModelOutput.from_content(model=model, content=content)
        else:
            message = ChatMessageAssistant(content=[ContentReasoning(reasoning=thought), ContentText(text=content)],
                                           model=model, source="generate")
            output = ModelOutput.from_message(message)
        inp, out = prompt_tokens(input, config), estimate_tokens(content)
        thinking = estimate_tokens(thought) if thought is not None else None
        output.usage = ModelUsage(input_tokens=inp, output_tokens=out, total_tokens=inp + out,
                                  reasoning_tokens=thinking)
        return output

    def _answer(self, input: list[ChatMessage], seed: int) -> tuple[str, str | None]:
        """The reply to a prompt, and the scripted reasoning beside it (a seat's call only)."""
        mv = find_monitor_view(input)
        if mv is not None:
            return json.dumps(monitor_reading(mv.text, mv.jester)), None
        if self.player is None:
            raise ValueRefused(PLAYS_NO_SEAT)
        game = answer(self._reply, input, seed)
        if game is not None:
            return game, find_thought(input, self.leak)
        read = reading_reply(input)
        if read is not None:
            return read, None
        jv = find_judge_view(input)
        if jv is not None:
            return judge_reply(self.model_name, jv, Random(seed)), None
        return "wolfbot only answers wolf-eval game prompts (no observation in the message metadata).", None
