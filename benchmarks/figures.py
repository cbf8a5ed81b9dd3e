"""Every performance figure the README and the docs quote, regenerated into them from one command.

    python benchmarks/figures.py                  # every block but the slow ones, written where each lies
    python benchmarks/figures.py --only by_day,cost
    python benchmarks/figures.py --only suite     # the test suite's time (slow: runs the whole suite)
    python benchmarks/figures.py --only quick_lane  # the quick lane's time
    python benchmarks/figures.py --check          # regenerate into a copy; exit 1 naming each block that differs
    python benchmarks/figures.py --list           # the blocks and the benchmark commands each runs

Each figure lies between markers, ``<!-- figures:NAME -->`` and ``<!-- /figures:NAME -->``, in one of the
pages :data:`PAGES` names (README.md, docs/*.md, CHANGELOG.md): a block may move from page to page and
is found where it lies; this script rewrites what lies between the markers and nothing else, and each
block ends with a line naming the command that made it. The benchmarks are the scripts beside this one,
called as functions (``by_day.by_day``, ``prompts.game_prompts``, ``speed.sample_sizes``, ...) on games
played once and
shared by every block that reads them, at the package's defaults and at 0.3.0's protocol
(``-T calls=per_decision -T history=full``) where a table compares the two. ``--list`` prints, for
each block, the stand-alone commands that print the same figures.

Blocks whose figures depend on the machine (memory, times) say the machine's cores and the date.
Slow blocks run only when named with ``--only``. A frozen block (``<!-- figures:NAME frozen -->``) is
a record of a named release, kept as written: its runs (the 1-second-latency speed and concurrency
tables, about 35 minutes) are not repeated here, and the block says so.

``--check`` compares the blocks that regenerate byte for byte (``--list`` marks them ``exact``) unless
``--only`` names others: memory, times and a log's compressed bytes vary from run to run by design.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
README = ROOT / "README.md"


def pages(root: Path = ROOT) -> list[Path]:
    """The pages that may hold a block: the README, every docs page and the changelog."""
    found = [root / "README.md", *sorted((root / "docs").glob("*.md")), root / "CHANGELOG.md"]
    return [p for p in found if p.is_file()]


PAGES = pages()
if str(HERE) not in sys.path:  # run as a script, Python has put it there already
    sys.path.insert(0, str(HERE))

import by_day as by_day_bench  # noqa: E402
import prompts as prompts_bench  # noqa: E402
import speed as speed_bench  # noqa: E402
from harness import logged_games, play  # noqa: E402

import wolf_eval  # noqa: E402
from wolf_eval.measures import caching  # noqa: E402

#: 0.3.0's protocol: one call per decision, every prompt the seat's whole record.
OLD = {"calls": "per_decision", "history": "full"}
OLD_T = "-T calls=per_decision -T history=full"
VERSION = wolf_eval.__version__
NOW = f"defaults ({VERSION})"
GPT, MINI, SONNET = "openai/gpt-4.1", "openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-5"

MARKER = re.compile(r"<!-- figures:(?P<name>[a-z0-9_]+)(?P<frozen> frozen)? -->\n(?P<body>.*?)\n?"
                    r"<!-- /figures:(?P=name) -->", re.S)
OPEN = re.compile(r"<!-- figures:([a-z0-9_]+)( frozen)? -->")
CLOSE = re.compile(r"<!-- /figures:([a-z0-9_]+) -->")


# ---------------------------------------------------------------------------------------------- games

@dataclass
class Run:
    """One eval of ``wolfbot`` games and every measure a block reads from it (the log itself is gone)."""

    task: str
    policy: str
    words: int
    task_args: dict[str, Any]
    games: list[dict[str, Any]] = field(default_factory=list)  # prompts.game_prompts, one per game
    days: dict[int, dict[str, float]] = field(default_factory=dict)  # by_day.by_day
    kb: list[float] = field(default_factory=list)  # each game's sample, compressed, in the .eval
    breakdown: dict[str, float] = field(default_factory=dict)  # speed.sample_breakdown of its first game
    breakdown_id: Any = None  # that game's sample id
    breakdown_days: int = 0  # and its days
    game_days: list[int] = field(default_factory=list)
    schema_max: tuple[float, int] = (0.0, 0)  # the largest response schema, in tokens, and its call's parts


_RUNS: dict[tuple[Any, ...], Run] = {}


def measure(task: str, policy: str, words: int, **task_args: Any) -> Run:
    """Play ``task`` on ``wolfbot/<policy>`` speaking ``words`` a statement, once per process, and measure it."""
    key = (task, policy, words, tuple(sorted(task_args.items())))
    if key in _RUNS:
        return _RUNS[key]
    run = Run(task, policy, words, task_args)
    with tempfile.TemporaryDirectory() as tmp:
        log, _ = play(task, tmp, model=f"wolfbot/{policy}", model_args={"words": words}, task_args=task_args)
        samples = logged_games(log)
        run.games = prompts_bench.measured(samples)
        run.days = by_day_bench.by_day(samples)
        sizes = speed_bench.sample_sizes(log.location)
        run.kb = [sizes[str(s.id)] / 1024 for s in samples]
        run.breakdown = speed_bench.sample_breakdown(log.location, samples[0].id)
        run.game_days = [g["days"] for g in run.games]
        run.breakdown_id, run.breakdown_days = samples[0].id, run.game_days[0]
        run.schema_max = _largest_schema(samples)
    _RUNS[key] = run
    return run


def _largest_schema(samples: list[Any]) -> tuple[float, int]:
    from wolf_eval.agents.seat_call import logged_parts
    from wolf_eval.measures.tokenizer import count, schema_text

    best = (0.0, 0)
    for s in samples:
        for e in s.events:
            meta = (e.input[-1].metadata or {}).get("wolf_eval") if e.event == "model" and e.input else None
            schema = e.config.response_schema if meta else None
            if schema is None:
                continue
            best = max(best, (float(count(schema_text(schema))), len(logged_parts(meta))))
    return best


# The runs the blocks share (the commands in each block's footer play the same games).
def cue_triadic(**extra: Any) -> Run:
    return measure("triadic", "cue", 50, games=3, **extra)


def random_triadic(**extra: Any) -> Run:
    return measure("triadic", "random", 50, games=2, seed=3, **extra)


def cue_wolf() -> Run:
    return measure("wolf", "cue", 20, games=3, max_debate_turns=6)


# ------------------------------------------------------------------------------------------ arithmetic

def n(x: float, digits: int = 0) -> str:
    return f"{x:,.{digits}f}"


def dollars(x: float) -> str:
    return f"${x:,.2f}"


def per_game(run: Run, model: str, cached: bool) -> float:
    return statistics.fmean(prompts_bench.game_cost(g, model, cached) for g in run.games)


def per_day(run: Run, model: str, cached: bool) -> float:
    return per_game(run, model, cached) / mean_days(run)


def mean_days(run: Run) -> float:
    return statistics.fmean(run.game_days)


def days_label(run: Run) -> str:
    d = mean_days(run)
    return f"{d:g} day" if d == 1 else f"{d:g} days"


def shares(run: Run) -> dict[str, float]:
    """Of the run's prompt tokens, the share OpenAI's cache (as documented, without a key) and Anthropic's read."""
    read = prompts_bench.shares(run.games)
    return {name: read[name] for name in ("openai", "anthropic")}


