"""Games played as a provider sees them: what reaches the cache, what falls back, what the requests cost.

    python benchmarks/cache.py                         # one default triadic game
    python benchmarks/cache.py --games 2 -T seed=3     # any task parameters, as for inspect eval
    python benchmarks/cache.py --task wolf -T max_debate_turns=6

Plays the games through Inspect's ``openai-api`` provider (the ``openai`` SDK over HTTP, as a user plays
against an API) against ``tests/strict_openai.py``, a local OpenAI-compatible server that refuses any
response schema outside OpenAI's strict subset and answers every request with a random reply valid
under the request's schema. The server records each request: its ``prompt_cache_key`` (if the
request sent one), a hash of its schema, and its messages. Prints, per game:

- the distinct response schemas it was sent (OpenAI's cache begins with the schema);
- the requests per cache key (``(none)``: sent without a key, routed by the prompt's first 256 tokens);
- how much of a seat's previous call's prefix its first call of a new day repeats (the most a cache can
  serve of it);
- the re-asks (a request that asks again a decision already asked) and the fallbacks, by reason: a
  random schema-valid reply that the game cannot use is a decision the schema does not enforce;
- the game's cost under the cost model (``wolf_eval.measures.caching``) from the requests exactly as
  the server received them, each cache as ``benchmarks/prompts.py`` names it, on the same timeline
  (the game's calls spread over its waves at ``--wave-seconds`` a wave).

No figure here is seen on a provider: the server stands in for one, and the costs are modelled.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness import add_task_args, game_counts, logged_games, play, task_args
from prompts import CACHES, MODELS, WAVE_SECONDS, blocks, cache_of, game_prompts, morning_line

from wolf_eval.agents.seat_call import logged_parts
from wolf_eval.measures import caching
from wolf_eval.measures.tokenizer import count
from wolf_eval.ndjson import game_state
from wolf_eval.records import Kind

STUB = Path(__file__).resolve().parents[1] / "tests" / "strict_openai.py"


def stub_module() -> Any:
    """``tests/strict_openai.py``, loaded from its path (the tests folder is not a package)."""
    spec = importlib.util.spec_from_file_location("strict_openai", STUB)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["strict_openai"] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def body_blocks(body: dict[str, Any]) -> tuple[tuple[str, ...], int, tuple[int, ...]]:
    """A chat-completions request's content blocks in order, how many are the system prompt's, and the blocks
    marked as a cache breakpoint (``prompt_cache_breakpoint`` or ``cache_control`` on a content part)."""
    out: list[str] = []
    system, marks = 0, []
    for m in body.get("messages", []):
        content = m.get("content")
        parts = [{"text": content}] if isinstance(content, str) else [p for p in content or [] if "text" in p]
        for part in parts:
            if part.get("prompt_cache_breakpoint") or part.get("cache_control"):
                marks.append(len(out))
            out.append(part["text"])
            system += m.get("role") in ("system", "developer")
    return tuple(out), system, tuple(marks)


def request_sent(seen: Any) -> caching.Sent:
    """A request as the server received it, as the cost model prices it (its game and time filled in later)."""
    body = seen.body or {}
    rf = body.get("response_format") or {}
    schema = rf.get("json_schema", {}).get("schema") if rf.get("type") == "json_schema" else None
    texts, system, marks = body_blocks(body)
    return caching.Sent(schema=json.dumps(schema, separators=(",", ":")) if schema is not None else "",
                        blocks=texts, system=system, key=seen.cache_key, marks=marks,
                        output=count(seen.content or ""))


def game_of(samples: list[Any]) -> dict[tuple[str, ...], str]:
    """Each logged game prompt's content blocks -> its game, to tell which game a request belongs to."""
    return {tuple(blocks(e.input)): str(s.id) for s in samples for e in s.events
            if e.event == "model" and e.input and (e.input[-1].metadata or {}).get("wolf_eval")}


def reasks(sample: Any) -> int:
    """Requests that ask again only decisions already asked (each decision's view names it by its ref)."""
    asked: set[str] = set()
    again = 0
    for e in sample.events:
        meta = (e.input[-1].metadata or {}).get("wolf_eval") if e.event == "model" and e.input else None
        if not meta:
            continue
        refs = {p.get("ref") for p in logged_parts(meta)}
        again += bool(refs) and refs <= asked
        asked |= refs
    return again


