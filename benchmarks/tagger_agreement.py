"""How far the lesson tagger agrees with the labelled lessons of ``tests/data/lessons_gold.jsonl``.

    python benchmarks/tagger_agreement.py            # the fresh held-out set, then the 286 labelled lessons
    python benchmarks/tagger_agreement.py --misses   # also list the labelled lessons it gets wrong (never the fresh)
    python benchmarks/tagger_agreement.py --model openai/gpt-4.1   # the optional model-based tagger instead

For the theory-of-mind order: accuracy, Cohen's kappa and each order's precision, recall and F1
(that order against the other two). For the strategy categories: each category's precision, recall
and F1, and over all (lesson, category) pairs the micro-averaged figures and the share of lessons
whose whole set of categories is right. The headline is ``tests/data/lessons_fresh.jsonl``: 130
lessons written by someone who never saw the tagger, to which no rule is fitted (its misses are never
listed). The 286 of ``lessons_gold.jsonl`` were all fitted to in round 4, their old held-out part
included (``tests/data/lessons_gold.md``), so their figures say only that the rules still read them.

With ``--model``, each lesson is tagged by one call to that model (``wolf_eval/agents/model_tagger.py``);
a reply that cannot be read counts as order 0 with no categories (a miss), and their number is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from inspect_ai.model import Model, get_model

from wolf_eval.agents.model_tagger import model_tags
from wolf_eval.measures.rates import Confusion, cohen_kappa, ratio
from wolf_eval.measures.tagger import CATEGORIES, Tags, tag

GOLD = Path(__file__).resolve().parents[1] / "tests" / "data" / "lessons_gold.jsonl"
#: Held out from every rule since round 4, written by another hand (tests/data/lessons_fresh.md).
FRESH = GOLD.with_name("lessons_fresh.jsonl")
ORDERS = (1, 2, 3)
PARTS = ("heldout", "dev", "fresh")


@dataclass(frozen=True)
class Labelled:
    """One lesson of the gold set with its labels."""

    id: str
    split: str
    order: int
    categories: frozenset[str]
    text: str


def load_gold(path: Path = GOLD) -> list[Labelled]:
    """The labelled lessons; a label the tagger cannot give is a broken file, not a miss."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        row = json.loads(line)
        unknown = set(row["categories"]) - set(CATEGORIES)
        if row["order"] not in ORDERS or unknown or row["split"] not in PARTS:
            raise ValueError(f"{path}:{n}: bad label (order {row['order']}, categories {sorted(unknown)}, "
                             f"split {row['split']})")
        out.append(Labelled(row["id"], row["split"], row["order"], frozenset(row["categories"]), row["text"]))
    return out


@dataclass(frozen=True)
class Agreement:
    """A tagger's readings of a set of labelled lessons against their labels."""

    gold: tuple[Labelled, ...]
    tags: tuple[Tags, ...]

    @property
    def order_kappa(self) -> float:
        return cohen_kappa([(g.order, t.order) for g, t in zip(self.gold, self.tags, strict=True)])

    @property
    def order_accuracy(self) -> float:
        return ratio(sum(g.order == t.order for g, t in zip(self.gold, self.tags, strict=True)), len(self.gold))

    def order(self, k: int) -> Confusion:
        """Order ``k`` against the other two."""
        return sum((Confusion.of(t.order == k, g.order == k) for g, t in zip(self.gold, self.tags, strict=True)),
                   Confusion())

    def category(self, name: str) -> Confusion:
        return sum((Confusion.of(name in t.categories, name in g.categories)
                    for g, t in zip(self.gold, self.tags, strict=True)), Confusion())

    @property
    def categories_pooled(self) -> Confusion:
        """Every (lesson, category) pair counted once: the micro-averaged multi-label figures."""
        return sum((self.category(name) for name in CATEGORIES), Confusion())

    @property
    def exact_categories(self) -> float:
        """The share of lessons whose set of categories is exactly the labelled one."""
        hits = sum(g.categories == set(t.categories) for g, t in zip(self.gold, self.tags, strict=True))
        return ratio(hits, len(self.gold))


