"""What a provider's prompt cache serves of a run's calls, and what the calls then cost.

A call is priced from what its provider receives (:class:`Sent`): the response schema, the content
blocks in order (system first), the ``prompt_cache_key`` if one was sent, the blocks that carry an
explicit cache breakpoint, and when it was sent. Nothing here knows how the prompts are laid out
(which block is the rules, a seat's record or the instruction), so a new layout (one schema per seat,
a key per seat, a breakpoint at the end of a seat's stable prefix) is priced by the same code.

Three caches, each a set of rules from its provider's documentation, cited where each rule is used:

- :class:`OpenAIAutomatic`, OpenAI before GPT-5.6 (gpt-4o, gpt-4.1, gpt-5 ...): the longest prefix
  a request shares with one its machine served recently, from 1,024 tokens in steps of 128, the schema
  first; requests routed by the hash of their first 256 tokens and their key, about 15 a minute per
  route before they spill onto other machines; writes free.
- :class:`OpenAIBreakpoints`, GPT-5.6 and later: prefixes written only at breakpoints (one implicit one
  at the end of the prompt unless ``explicit``, plus the marked blocks) and read only where a stored
  breakpoint prefix matches exactly; writes 1.25 times the input price, a 30-minute life.
- :class:`AnthropicCache`: Inspect's ``cache_prompt`` breakpoints (or the marked blocks), a 20-block
  lookback, 1,024 tokens at least (Sonnet); writes 1.25 times the input price for the 5-minute life, 2
  times for the hour Inspect switches a game to after a gap of over 300 s; reads 0.1 times.

Sources: [OAI] https://developers.openai.com/api/docs/guides/prompt-caching (and its chat-completions
variant, ``?prompt-cache-api=chat-completions``); [OAI-API] OpenAI's API reference for
``prompt_cache_options``, as quoted by the async-openai crate,
https://docs.rs/async-openai/0.42.0/async_openai/types/responses/struct.PromptCacheOptionsParam.html;
[ANT] https://platform.claude.com/docs/en/build-with-claude/prompt-caching; [ANT-SO] Anthropic's structured
outputs guide, § Prompt modification and token costs,
https://platform.claude.com/docs/en/build-with-claude/structured-outputs; [INSPECT] inspect-ai's
Anthropic provider (``inspect_ai/model/_providers/anthropic.py``, 0.3.285: ``resolve_chat_input``,
``add_lookback_cache_control``, ``_resolve_chat_input_explicit``, ``CACHE_TTL_ESCALATION_GAP``).

Tokens are o200k tokens (:mod:`wolf_eval.measures.tokenizer`), counted block by block.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from wolf_eval.measures.cost import price_of
from wolf_eval.measures.tokenizer import count, first

#: [OAI] "Caching is enabled automatically for prompts that are 1024 tokens or longer"; [ANT] the
#: minimum cacheable prompt length is 1,024 tokens for Claude Sonnet 4.5 (more for Haiku and Opus 4.5).
MIN_CACHED = 1024
#: [OAI] "cache hits occurring in increments of 128 tokens" (1024, 1152, 1280, ...), before GPT-5.6.
OPENAI_STEP = 128
#: [OAI] "Requests are routed to a machine based on a hash of the initial prefix of the prompt. The
#: hash typically uses the first 256 tokens"; the ``prompt_cache_key`` "is combined with the prefix hash".
ROUTE_TOKENS = 256
#: [OAI] "If requests for the same prefix and prompt_cache_key combination exceed a certain rate
#: (approximately 15 requests per minute), some may overflow and get routed to additional machines".
ROUTE_PER_MINUTE = 15
#: In-memory retention: "The system typically clears caches within 5 to 10 minutes of inactivity and always
#: removes them within one hour" (Azure OpenAI's guide to the same cache,
#: https://learn.microsoft.com/azure/foundry/openai/how-to/prompt-caching; [OAI] says the same of its
#: in-memory retention): the short end, 5 minutes.
OPENAI_IDLE, OPENAI_MAX_LIFE = 300.0, 3600.0
#: [OAI] GPT-5.6 and later: "cache writes cost 1.25x the uncached input token rate"; [OAI-API] the ``ttl``
#: "defaults to 30m, which is currently the only supported value", the minimum lifetime of a breakpoint.
BREAKPOINT_WRITE, BREAKPOINT_LIFE = 1.25, 1800.0
#: [ANT] "5m Cache Writes" at 1.25 times and "1h Cache Writes" at 2 times the base input price; "Cache
#: Hits & Refreshes" at 0.1 times (the price table's ``cache_read``); "the cache has a 5-minute lifetime,
#: refreshed for no additional cost each time the cached content is used".
ANTHROPIC_WRITE = {"5m": 1.25, "1h": 2.0}
ANTHROPIC_LIFE = {"5m": 300.0, "1h": 3600.0}
#: [ANT] a breakpoint checks for a cache hit at earlier block boundaries, at most 20 blocks back.
LOOKBACK = 20
#: [INSPECT] ``CACHE_TTL_ESCALATION_GAP``: after a gap of more than 300 s between a sample's cached
#: requests, Inspect sends its later requests with the 1-hour TTL (cache writes billed at 2x).
ESCALATION_GAP = 300.0


@dataclass(frozen=True)
class Sent:
    """One call as its provider receives it."""

    schema: str  # the response schema as compact JSON ("" for none): first in OpenAI's prefix and Anthropic's key
    blocks: tuple[str, ...]  # the content blocks in order: the system prompt's, then the messages'
    system: int = 0  # how many of ``blocks`` are the system prompt's
    key: str | None = None  # the ``prompt_cache_key`` sent with it
    marks: tuple[int, ...] = ()  # the blocks that end on an explicit cache breakpoint
    at: float = 0.0  # when it was sent: seconds from the start of the run
    game: str = ""  # the game (Inspect sample) it belongs to
    output: int = 0  # completion tokens


@dataclass
class Prefixes:
    """A call cut where a cache can cut it: the schema, then each block; running tokens and digests."""

    units: tuple[str, ...]
    tokens: list[int]  # tokens up to the end of each unit
    digests: list[bytes]  # digest of the prefix ending with each unit

    @classmethod
    def of(cls, call: Sent) -> Prefixes:
        units = (call.schema, *call.blocks)
        h = hashlib.blake2b(digest_size=16)
        tokens, digests, total = [], [], 0
        for u in units:
            h.update(u.encode())
            h.update(b"\x00")
            total += count(u)
            tokens.append(total)
            digests.append(h.digest())
        return cls(units, tokens, digests)

    def block_end(self, block: int) -> int:
        """The unit index where content block ``block`` ends (unit 0 is the schema)."""
        return block + 1


@dataclass
class Entry:
    """A stored prefix: when it was stored and last used, and the units that followed it."""

    stored: float
    used: float
    nexts: set[str] = field(default_factory=set)


@dataclass
class Served:
    """What a cache did with one call: prompt tokens sent, read from the cache, written to it (and at what multiple
    of the input price the writes are charged)."""

    sent: int
    read: int = 0
    written: int = 0
    write_price: float = 1.0


class OpenAIAutomatic:
    """OpenAI's automatic prefix cache, before GPT-5.6: the longest prefix shared with a request its machine saw."""

    name = "openai"
    write_price = 1.0  # [OAI] "no additional fees" for cache writes on models before the GPT-5.6 family

    def __init__(self, keep_all: bool = False) -> None:
        self.machines: dict[tuple[object, int], dict[bytes, Entry]] = defaultdict(dict)
        self.recent: dict[tuple[object, int], list[float]] = defaultdict(list)
        self.keep_all = keep_all  # an upper bound: nothing expires and no route spills onto a second machine

    def machine(self, call: Sent, p: Prefixes) -> tuple[object, int]:
        """The machine a call is routed to: its route, and the first of the route's machines that took fewer
        than ~15 of its requests in the last minute (the spill-over rule is this model's; [OAI] says only
        that some requests overflow to additional machines)."""
        # [OAI] "the structured output schema serves as a prefix to the system message"
        route = (first("".join(p.units), ROUTE_TOKENS), call.key)
        if self.keep_all:
            return route, 0
        k = 0
        while True:
            times = self.recent[(route, k)]
            times[:] = [t for t in times if call.at - t < 60.0]
            if len(times) < ROUTE_PER_MINUTE:
                times.append(call.at)
                return route, k
            k += 1

    def serve(self, call: Sent) -> Served:
        p = Prefixes.of(call)
        store = self.machines[self.machine(call, p)]
        if not self.keep_all:
            alive = {d: e for d, e in store.items()
                     if call.at - e.used <= OPENAI_IDLE and call.at - e.stored <= OPENAI_MAX_LIFE}
            store.clear()
            store.update(alive)
        shared = self._shared(p, store, call.at)
        read = 0
        if shared >= MIN_CACHED:
            read = shared - (shared - MIN_CACHED) % OPENAI_STEP
        previous = b""
        for i, d in enumerate(p.digests):
            entry = store.setdefault(d, Entry(call.at, call.at))
            entry.used = call.at
            store.setdefault(previous, Entry(call.at, call.at)).nexts.add(p.units[i])
            previous = d
        return Served(sent=p.tokens[-1], read=read, write_price=self.write_price)

    @staticmethod
    def _shared(p: Prefixes, store: dict[bytes, Entry], now: float) -> int:
        """Tokens of the longest prefix ``p`` shares with a stored request, cut inside a unit where they part."""
        whole = 0
        while whole < len(p.units) and p.digests[whole] in store:
            store[p.digests[whole]].used = now
            whole += 1
        if whole == len(p.units):
            return p.tokens[-1]
        before = store.get(p.digests[whole - 1] if whole else b"")
        unit = p.units[whole]
        chars = max((common_prefix(unit, other) for other in before.nexts), default=0) if before else 0
        return (p.tokens[whole - 1] if whole else 0) + (count(unit[:chars]) if chars else 0)


