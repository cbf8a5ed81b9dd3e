"""A seat's call: its 1..k decisions of one wave, asked of its model in one prompt and read from one reply.

Every game decision, and the Jester's lessons, reaches a model as a :class:`SeatCall`, so there is one
of each: the messages (:func:`call_messages`), the response schema (:meth:`SeatCall.schema`), the
reading of the reply (:meth:`SeatCall.read`), its fallback (:meth:`SeatCall.fall_back`), the
metadata a logged prompt carries and its reader (:func:`logged_parts`).

``-T calls`` says how many decisions a call asks. ``per_decision`` (the papers' protocol): one, and
the prompt is that decision's own, its reply the action's own JSON object. ``per_seat`` (the
default): a seat's analyses of a wave and its one other decision (a bid, a defence) in one call.
Why: a statement's analyses go to every living seat in the same wave as the bids for the next turn,
and a ballot's vote reasons are analysed by every seat at once; asked one decision at a time, a
default triadic game-day is about 500 calls, each resending the seat's whole record for one bid or
one label. A call of several decisions quotes each statement once under its key (``statement_1``,
``statement_2``, ... in record order), nests the analyses under ``analyses`` and puts the other
decision's fields beside them; every analysis part has the peer-analysis shape (a speaker's
suspicion of its own statement is not read), so a seat's calls of one kind share one response
schema, which a provider that caches the schema as the prompt's prefix (OpenAI) keeps serving.

What stays the same however the decisions are grouped: each decision is made from the view it would
have had alone (the same state, so the same records and options), and each part of a reply is read,
checked and, if it cannot be used, falls back on its own, exactly as a reply to that decision alone
would. A part is read only from its own key: a missing key or one given twice falls that part back
with the reason; a key that names no decision asked is read into none (docs/design.md, § Calls). On
the ``wolfbot`` players every part is answered with the seed its decision would have had alone, so
their games are the same games under either setting.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, ResponseSchema
from inspect_ai.util import JSONSchema

from wolf_eval.agents.call import call_seed, read_reply
from wolf_eval.agents.observation import Observation, logged_observation, metadata_view
from wolf_eval.agents.parse import (
    InvalidReply,
    ReplyObject,
    first_json_object,
    fold_key,
    interpret_object,
    kind_of,
    pick,
)
from wolf_eval.agents.prompts import (
    METADATA_KEY,
    analysis_values,
    instruction,
    record_prompt,
    reply_format,
    sections,
    system_prompt,
    template,
    text_block,
)
from wolf_eval.agents.schemas import REPLY_SCHEMAS, SharedSchema, response_schema
from wolf_eval.engine import Action, Decision, GameState, Request, fallback_decision
from wolf_eval.engine.state import ANALYSIS_ACTIONS
from wolf_eval.text import clean_text

#: The key of the analyses in the reply of a call of several decisions.
ANALYSES = "analyses"
#: Where a logged prompt's metadata keeps the decisions its call asked, each as its view.
DECISIONS = "decisions"
#: What a call that asks a speaker to label its own statement says of it, beside the others' analyses.
OWN_STATEMENT = " Judge your own honestly: was it deceptive? (Your suspicion of yourself is not read.)"
#: Cut of a raw reply kept with a part's fallback (as ``wolf_eval.agents.call.MAX_RAW_CHARS``).
_RAW_CHARS = 2000

#: A part of a reply: the decision, its label in a nested reply, and the object it is read from (or why none).
Part = tuple[Request, "str | None", "dict[str, Any] | InvalidReply"]


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
class SeatCall:
    """One seat's decisions of a wave, as one call asks them: its analyses in record order, then the rest."""

    requests: tuple[Request, ...]

    @classmethod
    def of(cls, requests: Sequence[Request]) -> SeatCall:
        analyses = sorted((r for r in requests if r.action in ANALYSIS_ACTIONS), key=lambda r: r.subject or 0)
        return cls((*analyses, *(r for r in requests if r.action not in ANALYSIS_ACTIONS)))

    @property
    def nested(self) -> bool:
        """Whether the reply nests parts: a call of one decision is that decision's own reply, unnested."""
        return len(self.requests) > 1

    @property
    def analyses(self) -> tuple[Request, ...]:
        return tuple(r for r in self.requests if r.action in ANALYSIS_ACTIONS)

    @property
    def main(self) -> Request | None:
        """The decision that is not an analysis, if any (a bid, a statement, a defence, a vote)."""
        return next((r for r in self.requests if r.action not in ANALYSIS_ACTIONS), None)

    @property
    def keys(self) -> tuple[str, ...]:
        """Each analysis's key in a nested reply."""
        return tuple(f"statement_{k}" for k in range(1, len(self.analyses) + 1))

    @property
    def decision(self) -> str:
        """What the call decides, in words (the transcript's label, a provider failure's message)."""
        if not self.nested:
            return self.requests[0].action.value
        n = len(self.analyses)
        parts = [f"{n} analyses" if n > 1 else "analysis"] if n else []
        if self.main is not None:
            parts.append(self.main.action.value)
        return " + ".join(parts)

    def seed(self, game_seed: int, seeds: Sequence[int]) -> int:
        """The call's sampling seed: its one decision's own, or one drawn from all its decisions' seeds."""
        return seeds[0] if not self.nested else call_seed(game_seed, "+".join(map(str, seeds)), None)

    def schema(self, taxonomy: tuple[str, ...], options: tuple[str, ...] = ()) -> ResponseSchema:
        """The reply's response schema; ``options``: the legal names of the call's ballot or night action."""
        if not self.nested:
            return response_schema(self.requests[0].action, taxonomy, options)
        main = self.main
        return nested_schema(len(self.analyses), main.action if main else None, taxonomy, options if main else ())

    def instruction(self, views: Sequence[Observation], structured: bool = True) -> str:
        """What to decide: the decision's own instruction, or each statement to analyse quoted once under
        its key, then the other decision's instruction; the reply spelt out when no schema is sent."""
        if not self.nested:
            return instruction(views[0], structured)
        lines: list[str] = []
        if self.analyses:
            own = any(v.action is Action.SELF_ANALYSIS for v in views)
            lines.append(template("action_joint_analyses").substitute(own=OWN_STATEMENT if own else "").strip())
            for key, view in zip(self.keys, views, strict=False):
                said = analysis_values(view)
                whose = "your own" if view.action is Action.SELF_ANALYSIS else f"{said['speaker']}'s"
                lines += [f"{key}, {whose} {said['statement_kind']} on day {said['day']}:", str(said["statement"])]
        if self.main is not None:
            lines.append(("Then: " if self.analyses else "") + instruction(views[-1], structured=True))
        text = "\n".join(lines)
        return text if structured else f"{text}\n{self.reply_format()}"

    def reply_format(self) -> str:
        """The reply in words, for a call that goes without a response schema."""
        if not self.nested:
            return reply_format(self.requests[0].action)
        peer = REPLY_SCHEMAS[Action.PEER_ANALYSIS].model_fields
        one = "{" + ", ".join(f'"{n}": <{f.description}>' for n, f in peer.items()) + "}"
        parts = [f'"{ANALYSES}": {{' + ", ".join(f'"{k}": {one}' for k in self.keys) + "}"] if self.keys else []
        if self.main is not None:
            fields = REPLY_SCHEMAS[self.main.action].model_fields
            parts += [f'"{n}": <{f.description}>' for n, f in fields.items()]
        return "Reply with only a JSON object: {" + ", ".join(parts) + "}"

    def read(self, raw: str, state: GameState) -> list[Decision]:
        """Each decision from the reply, in ``requests`` order; a part that cannot be used falls back
        alone, its reason naming the part in a nested reply. A reply with no JSON object raises
        ``InvalidReply`` (every part then falls back with that reason, :meth:`fall_back`)."""
        if not raw or not raw.strip():
            raise InvalidReply("empty reply")
        obj = first_json_object(raw)
        cut = clean_text(raw)[:_RAW_CHARS]
        out: list[Decision] = []
        for request, label, part in self._parts(obj):
            try:
                if isinstance(part, InvalidReply):
                    raise part
                out.append(interpret_object(part, request, state.names, state.config.taxonomy))
            except InvalidReply as err:
                out.append(fallback_decision(state, request, f"{label}: {err}" if label else str(err), cut))
        return out

    def _parts(self, obj: ReplyObject) -> list[Part]:
        """Each decision, its label in a nested reply and the object it is read from (or why there is none)."""
        if not self.nested:
            return [(self.requests[0], None, obj)]
        parts: list[Part] = []
        if self.analyses:
            found = pick(obj, ANALYSES)
            under: Mapping[str, dict[str, Any] | InvalidReply]
            if ANALYSES in obj.repeated:
                under = {k: InvalidReply(f"{ANALYSES!r} given twice") for k in self.keys}
            elif isinstance(found, dict):
                under = own_keys(found, self.keys)
            else:
                under = {k: InvalidReply(f"no {k!r} object under {ANALYSES!r}") for k in self.keys}
            parts += [(r, key, under[key]) for r, key in zip(self.analyses, self.keys, strict=True)]
        if self.main is not None:
            parts.append((self.main, self.main.action.value, obj.without(ANALYSES)))
        return parts

    def fall_back(self, state: GameState, reason: str, raw: str) -> list[Decision]:
        """Every decision of the call falls back, for one reason (a reply with nothing to read)."""
        return [fallback_decision(state, r, reason, raw) for r in self.requests]

    def in_order(self, decided: Sequence[Decision], requests: Sequence[Request]) -> list[Decision]:
        """The call's decisions (in ``self.requests`` order) in the order ``requests`` asked them."""
        by_key = {r.key: d for r, d in zip(self.requests, decided, strict=True)}
        return [by_key[r.key] for r in requests]

    def assemble(self, replies: Sequence[str]) -> str:
        """One reply from each decision's own reply, in call order (how ``wolfbot`` answers a call): a
        decision's reply alone, or the analyses under their keys (a self-analysis given the suspicion
        field the shared shape asks for) and the other decision's fields beside them. A part that is not
        a JSON object (a hostile reply) stands for the whole reply."""
        if not self.nested:
            return replies[0]
        reply: dict[str, Any] = {}
        analyses: dict[str, Any] = {}
        for request, raw in zip(self.requests, replies, strict=True):
            try:
                part = json.loads(raw)
            except ValueError:
                part = None
            if not isinstance(part, dict):
                return raw
            if request.action in ANALYSIS_ACTIONS:
                analyses[f"statement_{len(analyses) + 1}"] = {**part, "suspicion": part.get("suspicion", 0.0)}
            else:
                reply.update(part)
        return json.dumps({ANALYSES: analyses, **reply} if analyses else reply)


