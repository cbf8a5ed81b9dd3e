"""The game's own words as enums: roles, factions, winners, phases and actions (and the tagger's role name).

The bottom of the project: the engine, the record vocabulary (``wolf_eval.records``), agents,
measures and analysis all speak these, so a role, a faction or an action is never a bare string
that a typo could turn into a silent miss. Every member is a ``StrEnum``: it equals, hashes and
serialises as its value, so logs written with plain strings read back unchanged.
"""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    """A seat's secret role."""

    VILLAGER = "villager"
    WEREWOLF = "werewolf"
    SEER = "seer"
    DOCTOR = "doctor"
    JESTER = "jester"


class Faction(StrEnum):
    """A side that wins or loses together."""

    VILLAGERS = "villagers"
    WEREWOLVES = "werewolves"
    JESTER = "jester"


class Winner(StrEnum):
    """How a game ended: a faction's win, or a draw at the day cap."""

    VILLAGERS = "villagers"
    WEREWOLVES = "werewolves"
    JESTER = "jester"
    DRAW = "draw"


FACTION_OF: dict[Role, Faction] = {
    Role.VILLAGER: Faction.VILLAGERS,
    Role.SEER: Faction.VILLAGERS,
    Role.DOCTOR: Faction.VILLAGERS,
    Role.WEREWOLF: Faction.WEREWOLVES,
    Role.JESTER: Faction.JESTER,
}


#: The ``--model-role`` that binds the model lesson tagger (a role that seats no player).
TAGGER_ROLE = "tagger"
#: The ``--model-role`` that binds the post-game judge (a role that seats no player).
JUDGE_ROLE = "judge"
#: The ``--model-role`` that binds the monitor, which reads each seat's text after each day (with ``-T monitor``).
MONITOR_ROLE = "monitor"


class Phase(StrEnum):
    """Where in a night or day a record was written or a decision is asked."""

    NIGHT = "night"
    DEBATE = "debate"
    VOTE = "vote"
    DEFENCE = "defence"
    EXPLANATION = "explanation"
    REVOTE = "revote"
    OVER = "over"


class Action(StrEnum):
    """A decision a seat's model is asked for."""

    NIGHT_KILL = "night_kill"
    PROTECT = "protect"
    INVESTIGATE = "investigate"
    BID = "bid"
    STATEMENT = "statement"
    DEFENCE = "defence"
    VOTE = "vote"
    SELF_ANALYSIS = "self_analysis"
    PEER_ANALYSIS = "peer_analysis"
    LESSONS = "lessons"  # the Jester's lessons after a game (jester_learning); never pending in play
    STANCE = "stance"  # a wolf's private choice, each morning, to play open or to deceive (deception=optional)


#: The stances a wolf chooses between each morning with ``deception=optional``: ``open`` (it may keep its role to
#: itself but states nothing false) or ``deceive`` (anything goes, as in the dealt game).
STANCES = ("open", "deceive")


class UnitKind(StrEnum):
    """A kind of public statement analysed for deception, and ``ALL`` of them pooled."""

    ALL = "all"
    STATEMENT = "statement"
    DEFENCE = "defence"
    VOTE = "vote"


__all__ = ["FACTION_OF", "STANCES", "Action", "Faction", "Phase", "Role", "UnitKind", "Winner"]
