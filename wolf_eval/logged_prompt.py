"""The prompt a seat saw at one of its calls in a logged game, in one place: ``wolf-eval prompt``.

A call's prompt is sent as a system message (the rules, the seat's character and role), a user
message of content blocks (the seat's record, one block per wave, then the call's instruction) and a
response schema; Inspect's model event keeps each exactly as sent. This reads them back by game, seat
and the seat's call number, and re-renders the same call from the views its prompt's metadata keeps
(``wolf_eval.agents.seat_call.logged_views``) with this release's templates, to say whether they would
still write the same words.

    from wolf_eval.logged_prompt import logged_prompt, prompt_text
    print(prompt_text(logged_prompt(sample, "Ivo", 12)))
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalSample
from inspect_ai.model import ChatMessage

from wolf_eval.agents.call import Caller
from wolf_eval.agents.observation import Observation
from wolf_eval.agents.prompts import METADATA_KEY
from wolf_eval.agents.seat_call import Layout, call_messages, call_of, logged_layout, logged_parts, logged_views
from wolf_eval.engine import GameState
from wolf_eval.ndjson import game_state


class NoSuchCall(LookupError):
    """The game has no such seat, or the seat no such call: the message names what there is."""


@dataclass(frozen=True)
class LoggedPrompt:
    """One call's prompt as it was sent, and whether this release re-renders it to the same words."""

    seat: str
    call: int  # the seat's call number, from 1
    calls: int  # how many calls the seat made
    label: str  # who asked what and when: "Ivo (werewolf) · vote · day 2"
    layout: str  # how the call asked (``wolf_eval.agents.seat_call.Layout``)
    system: str
    blocks: tuple[str, ...]  # the user message's content blocks, in order: the record's, then the instruction
    marks: tuple[int, ...]  # the blocks marked as the end of the prefix a cache keeps
    schema: dict[str, Any] | None  # the response schema sent, or None
    rerendered: bool  # this release's templates write the same system message and blocks from the logged views


def _meta(event: ModelEvent) -> Mapping[str, Any] | None:
    """The metadata of a seat's call (on its last message), or None for another call (the judge's, a tagger's)."""
    if not event.input:
        return None
    meta = (event.input[-1].metadata or {}).get(METADATA_KEY)
    return meta if isinstance(meta, Mapping) else None


def seat_calls(sample: EvalSample) -> dict[str, list[ModelEvent]]:
    """Each seat's calls in the order it made them (a call asked again counts as a call of its own)."""
    out: dict[str, list[ModelEvent]] = {}
    for e in sample.events:
        if isinstance(e, ModelEvent) and (meta := _meta(e)) is not None:
            out.setdefault(str(logged_parts(meta)[0]["seat"]), []).append(e)
    return out


def _texts(message: ChatMessage) -> tuple[str, ...]:
    if isinstance(message.content, str):
        return (message.content,)
    return tuple(c.text for c in message.content if c.type == "text")


def _marks(message: ChatMessage) -> tuple[int, ...]:
    if isinstance(message.content, str):
        return ()
    texts = [c for c in message.content if c.type == "text"]
    return tuple(i for i, c in enumerate(texts) if getattr(c, "cache_breakpoint", False))


def _asked(meta: Mapping[str, Any], game: GameState) -> tuple[list[Observation], Layout, str]:
    """A logged call's views, layout and label (who asked what and when)."""
    views = logged_views(meta, game)
    layout = logged_layout(meta)
    v = views[0]
    return views, layout, Caller("", call_of(views, layout).decision, v.day, v.seat, v.role.value, v.phase.value).label


def logged_prompt(sample: EvalSample, seat: str, call: int) -> LoggedPrompt:
    """The prompt of ``seat``'s call number ``call`` (from 1) in a logged game, read with its attachments resolved
    (``read_eval_log_sample(..., resolve_attachments=True)``); :class:`NoSuchCall` names the seats or calls there
    are when there is no such one."""
    by_seat = seat_calls(sample)
    if seat not in by_seat:
        raise NoSuchCall(f"game {sample.id} has no seat {seat!r} that made a call (seats: {', '.join(by_seat)})")
    events = by_seat[seat]
    if not 1 <= call <= len(events):
        raise NoSuchCall(f"{seat} made calls 1 to {len(events)} in game {sample.id}, not {call}")
    event = events[call - 1]
    meta = _meta(event)
    assert meta is not None
    views, layout, label = _asked(meta, game_state(sample))
    schema = event.config.response_schema
    system, user = event.input[0], event.input[-1]
    again = call_messages(views, structured=schema is not None, again=bool(meta.get("again")), layout=layout)
    return LoggedPrompt(
        seat=seat, call=call, calls=len(events), label=label, layout=layout, system=system.text,
        blocks=_texts(user), marks=_marks(user),
        schema=schema.model_dump(mode="json", exclude_none=True) if schema is not None else None,
        rerendered=(again[0].text, _texts(again[-1])) == (system.text, _texts(user)),
    )


def prompt_text(p: LoggedPrompt) -> str:
    """The prompt as ``wolf-eval prompt`` prints it: a heading, then the system message, the user message (its
    blocks joined as sent, each ending its own line) and the response schema, each under a rule."""
    marks = f"; cache mark after block {', '.join(str(m + 1) for m in p.marks)} of {len(p.blocks)}" if p.marks else ""
    same = ("this release's templates re-render it word for word" if p.rerendered
            else "this release's templates would write other words: the log was written by other code")
    schema = json.dumps(p.schema, indent=2, ensure_ascii=False) if p.schema is not None else "(none sent)"
    return "\n".join([
        f"{p.label}: {p.seat}'s call {p.call} of {p.calls} ({p.layout} layout{marks}; {same})",
        "", "=== system", p.system, "", "=== user", "".join(p.blocks), "", "=== response schema", schema,
    ])


def calls_text(sample: EvalSample, seat: str | None = None) -> str:
    """What there is to pick from: each seat and its number of calls, or one seat's calls by number and label."""
    by_seat = seat_calls(sample)
    if seat is None:
        return "\n".join(f"{name}: {len(events)} calls" for name, events in by_seat.items())
    if seat not in by_seat:
        raise NoSuchCall(f"game {sample.id} has no seat {seat!r} that made a call (seats: {', '.join(by_seat)})")
    game = game_state(sample)
    lines = []
    for k, e in enumerate(by_seat[seat], 1):
        meta = _meta(e)
        assert meta is not None
        lines.append(f"{k}: {_asked(meta, game)[2]}")
    return "\n".join(lines)


__all__ = ["LoggedPrompt", "NoSuchCall", "calls_text", "logged_prompt", "prompt_text", "seat_calls"]
