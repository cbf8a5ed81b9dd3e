"""Who sits where, and in which order a prompt lists the players: the bias controls.

Language models favour some names and some list positions. With ``seating=shuffled`` each game
draws its seats' names from :data:`NAME_POOL` (without replacement) and every list a prompt shows
(the players, the living, a ballot's or a night action's options, the suspicion rows) starts at a
seeded rotation, so no name and no position stays tied to a seat across games. ``seating=fixed``
is the layout the papers' runs used: seat i is always ``NAMES[i]`` and every list is in seat order.

Every draw here comes from its own stream (``derive_rng(seed, "seating", ...)``), so the deal,
the night's tie-breaks and the floor's draws of a game are the same under either layout; and the
engine's own draws are keyed by seat (:func:`fixed_key`, :func:`by_seat`), never by a drawn name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from wolf_eval.engine.config import Seating
from wolf_eval.engine.rng import derive_rng
from wolf_eval.engine.roles import NAMES

if TYPE_CHECKING:
    from wolf_eval.engine.state import GameState, Request

#: Short given names of varied origin and gender, one word each, none an English word, a role or a
#: moderator's word, none the start of another (a reply may shorten a name to a unique prefix).
#: The fixed layout's sixteen come first.
NAME_POOL: tuple[str, ...] = (
    *NAMES,
    "Aiko", "Amir", "Anya", "Bao", "Chidi", "Dara", "Esra", "Femi",
    "Gita", "Goran", "Hiro", "Ines", "Isla", "Joon", "Kenji", "Kofi",
    "Lars", "Leila", "Luca", "Malik", "Mateo", "Mei", "Nadia", "Nils",
    "Noor", "Olga", "Otto", "Priya", "Quinn", "Rafa", "Rania", "Ravi",
    "Sana", "Sven", "Tane", "Tariq", "Tova", "Ugo", "Vera", "Xin",
    "Yara", "Yuki", "Yusuf", "Zain", "Zara", "Zoe",
)


def seat_names(seating: Seating, seed: int, seats: int) -> tuple[str, ...]:
    """The seats' names, in seat order: the fixed layout's, or ``seats`` drawn from the pool for this game."""
    if seating == "fixed":
        return NAMES[:seats]
    return tuple(derive_rng(seed, "seating", "names").sample(NAME_POOL, seats))


def rotation(state: GameState, size: int, *key: object) -> int:
    """Where a list of ``size`` items starts for the list named by ``key``: 0 on the fixed layout."""
    if state.config.seating == "fixed" or size < 2:
        return 0
    return derive_rng(state.seed, "seating", "order", *key).randrange(size)


def rotated(items: Sequence[str], start: int) -> tuple[str, ...]:
    """``items`` read from position ``start``, wrapping round: the same cycle, another first item."""
    return tuple(items[start:]) + tuple(items[:start])


def shown(state: GameState, items: Sequence[str], *key: object) -> tuple[str, ...]:
    """``items`` (in seat order) in the order the list named by ``key`` is shown in."""
    return rotated(items, rotation(state, len(items), *key))


def players_order(state: GameState) -> tuple[str, ...]:
    """Every player, in the order this game's prompts list them (one order per game: the rules state
    it, and a seat's rules never change, which keeps its prompts' cached prefix)."""
    return shown(state, state.names, "players")


def decision_lists(state: GameState, request: Request) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The living and the options of one decision, each in the order its prompt lists them."""
    return shown(state, state.living_names, fixed_key(state, request), "alive"), shown_options(state, request)


def shown_options(state: GameState, request: Request) -> tuple[str, ...]:
    """A decision's options in the order its prompt listed them; ``state`` may be any later state of
    the game (only its seed, layout and seats are read), so a report can rebuild a ballot's order."""
    return shown(state, request.options, fixed_key(state, request), "options")


def fixed_key(state: GameState, request: Request) -> str:
    """The request's key with its seat under its fixed-layout name: what every random draw of a
    decision is keyed by (a call's seed, a fallback's target), so a drawn name changes none of them."""
    seat = state.player(request.seat).seat
    return request.model_copy(update={"seat": NAMES[seat]}).key


def by_seat(state: GameState, names: Iterable[str]) -> list[str]:
    """``names`` in seat order: how a seeded draw sees a tie (on the fixed layout, also alphabetical)."""
    return sorted(names, key=lambda n: state.player(n).seat)
