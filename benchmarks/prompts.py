"""Prompt tokens per game, by call kind and section, and how much of them a provider's prompt cache can serve.

    python benchmarks/prompts.py                      # wolf (6 turns, 20 words) and triadic (defaults, 50 words)
    python benchmarks/prompts.py --games 5 --policy tom
    python benchmarks/prompts.py --log logs/run.eval  # the prompts of games already played, by any model

Plays ``wolfbot`` games whose statements are as long as a model's (``-M words``): on the wolf task
6 debate turns of 20-word speech, on triadic the defaults with 50-word speech. The games are decided
from each seat's observation, not from the prompt's wording, so the same command before and after a
change of prompt plays the same games and only the prompts differ.

Tokens are gpt-4.1's own (o200k, ``wolf_eval.measures.tokenizer``); Anthropic's models are counted in
the same units, which undercounts them (see that module). Each call's prompt is cut into its
sections, re-rendered from the observation the call logged:

- rules: the game's rules (the same for every seat);
- role: the seat's character, role, pack and lessons;
- record: the game so far as the seat saw it (the only section that carries game facts, with the
  instruction's own facts: the living, the options, the statement under analysis);
- instruction: what to decide now;
- reply in words: the JSON reply spelled out in the instruction (only for calls sent without a schema);
- schema: the response schema sent with the call, as compact JSON (what the provider receives).

Then every call of the run, as its provider receives it (schema, content blocks, cache key, breakpoint
marks), is served by each provider's cache as ``wolf_eval.measures.caching`` models it from the
providers' documentation, on a timeline where a game's calls are spread over its waves at
``--wave-seconds`` a wave (the games of the run play at once, as Inspect plays them):

- ``openai``: OpenAI's automatic cache (gpt-4.1), routed by the first 256 tokens and the cache key;
- ``openai, every earlier call``: the same with nothing expiring and no route spilling onto a second
  machine (an upper bound);
- ``openai, breakpoints``: GPT-5.6's rules (writes at breakpoints at 1.25 times the input price);
- ``anthropic``: Anthropic's cache as Inspect's ``cache_prompt`` drives it.

It also prints how much of a seat's previous call's prefix (schema, rules, role and record) its first call
of each day from day 2 repeats, and how much of its own prefix that is: a new day rewrites yesterday's
words into their brief after the earlier days' facts.

Then where a game's dollars go on gpt-4.1 and claude-sonnet-4-5, by block of the prompt (schema, rules, role,
record, instruction, in the order a provider reads them) and by call kind: each call's tokens that its provider's
cache read are the prompt's first ones, those it wrote (Anthropic) the next, the rest are billed in full; the
reply's tokens at the output price.

Last, each game's estimated list-price cost (``wolf_eval/data/prices.json``) on gpt-4.1, gpt-4.1-mini
and claude-sonnet-4-5, with no cache and with the provider's cache, taking the completion tokens the
bots reported (at model length, about what a model writes), and per 1,000 peer labels (a seat's label
of another seat's statement, the papers' unit of detection).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections import Counter, defaultdict
from dataclasses import replace
from typing import Any

from harness import add_task_args, logged_games, play
from harness import task_args as task_args_given
from inspect_ai.log import EvalSample, read_eval_log
from inspect_ai.model import ChatMessage

from wolf_eval.agents.seat_call import call_sections, logged_parts, logged_views
from wolf_eval.measures import caching
from wolf_eval.measures.tokenizer import count, schema_text
from wolf_eval.ndjson import game_state

SECTIONS = ("rules", "role", "record", "instruction", "reply in words", "schema")
#: A call's blocks in the order its provider reads them (the schema first: OpenAI's prefix, Anthropic's key).
BLOCKS = ("schema", "rules", "role", "record", "instruction")
#: How a block's tokens were billed: read from the cache, written to it, or in full.
BILLED = ("read", "written", "uncached")
OPENAI, MINI, ANTHROPIC = "openai/gpt-4.1", "openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-5"
MODELS = (OPENAI, ANTHROPIC, MINI)
TASKS = {"wolf": ({"max_debate_turns": 6}, 20), "triadic": ({}, 50)}
#: Seconds a wave of calls takes at an API: a call's round trip, the slowest of the wave's (an assumption).
WAVE_SECONDS = 3.0
#: The caches each game is served by, by name: OpenAI's as documented, an upper bound that keeps every
#: prefix, GPT-5.6's breakpoints, Anthropic's.
CACHES = {
    "openai": caching.OpenAIAutomatic,
    "openai, every earlier call": lambda: caching.OpenAIAutomatic(keep_all=True),
    "openai, breakpoints": caching.OpenAIBreakpoints,
    "anthropic": caching.AnthropicCache,
}
#: The same OpenAI cache, were each call sent with a ``prompt_cache_key`` naming its game and seat (a what-if
#: for a layout that sends none; a layout that sends keys is served by ``openai`` with its own).
KEYED = "openai, a key per seat"


def blocks(messages: list[ChatMessage]) -> list[str]:
    """The request as Anthropic's content blocks: one per string content, one per text part."""
    out: list[str] = []
    for m in messages:
        if isinstance(m.content, str):
            out.append(m.content)
        else:
            out += [c.text for c in m.content if c.type == "text"]
    return out