def calls_per_day(run: Run) -> float:
    return sum(g["calls"] for g in run.games) / sum(run.game_days)


def prompt_tokens(run: Run) -> float:
    return statistics.fmean(prompts_bench.prompt_tokens(g) for g in run.games)


def sections(run: Run) -> dict[str, float]:
    """Tokens (o200k) per call by section, with the fixed part, the whole and tokens per game-day."""
    tokens = sum((g["tokens"] for g in run.games), Counter())
    calls = sum(g["calls"] for g in run.games)
    out = {s: tokens[s] / calls for s in prompts_bench.SECTIONS}
    out["fixed"] = sum(out[s] for s in ("rules", "role", "instruction", "reply in words"))
    total = sum(tokens[s] for s in prompts_bench.SECTIONS)
    out["all"] = total / calls
    out["per day"] = total / sum(run.game_days)
    out.update({f"share {s}": tokens[s] / total for s in prompts_bench.SECTIONS})
    return out


def span(lo: float, hi: float, fmt: Callable[[float], str] = dollars) -> str:
    lo, hi = sorted((lo, hi))
    return fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)}–{fmt(hi)}".replace("–$", "–")


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = [("| " + " | ".join(header) + " |").replace("|  |", "| |"), "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def wrap(text: str, width: int = 104) -> str:
    """The README's layout: each paragraph and list item filled to ``width``; tables and headings as they are."""
    out = []
    for para in text.strip("\n").split("\n\n"):
        if para.startswith(("|", "#")):
            out.append(para)
            continue
        items = re.split(r"\n(?=- )", para)
        filled = []
        for item in items:
            bullet = item.startswith("- ")
            words = " ".join(item.removeprefix("- ").split())
            filled.append(textwrap.fill(words, width, initial_indent="- " if bullet else "",
                                        subsequent_indent="  " if bullet else "", break_long_words=False,
                                        break_on_hyphens=False))
        out.append("\n".join(filled))
    return "\n\n".join(out)


def machine() -> str:
    """What a timed figure was measured on: cores, system and the date."""
    return (f"{os.cpu_count()}-core {platform.system()} machine, Python {platform.python_version()}, "
            f"{datetime.date.today().isoformat()}")


# ---------------------------------------------------------------------------------------------- blocks

@dataclass
class Block:
    name: str
    commands: list[str]  # stand-alone benchmark commands that print the block's figures
    render: Callable[[], str] | None = None  # None: frozen, kept as written
    exact: bool = True  # regenerates byte for byte; else (memory, times, log bytes) --check skips it unless named
    slow: bool = False  # runs only when named by --only
    note: str = ""  # for a frozen block: what it records and why it is not regenerated

    @property
    def command(self) -> str:
        return f"python benchmarks/figures.py --only {self.name}"

    def footer(self) -> str:
        ran = "; ".join(f"`{c}`" for c in self.commands)
        return f"*Block `{self.name}`, made by `{self.command}` from the runs of {ran}.*"


BLOCKS: dict[str, Block] = {}


def block(name: str, commands: list[str], **kw: Any) -> Callable[[Callable[[], str]], Callable[[], str]]:
    def register(render: Callable[[], str]) -> Callable[[], str]:
        BLOCKS[name] = Block(name, commands, render, **kw)
        return render
    return register


PROMPTS_CUE = "python benchmarks/prompts.py --task triadic --games 3"
PROMPTS_RANDOM = "python benchmarks/prompts.py --task triadic --games 2 --policy random -T seed=3"


@block("cost_summary", [PROMPTS_CUE, f"{PROMPTS_CUE} {OLD_T}", PROMPTS_RANDOM, f"{PROMPTS_RANDOM} {OLD_T}",
                        f"{PROMPTS_CUE} -T deception_analysis=false"])
def cost_summary() -> str:
    cue, rnd, cue_old, rnd_old = cue_triadic(), random_triadic(), cue_triadic(**OLD), random_triadic(**OLD)
    bare = cue_triadic(deception_analysis=False)
    day_c = [per_day(r, GPT, True) for r in (cue, rnd)]
    day_u = [per_day(r, GPT, False) for r in (cue, rnd)]
    mini = [per_day(r, MINI, c) for r in (cue, rnd) for c in (True, False)]
    ratio_c = sorted(per_game(o, GPT, True) / per_game(r, GPT, True) for o, r in ((cue_old, cue), (rnd_old, rnd)))
    ten = (10 * 2 * min(day_c), 10 * 4 * max(day_c))
    ten_u = (10 * 2 * min(day_u), 10 * 4 * max(day_u))
    bare_calls = sum(g["calls"] for g in bare.games) / sum(g["calls"] for g in cue.games)
    bare_usd = per_game(bare, GPT, False) / per_game(cue, GPT, False)

    def whole(x: float) -> str:
        return f"${5 * round(x / 5):,.0f}"

    return f"""\
A default triadic game on gpt-4.1 costs about **{span(*day_c)} a game-day with OpenAI's prompt cache,
{span(*day_u)} without**: {dollars(per_game(cue, GPT, True))} cached and {dollars(per_game(cue, GPT, False))}
uncached for `cue` games of {days_label(cue)}, {dollars(per_game(rnd, GPT, True))} and
{dollars(per_game(rnd, GPT, False))} for `random` games of {days_label(rnd)} (50-word speech, list prices,
tokens counted with the model's tokenizer, the cache as modelled: docs/cost-model.md). Ten games of two
to four days: roughly **{whole(ten[0])}–{whole(ten[1])[1:]}** cached ({whole(ten_u[0])}–{whole(ten_u[1])[1:]}
without). `openai/gpt-4.1-mini`: about {span(min(mini), max(mini))} a game-day. `-T deception_analysis=false`:
{bare_calls:.2f} of the calls and {bare_usd:.2f} of the dollars, without the deception scores. The papers'
protocol (`-T calls=per_decision -T history=full`) costs {ratio_c[0]:.2f}–{ratio_c[1]:.2f} times as much cached.
Run `-T games=1` first; `inspect eval` prints the run's `cost` score (`usd_per_game`, `usd`,
`tokens_per_game`, `tokens`; NaN dollars for a model with no known price). These are modelled
figures, not bills seen on a provider ([docs/performance.md](docs/performance.md))."""


@block("by_day", ["python benchmarks/by_day.py", f"python benchmarks/by_day.py {OLD_T}"])
def by_day_block() -> str:
    return by_day_table(random_triadic(), random_triadic(**OLD))


def by_day_table(new: Run, old: Run, what: str = "seed 3") -> str:
    """The by-day table of ``new`` (the defaults) against ``old`` (0.3.0's protocol) on the same games."""
    played = [d for d, v in new.days.items() if v["played"]]
    first = new.days[min(new.days)]["tokens"]
    same_decisions = all(new.days[d]["decisions"] == old.days[d]["decisions"] for d in new.days)
    same_waves = all(new.days[d]["waves"] == old.days[d]["waves"] for d in new.days)
    header = ["game-day", "games", "calls, 0.3.0", f"calls, {VERSION}",
              *(["decisions"] if same_decisions else ["decisions, 0.3.0", f"decisions, {VERSION}"]),
              *(["waves"] if same_waves else ["waves, 0.3.0", f"waves, {VERSION}"]),
              "prompt tokens per call, 0.3.0", VERSION, f"{VERSION} / day 1"]
    rows = []
    for d in played:
        a, b = old.days[d], new.days[d]
        rows.append([str(d), n(b["games"]), n(a["calls"]), n(b["calls"]),
                     *([n(b["decisions"])] if same_decisions else [n(a["decisions"]), n(b["decisions"])]),
                     *([n(b["waves"], 1)] if same_waves else [n(a["waves"], 1), n(b["waves"], 1)]),
                     n(a["tokens"]), n(b["tokens"]), f"{b['tokens'] / first:.2f}"])
    days = sorted(new.game_days)
    games = (f"one game of {days[0]} days" if len(days) == 1 else
             f"{len(days)} games, of {', '.join(map(str, days[:-1]))} and {days[-1]} days")
    out = [f"By game-day, `random` triadic games at 50-word speech, {what}, {games}; calls, decisions and "
           "waves are means over the games that reached the day:", "",
           table(header, rows)]
    for d, v in new.days.items():
        if not v["played"]:
            out += ["", f"(A game that ends on night {d} makes {n(v['calls'])} night calls there, "
                        f"{n(v['tokens'])} prompt tokens each.)"]
    out += ["", "The waves are the same under both protocols: a joint call asks decisions of one wave, so the "
                "critical path does not change." if same_waves else
                "The waves differ between the protocols (a joint call should keep them the same)."]
    return "\n".join(out)


@block("cost", [PROMPTS_CUE, f"{PROMPTS_CUE} {OLD_T}", PROMPTS_RANDOM, f"{PROMPTS_RANDOM} {OLD_T}"])
def cost_block() -> str:
    runs = [("cue", cue_triadic(**OLD), "0.3.0"), ("cue", cue_triadic(), NOW),
            ("random", random_triadic(**OLD), "0.3.0"), ("random", random_triadic(), NOW)]
    rows = []
    for policy, run, protocol in runs:
        s = shares(run)
        rows.append([f"{policy}, {days_label(run)}", protocol, n(calls_per_day(run)), n(prompt_tokens(run)),
                     f"{s['openai']:.2f}, {s['anthropic']:.2f}",
                     *(dollars(per_game(run, m, c)) for m in (GPT, SONNET) for c in (False, True))])
    header = ["games", "protocol", "calls a game-day", "prompt tokens a game", "cached share (OpenAI, Anthropic)",
              "gpt-4.1 uncached", "gpt-4.1 cached", "sonnet-4-5 uncached", "sonnet-4-5 cached"]
    cue = cue_triadic()
    sec = sections(cue)
    names = {"record": "the record", "schema": "the response schema", "rules": "the rules",
             "instruction": "the instruction", "role": "the role", "reply in words": "the reply in words"}
    order = sorted((s for s in prompts_bench.SECTIONS if sec[f"share {s}"] >= 0.005), key=lambda s: -sec[f"share {s}"])
    parts = [f"{names[s]} {sec[f'share {s}']:.0%}" for s in order]
    schemas = statistics.fmean(g["schemas"] for g in cue.games)
    where = (f"Where {VERSION}'s tokens go, in the cue games: " + ", ".join(parts) + f". A seat keeps one "
             f"response schema all game ({schemas:.0f} distinct schemas a game, one a seat; the largest "
             f"{n(cue.schema_max[0])} tokens), so its calls share one prefix. By kind of call, in the random games:")
    return table(header, rows) + "\n\n" + where + "\n\n" + kinds_table(random_triadic())


def kinds_table(run: Run) -> str:
    """Calls a game and prompt tokens by what a call asks (``analyses + bid``: a ballot's labels and the next bid)."""
    kinds: dict[str, Counter[str]] = {}
    for g in run.games:
        for kind, c in g["by_kind"].items():
            kinds.setdefault(kind, Counter()).update(c)
    games = len(run.games)
    rows = []
    for kind, c in sorted(kinds.items(), key=lambda kc: -sum(kc[1][s] for s in prompts_bench.SECTIONS)):
        total = sum(c[s] for s in prompts_bench.SECTIONS)
        rows.append([kind, n(c["calls"] / games), n(total / games), n(total / c["calls"]),
                     n(c["record"] / c["calls"]), n(c["instruction"] / c["calls"])])
    return table(["call kind", "calls a game", "prompt tokens a game", "a call", "of it the record",
                  "of it the instruction"], rows)


def spend_table(run: Run) -> str:
    """Where a mean game's dollars go on gpt-4.1 and claude-sonnet-4-5 with their caches, by block of the prompt in
    the order a provider reads it, then the reply (``prompts.spend``): each block's tokens a game and the share of
    them each cache read."""
    usd = {m: prompts_bench.spend(run.games, m) for m in (GPT, SONNET)}
    games = len(run.games)
    rows = []
    for block in prompts_bench.BLOCKS:
        tokens = {m: {h: u[(f"{block}, {h}", "")] for h in prompts_bench.BILLED} for m, u in usd.items()}
        whole = sum(tokens[GPT].values())
        rows.append([block, n(whole), f"{tokens[GPT]['read'] / whole:.0%}", f"{tokens[SONNET]['read'] / whole:.0%}",
                     *(dollars(sum(v for (b, k), v in u.items() if b == block)) for u in usd.values())])
    out = sum(g["completion"] for g in run.games) / games
    rows.append(["the reply", n(out), "", "", *(dollars(sum(v for (b, k), v in u.items() if b == "output"))
                                                 for u in usd.values())])
    rows.append(["**all**", "", "", "", *(dollars(sum(v for (b, k), v in u.items() if k)) for u in usd.values())])
    return table(["block", "tokens a game", "read from cache, OpenAI", "read from cache, Anthropic",
                  "gpt-4.1", "sonnet-4-5"], rows)


#: The OpenAI cache models of ``cost_floor``, each by its name in ``prompts.CACHES`` (``all``: every token read).
SERVED = {"as modelled": "openai", "every earlier call": "openai, every earlier call", "all": "all"}


def cost_under(run: Run, served: str, model: str = GPT) -> float:
    """A mean game's cost on ``model`` when its cache serves ``served``: ``"as modelled"`` (OpenAI's cache as
    documented: routing, spill-over and expiry), ``"every earlier call"`` (a cache that keeps every prefix all
    game, on one machine per route) or ``"all"`` (every prompt token)."""
    return statistics.fmean(prompts_bench.game_cost(g, model, True, SERVED[served]) for g in run.games)


HALF_TURNS = {"max_debate_turns": 6, "max_explanation_turns": 3}
HALF_TURNS_T = " ".join(f"-T {k}={v}" for k, v in HALF_TURNS.items())


@block("cost_floor", [PROMPTS_RANDOM, f"{PROMPTS_RANDOM} -T deception_analysis=false",
                      f"{PROMPTS_RANDOM} {HALF_TURNS_T}", "python benchmarks/by_day.py"])
def cost_floor() -> str:
    """What a game costs under ever kinder caches, down to every prompt token read from the cache, at the
    papers' protocol and two cheaper settings, and what the tail no cache serves is made of."""
    rnd, bare, short = random_triadic(), random_triadic(deception_analysis=False), random_triadic(**HALF_TURNS)
    runs = [(f"defaults ({days_label(rnd)})", rnd), (f"`-T deception_analysis=false` ({days_label(bare)})", bare),
            (f"`{HALF_TURNS_T}` ({days_label(short)})", short)]
    costs = {label: {s: cost_under(run, s) for s in SERVED} for label, run in runs}
    rows = [[label, *map(dollars, c.values())] for label, c in costs.items()]
    header = ["`random` games, gpt-4.1", "cache as documented, a key per seat",
              "cache keeping every earlier call", "every prompt token from the cache"]
    sent, out = prompt_tokens(rnd), statistics.fmean(g["completion"] for g in rnd.games)
    waves = [v["waves"] for v in rnd.days.values() if v["played"]]
    sec = sections(rnd)
    reply = caching.price([], out, GPT)  # the completion tokens alone
    return f"""\
**What a default game costs at the least.** The `random` games of the `cost` table, at the papers'
protocol (a bid from every living seat before every turn, a label of every public statement from its
speaker and every other living seat), send {n(sent)} prompt tokens a game and get {n(out)} back. What a
game costs on gpt-4.1 depends on how much of its prompt a cache serves:

{table(header, rows)}

Where a default game's dollars go, block by block in the order a provider reads a call (the schema first, then
the system prompt's rules and role, the record, the instruction last), each cache's reads being a call's first
tokens and Anthropic's writes the next (`python benchmarks/prompts.py` prints it, by kind of call too):

{spend_table(rnd)}

A seat's calls share one prefix, its schema (the same all game), the rules, its role and its record so
far, and each carries the seat's cache key, so the cache serves {shares(rnd)['openai']:.2f} of the prompt. What it
cannot serve is each call's tail: the instruction ({n(sec['instruction'])} tokens a call, naming the statements to
label by number), what the record gained since the seat's last call, and the rest of the 128-token step
OpenAI caches by. Even with every prompt token read from the cache a default game costs
{dollars(costs[runs[0][0]]['all'])}, of which the reply is {dollars(reply)}: asking less than the papers ask
(half the turns, or no deception labels) is what costs less, or a cheaper model at the same protocol
(gpt-4.1-mini, {dollars(per_game(rnd, MINI, True))} a game cached).

Every figure here is modelled, none is a bill seen on a provider: the calls are those the baseline
players' games send, counted in o200k tokens, priced at list prices (`wolf_eval/data/prices.json`) and
served by a model of each provider's documented cache ([cost-model.md](cost-model.md)). A triadic
game-day takes {min(waves):.0f}–{max(waves):.0f} waves of calls (block `by_day`): the 12 debate turns are up to 24
on their own, as a bid must see the statement before it and the speech waits for the bids."""


@block("memory", ["cd benchmarks && python memory.py --games 1,4",
                  f"cd benchmarks && python memory.py --games 1,4 {OLD_T}"], exact=False)
def memory_block() -> str:
    new = [memory_peak(g, {}) for g in (1, 4)]
    old = [memory_peak(g, OLD) for g in (1, 4)]
    per, per_old = (new[1] - new[0]) / 3, (old[1] - old[0]) / 3
    base = new[0] - per
    most = 105 * per + base
    four_gb = int((4096 - base) / per)
    return f"""\
**Memory per game in flight** (`cd benchmarks && python memory.py --games 1,4`: one, then four 5-day
games of the task's roster at once, whose scripted players speak at the word limit and split every
ballot; one process per run; the difference of the peaks over three; on a {machine()}):
{n(per)} MB at the defaults (peaks {n(new[0])} and {n(new[1])} MB) and {n(per_old)} MB with
`-T history=full -T calls=per_decision` ({n(old[0])} and {n(old[1])} MB). A task cannot choose how many
games are in flight (inspect-ai 0.3.285's `Task` takes no `max_samples`, and a `max_connections` in its
config would also cap every call): Inspect's default plays at most 105 games of an eval at once (its
adaptive limit of 100 calls, plus 5), about {most / 1024:.1f} GB of such games at the defaults,
{"within" if most < 16 * 1024 else "beyond"} a 16 GB machine (an eval set multiplies it by `--max-tasks`). On a
smaller machine give `--max-samples` of about
(MB free − {n(base, 0)}) / {n(per)}, e.g. `--max-samples {four_gb}` for 4 GB."""


def memory_peak(games: int, extra: dict[str, str]) -> float:
    """Peak resident MB of a process playing ``games`` 5-day games at once (``memory.py --one``)."""
    import json

    out = subprocess.run([sys.executable, str(HERE / "memory.py"), f"--one={games}", "--days=5",
                          *(f"-T{k}={v}" for k, v in extra.items())], check=True, capture_output=True, text=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1])["peak_mb"])