class OpenAIBreakpoints(OpenAIAutomatic):
    """OpenAI from GPT-5.6: prefixes stored only at breakpoints, read only where one matches exactly.

    [OAI-API] "By default, OpenAI automatically chooses one implicit cache breakpoint" (placed near the
    latest user message: here, at the end of the prompt) and "writes up to the latest three explicit
    breakpoints"; with ``mode="explicit"``, no implicit one and up to four explicit ones; "for cache
    matching, OpenAI considers up to the latest 80 breakpoints in the conversation, without a
    content-block lookback limit". Routing is as before GPT-5.6.
    """

    name = "openai, breakpoints"
    write_price = BREAKPOINT_WRITE

    def __init__(self, explicit: bool = False) -> None:
        super().__init__()
        self.explicit = explicit

    def serve(self, call: Sent) -> Served:
        p = Prefixes.of(call)
        store = self.machines[self.machine(call, p)]
        alive = {d: e for d, e in store.items() if call.at - e.used <= BREAKPOINT_LIFE}
        store.clear()
        store.update(alive)
        read = max((p.tokens[i] for i, d in enumerate(p.digests) if d in store), default=0)
        for i, d in enumerate(p.digests):
            if d in store and p.tokens[i] == read:
                store[d].used = call.at
        marks = [p.block_end(b) for b in sorted(call.marks)][-(4 if self.explicit else 3):]
        ends = set(marks) | (set() if self.explicit else {len(p.units) - 1})
        new = [i for i in ends if p.tokens[i] >= MIN_CACHED and p.digests[i] not in store]
        for i in new:
            store[p.digests[i]] = Entry(call.at, call.at)
        written = max((p.tokens[i] - read for i in new), default=0)
        return Served(sent=p.tokens[-1], read=read, written=max(0, written), write_price=self.write_price)