def own_keys(analyses: Mapping[str, Any], keys: Sequence[str]) -> dict[str, dict[str, Any] | InvalidReply]:
    """Each asked part's object, read only from its own key (case and separators aside, never a prefix);
    a part whose key is missing, or given twice, is an ``InvalidReply`` saying so. A key that names no
    part asked is read into none, and named in the reason of a part that is missing."""
    repeated = analyses.repeated if isinstance(analyses, ReplyObject) else frozenset()
    by_fold: dict[str, list[str]] = {}
    for k in analyses:
        by_fold.setdefault(fold_key(str(k)), []).append(str(k))
    asked = {fold_key(k) for k in keys}
    extra = [k for f, given in by_fold.items() if f not in asked for k in given]
    out: dict[str, dict[str, Any] | InvalidReply] = {}
    for key in keys:
        given = by_fold.get(fold_key(key), [])
        value = analyses[given[0]] if given else None
        if len(given) > 1 or (given and given[0] in repeated):
            out[key] = InvalidReply(f"{key!r} given twice under {ANALYSES!r}")
        elif not given:
            others = f" (keys there that name no part asked: {', '.join(extra[:8])})" if extra else ""
            out[key] = InvalidReply(f"no {key!r} object under {ANALYSES!r}{others}")
        elif not isinstance(value, dict):
            out[key] = InvalidReply(f"no {key!r} object under {ANALYSES!r} ({kind_of(value)} instead)")
        else:
            out[key] = value
    return out