@block("log_size", [PROMPTS_CUE, PROMPTS_RANDOM, f"{PROMPTS_RANDOM} {OLD_T}",
                    "python benchmarks/prompts.py --task wolf --games 3"], exact=False)
def log_size_block() -> str:
    runs = [("wolf, cue, 6 turns, 20 words", cue_wolf(), NOW), ("triadic, cue, 50 words", cue_triadic(), NOW),
            ("triadic, random, 50 words", random_triadic(), NOW),
            ("triadic, random, 50 words", random_triadic(**OLD), "0.3.0")]
    rows = [[what, protocol, ", ".join(str(d) for d in sorted(run.game_days)), span(min(run.kb), max(run.kb), n)]
            for what, run, protocol in runs]
    b = cue_wolf().breakdown
    parts = ", ".join(f"{k} {n(v)} KB" for k, v in b.items() if k not in ("total", "compressed") and v >= 1)
    wolf = cue_wolf()
    return (table(["games", "protocol", "days", "each game's sample in the `.eval`, compressed KB"], rows)
            + f"\n\nUncompressed, wolf game {wolf.breakdown_id} ({wolf.breakdown_days} days) is {n(b['total'])} KB: "
            f"{parts}.")


WOLF_COMMAND = "python benchmarks/prompts.py --task wolf"
TRIADIC_COMMAND = "python benchmarks/prompts.py --task triadic"
#: Release 0.2's figures (one call a decision, full history, its prompts), measured by prompts.py on 0.2.0;
#: its prompts are gone from this checkout, so they are kept as measured.
BEFORE = {
    "wolf": {"rules": "348", "role": "157", "instruction": "146", "reply in words": "41", "fixed": "692",
             "record": "476", "schema": "153", "all": "1,321", "per day": "164,258", "openai": "0.45",
             "anthropic": "0.00"},
    "triadic": {"rules": "426", "role": "203", "instruction": "214", "reply in words": "51", "fixed": "894",
                "record": "1,936", "schema": "168", "all": "2,998", "per day": "1,287,315", "openai": "0.85",
                "anthropic": "0.00"},
}