def measure(gold: Sequence[Labelled], tagger: Callable[[str], Tags] = tag) -> Agreement:
    return Agreement(tuple(gold), tuple(tagger(g.text) for g in gold))


#: What an unreadable reply of the model tagger counts as: no order and no category, so always a miss.
NO_READING = Tags(categories=(), order=0)


def model_readings(model: Model, gold: Sequence[Labelled], parallel: int = 8) -> tuple[dict[str, Tags], list[str]]:
    """Each lesson's tags from one call to ``model`` (by text), and why each unreadable reply was unreadable."""
    gate = asyncio.Semaphore(parallel)

    async def one(text: str) -> tuple[str, Tags, str | None]:
        async with gate:
            answer = await model_tags(model, text, seed=0)
        return text, answer.value or NO_READING, answer.problem

    async def every() -> list[tuple[str, Tags, str | None]]:
        return await asyncio.gather(*(one(g.text) for g in gold))

    done = asyncio.run(every())
    return {text: tags for text, tags, _ in done}, [f"{text[:60]!r}: {why}" for text, _, why in done if why]


def _prf(c: Confusion) -> str:
    return f"{c.precision:.2f} | {c.recall:.2f} | {c.f1:.2f} | {int(c.tp + c.fn)}"


def table(title: str, a: Agreement) -> str:
    lines = [f"## {title}: {len(a.gold)} lessons", "",
             f"order: accuracy {a.order_accuracy:.3f}, Cohen's kappa {a.order_kappa:.3f}", "",
             "| order | precision | recall | F1 | labelled |", "|---|---|---|---|---|"]
    lines += [f"| {k} | {_prf(a.order(k))} |" for k in ORDERS]
    pooled = a.categories_pooled
    lines += ["", f"categories: micro precision {pooled.precision:.3f}, recall {pooled.recall:.3f}, "
              f"F1 {pooled.f1:.3f}; exact set {a.exact_categories:.3f}", "",
              "| category | precision | recall | F1 | labelled |", "|---|---|---|---|---|"]
    lines += [f"| {name} | {_prf(a.category(name))} |" for name in CATEGORIES]
    return "\n".join(lines)


def misses(a: Agreement) -> str:
    out = []
    for g, t in zip(a.gold, a.tags, strict=True):
        extra, missing = sorted(set(t.categories) - g.categories), sorted(g.categories - set(t.categories))
        if g.order != t.order or extra or missing:
            out.append(f"{g.id} order {g.order}->{t.order} +{extra} -{missing}: {g.text}")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, default=GOLD)
    parser.add_argument("--fresh", type=Path, default=FRESH)
    parser.add_argument("--misses", action="store_true",
                        help="list the labelled lessons the tagger gets wrong (never the fresh ones)")
    parser.add_argument("--model", help="measure the model-based tagger with this model instead of the regex tagger")
    args = parser.parse_args(argv)
    gold, fresh = load_gold(args.gold), load_gold(args.fresh)
    tagger: Callable[[str], Tags] = tag
    if args.model:
        readings, unreadable = model_readings(get_model(args.model), fresh + gold)
        tagger = readings.__getitem__
        print(f"tagger: {args.model}, {len(unreadable)} unreadable replies (counted as misses)")
        print("".join(f"  - {why}\n" for why in unreadable))
    parts = {"fresh, held out": fresh, "labelled set, whole (fitted since round 4)": gold,
             "labelled set, its old held-out part": [g for g in gold if g.split == "heldout"],
             "development": [g for g in gold if g.split == "dev"]}
    print("\n\n".join(table(name, measure(lessons, tagger)) for name, lessons in parts.items()))
    if args.misses:
        print("\n## labelled set misses\n\n" + misses(measure(gold, tagger)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
