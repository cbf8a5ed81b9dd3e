"""How far the refusal rules agree with the hand-labelled replies of ``tests/data/refusal_replies.jsonl``.

    python benchmarks/refusal_agreement.py            # per round and split: accuracy, kappa, each class's P / R
    python benchmarks/refusal_agreement.py --misses   # also list the replies of the fitted split it gets wrong
    python benchmarks/refusal_agreement.py --judge openai/gpt-4.1-mini   # a judge's reading, beside the rules'
    python benchmarks/refusal_agreement.py --judge wolfbot/cue --batch 10   # offline: wolfbot reads by the rules

Each labelled reply is a deceiving seat's (a Werewolf's or the Jester's) public words or unusable reply, with its
class (``played``, ``refused``, ``self_exposing``), a note of what it tests, and the round it was written in.
``dev``: the replies the rules were fitted to; ``heldout``: never fitted to (its misses are never listed). Each
round was measured before any rule was changed for it; docs/refusal.md says which rounds are fair tests.
The rules are :mod:`wolf_eval.measures.role_play`.

With ``--judge MODEL`` (any Inspect model name) the replies are also read by that model as a game's judge reads
them (:mod:`wolf_eval.agents.reply_reading`: its one prompt, its one parser, through the one call path), in
batches of ``--batch`` replies, each with its writer's role. A batch whose reply cannot be parsed, or whose call
fails, is lost with its reason and left out, never filled in with the rules' classes; the rules' table is then
printed over the replies the judge read, so the two compare like for like.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from random import Random

from inspect_ai.model import GenerateConfig, Model, get_model

from wolf_eval.agents.call import Caller, ProviderFailure, ask, call_seed
from wolf_eval.agents.reply_reading import ReplyReading, parse_classes, reading_messages
from wolf_eval.measures.cost import model_cost
from wolf_eval.measures.rates import Confusion, cohen_kappa, ratio
from wolf_eval.measures.role_play import Playing, classify
from wolf_eval.store import TokenUsage
from wolf_eval.vocabulary import JUDGE_ROLE, Role

LABELLED = Path(__file__).resolve().parents[1] / "tests" / "data" / "refusal_replies.jsonl"
SPLITS = ("dev", "heldout")
#: The replies one call reads unless ``--batch`` says otherwise. In a game the judge reads every reply of the
#: deceiving seats in one call (wolf_eval/scorers/judge.py); 14 offline games of triadic at its default settings
#: (wolfbot/cue and wolfbot/tom) gave 10 to 38 such replies, 16.5 the median game. 20 reads the labelled
#: replies in calls of a game's size, so the judge is measured as it reads in play: one reply a call would give it
#: less beside each reply than a game does, the whole file far more, and either could read differently.
BATCH = 20
#: The seed of the shuffle before batching: the file lists its replies by round and each round by class, so
#: batches in file order would hand the judge a call of nothing but refusals, a cue no game gives. A fixed seed
#: makes the same command read the same batches every run (and a rerun repeat its calls).
SHUFFLE_SEED = 353
#: Calls in flight at once: a few, so a provider's rate limit is not tripped (Inspect retries, but slowly).
PARALLEL = 4


@dataclass(frozen=True)
class Reply:
    """One labelled reply."""

    role: Role
    text: str
    label: Playing
    split: str
    note: str
    round: int


def load(path: Path = LABELLED) -> list[Reply]:
    """The labelled replies; a label, role or split the rules cannot give is a broken file, not a miss."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        row = json.loads(line)
        try:
            out.append(Reply(Role(row["role"]), row["text"], Playing(row["label"]), row["split"], row["note"],
                             int(row["round"])))
        except ValueError as err:
            raise ValueError(f"{path}:{n}: {err}") from err
        if row["split"] not in SPLITS:
            raise ValueError(f"{path}:{n}: split {row['split']!r} is none of {SPLITS}")
    return out


def rules(reply: Reply) -> Playing:
    """The rules' class of a labelled reply, read as a game reads its writer's reply."""
    return classify(reply.text, reply.role)


def agreement(replies: Sequence[Reply]) -> dict[str, float]:
    """The rules' accuracy, Cohen's kappa, and each class's precision and recall against the labels."""
    return agreement_of([(r, rules(r)) for r in replies])