def marks(messages: list[ChatMessage]) -> tuple[int, ...]:
    """The blocks that carry an explicit cache breakpoint (``ContentText.cache_breakpoint``, inspect-ai 0.3.278)."""
    out, i = [], 0
    for m in messages:
        parts = [m.content] if isinstance(m.content, str) else [c for c in m.content if c.type == "text"]
        for part in parts:
            if getattr(part, "cache_breakpoint", False):
                out.append(i)
            i += 1
    return tuple(out)


def sent(event: Any, game: str) -> caching.Sent:
    """A logged model call as its provider received it (``at`` is filled in later, from the game's timeline)."""
    extra = event.config.extra_body or {}
    key = extra.get("prompt_cache_key") if isinstance(extra, dict) else None
    key = key or getattr(event.config, "prompt_cache_key", None)  # a config field, in a release that has one
    return caching.Sent(schema=schema_text(event.config.response_schema), blocks=tuple(blocks(event.input)),
                        system=sum(1 for m in event.input if m.role == "system"), key=key,
                        marks=marks(event.input), game=game,
                        output=event.output.usage.output_tokens if event.output.usage else 0)


def call_kind(parts: list[dict[str, Any]]) -> str:
    """What a call asks, in words: ``analyses`` for any number of labels, then the decision, e.g. ``analyses + bid``."""
    actions = [p["action"] for p in parts]
    labels = ["analyses"] if any(a.endswith("analysis") for a in actions) else []
    return " + ".join(labels + [a for a in actions if not a.endswith("analysis")])


def game_prompts(sample: EvalSample, wave_seconds: float = WAVE_SECONDS) -> dict[str, Any]:
    """A game's calls as sent, its prompt tokens per section and per call kind and section, its distinct
    schemas, and how many calls ask each kind of decision (``asks``: a joint call counts once per kind)."""
    game = game_state(sample)
    sections: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    asks: Counter[str] = Counter()
    decisions: Counter[str] = Counter()
    calls: list[caching.Sent] = []
    seats: list[str] = []
    kinds: list[str] = []
    call_days: list[int] = []  # each call's day, 0 at night
    for e in sample.events:
        meta = (e.input[-1].metadata or {}).get("wolf_eval") if e.event == "model" and e.input else None
        if not meta:
            continue
        parts = logged_parts(meta)
        asks.update({p["action"] for p in parts})
        decisions.update(p["action"] for p in parts)
        call = sent(e, str(sample.id))
        kind = by_kind[call_kind(parts)]
        kind["calls"] += 1
        for name, text in [*call_sections(logged_views(meta, game)).items(), ("schema", call.schema)]:
            sections[name] += count(text)
            kind[name] += count(text)
        calls.append(call)
        kinds.append(call_kind(parts))
        seats.append(parts[0]["seat"])
        call_days.append(0 if parts[0]["phase"] == "night" else parts[0]["day"])
    waves = len({(r.day, r.wave) for r in game.records if r.wave})
    times = caching.spread(len(calls), waves * wave_seconds)
    calls = [replace(c, at=t) for c, t in zip(calls, times, strict=True)]
    days = game.outcome.day if game.outcome else game.day
    return {"days": days, "calls": len(calls), "waves": waves, "tokens": sections, "by_kind": by_kind,
            "sent": calls, "seats": seats, "call_days": call_days, "schemas": len({c.schema for c in calls}),
            "kinds": kinds,
            "asks": asks, "decisions": decisions, "completion": sum(c.output for c in calls)}


#: Where a seat's system prompt turns from the rules to its role (``wolf_eval/prompts/roles.txt``, § character).
ROLE_STARTS = "\n\nYou are "


