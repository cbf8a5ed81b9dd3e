"""Deception against the truth: how well a seat model's wolves hide, and its Jester draws suspicion, in
the suspicion of the players around them (docs/design.md, § Scores).

The speaker's own label (:mod:`wolf_eval.measures.calibration`) says what a speaker owns to, not
whether it deceived anyone. The game knows who is who, and every observer's suspicion row as it
stood at each ballot (the matrix :func:`wolf_eval.measures.truth.ballots` gives), so the other side of
the truth costs no model call:

- a wolf wants to look like anyone else. At each ballot, each observer's row ranks the living wolves
  of one seat model (positives) against the other living non-wolves (negatives): the same pairs
  :mod:`wolf_eval.measures.truth` scores for the observer's detection, counted here for the wolf's
  seat model. Its evasion is 1 − their AUROC: 0.5 is chance (the wolves look like the rest), 1 the
  wolves always ranked below every other player, 0 always above;
- the Jester wants to be exiled, so to look like a wolf. Each observer's row ranks the living Jester
  (the one positive) against every other living player whose role the observer does not know (so a
  wolf's packmates are left out): its AUROC is the Jester's normalised rank in the suspicion it courts,
  0.5 chance, 1 the most suspected player in every row;
- beside each, the same ranking against the village's players alone: a wolf ranked against a loud
  Jester looks hidden by the Jester's play, not its own, and the Jester ranked against the wolves the
  same way, so comparing two models' wolves with different Jesters seated reads this one;
- where the ballots fall: of the ballots the observers cast while a deceiver of the seat model was
  alive (abstentions not), the share on one, beside the share a vote drawn uniformly from the
  voter's options would put there (``by_chance``), which moves with how many players are alive.

Observers are the seats on the other side: every seat that is not a wolf for the wolves, every seat
but the Jester for the Jester. A deceiving role's one figure (:func:`aim`) is the equal-weight mean
over the observer roles that try to tell it apart (:data:`AIMED_AT`): the village's roles for the
wolves (the Jester hunts no wolf), the village's roles and the wolves for the Jester (any vote can
exile it). Each role's pairs pool over games by addition first, so a longer game or a talkative role
moves no figure while no role's figure moved. A game without analysis has no suspicion rows (its
rankings do not apply; its votes do). Counts are kept per (deceiver role, deceiver seat model,
observer role, observer seat model), so a seat model's wolves are scored against each observer
model apart: the head-to-head question holds the observers fixed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from wolf_eval.engine import GameState
from wolf_eval.engine.state import PRIOR_SUSPICION
from wolf_eval.measures.pooling import logged_name
from wolf_eval.measures.rates import Auroc, Summed, equal_mean, ratio
from wolf_eval.measures.truth import UNKNOWN_MODEL, VILLAGE_ROLES, Ballot, ballots
from wolf_eval.vocabulary import FACTION_OF, Faction, Role

#: The roles that deceive, in the order tables show them.
DECEIVERS = (Role.WEREWOLF, Role.JESTER)
#: Per deceiving role, the observer roles whose suspicion its one figure averages with equal weight.
AIMED_AT: dict[Role, tuple[Role, ...]] = {Role.WEREWOLF: VILLAGE_ROLES, Role.JESTER: (*VILLAGE_ROLES, Role.WEREWOLF)}
#: What each deceiving role's figure is called: the wolves' evasion, the Jester's rank in suspicion.
AIM_NAMES = {Role.WEREWOLF: "evasion", Role.JESTER: "suspicion_rank"}
#: The same figure against the village's players alone.
VILLAGE_AIM_NAMES = {role: logged_name(name, "village") for role, name in AIM_NAMES.items()}

#: (deceiver role, deceiver seat model, observer role, observer seat model).
Seen = tuple[Role, str, Role, str]


@dataclass(frozen=True)
class Deceit(Summed):
    """How the deceivers of one role and seat model fared in the rows and ballots of some observers."""

    ballots: float = 0.0  # suspicion rows that ranked a deceiver: one observer at one ballot
    ranked: Auroc = Auroc()  # deceivers (positive) against the other players the rows ranked (negative)
    village: Auroc = Auroc()  # the same, against the village's players alone (no Jester, no wolf)
    votes: float = 0.0  # ballots the observers cast while a deceiver was alive (abstentions not)
    on_deceivers: float = 0.0  # of them, on a deceiver
    by_chance: float = 0.0  # of them, the expected number on a deceiver were each vote uniform over its options

    @property
    def evasion(self) -> float:
        """The wolves' figure: 1 − the rows' AUROC for "is one of these wolves" (0.5 chance; higher hides better)."""
        return 1.0 - self.ranked.value

    @property
    def suspicion_rank(self) -> float:
        """The Jester's figure: its normalised rank in the rows' suspicion (0.5 chance, 1 always the most suspected)."""
        return self.ranked.value

    @property
    def vote_share(self) -> float:
        return ratio(self.on_deceivers, self.votes)

    @property
    def chance_share(self) -> float:
        return ratio(self.by_chance, self.votes)

    def aim(self, role: Role, among: str = "ranked") -> float:
        """The deceiving role's own figure of these counts (evasion for wolves, suspicion rank for the Jester),
        against every player the rows ranked or (``among="village"``) against the village's alone."""
        value = getattr(self, among).value
        return 1.0 - value if role is Role.WEREWOLF else value