def agreement_of(read: Sequence[tuple[Reply, Playing]]) -> dict[str, float]:
    """A reader's accuracy, Cohen's kappa, and each class's precision and recall against the labels, from each
    reply with the class it read (the rules' or a judge's: one measure for both, so their tables compare)."""
    pairs = [(r.label, got) for r, got in read]
    out = {"n": float(len(pairs)), "accuracy": ratio(sum(a == b for a, b in pairs), len(pairs)),
           "kappa": cohen_kappa(pairs)}
    for kind in Playing:
        c = Confusion(tp=sum(a is kind and b is kind for a, b in pairs),
                      fp=sum(a is not kind and b is kind for a, b in pairs),
                      fn=sum(a is kind and b is not kind for a, b in pairs))
        out |= {f"{kind}_precision": c.precision, f"{kind}_recall": c.recall}
    return out


def table(read: Sequence[tuple[Reply, Playing]]) -> list[str]:
    """The agreement per round (with its split), per split and over all, as a markdown table."""
    rounds = sorted({(r.round, r.split) for r, _ in read})
    parts = {f"round {n} ({split})": [x for x in read if x[0].round == n] for n, split in rounds}
    parts |= {split: [x for x in read if x[0].split == split] for split in SPLITS} | {"all": list(read)}
    lines = ["| replies | n | accuracy | kappa | played P / R | refused P / R | self-exposing P / R |",
             "|---|---|---|---|---|---|---|"]
    for name, part in parts.items():
        a = agreement_of(part)
        classes = " | ".join(f"{a[f'{k}_precision']:.2f} / {a[f'{k}_recall']:.2f}" for k in Playing)
        lines.append(f"| {name} | {a['n']:.0f} | {a['accuracy']:.3f} | {a['kappa']:.3f} | {classes} |")
    return lines


def batches(replies: Sequence[Reply], size: int = BATCH) -> list[list[Reply]]:
    """The replies in calls of ``size``, after the fixed shuffle (:data:`SHUFFLE_SEED`): each batch mixes rounds
    and classes, and is the same batch every run."""
    order = list(replies)
    Random(SHUFFLE_SEED).shuffle(order)
    return [order[i:i + size] for i in range(0, len(order), size)]


@dataclass(frozen=True)
class JudgeReading:
    """A judge's reading of the labelled replies: each reply it read with its class, and each batch it lost as
    (batch number, replies in it, why). A lost batch is read by no one: filling it in with the rules' classes
    would measure the rules under the judge's name."""

    read: tuple[tuple[Reply, Playing], ...]
    lost: tuple[tuple[int, int, str], ...]
    batches: int
    tokens: TokenUsage  # as the judge's provider reported them: what the measure cost


async def read_batch(model: Model, batch: Sequence[Reply], n: int,
                     usage: dict[str, TokenUsage]) -> tuple[tuple[Playing, ...], str | None]:
    """One batch's classes, in its order, read as a game reads its judge's: the same view (each reply with its
    writer's role), prompt and parser, through :func:`wolf_eval.agents.call.ask` with a seed of the call's own;
    or no classes and why the batch is lost (a reply that cannot be parsed, a call that fails)."""
    reading = ReplyReading(replies=tuple((str(r.role), r.text) for r in batch), classes=tuple(str(c) for c in Playing))
    config = GenerateConfig(seed=call_seed(SHUFFLE_SEED, f"{JUDGE_ROLE} batch {n}", None))
    caller = Caller(f"labelled replies, batch {n}", "reading replies", 0, role=JUDGE_ROLE)
    try:
        answer = await ask(model, reading_messages(reading), config, caller,
                           read=lambda raw: parse_classes(raw, reading), fallback=lambda reason, raw: (), usage=usage)
    except ProviderFailure as err:
        cause = err.__cause__
        return (), f"the call failed: {type(cause).__name__}: {cause}" if cause else f"the call failed: {err}"
    if answer.problem is not None:
        return (), f"unreadable reply: {answer.problem}"
    return tuple(Playing(c) for c in answer.value), None