@block("prompt_sections", [WOLF_COMMAND, TRIADIC_COMMAND])
def prompt_sections() -> str:
    now = {"wolf": sections(cue_wolf()), "triadic": sections(cue_triadic())}
    labels = [("rules", "rules"), ("role", "role (character, role, pack)"), ("instruction", "instruction"),
              ("reply in words", "the JSON reply in words"), ("fixed", "**no game fact (the four above)**"),
              ("record", "record"), ("schema", "response schema (compact JSON)"), ("all", "all"),
              ("per day", "per game-day")]
    rows = []
    for key, label in labels:
        cells = []
        for task in ("wolf", "triadic"):
            value = n(now[task][key])
            cells += [BEFORE[task][key], value]
        if key == "fixed":
            cells = [f"**{c}**" for c in cells]
        rows.append([label, *cells])
    return (table(["tokens per call", "wolf, 0.2", f"wolf, {VERSION}", "triadic, 0.2", f"triadic, {VERSION}"], rows)
            + f"\n\n(0.2: release 0.2's figures as measured on it; {VERSION}: this checkout's defaults.)")


@block("prompt_cache", [WOLF_COMMAND, TRIADIC_COMMAND])
def prompt_cache() -> str:
    now = {"wolf": shares(cue_wolf()), "triadic": shares(cue_triadic())}
    rows = [[label, *(c for task in ("wolf", "triadic") for c in (BEFORE[task][key], f"{now[task][key]:.2f}"))]
            for key, label in (("openai", "OpenAI"), ("anthropic", "Anthropic"))]
    return table(["", "wolf, 0.2", f"wolf, {VERSION}", "triadic, 0.2", f"triadic, {VERSION}"], rows)


