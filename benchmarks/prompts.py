"""Prompt tokens per game-day, by section, and how much of them a provider's prompt cache can serve.

    python benchmarks/prompts.py                      # wolf (6 turns, 20 words) and triadic (defaults, 50 words)
    python benchmarks/prompts.py --games 5 --policy tom
    python benchmarks/prompts.py --log logs/run.eval  # the prompts of games already played, by any model

Plays ``wolfbot`` games whose statements are as long as a model's (``-M words``): on the wolf task
6 debate turns of 20-word speech, on triadic the defaults with 50-word speech. The games are decided
from each seat's observation, not from the prompt's wording, so the same command before and after a
change of prompt plays the same games and only the prompts differ.

Each call's prompt is cut into its sections, re-rendered from the observation the call logged:

- rules: the game's rules (the same for every seat);
- role: the seat's character, role, pack and lessons;
- record: the game so far as the seat saw it (the only section that carries game facts, with the
  instruction's own facts: the living, the options, the statement under analysis);
- instruction: what to decide now;
- reply in words: the JSON reply spelled out in the instruction (only for calls sent without a schema);
- schema: the response schema sent with the call, as compact JSON (what the provider receives).

Tokens are estimated at 4 characters a token (the same estimate the ``wolfbot`` provider reports;
no tokenizer can be downloaded here), so the figures compare prompts, not bills.

Two cache models then say how many of those tokens a provider would serve from its cache:

- OpenAI caches automatically the longest prefix a request shares with an earlier one, once it is at
  least 1,024 tokens, in steps of 128 tokens; modelled conservatively as the longest prefix shared with
  one of the same seat's last four requests (another seat's identical prefix, which OpenAI may serve
  too, is not counted); the response schema comes first in that prefix (OpenAI's
  guide: "the structured output schema serves as a prefix to the system message"), so a call whose
  schema differs from the seat's earlier calls' is served nothing from the cache (``openai``; and,
  as an upper bound for a cache that kept every prefix all game, against every earlier request of
  the seat: ``openai, every earlier call``);
- Anthropic (Inspect's ``cache_prompt=True``) writes the cache at the end of the system prompt, at the
  second-to-last content block and at the last block of each request; a later request reads the
  longest prefix that ends on one of its own block boundaries at most 20 blocks before one of its
  breakpoints and was written by an earlier request, once it is at least 1,024 tokens; what it
  writes beyond what it read is charged as a cache write.

Last, the estimated cost of one game at the package's list prices (``wolf_eval/data/prices.json``)
on gpt-4.1 and on claude-sonnet-4-5, with no cache and with each provider's cache as modelled,
taking the completion tokens the bots reported (at model length, about what a model writes).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import tempfile
from collections import Counter, defaultdict
from typing import Any

from harness import add_task_args, logged_games, play
from harness import task_args as task_args_given
from inspect_ai.log import EvalSample, read_eval_log
from inspect_ai.model import ChatMessage

from wolf_eval.agents.seat_call import call_sections, logged_parts, logged_views
from wolf_eval.measures.cost import usd
from wolf_eval.ndjson import game_state
from wolf_eval.store import TokenUsage

SECTIONS = ("rules", "role", "record", "instruction", "reply in words", "schema")
CHARS_PER_TOKEN = 4
MIN_CACHED = 1024
OPENAI_STEP = 128
LOOKBACK = 20
OPENAI, ANTHROPIC = "openai/gpt-4.1", "anthropic/claude-sonnet-4-5"
TASKS = {"wolf": ({"max_debate_turns": 6}, 20), "triadic": ({}, 50)}


def tokens(chars: int) -> float:
    return chars / CHARS_PER_TOKEN


def blocks(messages: list[ChatMessage]) -> list[str]:
    """The request as Anthropic's content blocks: one per string content, one per text part."""
    out: list[str] = []
    for m in messages:
        if isinstance(m.content, str):
            out.append(m.content)
        else:
            out += [c.text for c in m.content if c.type == "text"]
    return out


