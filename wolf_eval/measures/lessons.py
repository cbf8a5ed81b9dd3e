"""What the Jester's learning loop wrote after each game (docs/design.md, § Scores).

Per game with ``jester_learning``: ``lessons_read`` and ``lessons_added``, the added lessons by
ToM order (``order_1/2/3``) and by strategy category (multi-label, so categories need not sum to
the lessons added). Every key is NaN when learning is off.

With a model tagger bound (``--model-role tagger=``), its reading of the same added lessons:
``tagger_values`` counts the lessons it was asked about, the readings lost to an unreadable reply
and the readings by order, apart from the regex counts above, which stay the ones every score
(``third_order_lessons`` among them) uses. Its shares are over the readings it gave: a lost
reading is counted as lost, never as an order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from wolf_eval.measures.pooling import (
    Logged,
    Values,
    column,
    logged_name,
    mean_where_applicable,
    pooled_ratio,
    pooled_sum,
)
from wolf_eval.measures.tagger import CATEGORIES
from wolf_eval.store import GameRecord

ORDERS = (1, 2, 3)
#: The logged names of the added lessons by ToM order, by strategy category, and of the tagger's readings by order.
ORDER_KEYS = {o: logged_name("order", o) for o in ORDERS}
CATEGORY_KEYS = {c: logged_name("category", c) for c in CATEGORIES}
TAGGER_ORDER_KEYS = {o: logged_name("tagger", "order", o) for o in ORDERS}
TAGGER_KEYS = ("tagger_asked", "tagger_lost", *TAGGER_ORDER_KEYS.values())
KEYS = ("lessons_read", "lessons_added", *ORDER_KEYS.values(), *CATEGORY_KEYS.values())


@dataclass(frozen=True)
class LessonCounts(Logged):
    """One game's lessons: read and added, the added ones by ToM order and by category; ``learning`` False (every
    count NaN) for a game played without ``jester_learning``."""

    learning: bool = False
    read: float = 0.0
    added: float = 0.0
    orders: Mapping[int, float] = field(default_factory=dict)
    categories: Mapping[str, float] = field(default_factory=dict)

    def flat(self) -> dict[str, float]:
        if not self.learning:
            return dict.fromkeys(KEYS, math.nan)
        return {"lessons_read": self.read, "lessons_added": self.added} \
            | {ORDER_KEYS[o]: self.orders.get(o, 0.0) for o in ORDERS} \
            | {CATEGORY_KEYS[c]: self.categories.get(c, 0.0) for c in CATEGORIES}

    @classmethod
    def from_flat(cls, values: Values) -> LessonCounts:
        """The counts a score's metadata logged (:meth:`flat`): a game without lessons logged every count NaN."""
        added = float(values.get("lessons_added", math.nan))
        if math.isnan(added):
            return cls()
        return cls(True, float(values["lessons_read"]), added,
                   {o: float(values.get(ORDER_KEYS[o], 0.0)) for o in ORDERS},
                   {c: float(values.get(CATEGORY_KEYS[c], 0.0)) for c in CATEGORIES})


def lesson_values(record: GameRecord) -> LessonCounts:
    if record.lessons_file is None:
        return LessonCounts()
    added = record.lessons_added
    return LessonCounts(True, float(len(record.lessons_read)), float(len(added)),
                        {o: float(sum(1 for x in added if x.order == o)) for o in ORDERS},
                        {c: float(sum(1 for x in added if c in x.categories)) for c in CATEGORIES})


def lesson_shares(counts: Sequence[LessonCounts]) -> dict[str, float]:
    """Lessons added per game; the added lessons' shares by ToM order and by category, pooled over games.

    Over the learning games. Without any, only ``added_per_game``, NaN. Also ``games`` (learning games) and
    ``added`` (lessons added in all).
    """
    learned = [c for c in counts if c.learning]
    added = [c.added for c in learned]
    out = {"added_per_game": mean_where_applicable(added)}
    if not learned:
        return out
    out |= {ORDER_KEYS[o]: pooled_ratio([c.orders.get(o, 0.0) for c in learned], added) for o in ORDERS}
    out |= {k: pooled_ratio([c.categories.get(k, 0.0) for c in learned], added) for k in CATEGORIES}
    out["games"] = float(len(learned))
    out["added"] = pooled_sum(added)
    return out


def tagger_values(record: GameRecord) -> dict[str, float]:
    """The model tagger's readings of a game's added lessons, counted; every key NaN when no tagger read them."""
    if record.lessons_file is None or record.tagger_model is None:
        return dict.fromkeys(TAGGER_KEYS, math.nan)
    readings = record.lessons_added_tagger
    values = {"tagger_asked": float(len(readings)), "tagger_lost": float(sum(1 for x in readings if x.order is None))}
    return values | {k: float(sum(1 for x in readings if x.order == o)) for o, k in TAGGER_ORDER_KEYS.items()}


def tagger_shares(values: Sequence[Values]) -> dict[str, float]:
    """Over the games a tagger read: lessons asked about, readings lost, and the readings' shares by order.

    Shares are over the readings given (asked minus lost); all NaN when no game had a tagger.
    """
    asked, lost = column(values, "tagger_asked"), column(values, "tagger_lost")
    out = {"tagger_asked": pooled_sum(asked), "tagger_lost": pooled_sum(lost)}
    given = [a - x for a, x in zip(asked, lost, strict=True)]
    return out | {k: pooled_ratio(column(values, k), given) for k in TAGGER_ORDER_KEYS.values()}
