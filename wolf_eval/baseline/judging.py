"""The wolfbot judges: name every role from the public record only.

``random`` deals the roles in play at random. ``cue`` reads the loudest signal, votes received,
as guilt: the most-voted players are the wolves, the next the Jester. ``tom`` knows the Jester
courts votes: the most-voted player is the Jester, the next ones the wolves. Roles the record
reveals (exiles and deaths with ``reveal_roles``) are used as given.
"""

from __future__ import annotations

from collections import Counter
from random import Random
from typing import Any

from wolf_eval.agents.role_guesses import JudgeView
from wolf_eval.records import Death, Exile, Kind

_ORDER = {"cue": ("werewolf", "jester"), "tom": ("jester", "werewolf"), "random": ()}


def judge_policy(style: str, jv: JudgeView, rng: Random) -> dict[str, Any]:
    revealed = {r.target: r.data.role for r in jv.records
                if r.target and isinstance(r.data, (Death, Exile)) and r.data.role}
    left = Counter(jv.roles_in_play)
    for shown in revealed.values():
        left[shown] -= 1
    unknown = [p for p in jv.players if p not in revealed]
    rng.shuffle(unknown)
    votes = Counter(r.target for r in jv.records if r.kind is Kind.VOTE and r.target)
    unknown.sort(key=lambda p: -votes[p])  # stable: ties stay in shuffled order
    guesses: dict[str, str] = dict(revealed)
    for role in _ORDER[style]:
        for _ in range(max(0, left[role])):
            if unknown:
                guesses[unknown.pop(0)] = role
        left[role] = 0
    rest = [role for role, n in left.items() for _ in range(max(0, n))]
    rng.shuffle(rest)
    guesses.update(zip(unknown, rest, strict=False))
    return {"roles": guesses, "reasoning": f"{style} reading of the votes."}
