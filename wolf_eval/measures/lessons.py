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
from collections.abc import Sequence

from wolf_eval.lessons.tagger import CATEGORIES
from wolf_eval.measures.pooling import Values, count_where_applicable, mean_where_applicable, pooled_ratio, pooled_sum
from wolf_eval.store import GameRecord

ORDERS = (1, 2, 3)
TAGGER_KEYS = ("tagger_asked", "tagger_lost", *(f"tagger_order_{o}" for o in ORDERS))
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


def tagger_values(record: GameRecord) -> dict[str, float]:
    """The model tagger's readings of a game's added lessons, counted; every key NaN when no tagger read them."""
    if record.lessons_file is None or record.tagger_model is None:
        return dict.fromkeys(TAGGER_KEYS, math.nan)
    readings = record.lessons_added_tagger
    values = {"tagger_asked": float(len(readings)), "tagger_lost": float(sum(1 for x in readings if x.order is None))}
    return values | {f"tagger_order_{o}": float(sum(1 for x in readings if x.order == o)) for o in ORDERS}


def tagger_shares(values: Sequence[Values]) -> dict[str, float]:
    """Over the games a tagger read: lessons asked about, readings lost, and the readings' shares by order.

    Shares are over the readings given (asked minus lost); all NaN when no game had a tagger.
    """
    asked, lost = pooled_sum(values, "tagger_asked"), pooled_sum(values, "tagger_lost")
    out = {"tagger_asked": asked, "tagger_lost": lost}
    given = [{"given": v["tagger_asked"] - v["tagger_lost"], **v} for v in values]
    return out | {f"tagger_order_{o}": pooled_ratio(given, f"tagger_order_{o}", "given") for o in ORDERS}