def call_blocks(call: caching.Sent) -> dict[str, int]:
    """A call's tokens by block (:data:`BLOCKS`), as sent: the system prompt is the rules then the role (cut where
    the role starts, so a log of any release is cut as it was sent), the user message the record then the
    instruction (its last block)."""
    system = "".join(call.blocks[:call.system])
    cut = system.rfind(ROLE_STARTS)
    rules, role = (system[:cut], system[cut:]) if cut >= 0 else (system, "")
    return {"schema": count(call.schema), "rules": count(rules), "role": count(role),
            "record": sum(count(b) for b in call.blocks[call.system:-1]), "instruction": count(call.blocks[-1])}


def billed(blocks: dict[str, int], served: caching.Served) -> dict[tuple[str, str], int]:
    """A call's tokens by block and how they were billed: a cache reads a prefix and writes what follows it (up to
    its last breakpoint), so the first ``read`` tokens in block order are read, the next ``written`` written."""
    out: dict[tuple[str, str], int] = {}
    at = 0
    edges = {"read": served.read, "written": served.read + served.written}
    for block in BLOCKS:
        n = blocks[block]
        read = max(0, min(n, edges["read"] - at))
        written = max(0, min(n - read, edges["written"] - at - read))
        out |= {(block, "read"): read, (block, "written"): written, (block, "uncached"): n - read - written}
        at += n
    return out


def spend(games: list[dict[str, Any]], model: str) -> dict[tuple[str, str], float]:
    """A mean game's dollars on ``model`` with its provider's cache, by (block or ``output``, call kind), each
    block's tokens at the price of how they were billed (:func:`billed`)."""
    listed = caching.price_of(model)
    assert listed is not None, model
    per = {k: v / 1e6 for k, v in listed.items()}
    out: dict[tuple[str, str], float] = defaultdict(float)
    for g in games:
        served = g["served"][cache_of(model)]
        for call, s, kind in zip(g["sent"], served, g["kinds"], strict=True):
            for (block, how), n in billed(call_blocks(call), s).items():
                rate = {"read": per.get("cache_read", per["input"]), "written": s.write_price * per["input"],
                        "uncached": per["input"]}[how]
                out[(block, kind)] += n * rate / len(games)
                out[(f"{block}, {how}", "")] += n / len(games)
            out[("output", kind)] += call.output * per["output"] / len(games)
    return out


def report_spend(games: list[dict[str, Any]]) -> None:
    """Where a mean game's dollars go, on gpt-4.1 and claude-sonnet-4-5 with their caches: by block (with its tokens
    a game, read, written and in full) and by call kind."""
    usd = {m: spend(games, m) for m in (OPENAI, ANTHROPIC)}
    print("\n| block | tokens a game | read (OpenAI, Anthropic) | written (Anthropic) | gpt-4.1 | sonnet-4-5 |")
    print("|---|---|---|---|---|---|")
    for block in (*BLOCKS, "output"):
        dollars = [sum(v for (b, _), v in u.items() if b == block) for u in usd.values()]
        if block == "output":
            print(f"| output | {statistics.fmean(g['completion'] for g in games):,.0f} | | | "
                  + " | ".join(f"${d:.3f}" for d in dollars) + " |")
            continue
        tokens = {m: {h: u[(f"{block}, {h}", "")] for h in BILLED} for m, u in usd.items()}
        whole = sum(tokens[OPENAI].values())
        read = ", ".join(f"{tokens[m]['read'] / whole:.0%}" if whole else "-" for m in usd)
        written = f"{tokens[ANTHROPIC]['written'] / whole:.0%}" if whole else "-"
        print(f"| {block} | {whole:,.0f} | {read} | {written} | " + " | ".join(f"${d:.3f}" for d in dollars) + " |")
    print("| **all** | | | | " + " | ".join(
        f"${sum(v for (b, k), v in u.items() if k):.3f}" for u in usd.values()) + " |")
    kinds = sorted({k for u in usd.values() for (_, k) in u if k}, key=lambda k: -sum(
        v for (_, kk), v in usd[OPENAI].items() if kk == k))
    print("\n| call kind | gpt-4.1 prompt | gpt-4.1 output | sonnet-4-5 prompt | sonnet-4-5 output |")
    print("|---|---|---|---|---|")
    for kind in kinds:
        cells = []
        for u in usd.values():
            cells += [f"${sum(v for (b, k), v in u.items() if k == kind and b != 'output'):.3f}",
                      f"${u[('output', kind)]:.3f}"]
        print(f"| {kind} | " + " | ".join(cells) + " |")