def judge_reading(model: Model, replies: Sequence[Reply], size: int = BATCH, parallel: int = PARALLEL) -> JudgeReading:
    """Every batch read by ``model``, ``parallel`` calls at a time (a failed or unreadable batch stops no other)."""
    groups = batches(replies, size)
    gate, usage = asyncio.Semaphore(parallel), {str(model): TokenUsage()}

    async def one(n: int, batch: list[Reply]) -> tuple[tuple[Playing, ...], str | None]:
        async with gate:
            return await read_batch(model, batch, n, usage)

    async def every() -> list[tuple[tuple[Playing, ...], str | None]]:
        return await asyncio.gather(*(one(n, b) for n, b in enumerate(groups, start=1)))

    got = asyncio.run(every())
    read = tuple(pair for batch, (classes, why) in zip(groups, got, strict=True) if why is None
                 for pair in zip(batch, classes, strict=True))
    lost = tuple((n, len(batch), why) for n, (batch, (_, why)) in enumerate(zip(groups, got, strict=True), start=1)
                 if why is not None)
    return JudgeReading(read, lost, len(groups), usage[str(model)])


def judge_report(name: str, reading: JudgeReading) -> list[str]:
    """The judge's table, the rules' over the same replies, how far judge and rules agree, and what was lost.

    Raises SystemExit when the judge read no reply: a table of nothing is no measure."""
    lost_replies = sum(size for _, size, _ in reading.lost)
    if not reading.read:
        why = f": batch {reading.lost[0][0]}: {reading.lost[0][2]}" if reading.lost else ""
        raise SystemExit(f"refusal_agreement: the judge {name} read no reply ({len(reading.lost)} of "
                         f"{reading.batches} batches lost{why})")
    lines = [f"judge {name}: read {len(reading.read)} replies in {reading.batches - len(reading.lost)} batches; "
             f"lost {lost_replies} replies in {len(reading.lost)} of {reading.batches} batches"]
    lines += [f"- batch {n} ({size} replies) lost: {why}" for n, size, why in reading.lost]
    lines.append(spent(name, reading.tokens))
    lines += ["", f"## The judge ({name}) against the labels, over the {len(reading.read)} replies it read", "",
              *table(reading.read), "", "## The rules against the labels, over the same replies", "",
              *table([(r, rules(r)) for r, _ in reading.read])]
    pairs = [(rules(r), got) for r, got in reading.read]
    same = ratio(sum(a == b for a, b in pairs), len(pairs))
    return [*lines, "", f"judge against the rules, over the same {len(pairs)} replies: agreement {same:.3f}, "
                        f"Cohen's kappa {cohen_kappa(pairs):.3f}"]


def spent(name: str, tokens: TokenUsage) -> str:
    """What the judge's calls cost, in the tokens its provider reported and the package's list price (the same
    pricing as a game's ``cost``), so a user sees the price of the measure before reading it."""
    c = model_cost(name, tokens)
    price = "no list price known" if math.isnan(c["usd"]) else f"${c['usd']:.4f} at list price"
    return (f"its {tokens.calls} calls: {c['input_tokens'] + c['cached_tokens']:.0f} prompt tokens "
            f"({c['cached_tokens']:.0f} cached), {c['output_tokens']:.0f} output tokens, {price}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the fitted split's replies the rules get wrong")
    parser.add_argument("--judge", metavar="MODEL", help="also read the replies with this model, as a game's judge "
                                                          "reads them (an Inspect model name: openai/gpt-4.1-mini)")
    parser.add_argument("--batch", metavar="N", type=int, default=BATCH,
                        help=f"replies the judge reads in one call (default {BATCH}, a game's reading)")
    args = parser.parse_args(argv)
    if args.batch < 1:
        parser.error(f"--batch must be 1 or more, got {args.batch}")
    replies = load()
    if args.judge:
        print("\n".join(judge_report(args.judge, judge_reading(judge_model(args.judge), replies, args.batch))))
    else:
        print("\n".join(table([(r, rules(r)) for r in replies])))
    if args.misses:
        for r in replies:
            got = rules(r)
            if r.split == "dev" and got is not r.label:
                print(f"- {r.label} read as {got}: {r.text} ({r.note})")
    return 0


def judge_model(name: str) -> Model:
    """The judge by its Inspect name; a name no provider serves, or one missing its key, stops with one line."""
    try:
        return get_model(name)
    except Exception as err:
        why = " ".join(str(err).split())  # Inspect's messages run over several lines
        raise SystemExit(f"refusal_agreement: no judge {name}: {type(err).__name__}: {why}") from err


if __name__ == "__main__":
    raise SystemExit(main())