def _prefix_hashes(parts: list[str]) -> list[tuple[int, str]]:
    """(characters, digest) of the request's prefix at the end of each block."""
    h = hashlib.sha1()
    out = []
    chars = 0
    for p in parts:
        h.update(p.encode())
        h.update(b"\x00")
        chars += len(p)
        out.append((chars, h.copy().hexdigest()))
    return out


def anthropic_cached(parts: list[str], system_blocks: int, written: set[str]) -> tuple[int, int]:
    """Characters of this request read from Anthropic's cache and written to it; records the writes."""
    ends = _prefix_hashes(parts)
    breakpoints = {system_blocks - 1, len(parts) - 1}
    if len(parts) - system_blocks >= 2:
        breakpoints.add(len(parts) - 2)
    read = 0
    for b in breakpoints:
        for i in range(b, max(-1, b - LOOKBACK), -1):
            chars, digest = ends[i]
            if digest in written:
                read = max(read, chars)
                break
    wrote = 0
    for b in breakpoints:
        if b >= 0 and tokens(ends[b][0]) >= MIN_CACHED and ends[b][1] not in written:
            written.add(ends[b][1])
            wrote = max(wrote, ends[b][0] - read)
    return read, wrote


def openai_cached(text: str, earlier: list[str]) -> int:
    """Characters of this request served from OpenAI's automatic prefix cache."""
    shared = max((_common(text, e) for e in earlier), default=0)
    shared_tokens = int(tokens(shared))
    if shared_tokens < MIN_CACHED:
        return 0
    return (shared_tokens - (shared_tokens - MIN_CACHED) % OPENAI_STEP) * CHARS_PER_TOKEN


def _common(a: str, b: str) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def game_prompts(sample: EvalSample) -> dict[str, Any]:
    """A game's prompt characters per section, the characters each cache model serves, and how many
    calls ask each kind of decision (``asks``: a joint call counts once for each kind it asks)."""
    game = game_state(sample)
    chars: Counter[str] = Counter()
    per_seat: dict[str, list[str]] = defaultdict(list)
    written: set[str] = set()
    cached = Counter()
    asks: Counter[str] = Counter()
    calls = 0
    for e in sample.events:
        meta = (e.input[-1].metadata or {}).get("wolf_eval") if e.event == "model" and e.input else None
        if not meta:
            continue
        asked = logged_parts(meta)
        seat = asked[0]["seat"]
        calls += 1
        asks.update({p["action"] for p in asked})
        for name, text in call_sections(logged_views(meta, game)).items():
            chars[name] += len(text)
        schema = e.config.response_schema
        shape = ""
        if schema is not None:
            shape = json.dumps(schema.json_schema.model_dump(exclude_none=True), separators=(",", ":"))
            chars["schema"] += len(shape)
        parts = blocks(e.input)
        text = shape + "".join(parts)  # OpenAI: "the structured output schema serves as a prefix to the system message"
        system = sum(1 for m in e.input if m.role == "system")
        read, wrote = anthropic_cached(parts, system, written)
        cached["anthropic"] += read
        cached["anthropic write"] += wrote
        cached["openai"] += openai_cached(text, per_seat[seat][-4:])
        cached["openai, every earlier call"] += openai_cached(text, per_seat[seat])
        cached["sent"] += len(text)
        per_seat[seat].append(text)
    days = game.outcome.day if game.outcome else game.day
    completion = sum(e.output.usage.output_tokens for e in sample.events if e.event == "model" and e.output.usage)
    return {"days": days, "calls": calls, "chars": chars, "cached": cached, "completion": completion, "asks": asks}


def game_cost(g: dict[str, Any], model: str, cached: bool, served: str = "openai") -> float:
    """One game's estimated list-price cost on ``model``, without or with its provider's cache as modelled
    (Anthropic's for ``anthropic/`` models, OpenAI's for the rest). ``served``: which OpenAI cache model
    (``openai``, ``openai, every earlier call``, or ``sent`` for every prompt token)."""
    sent, out = tokens(g["cached"]["sent"]), int(g["completion"])
    if not cached:
        return usd(model, TokenUsage(input=int(sent), output=out))
    if model.startswith("anthropic/"):
        read, wrote = tokens(g["cached"]["anthropic"]), tokens(g["cached"]["anthropic write"])
        return usd(model, TokenUsage(input=int(sent - read - wrote), cache_read=int(read), cache_write=int(wrote),
                                     output=out))
    read = tokens(g["cached"][served])
    return usd(model, TokenUsage(input=int(sent - read), cache_read=int(read), output=out))


