"""What the Jester's learning loop wrote after each game (docs/design.md, § Scores).

Per game with ``jester_learning``: ``lessons_read`` and ``lessons_added``, the added lessons by
ToM order (``order_1/2/3``) and by strategy category (multi-label, so categories need not sum to
the lessons added). Every key is NaN when learning is off.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from wolf_eval.lessons.tagger import CATEGORIES
from wolf_eval.measures.pooling import Values, count_where_applicable, mean_where_applicable, pooled_ratio, pooled_sum
from wolf_eval.store import GameRecord

ORDERS = (1, 2, 3)
KEYS = ("lessons_read", "lessons_added", *(f"order_{o}" for o in ORDERS), *(f"category_{c}" for c in CATEGORIES))


def lesson_values(record: GameRecord) -> dict[str, float]:
    if record.lessons_file is None:
        return dict.fromkeys(KEYS, math.nan)
    added = record.lessons_added
    values = {"lessons_read": float(len(record.lessons_read)), "lessons_added": float(len(added))}
    values |= {f"order_{o}": float(sum(1 for x in added if x.order == o)) for o in ORDERS}
    values |= {f"category_{c}": float(sum(1 for x in added if c in x.categories)) for c in CATEGORIES}
    return values


def lesson_shares(values: Sequence[Values]) -> dict[str, float]:
    """Lessons added per game; the added lessons' shares by ToM order and by category, pooled over games.

    Without any learning game, only ``added_per_game``, NaN. Also ``games`` (learning games) and
    ``added`` (lessons added in all).
    """
    out = {"added_per_game": mean_where_applicable(values, "lessons_added")}
    if math.isnan(out["added_per_game"]):
        return out
    out |= {f"order_{o}": pooled_ratio(values, f"order_{o}", "lessons_added") for o in ORDERS}
    out |= {c: pooled_ratio(values, f"category_{c}", "lessons_added") for c in CATEGORIES}
    out["games"] = float(count_where_applicable(values, "lessons_added"))
    out["added"] = pooled_sum(values, "lessons_added")
    return out