class AnthropicCache:
    """Anthropic's cache as Inspect drives it: breakpoints at the end of the system prompt and at the last two
    blocks ([INSPECT] ``add_cache_control`` on the last system block, ``add_lookback_cache_control`` on the
    second-to-last block, automatic caching on the last), or, when a call marks any blocks, at the marked blocks
    and the end of the system prompt (``_resolve_chat_input_explicit``: the caller's marks replace the automatic
    ones on the messages, and the last system block is marked while a breakpoint is left of Anthropic's four).

    [ANT] the cache covers "tools, system, and messages (in that order) up to and including the block
    designated with cache_control"; the response schema is part of the cache key too: [ANT-SO] "Claude
    automatically receives an additional system prompt explaining the expected output format", and "Changing
    the ``output_config.format`` parameter will invalidate any prompt cache for that conversation thread" (Inspect
    sends the schema as that parameter's beta form, ``output_format``, with the ``structured-outputs-2025-11-13``
    header: ``benchmarks/anthropic_request.py`` records the request). So here it comes first, as in OpenAI's prefix.
    """

    name = "anthropic"

    def __init__(self, ttl: str = "auto") -> None:
        if ttl not in ("auto", "5m", "1h"):
            raise ValueError(f"Anthropic cache TTL must be auto, 5m or 1h, got {ttl!r}")
        self.ttl = ttl
        self.store: dict[bytes, Entry] = {}
        self.life: dict[bytes, float] = {}
        self.last_cached: dict[str, float] = {}  # per game: when its last cached request was sent
        self.escalated: set[str] = set()

    def breakpoints(self, call: Sent, p: Prefixes) -> set[int]:
        if call.marks:
            return {p.block_end(b) for b in call.marks} | ({p.block_end(call.system - 1)} if call.system else set())
        last = len(p.units) - 1
        ends = {last, last - 1} if len(call.blocks) - call.system >= 2 else {last}
        if call.system:
            ends.add(p.block_end(call.system - 1))
        return {e for e in ends if e >= 1}

    def _ttl(self, call: Sent) -> str:
        if self.ttl != "auto":
            return self.ttl
        seen = self.last_cached.get(call.game)
        if seen is not None and call.at - seen > ESCALATION_GAP:
            self.escalated.add(call.game)
        return "1h" if call.game in self.escalated else "5m"

    def serve(self, call: Sent) -> Served:
        p = Prefixes.of(call)
        ttl = self._ttl(call)
        self.store = {d: e for d, e in self.store.items() if call.at - e.used <= self.life[d]}
        ends = self.breakpoints(call, p)
        read = 0
        for b in ends:
            for i in range(b, max(-1, b - LOOKBACK), -1):
                if p.digests[i] in self.store:
                    read = max(read, p.tokens[i])
                    self.store[p.digests[i]].used = call.at
                    break
        new = [b for b in ends if p.tokens[b] >= MIN_CACHED and p.digests[b] not in self.store]
        for b in new:
            self.store[p.digests[b]] = Entry(call.at, call.at)
            self.life[p.digests[b]] = ANTHROPIC_LIFE[ttl]
        written = max((p.tokens[b] - read for b in new), default=0)
        if read or written:
            self.last_cached[call.game] = call.at
        return Served(sent=p.tokens[-1], read=read, written=max(0, written), write_price=ANTHROPIC_WRITE[ttl])