def fallback_reasons(sample: Any) -> Counter[str]:
    """The game's fallbacks by reason (the reason's first clause)."""
    return Counter((r.text or "").split(":")[0][:60] for r in game_state(sample).records if r.kind is Kind.FALLBACK)


def report(games: dict[str, list[caching.Sent]], samples: list[Any], counts: list[dict[str, float]],
           seen: list[Any]) -> None:
    by_game = defaultdict(list)
    for s in seen:
        by_game[s.game].append(s)
    print(f"\n{len(samples)} games, {sum(len(c) for c in games.values())} requests, "
          f"{sum(1 for r in seen if r.error)} refused by the server")
    for sample, c in zip(samples, counts, strict=True):
        gid = str(sample.id)
        reqs = by_game[gid]
        keys = Counter(r.cache_key or "(none)" for r in reqs)
        per_key = sorted(keys.values())
        print(f"\ngame {gid}: {len(reqs)} requests, {len({r.schema_hash for r in reqs})} distinct schemas, "
              f"{len(keys)} cache keys ({', '.join(sorted(keys)[:3])}{', ...' if len(keys) > 3 else ''}), "
              f"requests per key: min {per_key[0]}, median {statistics.median(per_key):g}, max {per_key[-1]}")
        reasons = fallback_reasons(sample)
        print(f"  re-asks {reasks(sample)} ({reasks(sample) / len(reqs):.1%} of requests); fallbacks "
              f"{c.get('fallbacks', 0):.0f} of {c.get('decisions', c.get('calls', 0)):.0f} decisions"
              + (": " + "; ".join(f"{r} ({k})" for r, k in reasons.most_common(5)) if reasons else ""))
    print(morning_line([game_prompts(s) for s in samples]))
    price(games)


def price(games: dict[str, list[caching.Sent]]) -> None:
    """Each cache's share and each model's cost a game, from the requests as received."""
    everything = [c for calls in games.values() for c in calls]
    served = {"none": caching.uncached(everything)} | {n: caching.serve_all(everything, m()) for n, m in CACHES.items()}
    sent = caching.totals(served["none"])["sent"]
    output = sum(c.output for c in everything)
    n = len(games)
    shares = "; ".join(f"{name} {caching.totals(served[name])['read'] / sent:.2f}" for name in CACHES)
    print(f"\nper game: {sent / n:,.0f} prompt tokens (o200k), {output / n:,.0f} completion tokens; "
          f"cache-served share: {shares}")
    for model in MODELS:
        cost = {cached: caching.price(served[cache_of(model) if cached else "none"], output, model) / n
                for cached in (False, True)}
        print(f"- {model}: ${cost[False]:.2f} uncached, ${cost[True]:.2f} cached a game")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", default="triadic", choices=("wolf", "triadic", "dyadic"))
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--replies", choices=("random", "reader"), default="random",
                    help="random: any reply valid under the schema (a model that ignores its instruction); reader: "
                         "a reply that answers what the instruction asks, its values random (a seat's calls)")
    ap.add_argument("--wave-seconds", type=float, default=WAVE_SECONDS,
                    help=f"seconds a wave of calls takes at an API, for the cache timeline (default {WAVE_SECONDS})")
    add_task_args(ap)
    args = ap.parse_args()
    stub_kit = stub_module()
    with tempfile.TemporaryDirectory() as tmp, stub_kit.StrictOpenAIStub(reader=args.replies == "reader") as stub:
        log, _ = play(args.task, tmp, model="openai-api/stub/gpt-4.1", model_base_url=stub.base_url,
                      model_args={"api_key": "stub-key", "stream": False},
                      task_args={"games": args.games, **task_args(args.T)})
        samples = logged_games(log)
        seen = [r for r in stub.requests if r.status == 200]
        counts = game_counts(log)
    if not seen:
        raise SystemExit("the server answered no request: nothing to measure")
    whose = game_of(samples)
    waves = {str(s.id): len({(r.day, r.wave) for r in game_state(s).records if r.wave}) for s in samples}
    games: dict[str, list[caching.Sent]] = defaultdict(list)
    for r in seen:
        call = request_sent(r)
        r.game = whose.get(call.blocks, "(not a game prompt)")
        games[r.game].append(replace(call, game=r.game))
    for gid, calls in games.items():
        times = caching.spread(len(calls), waves.get(gid, 0) * args.wave_seconds)
        games[gid] = [replace(c, at=t) for c, t in zip(calls, times, strict=True)]
    report(dict(games), samples, counts, seen)


if __name__ == "__main__":
    main()