@block("prompt_cost", [WOLF_COMMAND, TRIADIC_COMMAND])
def prompt_cost() -> str:
    rows = []
    for what, run in (("wolf, 6 turns, 20 words", cue_wolf()), ("triadic, defaults, 50 words", cue_triadic())):
        completion = statistics.fmean(g["completion"] for g in run.games)
        rows.append([what, f"{mean_days(run):.1f}", n(prompt_tokens(run)), n(completion),
                     *(dollars(per_game(run, m, c)) for m in (GPT, SONNET) for c in (False, True))])
    return table(["one game", "days", "prompt tokens", "completion tokens", "gpt-4.1, no cache", "gpt-4.1, cached",
                  "claude-sonnet-4-5, no cache", "claude-sonnet-4-5, cached"], rows)


@block("tests", ["pytest --collect-only -q", 'pytest --collect-only -q -m "not slow"'])
def tests_block() -> str:
    everything, quick = collected(), collected("-m", "not slow")
    return (f"`pytest --collect-only -q` collects {n(everything)} tests: {n(quick)} in the quick lane "
            f"(`pytest -m \"not slow\"`, the tests that play no eval) and {n(everything - quick)} marked `slow`.")


def collected(*args: str) -> int:
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                         cwd=ROOT, capture_output=True, text=True)
    found = re.search(r"(\d+)(?:/\d+)? tests? (?:collected|selected)", out.stdout)
    if not found:
        raise SystemExit(f"pytest --collect-only: no count in its output:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    return int(found.group(1))


@block("suite", ["pytest", 'pytest -m "not slow" -q'], exact=False, slow=True)
def suite_block() -> str:
    full, quick = timed_pytest(), timed_pytest("-m", "not slow", "-q")
    import inspect_ai

    return (f"On a {machine()}, inspect-ai {inspect_ai.__version__}: the README's test command, `pytest`, "
            f"took {full[0]:.0f} s ({full[1]}); the quick lane, `pytest -m \"not slow\" -q`, {quick[0]:.0f} s "
            f"({quick[1]}).")


@block("quick_lane", ['pytest -m "not slow" -q'], exact=False, slow=True)
def quick_lane_block() -> str:
    """The quick lane's time alone: a few minutes, where the suite block runs every test."""
    wall, summary = timed_pytest("-m", "not slow", "-q")
    return f"On a {machine()}, the quick lane, `pytest -m \"not slow\" -q`, took {wall:.0f} s ({summary})."


def timed_pytest(*args: str) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=ROOT,
                         capture_output=True, text=True)
    wall = time.perf_counter() - start
    summary = re.findall(r"^=*\s*(\d+ (?:passed|failed).*?) in [\d.]+s", out.stdout, re.M)
    if out.returncode != 0 or not summary:
        raise SystemExit(f"pytest {' '.join(args)} failed:\n{out.stdout[-3000:]}")
    return wall, summary[-1]