def reuse(before: caching.Sent, after: caching.Sent) -> tuple[int, int]:
    """How many tokens of ``before``'s prefix (its schema, system prompt and record: all but its last block, the
    instruction) ``after`` repeats word for word, and how many that prefix holds."""
    a, b = caching.Prefixes.of(before), caching.Prefixes.of(after)
    prefix = len(a.units) - 1
    whole = 0
    while whole < prefix and whole < len(b.units) and a.digests[whole] == b.digests[whole]:
        whole += 1
    shared = a.tokens[whole - 1] if whole else 0
    if whole < prefix and whole < len(b.units):
        chars = caching.common_prefix(a.units[whole], b.units[whole])
        shared += count(a.units[whole][:chars]) if chars else 0
    return shared, a.tokens[prefix - 1]


def morning_reuse(games: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """For each seat's first call of each day from day 2 (its first call after the night), the share of its
    previous call's prefix it repeats, and the share of its own prefix that is: what a provider's cache can
    serve of it at best."""
    shares = []
    for g in games:
        last: dict[str, caching.Sent] = {}
        today: dict[str, int] = {}
        for call, seat, day in zip(g["sent"], g["seats"], g["call_days"], strict=True):
            if seat in last and day > today.get(seat, 1):
                shared, prefix = reuse(last[seat], call)
                shares.append((shared / prefix, shared / caching.Prefixes.of(call).tokens[-2]))
            last[seat] = call
            today[seat] = max(day, today.get(seat, 1))
    return shares


def morning_line(games: list[dict[str, Any]]) -> str:
    """The prefix a seat's first call of a day repeats, in words."""
    shares = morning_reuse(games)
    if not shares:
        return "\nno seat made a call on a second day"
    before, own = ([s[i] for s in shares] for i in (0, 1))
    return (f"\na seat's first call of a day from day 2 repeats {statistics.fmean(before):.1%} of its previous "
            f"call's prefix (schema, rules, role and record; o200k tokens; least {min(before):.1%}, most "
            f"{max(before):.1%}), which is {statistics.fmean(own):.1%} of its own prefix (least {min(own):.1%}), "
            f"over {len(shares)} such calls")


def serve_run(games: list[dict[str, Any]]) -> None:
    """Serve every call of the run (its games at once) by each cache; each game keeps what was done with its calls
    (``served``, by cache name, with ``none`` for no cache)."""
    everything = [c for g in games for c in g["sent"]]
    for g in games:
        g["served"] = {"none": caching.uncached(g["sent"])}
    keyed = [replace(c, key=f"{c.game}:{seat}") for g in games for c, seat in zip(g["sent"], g["seats"], strict=True)]
    for name, make, calls in [*((n, m, everything) for n, m in CACHES.items()),
                              (KEYED, caching.OpenAIAutomatic, keyed)]:
        served = caching.serve_all(calls, make())
        at = 0
        for g in games:
            g["served"][name] = served[at:at + len(g["sent"])]
            at += len(g["sent"])


def measured(samples: list[EvalSample], wave_seconds: float = WAVE_SECONDS) -> list[dict[str, Any]]:
    """Every game of a run measured and served by each cache."""
    games = [game_prompts(s, wave_seconds) for s in samples]
    serve_run(games)
    return games


def cache_of(model: str, served: str = "openai") -> str:
    """The cache a model's calls are served by: Anthropic's for ``anthropic/`` models, else OpenAI's ``served``."""
    return "anthropic" if model.startswith("anthropic/") else served


def game_cost(g: dict[str, Any], model: str, cached: bool, served: str = "openai") -> float:
    """One game's estimated list-price cost on ``model``, without or with its provider's cache (Anthropic's for
    ``anthropic/`` models, else the OpenAI cache named ``served``, or ``all`` for every prompt token read)."""
    if cached and served == "all":
        every = [caching.Served(sent=s.sent, read=s.sent) for s in g["served"]["none"]]
        return caching.price(every, g["completion"], model)
    return caching.price(g["served"][cache_of(model, served) if cached else "none"], g["completion"], model)


def shares(games: list[dict[str, Any]]) -> dict[str, float]:
    """Of the games' prompt tokens, the share each cache read (and, for those that charge writes, wrote)."""
    sent = sum(prompt_tokens(g) for g in games)
    out = {}
    for name in [*CACHES, KEYED]:
        t = [caching.totals(g["served"][name]) for g in games]
        out[name] = sum(x["read"] for x in t) / sent
        out[f"{name} write"] = sum(x["written"] for x in t) / sent
    return out


def prompt_tokens(g: dict[str, Any]) -> int:
    return caching.totals(g["served"]["none"])["sent"]


def report(label: str, games: list[dict[str, Any]]) -> None:
    n = len(games)
    days = sum(g["days"] for g in games)
    calls = sum(g["calls"] for g in games)
    tokens = sum((g["tokens"] for g in games), Counter())
    total = sum(tokens[s] for s in SECTIONS)
    schemas = len({c.schema for g in games for c in g["sent"]})
    print(f"\n{label}: {n} games, {days} game-days, {calls} calls ({calls / days:.0f} a game-day), "
          f"{statistics.fmean(g['schemas'] for g in games):.1f} distinct response schemas a game "
          f"({schemas} in the run)\n")
    print("| section | tokens per game | tokens per call | share |")
    print("|---|---|---|---|")
    for s in SECTIONS:
        print(f"| {s} | {tokens[s] / n:,.0f} | {tokens[s] / calls:,.0f} | {tokens[s] / total:.0%} |")
    print(f"| **all** | {total / n:,.0f} | {total / calls:,.0f} | 100% |")
    report_kinds(games)
    sh = shares(games)
    cells = [f"{name} {sh[name]:.2f}" + (f" (written {sh[name + ' write']:.2f})" if sh[name + " write"] else "")
             for name in [*CACHES, KEYED]]
    print("\ncache-served share of the prompt as sent: " + "; ".join(cells))
    print(morning_line(games))
    report_spend(games)
    sent = statistics.fmean(prompt_tokens(g) for g in games)
    out = statistics.fmean(g["completion"] for g in games)
    peer = statistics.fmean(peer_labels(g) for g in games)
    print(f"\nper game: {days / n:.1f} days, {sent:,.0f} prompt tokens, {out:,.0f} completion tokens, "
          f"{peer:,.0f} peer labels asked; estimated list-price cost, USD (a game; per 1,000 peer labels):")
    for model in MODELS:
        for cached in (False, True):
            usd = statistics.fmean(game_cost(g, model, cached) for g in games)
            print(f"- {model}, {'cached' if cached else 'uncached'}: {usd:.2f} ({1000 * usd / peer:.2f})")
    for model in (OPENAI, MINI):
        for served in (KEYED, "openai, breakpoints", "all"):
            usd = statistics.fmean(game_cost(g, model, True, served) for g in games)
            what = {"all": "every prompt token read from the cache",
                    "openai, breakpoints": "under GPT-5.6's breakpoint rules (this model's prices)"}.get(served, served)
            print(f"- {model}, cached, {what}: {usd:.2f} ({1000 * usd / peer:.2f})")


def peer_labels(g: dict[str, Any]) -> int:
    """Peer labels a game asked: one per peer analysis, however many a call asked together."""
    return int(g["decisions"]["peer_analysis"])


def report_kinds(games: list[dict[str, Any]]) -> None:
    """Prompt tokens a game by call kind and section."""
    n = len(games)
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    for g in games:
        for kind, c in g["by_kind"].items():
            kinds[kind].update(c)
    print("\n| call kind | calls a game | " + " | ".join(SECTIONS) + " | all |")
    print("|---|---|" + "---|" * (len(SECTIONS) + 1))
    for kind, c in sorted(kinds.items(), key=lambda kc: -sum(kc[1][s] for s in SECTIONS)):
        cells = [f"{c[s] / n:,.0f}" for s in SECTIONS] + [f"{sum(c[s] for s in SECTIONS) / n:,.0f}"]
        print(f"| {kind} | {c['calls'] / n:,.0f} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--policy", default="cue", help="wolfbot policy: random, cue or tom")
    ap.add_argument("--task", action="append", choices=sorted(TASKS), help="default: both")
    ap.add_argument("--log", help="measure the games of this log instead of playing new ones")
    ap.add_argument("--wave-seconds", type=float, default=WAVE_SECONDS,
                    help=f"seconds a wave of calls takes at an API, for the cache timeline (default {WAVE_SECONDS})")
    add_task_args(ap)
    args = ap.parse_args()
    if args.log:
        log = read_eval_log(args.log, header_only=True)
        games = measured([s for s in logged_games(args.log) if s.error is None], args.wave_seconds)
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
            games = measured(logged_games(log), args.wave_seconds)
        report(f"{task}, wolfbot/{args.policy}, {words}-word speech, parameters {task_args | extra}", games)


if __name__ == "__main__":
    main()