Cache = OpenAIAutomatic | AnthropicCache


def cache_for(model: str) -> Cache:
    """The cache a model's provider keeps: Anthropic's for ``anthropic/`` models, OpenAI's automatic one otherwise."""
    return AnthropicCache() if model.startswith("anthropic/") else OpenAIAutomatic()


def serve_all(calls: Iterable[Sent], cache: Cache) -> list[Served]:
    """Each call served by ``cache`` in the order sent (by ``at``; ties in the order given)."""
    ordered = sorted(enumerate(calls), key=lambda ic: (ic[1].at, ic[0]))
    out: list[Served | None] = [None] * len(ordered)
    for i, call in ordered:
        out[i] = cache.serve(call)
    return [s for s in out if s is not None]


def price(served: Sequence[Served], output: int, model: str) -> float:
    """The list-price cost on ``model`` of calls served so, with ``output`` completion tokens: unread and unwritten
    prompt tokens at the input price, reads at the table's ``cache_read`` price, writes at the cache's multiple
    of the input price. NaN when the model has no price."""
    listed = price_of(model)
    if listed is None:
        return math.nan
    per = {k: v / 1e6 for k, v in listed.items()}
    prompt = sum((s.sent - s.read - s.written) * per["input"] + s.read * per.get("cache_read", per["input"])
                 + s.written * s.write_price * per["input"] for s in served)
    return prompt + output * per["output"]


def uncached(calls: Iterable[Sent]) -> list[Served]:
    """Every call's prompt tokens with no cache at all."""
    return [Served(sent=Prefixes.of(c).tokens[-1]) for c in calls]


def totals(served: Iterable[Served]) -> dict[str, int]:
    """Prompt tokens sent, read from the cache and written to it, summed."""
    out = {"sent": 0, "read": 0, "written": 0}
    for s in served:
        out["sent"] += s.sent
        out["read"] += s.read
        out["written"] += s.written
    return out


def spread(n: int, seconds: float, start: float = 0.0) -> list[float]:
    """When each of a game's ``n`` calls is sent, spread evenly over the game's ``seconds`` (its waves times a
    call's round trip): a timeline for calls logged without one."""
    return [start + seconds * i / max(1, n) for i in range(n)]


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of two strings."""
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
