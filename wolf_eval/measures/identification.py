"""Judge identification accuracy per true role (docs/design.md, § Logs and the judge; Triadic Werewolf section 5.4).

Per game and true role: ``{role}_n`` seated players and ``{role}_correct`` the judge named
correctly, and ``unreadable`` (1 when the judge's reply had no usable mapping; every guess then
counts as wrong). Every key is NaN when no judge was bound.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from wolf_eval.engine import GameState, Role
from wolf_eval.measures.pooling import Values, flat_groups, groups_from_flat, logged_name
from wolf_eval.measures.rates import Mean, ratio

ROLES = tuple(Role)
#: Per true role, the players named right and those seated, under their logged names (``villager_correct``).
COUNTS = ("correct", "n")
KEYS = (*(logged_name(r, c) for r in ROLES for c in COUNTS), "unreadable")


@dataclass(frozen=True)
class Identification:
    """The judge's guesses over one game or many: per true role, the players named right of those seated."""

    by_role: Mapping[Role, Mean] = field(default_factory=dict)  # total: named right, n: seated
    unreadable: float = 0.0  # games whose reply had no usable mapping (every guess then counts as wrong)
    games: float = 0.0

    def __add__(self, other: Identification) -> Identification:
        roles = {r: self.by_role.get(r, Mean()) + other.by_role.get(r, Mean())
                 for r in ROLES if r in self.by_role or r in other.by_role}
        return Identification(roles, self.unreadable + other.unreadable, self.games + other.games)

    @property
    def accuracy(self) -> float:
        """The share of all judged players whose role the judge named."""
        return sum(self.by_role.values(), Mean()).value

    def flat(self) -> dict[str, float]:
        """The counts under the names the judge's score logs them (``counts``); NaN for roles not seated."""
        return flat_groups({r: m.numbers() for r, m in self.by_role.items()}, ROLES, COUNTS) \
            | {"unreadable": self.unreadable}

    @staticmethod
    def from_flat(values: Values) -> Identification | None:
        """The counts a judge's score logged, typed again; None for a game no judge saw."""
        if math.isnan(values.get("unreadable", math.nan)):
            return None
        seated = groups_from_flat(values, ROLES, ("n", "correct"))  # a role is seated where its n is logged
        return Identification({r: Mean(total=correct, n=n) for r, (n, correct) in seated.items()},
                              values["unreadable"], 1.0)


def no_judge() -> dict[str, float]:
    return dict.fromkeys(KEYS, math.nan)


def judge_values(game: GameState, guesses: Mapping[str, str | None], unreadable: bool = False) -> Identification:
    """One game's judged counts (its score logs them as :meth:`Identification.flat`)."""
    roles: dict[Role, Mean] = {}
    for p in game.players:
        roles[p.role] = roles.get(p.role, Mean()) + Mean(float(guesses.get(p.name) == p.role), 1.0)
    return Identification({r: roles[r] for r in ROLES if r in roles}, float(unreadable), 1.0)


def pool(games: Iterable[Identification | None]) -> Identification | None:
    """The judged games pooled; None when no game was judged."""
    judged = [g for g in games if g is not None]
    return sum(judged, Identification()) if judged else None


def judge_accuracy(values: Sequence[Values]) -> dict[str, float]:
    """Share of players of each true role the judge named correctly, over all players, and unreadable replies,
    from the counts the judge's scores logged (:func:`accuracy_figures`)."""
    return accuracy_figures(pool(Identification.from_flat(v) for v in values))


def accuracy_figures(pooled: Identification | None) -> dict[str, float]:
    """Share of players of each true role the judge named correctly, over all players, and unreadable replies.

    Without any judged game (``pooled`` None), only ``all``, NaN. Also ``games``, the judged games.
    """
    if pooled is None:
        return {"all": math.nan}  # no judge was bound: one NaN says so
    out = {str(r): pooled.by_role[r].value if r in pooled.by_role else math.nan for r in ROLES}
    return out | {"all": pooled.accuracy, "unreadable": ratio(pooled.unreadable, pooled.games), "games": pooled.games}
