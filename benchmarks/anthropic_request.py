"""A seat's call as Inspect's Anthropic provider sends it, recorded offline: where the schema and the cache marks go.

    python benchmarks/anthropic_request.py              # a werewolf's vote on day 2 of a triadic game
    python benchmarks/anthropic_request.py --day 3

Needs the ``anthropic`` SDK (``pip install -e '.[anthropic]'``); no key and no network: the provider's client
is replaced by a stand-in that records the request and answers ``{}``. The call is built as a game builds it
(``calls=per_seat``, ``history=compact``, the seat's one response schema, ``cache_prompt=True``) from a game
played by plain legal moves to the seat's first vote of ``--day``. Prints the request's top-level keys,
where the response schema travels (Anthropic's cache key includes it: its structured-outputs guide says
changing ``output_config.format`` invalidates the prompt cache), and each ``cache_control`` breakpoint with
the o200k tokens of the prefix it closes, the schema first, as ``wolf_eval.measures.caching`` counts them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from inspect_ai.model import GenerateConfig, get_model

from wolf_eval.agents.observation import observe
from wolf_eval.agents.seat_call import call_messages, call_of
from wolf_eval.engine import Action, Decision, GameState, Request, Role, advance, fallback_decision, new_game, pending
from wolf_eval.measures.tokenizer import count, schema_text
from wolf_eval.settings import rules_for

MODEL = "anthropic/claude-sonnet-4-5"


def move(state: GameState, r: Request) -> Decision:
    """A legal move that keeps the game talking: every seat bids, speaks and votes with a reason."""
    if r.action is Action.BID:
        return Decision(seat=r.seat, action=r.action, bid=5)
    if r.action in (Action.STATEMENT, Action.DEFENCE):
        return Decision(seat=r.seat, action=r.action, text=f"I am {r.seat}; listen to me on day {r.day}.")
    if r.action is Action.VOTE:
        return Decision(seat=r.seat, action=r.action, target=r.options[-1], reason="Too quiet.")
    return fallback_decision(state, r, "a plain move", "")


def wolf_vote(day: int, seed: int = 3) -> tuple[GameState, list[Request]]:
    """A triadic game at a werewolf's first vote of ``day``, and that wolf's requests of the wave."""
    state = new_game(rules_for("triadic"), seed)
    while not state.over:
        requests = pending(state)
        votes = [r for r in requests if r.action is Action.VOTE and r.day == day
                 and state.player(r.seat).role is Role.WEREWOLF]
        if votes:
            return state, [r for r in requests if r.seat == votes[0].seat]
        state = advance(state, [move(state, r) for r in requests])
    raise SystemExit(f"the game (seed {seed}) ended before a werewolf voted on day {day}")


def recorded_request(day: int = 2) -> tuple[dict[str, Any], str, list[str]]:
    """The request Inspect's Anthropic provider sends for a wolf's call, the schema as compact JSON, and the
    call's content blocks (system, then the user message's)."""
    state, requests = wolf_vote(day)
    views = [observe(state, r, "compact", calls="per_seat") for r in requests]
    call = call_of(views)
    schema = call.schema(state, views)
    messages = call_messages(views)
    seen: list[dict[str, Any]] = []

    async def create(**request: Any) -> Any:
        from anthropic.types import Message, TextBlock, Usage

        seen.append(request)
        return Message(id="msg_stub", type="message", role="assistant", model=MODEL.split("/")[1],
                       content=[TextBlock(type="text", text="{}")], stop_reason="end_turn", stop_sequence=None,
                       usage=Usage(input_tokens=1, output_tokens=1))

    model = get_model(MODEL, api_key="stub", streaming=False)
    model.api.client.messages.create = create  # type: ignore[attr-defined]
    asyncio.run(model.generate(messages, config=GenerateConfig(cache_prompt=True, response_schema=schema)))
    blocks = [messages[0].text, *(c.text for c in messages[1].content if c.type == "text")]
    return seen[0], schema_text(schema), blocks


def breakpoints(request: dict[str, Any]) -> list[tuple[str, int]]:
    """Each block carrying ``cache_control``, as (where, index among the call's content blocks)."""
    out: list[tuple[str, int]] = []
    system = request.get("system") or []
    out += [("system", i) for i, b in enumerate(system) if b.get("cache_control")]
    at = len(system)
    for m in request["messages"]:
        content = m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}]
        out += [(f"{m['role']} message", at + i) for i, b in enumerate(content) if b.get("cache_control")]
        at += len(content)
    return out


def where_schema(request: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """The request keys (one level into ``extra_body``) whose value holds the response schema."""
    found = []
    for key, value in request.items():
        inner = value.items() if key == "extra_body" and isinstance(value, dict) else [(None, value)]
        for sub, v in inner:
            if json.dumps(schema, sort_keys=True)[:200] in json.dumps(v, sort_keys=True, default=str) or (
                    isinstance(v, dict) and v.get("type") == "json_schema"):
                found.append(f"{key}.{sub}" if sub else key)
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--day", type=int, default=2)
    args = ap.parse_args()
    request, schema, blocks = recorded_request(args.day)
    print(f"request keys: {', '.join(sorted(request))}")
    sent = request.get("extra_body", {}).get("output_format") or request.get("output_config", {}).get("format")
    print(f"the response schema travels as: {', '.join(where_schema(request, sent or {})) or 'nowhere'}; "
          f"beta header: {request.get('extra_headers', {}).get('anthropic-beta', '(none)')}")
    print(f"top-level cache_control: {request.get('cache_control', '(none)')}")
    tokens = [count(schema)]
    for b in blocks:
        tokens.append(tokens[-1] + count(b))
    print(f"schema {tokens[0]} tokens; system {tokens[1] - tokens[0]}; {len(blocks) - 1} user blocks, "
          f"{tokens[-1] - tokens[1]} tokens")
    for where, i in breakpoints(request):
        print(f"- cache_control on block {i + 1} of {len(blocks)} ({where}): closes a prefix of {tokens[i + 1]:,} "
              f"tokens with the schema, {tokens[i + 1] - tokens[0]:,} without")


if __name__ == "__main__":
    main()