@dataclass(frozen=True)
class GameDeception:
    """A game's (or pooled games') deception counts per (deceiver role, model, observer role, model)."""

    seen: Mapping[Seen, Deceit] = field(default_factory=dict)

    def __add__(self, other: GameDeception) -> GameDeception:
        merged = dict(self.seen)
        for key, d in other.seen.items():
            merged[key] = merged[key] + d if key in merged else d
        return GameDeception(merged)

    def deceivers(self) -> list[tuple[Role, str]]:
        """Each (deceiving role, seat model) with counts, wolves first, models in the order first seen."""
        found = dict.fromkeys((r, m) for r, m, _, _ in self.seen)
        return [k for role in DECEIVERS for k in found if k[0] is role]

    def by_observer_role(self, role: Role, model: str) -> dict[Role, Deceit]:
        """The deceivers' counts per observer role (every observer model summed), in seat-role order."""
        out: dict[Role, Deceit] = {}
        for (r, m, o_role, _), d in self.seen.items():
            if (r, m) == (role, model):
                out[o_role] = out[o_role] + d if o_role in out else d
        return {o: out[o] for o in Role if o in out}

    def by_observer_model(self, role: Role, model: str) -> dict[str, dict[Role, Deceit]]:
        """The deceivers' counts per observer model, each per observer role."""
        out: dict[str, dict[Role, Deceit]] = {}
        for (r, m, o_role, o_model), d in self.seen.items():
            if (r, m) == (role, model):
                mine = out.setdefault(o_model, {})
                mine[o_role] = mine[o_role] + d if o_role in mine else d
        return out


#: The numbers of one observer role's :class:`Deceit` that a deceiving role's figures read, in column order.
COLUMNS = ("concordant", "ties", "pairs", "village_concordant", "village_ties", "village_pairs", "votes",
           "on_deceivers", "by_chance")

Sums = Any  # summed columns: a vector (the games as played) or rows of resampled sums


def columns(role: Role, per_role: Mapping[Role, Deceit]) -> list[float]:
    """What one game adds to a deceiving role's figures: per observer role of :data:`AIMED_AT`, its
    :data:`COLUMNS` (all 0 for a role that saw no deceiver)."""
    def numbers(d: Deceit) -> list[float]:
        return [d.ranked.concordant, d.ranked.ties, d.ranked.pairs, d.village.concordant, d.village.ties,
                d.village.pairs, d.votes, d.on_deceivers, d.by_chance]

    return [x for o in AIMED_AT[role] for x in numbers(per_role.get(o, Deceit()))]


def _part(s: Sums, j: int) -> Deceit:
    i = j * len(COLUMNS)
    return Deceit(ranked=Auroc(s[i], s[i + 1], s[i + 2]), village=Auroc(s[i + 3], s[i + 4], s[i + 5]),
                  votes=s[i + 6], on_deceivers=s[i + 7], by_chance=s[i + 8])


def aim_figures(role: Role) -> dict[str, Callable[[Sums], Any]]:
    """A deceiving role's figures from its summed :func:`columns`, each the equal-weight mean over the observer
    roles of :data:`AIMED_AT` that define it (a role's pairs and votes pooled over games first): its aim
    (:data:`AIM_NAMES`), the same against the village's players alone (``_village``), the share of the
    observers' ballots on it and the share chance would give.
    Element-wise, so the same formulas give an interval over resampled games."""
    roles = range(len(AIMED_AT[role]))
    return {AIM_NAMES[role]: lambda s: equal_mean([_part(s, j).aim(role) for j in roles]),
            VILLAGE_AIM_NAMES[role]: lambda s: equal_mean([_part(s, j).aim(role, "village") for j in roles]),
            "vote_share": lambda s: equal_mean([_part(s, j).vote_share for j in roles]),
            "chance_share": lambda s: equal_mean([_part(s, j).chance_share for j in roles])}


