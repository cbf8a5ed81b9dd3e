"""Judge identification accuracy per true role (docs/design.md, § Logs and the judge; Triadic Werewolf section 5.4).

Per game and true role: ``{role}_n`` seated players and ``{role}_correct`` the judge named
correctly, and ``unreadable`` (1 when the judge's reply had no usable mapping; every guess then
counts as wrong). Every key is NaN when no judge was bound.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from wolf_eval.engine import GameState, Role
from wolf_eval.measures.pooling import Values, count_where_applicable, mean_where_applicable, pooled_ratio, pooled_sum

ROLES = tuple(r.value for r in Role)
KEYS = (*(f"{r}_{c}" for r in ROLES for c in ("correct", "n")), "unreadable")


def no_judge() -> dict[str, float]:
    return dict.fromkeys(KEYS, math.nan)


def judge_values(game: GameState, guesses: Mapping[str, str | None], unreadable: bool = False) -> dict[str, float]:
    values = no_judge()
    for p in game.players:
        role = p.role.value
        if math.isnan(values[f"{role}_n"]):
            values[f"{role}_n"] = values[f"{role}_correct"] = 0.0
        values[f"{role}_n"] += 1
        values[f"{role}_correct"] += guesses.get(p.name) == role
    values["unreadable"] = float(unreadable)
    return values


def judge_accuracy(values: Sequence[Values]) -> dict[str, float]:
    """Share of players of each true role the judge named correctly, over all players, and unreadable replies.

    Without any judged game, only ``all``, NaN. Also ``games``, the judged games.
    """
    out = {r: pooled_ratio(values, f"{r}_correct", f"{r}_n") for r in ROLES}
    seated = [r for r in ROLES if not math.isnan(pooled_sum(values, f"{r}_n"))]
    total = sum(pooled_sum(values, f"{r}_n") for r in seated)
    out["all"] = sum(pooled_sum(values, f"{r}_correct") for r in seated) / total if total else math.nan
    out["unreadable"] = mean_where_applicable(values, "unreadable")
    if math.isnan(out["unreadable"]):
        return {"all": math.nan}  # no judge was bound: one NaN says so
    out["games"] = float(count_where_applicable(values, "unreadable"))
    return out
