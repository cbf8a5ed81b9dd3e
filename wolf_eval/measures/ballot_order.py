"""Each ballot's list order, rebuilt from a game: which name sat at which place when a vote was cast.

A cast vote chose one of the names its ballot listed. A voter blind to names and to their order
gives each listed name ``1/len(options)`` of its vote on average; what a name or a list position
received is set against that (``expected``) by the report's bias split (:mod:`wolf_eval.analysis.bias`).
The order of each ballot is the one its voter's prompt showed, rebuilt from the record and the game's
seating (:func:`wolf_eval.engine.seating.shown_options`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from wolf_eval.engine import Action, GameState, Request
from wolf_eval.engine.seating import shown_options
from wolf_eval.records import Kind

#: The extra position label of the last name on a ballot, whatever its length (Mini-Mafia's last-speaker slot).
LAST = "last"


@dataclass
class BallotOrders:
    """One game's cast votes counted by the name and the list position each ballot offered."""

    layout: str
    chosen: dict[tuple[str, str], float] = field(default_factory=dict)
    expected: dict[tuple[str, str], float] = field(default_factory=dict)
    offered: dict[tuple[str, str], float] = field(default_factory=dict)

    def add(self, key: tuple[str, str], share: float, hit: bool) -> None:
        self.offered[key] = self.offered.get(key, 0.0) + 1
        self.expected[key] = self.expected.get(key, 0.0) + share
        self.chosen[key] = self.chosen.get(key, 0.0) + hit


def ballots(game: GameState) -> Iterator[tuple[str, tuple[str, ...], str | None]]:
    """Each ballot of the game: its voter, its options in the order the voter's prompt listed them, its vote."""
    living = list(game.names)
    for r in game.records:
        if r.kind in (Kind.DEATH, Kind.EXILE) and r.target in living:
            living.remove(r.target)
        elif r.kind is Kind.VOTE and r.actor is not None:
            request = Request(seat=r.actor, action=Action.VOTE, day=r.day, phase=r.phase, turn=0,
                              options=tuple(n for n in living if n != r.actor))
            yield r.actor, shown_options(game, request), r.target


def ballot_orders(game: GameState) -> BallotOrders:
    """The game's cast votes by offered name and list position (abstentions chose no place and are left out)."""
    out = BallotOrders(layout=game.config.seating)
    for _, options, target in ballots(game):
        if target is None or not options:
            continue
        share = 1 / len(options)
        for place, name in enumerate(options, start=1):
            hit = name == target
            out.add(("position", str(place)), share, hit)
            out.add(("name", name), share, hit)
            if place == len(options):
                out.add(("position", LAST), share, hit)
    return out
