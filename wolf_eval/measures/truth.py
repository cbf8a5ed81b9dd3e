"""Detection against the truth: how well a seat's suspicion and votes pick out the wolves (issue 26, point 1).

The self-label measures (:mod:`wolf_eval.measures.calibration`) score a peer's flag against the
speaker's own label: agreement with the speaker, which a speaker who mislabels moves. The game
knows the truth for free, every seat's role, so these score the records it already keeps against it:

- at each ballot, the voter's suspicion row as it stood when the ballot was cast (the matrix of the
  last ``deception`` record before the ballot's votes; the 0.5 prior before any): its AUROC for
  "is a werewolf" over the other living players, and, with a Jester alive, its AUROC separating
  the wolves (positive) from the Jester (negative), the Triadic question; and its Brier score as a
  forecast of "is a wolf" for each of them;
- per statement, each peer's suspicion of it as a score for "the speaker is a wolf": its AUROC
  over the pairs of statements one observer rated in one game (a wolf's against another's), so an
  observer's own scale never mixes with another's;
- where the votes go: of the ballots cast (abstentions not), how many fell on wolves, on the
  Jester and on the rest.

Only observers that are not wolves count: a wolf knows the answer. The counts of a seat go to its
role and to its seat model (the sample's ``seat_models``). A game without analysis has no
suspicion (its AUROCs and Brier score do not apply; its votes do); a seat that never voted nor
rated a statement has no counts. Counts pool by addition (:func:`pool`); a rate is formed last,
by :mod:`wolf_eval.measures.rates`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from wolf_eval.engine import GameState
from wolf_eval.engine.state import PRIOR_SUSPICION
from wolf_eval.measures.calibration import StatementRow, statement_rows
from wolf_eval.measures.rates import Auroc, Brier, Summed, ratio
from wolf_eval.records import Deception, Vote
from wolf_eval.vocabulary import FACTION_OF, Faction, Role

#: The village's roles, whose counts :meth:`GameDetection.village` pools.
VILLAGE_ROLES = tuple(r for r in Role if FACTION_OF[r] is Faction.VILLAGERS)
#: The seat model of a seat the sample's record does not name (a log from before it kept them).
UNKNOWN_MODEL = "?"


@dataclass(frozen=True)
class VoteCounts(Summed):
    """Ballots cast (abstentions left out) and where they fell: on a wolf, on the Jester, on anyone else."""

    votes: float = 0.0
    on_wolves: float = 0.0
    on_jester: float = 0.0
    on_rest: float = 0.0

    @property
    def wolf_share(self) -> float:
        return ratio(self.on_wolves, self.votes)

    @property
    def jester_share(self) -> float:
        return ratio(self.on_jester, self.votes)

    @property
    def rest_share(self) -> float:
        return ratio(self.on_rest, self.votes)


@dataclass(frozen=True)
class Detection(Summed):
    """One observer's detection counts against the truth, or a role's or a model's, in a game or pooled."""

    ballots: float = 0.0  # suspicion rows scored: one observer at one ballot
    wolves: Auroc = Auroc()  # wolves against every other living player, over the ballot rows
    jester: Auroc = Auroc()  # wolves against the Jester, over the ballot rows with a living Jester
    brier: Brier = Brier()  # each ballot row's suspicion of each other living player, as P(wolf)
    ratings: float = 0.0  # peer suspicion ratings of statements
    statements: Auroc = Auroc()  # a wolf's statements against others', within each observer
    votes: VoteCounts = VoteCounts()


@dataclass(frozen=True)
class GameDetection:
    """A game's (or pooled games') detection counts per observer role and per observer seat model."""

    roles: Mapping[Role, Detection] = field(default_factory=dict)
    models: Mapping[str, Detection] = field(default_factory=dict)

    def __add__(self, other: GameDetection) -> GameDetection:
        return GameDetection(_merge(self.roles, other.roles), _merge(self.models, other.models))

    def village(self) -> Detection | None:
        """The village's roles (Villager, Seer, Doctor) pooled; None where none of them observed."""
        mine = [d for role, d in self.roles.items() if role in VILLAGE_ROLES]
        return sum(mine, Detection()) if mine else None


def _merge(a: Mapping, b: Mapping) -> dict:
    return {k: a[k] + b[k] if k in a and k in b else a.get(k, b.get(k)) for k in (*a, *(k for k in b if k not in a))}


@dataclass(frozen=True)
class Ballot:
    """One ballot: its voters (every living seat), their targets, and the suspicion matrix they saw."""

    day: int
    ballot: str
    votes: Mapping[str, str | None]
    matrix: Mapping[str, Mapping[str, float]] | None  # None: no analysis recorded before it