BEFORE_COMMANDS = [
    "python benchmarks/speed.py --task wolf --games 3 --latency 0,1 --history full,compact --concurrent 3 "
    "-T max_debate_turns=6",
    "python benchmarks/speed.py --task triadic --policy random --games 2 --latency 0,1 --history full,compact",
    "python benchmarks/concurrency.py --task wolf,triadic --games 1 --repeat 3 --latency-games 0",
    "python benchmarks/bounded.py --debate 2 --explanation 1",
]
BLOCKS["before_0_4_0"] = Block(
    "before_0_4_0", BEFORE_COMMANDS, None,
    note="releases 0.2.0 and 0.3.0, before 0.4.0's defaults: its 1-second-latency speed and concurrency runs "
         "take about 35 minutes and measure the critical path, which 0.4.0's joint calls leave the same")
BLOCKS["report_time"] = Block(
    "report_time", ["python benchmarks/report.py LOGS..."], None,
    note="0.3.0, on 100 of the baseline games' logs (54 MB), which are not in the repository")


# ----------------------------------------------------------------------------------------------- README

def blocks_in(text: str) -> dict[str, tuple[bool, str]]:
    """Each block of one page: (frozen, body), checking that the markers pair up."""
    opens, closes = OPEN.findall(text), CLOSE.findall(text)
    found = {m["name"]: (bool(m["frozen"]), m["body"]) for m in MARKER.finditer(text)}
    names = [o[0] for o in opens]
    if len(names) != len(set(names)) or sorted(names) != sorted(closes) or sorted(found) != sorted(names):
        raise ValueError(f"figure markers are not well formed: opened {names}, closed {closes}")
    return found


