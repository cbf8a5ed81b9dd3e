"""A seat's decisions of one wave asked in one call: ``-T calls=per_seat``, the default.

Why: a statement's analyses go to every living seat in the same wave as the bids for the next
turn, and a ballot's vote reasons are analysed by every seat at once. Asked one decision at a
time, a default triadic game-day is about 500 calls, each resending the seat's whole record for
one bid or one label. Asked together, it is one call per seat per wave: the record is sent once
for all of a seat's decisions of that wave.

What stays the same: each decision is made from the view it would have had alone (the same
state, so the same records and options), and each part of the reply is read, checked and, if it
cannot be used, falls back on its own, exactly as a reply to that decision alone would. On the
``wolfbot`` players every part is answered with the seed its decision would have had alone, so
their games are the same games under either setting. What changes for a model: it writes its
labels of several statements, and its bid or its defence, in one reply; a speaker labels its own
statement in the wave after it, beside its analyses of the others (docs/design.md, § Calls).

The analyses are numbered ``statement_1``, ``statement_2``, ... in record order, and every part
has the peer-analysis shape (a speaker's suspicion of its own statement is not read), so a seat's
joint calls of one kind share one response schema: a provider that caches the schema as the
prompt's prefix (OpenAI) keeps serving the seat's prompt from its cache.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, ResponseSchema
from inspect_ai.util import JSONSchema

from wolf_eval.agents.observation import Observation, logged_observation, metadata_view
from wolf_eval.agents.parse import InvalidReply, first_json_object, interpret_analysis, interpret_object, pick
from wolf_eval.agents.prompts import (
    METADATA_KEY,
    analysis_values,
    instruction,
    record_prompt,
    sections,
    system_prompt,
    template,
    text_block,
)
from wolf_eval.agents.schemas import REPLY_SCHEMAS, SharedSchema, response_schema
from wolf_eval.engine import Action, Decision, GameState, Request, fallback_decision
from wolf_eval.engine.state import ANALYSIS_ACTIONS
from wolf_eval.text import clean_text

#: The key of the analyses in a joint reply, and the name of each part in it.
ANALYSES = "analyses"
#: Cut of a raw reply kept with a part's fallback (as ``wolf_eval.agents.call.MAX_RAW_CHARS``).
_RAW_CHARS = 2000


def plan(requests: Sequence[Request], calls: str) -> list[list[int]]:
    """Which of a wave's requests each call answers, as indices, in the order of their first request.

    ``per_seat``: a seat's analyses and its one other decision of the wave (a bid, a defence) in one
    call; a second decision that is not an analysis (never pending in today's rules) gets its own.
    """
    if calls == "per_decision":
        return [[i] for i in range(len(requests))]
    joint: dict[str, list[int]] = {}
    alone: list[list[int]] = []
    for i, r in enumerate(requests):
        mine = joint.setdefault(r.seat, [])
        if r.action not in ANALYSIS_ACTIONS and any(requests[j].action not in ANALYSIS_ACTIONS for j in mine):
            alone.append([i])
        else:
            mine.append(i)
    return sorted([*joint.values(), *alone], key=lambda c: c[0])


@dataclass(frozen=True)
class JointCall:
    """One seat's decisions of a wave, as one call asks them: its analyses in record order, then the rest."""

    requests: tuple[Request, ...]

    @classmethod
    def of(cls, requests: Sequence[Request]) -> JointCall:
        analyses = sorted((r for r in requests if r.action in ANALYSIS_ACTIONS), key=lambda r: r.subject or 0)
        return cls((*analyses, *(r for r in requests if r.action not in ANALYSIS_ACTIONS)))

    @property
    def analyses(self) -> tuple[Request, ...]:
        return tuple(r for r in self.requests if r.action in ANALYSIS_ACTIONS)

    @property
    def main(self) -> Request | None:
        """The decision that is not an analysis, if any (a bid, a statement, a defence, a vote)."""
        return next((r for r in self.requests if r.action not in ANALYSIS_ACTIONS), None)

    @property
    def keys(self) -> tuple[str, ...]:
        """Each analysis's key in the reply."""
        return tuple(f"statement_{k}" for k in range(1, len(self.analyses) + 1))

    @property
    def decision(self) -> str:
        """What the call decides, in words (the transcript's label, a provider failure's message)."""
        n = len(self.analyses)
        parts = [f"{n} analyses" if n > 1 else "analysis"] if n else []
        if self.main is not None:
            parts.append(self.main.action.value)
        return " + ".join(parts)


@lru_cache(maxsize=256)
def joint_schema(n_analyses: int, main: Action | None, taxonomy: tuple[str, ...],
                 options: tuple[str, ...] = ()) -> ResponseSchema:
    """The reply of a joint call: ``analyses`` (each part a peer analysis), then the decision's own fields."""
    part = response_schema(Action.PEER_ANALYSIS, taxonomy).json_schema
    keys = [f"statement_{k}" for k in range(1, n_analyses + 1)]
    properties: dict[str, JSONSchema] = {}
    required: list[str] = []
    if keys:
        # Each field is described once, in the first part: a ballot's nine parts would repeat some 600 tokens.
        parts = {k: part if k == keys[0] else _undescribed(part) for k in keys}
        properties[ANALYSES] = JSONSchema(type="object", properties=parts, required=keys,
                                          additionalProperties=False)
        required.append(ANALYSES)
    if main is not None:
        own = response_schema(main, taxonomy, options).json_schema
        properties.update(own.properties or {})
        required += own.required or []
    return SharedSchema(name="wolf_joint", json_schema=JSONSchema(
        type="object", properties=properties, required=required, additionalProperties=False), strict=True)


def _undescribed(schema: JSONSchema) -> JSONSchema:
    """``schema`` without its fields' descriptions (the same shape, so the same instances)."""
    props = {k: v.model_copy(update={"description": None}) for k, v in (schema.properties or {}).items()}
    return schema.model_copy(update={"properties": props, "description": None})


def joint_instruction(views: Sequence[Observation], call: JointCall, structured: bool = True) -> str:
    """The analyses to write (each statement quoted once, under its key), then the decision's instruction."""
    lines: list[str] = []
    own = [v for v in views if v.action is Action.SELF_ANALYSIS]
    if call.analyses:
        lines.append(template("action_joint_analyses").substitute(
            own=" Judge your own honestly: was it deceptive? (Your suspicion of yourself is not read.)" if own else "",
        ).strip())
        for key, view in zip(call.keys, views, strict=False):
            said = analysis_values(view)
            whose = "your own" if view.action is Action.SELF_ANALYSIS else f"{said['speaker']}'s"
            lines += [f"{key}, {whose} {said['statement_kind']} on day {said['day']}:", str(said["statement"])]
    if call.main is not None:
        lines.append(("Then: " if call.analyses else "") + instruction(views[-1], structured=True))
    text = "\n".join(lines)
    return text if structured else f"{text}\n{joint_reply_format(call)}"


def joint_reply_format(call: JointCall) -> str:
    """The joint reply in words, for a call that goes without a response schema."""
    peer = REPLY_SCHEMAS[Action.PEER_ANALYSIS].model_fields
    one = "{" + ", ".join(f'"{n}": <{f.description}>' for n, f in peer.items()) + "}"
    parts = [f'"{ANALYSES}": {{' + ", ".join(f'"{k}": {one}' for k in call.keys) + "}"] if call.keys else []
    if call.main is not None:
        fields = REPLY_SCHEMAS[call.main.action].model_fields
        parts += [f'"{n}": <{f.description}>' for n, f in fields.items()]
    return "Reply with only a JSON object: {" + ", ".join(parts) + "}"


def joint_messages(views: Sequence[Observation], refs: Sequence[str], seeds: Sequence[int], call: JointCall,
                   structured: bool = True) -> list[ChatMessage]:
    """The seat's system prompt and record, as for any of its calls, then the joint instruction.

    The metadata keeps each decision's view with the seed its call would have had alone, under ``joint``,
    in the order of ``call.requests``, and the records they share (as indices) once, under ``records``.
    """
    first = views[0]
    blocks = [*record_prompt(first), text_block(f"\n{joint_instruction(views, call, structured)}")]
    parts = [{**metadata_view(v, ref), "seed": seed} for v, ref, seed in zip(views, refs, seeds, strict=True)]
    shared = parts[0]["records"]  # one seat at one moment: every part saw the same records, kept once
    for part in parts:
        del part["records"]
    return [
        ChatMessageSystem(content=sys.intern(system_prompt(first))),
        ChatMessageUser(content=blocks,
                        metadata={METADATA_KEY: {"joint": parts, "records": shared}}),
    ]


def read_joint(raw: str, call: JointCall, state: GameState) -> list[Decision]:
    """Each decision of ``call`` from one reply, in ``call.requests`` order; a part that cannot be used
    falls back alone, its reason naming the part. A reply with no JSON object raises ``InvalidReply``
    (every part then falls back with that reason)."""
    if not raw or not raw.strip():
        raise InvalidReply("empty reply")
    obj = first_json_object(raw)
    cut = clean_text(raw)[:_RAW_CHARS]
    taxonomy, names = state.config.taxonomy, state.names
    out: list[Decision] = []
    analyses = pick(obj, ANALYSES) if call.analyses else None
    for key, request in zip(call.keys, call.analyses, strict=True):
        try:
            part = pick(analyses, key) if isinstance(analyses, dict) else None
            if not isinstance(part, dict):
                raise InvalidReply(f"no {key!r} object under {ANALYSES!r}")
            out.append(interpret_analysis(part, request, taxonomy))
        except InvalidReply as err:
            out.append(fallback_decision(state, request, f"{key}: {err}", cut))
    if call.main is not None:
        rest = {k: v for k, v in obj.items() if k != ANALYSES}
        try:
            out.append(interpret_object(rest, call.main, names, taxonomy))
        except InvalidReply as err:
            out.append(fallback_decision(state, call.main, f"{call.main.action.value}: {err}", cut))
    return out


def fall_back_all(state: GameState, call: JointCall, reason: str, raw: str) -> list[Decision]:
    """Every decision of ``call`` falls back, for one reason (a reply with nothing to read)."""
    return [fallback_decision(state, r, reason, raw) for r in call.requests]


def in_asked_order(call: JointCall, decided: Sequence[Decision], requests: Sequence[Request]) -> list[Decision]:
    """``call``'s decisions (in ``call.requests`` order) in the order ``requests`` asked them."""
    by_key = {r.key: d for r, d in zip(call.requests, decided, strict=True)}
    return [by_key[r.key] for r in requests]


def call_parts(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """A logged prompt's decisions' views: a joint call's parts, or the one view."""
    return joint_parts(meta) or [meta]


def joint_parts(meta: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A logged prompt's parts if it asked a joint call (each a decision's view, with the records the
    call keeps once for all of them), else None."""
    parts = meta.get("joint")
    if not isinstance(parts, list):
        return None
    return [{**p, "records": meta.get("records", p.get("records"))} for p in parts]


def call_of(views: Sequence[Observation]) -> JointCall:
    """The joint call a logged prompt's views asked (each view names its decision)."""
    return JointCall.of([Request(seat=v.seat, action=v.action, day=v.day, phase=v.phase, turn=v.turn,
                                 options=v.options, subject=v.subject) for v in views])


def joint_sections(views: Sequence[Observation], structured: bool = True) -> dict[str, str]:
    """A joint prompt's text by section, as :func:`wolf_eval.agents.prompts.sections` cuts a single one."""
    return {**sections(views[0], structured),
            "instruction": joint_instruction(views, call_of(views), structured=True),
            "reply in words": "" if structured else joint_reply_format(call_of(views))}


def logged_views(meta: dict[str, Any], game: GameState) -> list[Observation]:
    """The views a logged prompt was built from, after the game: one, or a joint call's each."""
    return [logged_observation(m, game) for m in call_parts(meta)]


def logged_sections(meta: dict[str, Any], game: GameState, structured: bool = True) -> dict[str, str]:
    """A logged prompt's text by section, re-rendered from the views it was built from."""
    views = logged_views(meta, game)
    return joint_sections(views, structured) if "joint" in meta else sections(views[0], structured)


def assemble(call_parts: Sequence[tuple[Action, dict[str, Any]]]) -> str:
    """A joint reply from each part's own reply, in call order (how ``wolfbot`` answers a joint call):
    analyses under their keys (a self-analysis given the suspicion field the shared shape asks for),
    the decision's fields beside them."""
    reply: dict[str, Any] = {}
    analyses: dict[str, Any] = {}
    for action, part in call_parts:
        if action in ANALYSIS_ACTIONS:
            analyses[f"statement_{len(analyses) + 1}"] = {**part, "suspicion": part.get("suspicion", 0.0)}
        else:
            reply.update(part)
    return json.dumps({ANALYSES: analyses, **reply} if analyses else reply)


__all__ = ["ANALYSES", "JointCall", "assemble", "call_of", "call_parts", "fall_back_all", "in_asked_order",
           "joint_instruction", "joint_messages", "joint_parts", "joint_schema", "joint_sections", "logged_sections",
           "logged_views", "plan", "read_joint"]
