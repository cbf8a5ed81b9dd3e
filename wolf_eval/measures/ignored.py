"""Which requested generation settings the seat models' providers ignored, per model, over games.

It travels with the cost and the scores, so a table never describes a configuration that did not
run: "temperature 1.0, seeded" is false for a seat whose provider drops the seed. What a provider
is known to drop is decided, per seat, by :mod:`wolf_eval.agents.honoured`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def ignored_by_model(seats: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """One game's seat models and the requested settings their providers ignored, from the sample's
    ``seats`` metadata; models that honoured everything are left out."""
    return ignored_over_games([{seat["model"]: seat.get("ignored") or []} for seat in seats])


def ignored_over_games(games: Sequence[Mapping[str, Sequence[str]]]) -> dict[str, list[str]]:
    """:func:`ignored_by_model` of several games merged: each model's ignored settings in any of them."""
    found: dict[str, set[str]] = {}
    for game in games:
        for model, ignored in game.items():
            if ignored:
                found.setdefault(model, set()).update(ignored)
    return {m: sorted(found[m]) for m in sorted(found)}