@lru_cache(maxsize=256)
def nested_schema(n_analyses: int, main: Action | None, taxonomy: tuple[str, ...],
                  options: tuple[str, ...] = ()) -> ResponseSchema:
    """The reply of a call of several decisions: ``analyses`` (each part a peer analysis), then the
    other decision's own fields."""
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


def call_of(views: Sequence[Observation]) -> SeatCall:
    """The call that asks the decisions of ``views`` (each view names its decision), in call order."""
    return SeatCall.of([Request(seat=v.seat, action=v.action, day=v.day, phase=v.phase, turn=v.turn,
                                options=v.options, subject=v.subject) for v in views])


def call_messages(views: Sequence[Observation], refs: Sequence[str] | None = None,
                  seeds: Sequence[int] | None = None, structured: bool = True) -> list[ChatMessage]:
    """The prompt of the call asking the decisions of ``views`` (in call order): the seat's system
    prompt (rules and role), then its record block by block and the call's instruction last.

    The user message's metadata keeps, under :data:`DECISIONS`, each decision's view (with the seed
    its call would have had alone, if ``seeds``) and, under ``records``, the records they share,
    once: as indices with ``refs`` (the views' in-flight ids), whole without (a prompt built outside
    a game). ``structured`` says a response schema goes with the call.
    """
    first = views[0]
    parts = [metadata_view(v, refs[i] if refs is not None else None) for i, v in enumerate(views)]
    if seeds is not None:
        parts = [{**p, "seed": s} for p, s in zip(parts, seeds, strict=True)]
    shared = parts[0]["records"]  # one seat at one moment: every part saw the same records, kept once
    parts = [{k: v for k, v in p.items() if k != "records"} for p in parts]
    # each block ends its own line, so a provider that joins blocks with no separator reads lines
    blocks = [*record_prompt(first), text_block(f"\n{call_of(views).instruction(views, structured)}")]
    return [
        ChatMessageSystem(content=sys.intern(system_prompt(first))),
        ChatMessageUser(content=blocks, metadata={METADATA_KEY: {DECISIONS: parts, "records": shared}}),
    ]