def game_costs(g: dict[str, Any]) -> dict[str, float]:
    """One game's estimated list-price cost on each priced model, without and with its prompt cache."""
    return {f"{model}, {'cached' if cached else 'uncached'}": game_cost(g, model, cached)
            for model in (OPENAI, ANTHROPIC) for cached in (False, True)}


def report(label: str, games: list[dict[str, Any]]) -> None:
    days = sum(g["days"] for g in games)
    calls = sum(g["calls"] for g in games)
    chars = sum((g["chars"] for g in games), Counter())
    cached = sum((g["cached"] for g in games), Counter())
    total = sum(chars[s] for s in SECTIONS)
    fixed = chars["rules"] + chars["role"] + chars["instruction"] + chars["reply in words"]
    print(f"\n{label}: {len(games)} games, {days} game-days, {calls} calls ({calls / days:.0f} a game-day)\n")
    print("| section | tokens per game-day | tokens per call | share |")
    print("|---|---|---|---|")
    for s in SECTIONS:
        print(f"| {s} | {tokens(chars[s]) / days:,.0f} | {tokens(chars[s]) / calls:,.0f} | {chars[s] / total:.0%} |")
    print(f"| **all** | {tokens(total) / days:,.0f} | {tokens(total) / calls:,.0f} | 100% |")
    print(f"| no game fact (rules, role, instruction, reply in words) | {tokens(fixed) / days:,.0f} "
          f"| {tokens(fixed) / calls:,.0f} | {fixed / total:.0%} |")
    print(f"\ncache-served share of the prompt as sent: OpenAI {cached['openai'] / cached['sent']:.2f}, "
          f"Anthropic {cached['anthropic'] / cached['sent']:.2f} "
          f"(written to it: {cached['anthropic write'] / cached['sent']:.2f})")
    costs = [game_costs(g) for g in games]
    print(f"\nper game: {days / len(games):.1f} days, {tokens(cached['sent']) / len(games):,.0f} prompt tokens, "
          f"{sum(g['completion'] for g in games) / len(games):,.0f} completion tokens; estimated list-price cost, USD:")
    print("; ".join(f"{k} {statistics.fmean(c[k] for c in costs):.2f}" for k in costs[0]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--policy", default="cue", help="wolfbot policy: random, cue or tom")
    ap.add_argument("--task", action="append", choices=sorted(TASKS), help="default: both")
    ap.add_argument("--log", help="measure the games of this log instead of playing new ones")
    add_task_args(ap)
    args = ap.parse_args()
    if args.log:
        log = read_eval_log(args.log, header_only=True)
        games = [game_prompts(s) for s in logged_games(args.log) if s.error is None]
        if not games:
            raise SystemExit(f"{args.log}: no finished game to measure")
        report(f"{args.log} ({log.eval.task}, {log.eval.model})", games)
        return
    extra = task_args_given(args.T)
    for task in args.task or sorted(TASKS, reverse=True):
        task_args, words = TASKS[task]
        with tempfile.TemporaryDirectory() as tmp:
            log, _ = play(task, tmp, model=f"wolfbot/{args.policy}", model_args={"words": words},
                          task_args={"games": args.games, **task_args, **extra})
            games = [game_prompts(s) for s in logged_games(log)]
        report(f"{task}, wolfbot/{args.policy}, {words}-word speech, parameters {task_args | extra}", games)
        print("mean tokens per game-day by section: "
              + json.dumps({s: round(statistics.fmean(tokens(g['chars'][s]) / g['days'] for g in games))
                            for s in SECTIONS}))


if __name__ == "__main__":
    main()
