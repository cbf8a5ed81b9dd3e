"""Pooling per-game values: sums over the games where a value applies, never means of per-game rates;
and the logged names of per-game counts.

A pooled figure reads one number per game, a column (NaN where the value does not apply to a game,
which every pooled figure skips): a typed value set's reader makes it from the field it pools.

A typed value set writes its counts under flat names in a score's metadata, and reads them back
(``flat`` and ``from_flat``): a count of one group (a role, a deception type, an order, a confidence
bin) under ``<group>_<count>``, as the logs have named them since release 0.1.0. :func:`logged_name`
is the one place such a name is made; readers read the typed fields, never a name.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import TypeVar

Values = Mapping[str, float]
G = TypeVar("G")


class Logged(Mapping[str, float]):
    """A typed value set of one game that reads as the flat mapping a score's metadata logs (:meth:`flat`), so
    the pooling functions here take it, a mapping read back from a log, or one made by hand alike. A reader of
    one game reads its fields."""

    def flat(self) -> dict[str, float]:
        """The counts under their logged names, NaN where not applicable."""
        raise NotImplementedError

    @cached_property
    def _logged(self) -> dict[str, float]:
        return self.flat()

    def __getitem__(self, key: str) -> float:
        return self._logged[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._logged)

    def __len__(self) -> int:
        return len(self._logged)


def logged_name(*parts: object) -> str:
    """A count's name in the logs: its group's parts, then the count's, joined by ``_`` (``villager_tp``,
    ``werewolf_type_bandwagon``, ``order_3``, ``flag_bin0_hits``)."""
    return "_".join(str(p) for p in parts)


#: The ends of a figure's 95% interval, as :func:`bound_name` names them.
ENDS = ("low", "high")


def bound_name(figure: str, end: str) -> str:
    """The name of one end (``low`` or ``high``) of a figure's interval: ``<figure>_low``, ``<figure>_high``.

    The one home of that name: the scorers register a figure's interval metrics under it (the names users read in
    the eval log, ``inspect view`` and ``evals_df``), and every table of the report, ``compare`` and ``rate`` gives
    a figure's interval the same two columns, written and read back through :class:`wolf_eval.resample.Interval`.
    """
    return logged_name(figure, end)


def is_bound(column: str) -> bool:
    """Whether a table's column is one end of a figure's interval (:func:`bound_name`), not a figure."""
    return column.endswith(tuple(bound_name("", end) for end in ENDS))


def flat_groups(groups: Mapping[G, Sequence[float]], every: Iterable[G],
                names: Sequence[str]) -> dict[str, float]:
    """Per group, its counts under their logged names (``<group>_<name>``); NaN for a group of ``every`` that
    has none (not applicable, never zero)."""
    out = {logged_name(g, n): math.nan for g in every for n in names}
    for g, numbers in groups.items():
        out.update(zip((logged_name(g, n) for n in names), numbers, strict=True))
    return out


def group_counts(values: Values, group: object, names: Sequence[str], default: float = math.nan) -> list[float]:
    """One group's logged counts in ``names``' order (``default`` for one the logged ``values`` lack)."""
    return [float(values.get(logged_name(group, n), default)) for n in names]


def groups_from_flat(values: Values, every: Iterable[G], names: Sequence[str],
                     default: float = math.nan) -> dict[G, list[float]]:
    """The groups of ``every`` whose first count the logged ``values`` hold (a number), each with its
    :func:`group_counts` (``default`` for a later count a release before it did not log)."""
    return {g: group_counts(values, g, names, default) for g in every
            if not math.isnan(float(values.get(logged_name(g, names[0]), math.nan)))}


def column(values: Sequence[Values], key: str) -> list[float]:
    """``key`` of every game of a logged mapping (a release's, or a value set with no typed class), NaN where a
    game lacks it: the column the pooling functions below take. A typed value set's reader reads its fields."""
    return [float(v.get(key, math.nan)) for v in values]


def applying(column: Iterable[float]) -> list[float]:
    """A per-game column's values over the games where it applies (not NaN)."""
    return [x for x in column if not math.isnan(x)]


def count_where_applicable(column: Iterable[float]) -> int:
    """How many games a per-game column applies to."""
    return len(applying(column))


def mean_where_applicable(column: Iterable[float]) -> float:
    """The mean of a per-game column over the games where it applies; NaN if none does."""
    played = applying(column)
    return sum(played) / len(played) if played else math.nan


def pooled_sum(column: Iterable[float]) -> float:
    """The sum of a per-game column over the games where it applies; NaN if none does."""
    played = applying(column)
    return sum(played) if played else math.nan


def pooled_ratio(numerators: Sequence[float], denominators: Sequence[float]) -> float:
    """Sum of numerators over sum of denominators, over the games where both apply; NaN on a zero total."""
    pairs = [(n, d) for n, d in zip(numerators, denominators, strict=True) if not (math.isnan(n) or math.isnan(d))]
    total = sum(d for _, d in pairs)
    return sum(n for n, _ in pairs) / total if total else math.nan


def applicable(figures: Mapping[str, float]) -> dict[str, float]:
    """The figures with a value; all of them (every one NaN) when none has one, so a summary says so."""
    kept = {k: v for k, v in figures.items() if not math.isnan(v)}
    return kept or dict(figures)


def select(figures: Mapping[str, float], keys: Sequence[str]) -> dict[str, float]:
    """The named figures, in that order (those the figures lack are left out)."""
    return {k: figures[k] for k in keys if k in figures}