def logged_parts(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each decision a logged prompt asked, as its view's metadata with the records the call keeps once.

    The one reader of every release's prompts: since 0.5.0 every call lists its decisions under
    :data:`DECISIONS`; 0.4.x listed a call of several under ``joint`` and kept a call of one as that
    view alone, as every release before 0.4.0 kept every call.
    """
    parts = meta.get(DECISIONS, meta.get("joint"))
    if not isinstance(parts, list):
        return [dict(meta)]
    return [{**p, "records": meta.get("records", p.get("records"))} for p in parts]


def logged_views(meta: Mapping[str, Any], game: GameState) -> list[Observation]:
    """The views a logged prompt was built from, after the game, in call order."""
    return [logged_observation(m, game) for m in logged_parts(meta)]


def call_sections(views: Sequence[Observation], structured: bool = True) -> dict[str, str]:
    """A call's prompt text by section, for measuring it: the rules, role and record (the seat's, as in
    :func:`wolf_eval.agents.prompts.sections`), the call's instruction, and the reply format it spells
    out when no response schema is sent."""
    call = call_of(views)
    return {**sections(views[0]), "instruction": call.instruction(views, structured=True),
            "reply in words": "" if structured else call.reply_format()}


def decisions_from_reply(state: GameState, requests: Sequence[Request], raw: str) -> list[Decision]:
    """The decisions a call's raw reply makes, in ``requests`` order, read exactly as in play (replay's
    reading of a recorded reply)."""
    call = SeatCall.of(requests)
    got = read_reply(raw, lambda text: call.read(text, state), lambda reason, cut: call.fall_back(state, reason, cut))
    return call.in_order(got.value, requests)


__all__ = ["ANALYSES", "DECISIONS", "SeatCall", "call_messages", "call_of", "call_sections", "decisions_from_reply",
           "logged_parts", "logged_views", "nested_schema", "own_keys", "plan"]