def aim_difference(role: Role) -> Callable[[Sums], Any]:
    """The difference of two deceivers' own figures (:func:`aim_figures`), from their :func:`columns` side by side
    (the first's, then the second's): a head-to-head where each row holds what both did in one seating, so a
    resample of rows keeps the pairing."""
    figure, k = aim_figures(role)[AIM_NAMES[role]], len(COLUMNS) * len(AIMED_AT[role])
    return lambda s: figure(s[:k]) - figure(s[k:])


def aim(role: Role, per_role: Mapping[Role, Deceit]) -> float:
    """A deceiving role's figure over the observers of :data:`AIMED_AT` (equal weight per observer role)."""
    return float(aim_figures(role)[AIM_NAMES[role]](columns(role, per_role)))


def _ranked(roles: Mapping[str, Role], deceiver: Role, ballot: Ballot, observer: str,
            mine: set[str]) -> tuple[Auroc, Auroc]:
    """One observer's row at one ballot: the deceivers in ``mine`` against the players it ranks them with, and
    against the village's players among those alone."""
    row = (ballot.matrix or {}).get(observer, {})
    living = [t for t in ballot.votes if t != observer]
    if deceiver is Role.WEREWOLF:
        negatives = [t for t in living if roles[t] is not Role.WEREWOLF]
    else:  # the Jester is ranked against those whose role the observer does not know (a wolf knows its pack)
        known = Role.WEREWOLF if roles[observer] is Role.WEREWOLF else None
        negatives = [t for t in living if roles[t] is not Role.JESTER and roles[t] is not known]
    village = [t for t in negatives if FACTION_OF[roles[t]] is Faction.VILLAGERS]
    score = lambda t: float(row.get(t, PRIOR_SUSPICION))  # noqa: E731
    positives = [score(t) for t in living if t in mine]
    return Auroc.of(positives, [score(t) for t in negatives]), Auroc.of(positives, [score(t) for t in village])


def ballot_counts(roles: Mapping[str, Role], deceiver: Role, ballot: Ballot, observer: str, mine: set[str],
                   analysed: bool) -> Deceit:
    """What one observer's row and vote at one ballot add for the deceivers in ``mine`` (all alive at it)."""
    target = ballot.votes[observer]
    options = len(ballot.votes) - 1
    vote = Deceit() if target is None else Deceit(votes=1.0, on_deceivers=float(target in mine),
                                                  by_chance=len(mine) / options if options else 0.0)
    if not analysed:
        return vote
    ranked, village = _ranked(roles, deceiver, ballot, observer, mine)
    return vote + Deceit(ballots=1.0, ranked=ranked, village=village)


def _seen(game: GameState, seat_models: Mapping[str, str]) -> Iterator[tuple[Seen, Deceit]]:
    roles = {p.name: p.role for p in game.players}
    model = {p.name: seat_models.get(p.name, UNKNOWN_MODEL) for p in game.players}
    analysed = game.config.deception_analysis
    for ballot in ballots(game):
        for deceiver in DECEIVERS:
            alive = [t for t in ballot.votes if roles[t] is deceiver]
            for m in dict.fromkeys(model[t] for t in alive):
                mine = {t for t in alive if model[t] == m}
                for observer in ballot.votes:
                    if roles[observer] is not deceiver:
                        yield ((deceiver, m, roles[observer], model[observer]),
                               ballot_counts(roles, deceiver, ballot, observer, mine, analysed))


def game_deception(game: GameState, seat_models: Mapping[str, str]) -> GameDeception:
    """A game's deception counts, per deceiver role and seat model and per observer role and seat model."""
    seen: dict[Seen, Deceit] = {}
    for key, d in _seen(game, seat_models):
        seen[key] = seen[key] + d if key in seen else d
    return GameDeception(seen)


def pool(games: Iterable[GameDeception]) -> GameDeception:
    """The counts of many games summed."""
    return sum(games, GameDeception())


def figures(role: Role, d: Deceit) -> dict[str, float]:
    """The figures of one set of counts for a deceiving role, each beside the n it is over (NaN where it is 0)."""
    return {"ballots": d.ballots, "pairs": d.ranked.pairs, AIM_NAMES[role]: d.aim(role),
            "village_pairs": d.village.pairs, VILLAGE_AIM_NAMES[role]: d.aim(role, "village"), "votes": d.votes,
            "vote_share": d.vote_share, "chance_share": d.chance_share}


def seen_by(g: GameDeception, role: Role, model: str, observer_model: str | None = None) -> dict[Role, Deceit]:
    """One deceiver's counts in a game per observer role: seen by every observer model, or by one."""
    if observer_model is None:
        return g.by_observer_role(role, model)
    return g.by_observer_model(role, model).get(observer_model, {})