def homes(root: Path = ROOT) -> dict[str, tuple[Path, bool, str]]:
    """Every block of every page: name -> (its page, frozen, body); a block on two pages is an error."""
    out: dict[str, tuple[Path, bool, str]] = {}
    for page in pages(root):
        for name, (frozen, body) in blocks_in(page.read_text(encoding="utf-8")).items():
            if name in out:
                raise ValueError(f"block {name} is on two pages: {out[name][0].name} and {page.name}")
            out[name] = (page, frozen, body)
    return out


def replace(text: str, name: str, body: str) -> str:
    def sub(m: re.Match[str]) -> str:
        if m["name"] != name:
            return m[0]
        return f"<!-- figures:{name}{m['frozen'] or ''} -->\n{body}\n<!-- /figures:{name} -->"
    return MARKER.sub(sub, text)


def selected(only: str | None) -> list[Block]:
    if not only:
        return [b for b in BLOCKS.values() if b.render and not b.slow]
    names = only.split(",")
    unknown = [x for x in names if x not in BLOCKS]
    if unknown:
        raise SystemExit(f"no such block: {', '.join(unknown)} (see --list)")
    return [BLOCKS[x] for x in names]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", metavar="NAME[,NAME]", help="regenerate these blocks only (slow ones only so)")
    ap.add_argument("--check", action="store_true", help="regenerate in memory; exit 1 naming each block that "
                                                         "differs (exact blocks unless --only names others)")
    ap.add_argument("--list", action="store_true", help="print the blocks, the page each lies on and the "
                                                        "commands each runs")
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = ap.parse_args()
    present = homes(args.root)
    if args.list:
        for b in BLOCKS.values():
            kind = "frozen" if b.render is None else ", ".join(
                k for k, v in (("exact", b.exact), ("varies", not b.exact), ("slow", b.slow)) if v)
            page = present[b.name][0].relative_to(args.root) if b.name in present else "no page"
            print(f"{b.name} ({kind}, {page}): {b.command if b.render else 'kept as written: ' + b.note}")
            for c in b.commands:
                print(f"    {c}")
        return
    todo = [b for b in selected(args.only) if b.render]
    if args.check and not args.only:
        todo = [b for b in todo if b.exact]
    missing = [b.name for b in todo if b.name not in present]
    if missing:
        raise SystemExit(f"no page has markers for: {', '.join(missing)}")
    start = time.perf_counter()
    failed, stale = [], []
    for b in todo:
        t0 = time.perf_counter()
        assert b.render is not None
        page = present[b.name][0]
        try:
            body = wrap(b.render() + "\n\n" + b.footer())
        except Exception as e:  # one block's failure keeps the others' figures
            failed.append(b.name)
            print(f"{b.name}: failed: {e!r}", flush=True)
            continue
        if args.check:
            if body != present[b.name][2]:
                stale.append(b.name)
        else:  # written as each block is made, so a later failure keeps it
            page.write_text(replace(page.read_text(encoding="utf-8"), b.name, body), encoding="utf-8")
        print(f"{b.name} ({page.name}): {time.perf_counter() - t0:.0f} s", flush=True)
    print(f"all: {time.perf_counter() - start:.0f} s")
    if args.check:
        for name in stale:
            print(f"stale: {name} ({BLOCKS[name].command})")
        raise SystemExit(1 if stale or failed else 0)
    if failed:
        raise SystemExit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
