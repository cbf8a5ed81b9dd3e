"""Rosters and seat names: how many of each role a game seats, and what the seats are called."""

from __future__ import annotations

from collections import Counter

from wolf_eval.vocabulary import FACTION_OF, Faction, Role

#: The fixed layout's names (``seating=fixed``), one per seat in seat order; the first of ``seating.NAME_POOL``.
NAMES: tuple[str, ...] = (
    "Ava", "Ben", "Cleo", "Dev", "Eli", "Faye", "Gus", "Hana",
    "Ivo", "Jude", "Kai", "Lena", "Milo", "Nia", "Omar", "Pia",
)


def role_named(word: str) -> Role | None:
    """The role a roster or a reply names ("wolf", "Villagers", ...), or None."""
    return _ROLE_ALIASES.get(word.strip().lower())


_ROLE_ALIASES: dict[str, Role] = {
    **{r.value: r for r in Role},
    **{r.value + "s": r for r in Role},
    "werewolves": Role.WEREWOLF,
    "wolf": Role.WEREWOLF,
    "wolves": Role.WEREWOLF,
}


def parse_roster(spec: str | dict[str, int]) -> dict[Role, int]:
    """Parse a roster such as ``villager:6,doctor:1,werewolf:2,jester:1``.

    Raises ValueError naming the offending part, so a typo in ``-T roles=...``
    stops the eval before any game is played.
    """
    items: list[tuple[str, object]]
    if isinstance(spec, dict):
        items = list(spec.items())
    else:
        items = []
        for part in str(spec).split(","):
            part = part.strip()
            if not part:
                continue
            if ":" not in part:
                raise ValueError(f"roles: expected 'role:count', got {part!r}")
            word, number = part.split(":", 1)
            items.append((word, number))
    roster: Counter[Role] = Counter()
    for name, count in items:
        key = str(name).strip().lower()
        role = _ROLE_ALIASES.get(key)
        if role is None:
            valid = ", ".join(r.value for r in Role)
            raise ValueError(f"roles: unknown role {name!r} (valid: {valid})")
        try:
            n = int(str(count).strip())
        except ValueError:
            raise ValueError(f"roles: count for {name!r} is not an integer: {count!r}") from None
        if n < 0:
            raise ValueError(f"roles: count for {name!r} is negative")
        roster[role] += n
    return {role: n for role, n in roster.items() if n > 0}


def validate_roster(roster: dict[Role, int]) -> None:
    """Reject rosters whose game would be decided before anyone acts."""
    total = sum(roster.values())
    if total > len(NAMES):
        raise ValueError(f"roles: {total} seats, but at most {len(NAMES)} are supported")
    wolves = roster.get(Role.WEREWOLF, 0)
    village = sum(n for r, n in roster.items() if FACTION_OF[r] is Faction.VILLAGERS)
    if wolves < 1:
        raise ValueError("roles: at least one werewolf is needed")
    if wolves >= village:
        raise ValueError(
            f"roles: {wolves} werewolves against {village} village seats: the wolves would win at once"
        )
    if roster.get(Role.DOCTOR, 0) > 1 or roster.get(Role.SEER, 0) > 1:
        raise ValueError("roles: at most one doctor and one seer")