def ballots(game: GameState) -> list[Ballot]:
    """Every ballot of the game in play order, with the matrix of the last ``deception`` record before its votes."""
    seen: dict[tuple[int, str], Mapping[str, Mapping[str, float]] | None] = {}
    votes: dict[tuple[int, str], dict[str, str | None]] = {}
    matrix: Mapping[str, Mapping[str, float]] | None = None
    for r in game.records:
        if isinstance(r.data, Deception):
            matrix = r.data.suspicion
        elif isinstance(r.data, Vote) and r.actor:
            key = (r.day, r.data.ballot)
            seen.setdefault(key, matrix)
            votes.setdefault(key, {})[r.actor] = r.target
    return [Ballot(day, kind, votes[(day, kind)], m) for (day, kind), m in seen.items()]


def ballot_row(roles: Mapping[str, Role], ballot: Ballot, observer: str) -> Detection:
    """One observer's suspicion row at one ballot, scored against the truth."""
    row = (ballot.matrix or {}).get(observer, {})
    others = {t: float(row.get(t, PRIOR_SUSPICION)) for t in ballot.votes if t != observer}
    wolves = [s for t, s in others.items() if roles[t] is Role.WEREWOLF]
    rest = [s for t, s in others.items() if roles[t] is not Role.WEREWOLF]
    jester = [s for t, s in others.items() if roles[t] is Role.JESTER]
    return Detection(ballots=1.0, wolves=Auroc.of(wolves, rest), jester=Auroc.of(wolves, jester),
                     brier=sum((Brier.of(s, roles[t] is Role.WEREWOLF) for t, s in others.items()), Brier()))


def vote_counts(roles: Mapping[str, Role], target: str | None) -> VoteCounts:
    """One ballot cast (or an abstention, which counts nothing)."""
    if target is None:
        return VoteCounts()
    role = roles[target]
    return VoteCounts(1.0, float(role is Role.WEREWOLF), float(role is Role.JESTER),
                      float(role not in (Role.WEREWOLF, Role.JESTER)))


def statement_counts(roles: Mapping[str, Role], rows: Iterable[StatementRow]) -> dict[str, Detection]:
    """Per observer, its suspicion ratings of statements as scores for "the speaker is a wolf"."""
    rated: dict[str, tuple[list[float], list[float]]] = {}
    for row in rows:
        for peer in row.peers:
            if peer.suspicion is not None:
                wolf, other = rated.setdefault(peer.observer, ([], []))
                (wolf if roles[row.speaker] is Role.WEREWOLF else other).append(peer.suspicion)
    return {o: Detection(ratings=float(len(w) + len(x)), statements=Auroc.of(w, x)) for o, (w, x) in rated.items()}


def seat_detection(game: GameState, rows: Sequence[StatementRow] | None = None) -> dict[str, Detection]:
    """Per observer seat that is not a wolf: its counts over the game's ballots and statements."""
    roles = {p.name: p.role for p in game.players}
    analysed = game.config.deception_analysis
    seats: dict[str, Detection] = {}
    for ballot in ballots(game):
        for voter, target in ballot.votes.items():
            if roles[voter] is Role.WEREWOLF:
                continue
            counts = ballot_row(roles, ballot, voter) if analysed else Detection()
            seats[voter] = seats.get(voter, Detection()) + counts + Detection(votes=vote_counts(roles, target))
    if analysed:
        by_statement = statement_counts(roles, statement_rows(game) if rows is None else rows)
        for seat, counts in by_statement.items():
            if roles[seat] is not Role.WEREWOLF:
                seats[seat] = seats.get(seat, Detection()) + counts
    return seats


def game_detection(game: GameState, seat_models: Mapping[str, str],
                   rows: Sequence[StatementRow] | None = None) -> GameDetection:
    """A game's detection counts per observer role and per observer seat model (roles in seat-role order)."""
    roles = {p.name: p.role for p in game.players}
    by_role: dict[Role, Detection] = {}
    by_model: dict[str, Detection] = {}
    for seat, counts in seat_detection(game, rows).items():
        by_role[roles[seat]] = by_role.get(roles[seat], Detection()) + counts
        model = seat_models.get(seat, UNKNOWN_MODEL)
        by_model[model] = by_model.get(model, Detection()) + counts
    return GameDetection({r: by_role[r] for r in Role if r in by_role}, by_model)


def pool(games: Iterable[GameDetection]) -> GameDetection:
    """The counts of many games summed: each role's and model's over the games it observed in (roles in
    seat-role order, models in the order they first observed)."""
    pooled = sum(games, GameDetection())
    return GameDetection({r: pooled.roles[r] for r in Role if r in pooled.roles}, pooled.models)


def figures(d: Detection) -> dict[str, float]:
    """The figures of one set of counts, each beside the n it is over (NaN where that n is 0)."""
    return {"ballots": d.ballots, "wolf_pairs": d.wolves.pairs, "auroc_wolves": d.wolves.value,
            "jester_pairs": d.jester.pairs, "auroc_jester": d.jester.value, "ratings": d.ratings,
            "statement_pairs": d.statements.pairs, "auroc_statements": d.statements.value,
            "forecasts": d.brier.forecasts, "brier": d.brier.score, "votes": d.votes.votes,
            "vote_wolves": d.votes.wolf_share, "vote_jester": d.votes.jester_share, "vote_rest": d.votes.rest_share}

