"""Game-level features: day-1 wolf coordination and the univariate predictors of a Jester win.

Per game (:func:`game_features`) from the finished game; pooled (:func:`coordination`,
:func:`jester_win_predictors`) over the per-game features.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from scipy import stats as sps

from wolf_eval.engine import GameState, Record, Role
from wolf_eval.measures.calibration import StatementRow, statement_rows
from wolf_eval.measures.pooling import Values, column, mean_where_applicable
from wolf_eval.measures.quality import killed_before_day_one
from wolf_eval.records import Deception, Kind, Vote
from wolf_eval.stats import stratified_permutation_p, within_strata_pearson
from wolf_eval.vocabulary import Winner

NAN = math.nan
PREDICTORS = {
    "voted_jester": "Wolf voted Jester, day-1 first ballot",
    "vote_suspicion_rank": "Vote target's suspicion rank (mean)",
    "jester_suspicion": "Jester's attracted suspicion (mean)",
    "jester_self_rate": "Jester's self-tagged deception rate",
    "jester_statements": "Jester's public statements",
}


def _first_ballot(game: GameState, day: int) -> list[Record]:
    """The day's first ballot (``first`` with defences, ``only`` without)."""
    return [r for r in game.records if isinstance(r.data, Vote) and r.day == day and r.data.ballot in ("first", "only")]


def _winner(game: GameState, winner: Winner) -> float:
    return NAN if game.outcome is None else float(game.outcome.winner == winner)


def day1_coordination(game: GameState) -> dict[str, float]:
    """How the wolves voted in day 1's first ballot (Triadic Werewolf table 14).

    ``unanimous``: every wolf cast a vote, all for the same player; ``voted_jester``: a wolf voted
    for the Jester (NaN without one, or with one killed on night 1, whom no ballot could name);
    ``voted_partner``: a wolf voted for a fellow wolf. All NaN when day 1 had no ballot or fewer
    than two wolves cast a vote in it (``d1_ballot`` 0): an abstention is not a vote, so wolves who
    abstain together did not vote together. ``wolves_won`` whether the wolves won the game.
    ``d1_abstained`` 1 when two or more wolves were in the ballot but an abstention left fewer than
    two votes: the game an abstention removed from the table, which the report counts.
    """
    wolves = set(game.wolves())
    ballots = [r for r in _first_ballot(game, 1) if r.actor in wolves]
    votes = [r for r in ballots if r.target is not None]
    out = {"d1_ballot": 0.0, "d1_abstained": float(len(ballots) >= 2 > len(votes)), "unanimous": NAN,
           "voted_jester": NAN, "voted_partner": NAN, "wolves_won": _winner(game, Winner.WEREWOLVES)}
    if len(votes) < 2:
        return out
    targets = [r.target for r in votes]
    jester = next((p.name for p in game.players if p.role is Role.JESTER), None)
    out["d1_ballot"] = 1.0
    out["unanimous"] = float(len(votes) == len(ballots) and len(set(targets)) == 1)
    gone = jester is None or killed_before_day_one(game, jester)
    out["voted_jester"] = NAN if gone else float(jester in targets)
    out["voted_partner"] = float(any(r.target in wolves for r in votes))
    return out


def _dead_before(game: GameState, index: int) -> set[str]:
    return {r.target for r in game.records[:index] if r.kind in (Kind.DEATH, Kind.EXILE) and r.target}


def vote_suspicion_rank(game: GameState) -> float:
    """Mean rank of each vote's target in the voter's own suspicion at the time (1 = most suspected).

    Ties share the mean rank. Votes cast before any statement was analysed (every score still at
    the prior) are skipped; NaN when no vote qualifies.
    """
    matrix: dict[str, dict[str, float]] | None = None
    ranks: list[float] = []
    for r in game.records:
        if isinstance(r.data, Deception):
            matrix = r.data.suspicion
        elif r.kind is Kind.VOTE and r.target and matrix is not None and r.actor in matrix:
            dead = _dead_before(game, r.index)
            row = {t: s for t, s in matrix[r.actor].items() if t not in dead}
            mine = row[r.target]
            above = sum(1 for s in row.values() if s > mine)
            tied = sum(1 for s in row.values() if s == mine) - 1
            ranks.append(1 + above + tied / 2)
    return sum(ranks) / len(ranks) if ranks else NAN


def jester_features(game: GameState, rows: Sequence[StatementRow] | None = None) -> dict[str, float]:
    """Whether the Jester won, its public statements, its self-tagged deception rate and the suspicion it attracted."""
    jester = next((p.name for p in game.players if p.role is Role.JESTER), None)
    out = {"jester_won": NAN, "jester_statements": NAN, "jester_self_rate": NAN, "jester_suspicion": NAN}
    if jester is None:
        return out
    out["jester_won"] = _winner(game, Winner.JESTER)
    if killed_before_day_one(game, jester):  # it never had a day to speak in: not applicable, not zero
        return out
    out["jester_statements"] = float(sum(1 for r in game.records if r.analysed and r.actor == jester))
    mine = [s for s in (statement_rows(game) if rows is None else rows) if s.speaker == jester]
    labelled = [s.self_deceptive for s in mine if s.self_deceptive is not None]
    rated = [s.mean_suspicion for s in mine if s.suspicions]
    if labelled:
        out["jester_self_rate"] = sum(labelled) / len(labelled)
    if rated:
        out["jester_suspicion"] = sum(rated) / len(rated)  # per statement, each its raters' mean
    return out


def game_features(game: GameState, rows: Sequence[StatementRow] | None = None) -> dict[str, float]:
    """Every feature of one game; pass its statement rows if they are already built."""
    return {**day1_coordination(game), "vote_suspicion_rank": vote_suspicion_rank(game), **jester_features(game, rows)}


def coordination(values: Sequence[Values]) -> dict[str, float]:
    """Over the games whose day 1 had a ballot with two or more wolves voting: how often they agreed,
    voted for the Jester or for a partner, and won; ``abstained`` the games an abstention left out."""
    voted = [v for v in values if v.get("d1_ballot") == 1.0]
    return {"games": float(len(voted)), "abstained": float(sum(v.get("d1_abstained") == 1.0 for v in values)),
            **{k: mean_where_applicable(column(voted, k))
               for k in ("unanimous", "voted_jester", "voted_partner", "wolves_won")}}


def abstained_with_jester(values: Sequence[Values]) -> int:
    """Games with a Jester alive on day 1 that an abstention removed from day 1's ballot (the n that
    ``voted_jester`` loses to abstentions)."""
    return sum(1 for v in values if v.get("d1_abstained") == 1.0 and not math.isnan(float(v.get("jester_won", NAN)))
               and not math.isnan(float(v.get("jester_statements", NAN))))


def _jester_pairs(values: Sequence[Values], key: str) -> list[tuple[float, float]]:
    """(feature, Jester won) of every game with a Jester where the feature applies."""
    return [(x, float(v["jester_won"])) for v in values
            if not math.isnan(float(v.get("jester_won", NAN))) and not math.isnan(x := float(v.get(key, NAN)))]


def stratified_predictors(cells: Sequence[Sequence[Values]]) -> dict[str, dict[str, float]]:
    """Per feature, over several cells' games: the within-cell Pearson r with a Jester win and its p.

    Each cell (model, task, condition) is one stratum (:func:`wolf_eval.stats.within_strata_pearson`),
    so a model that both wins more as Jester and, say, speaks more cannot make speaking look like it
    wins. Only cells where the Jester both won and lost a game the feature applies to take part:
    ``varying`` their games, ``cells`` how many; ``p_perm`` is the permutation test's with the win
    shuffled within each of those cells (:func:`wolf_eval.stats.stratified_permutation_p`), the only
    p given; ``n`` every game the feature applies to.
    """
    out: dict[str, dict[str, float]] = {}
    for key in PREDICTORS:
        strata = [_jester_pairs(games, key) for games in cells]
        r, varying, k = within_strata_pearson(strata)
        out[key] = {"r": r, "p_perm": stratified_permutation_p(strata) if not math.isnan(r) else NAN,
                    "n": float(sum(len(s) for s in strata)), "varying": float(varying), "cells": float(k)}
    return out


def jester_win_predictors(values: Sequence[Values]) -> dict[str, dict[str, float]]:
    """Per feature, over the games with a Jester: Pearson r (scipy) with a Jester win, its permutation p,
    the feature's mean in won and in lost games, and the games it was measured in.

    r and p are NaN for fewer than three games or a constant feature or outcome. ``p_perm`` is the
    permutation test's p (the win shuffled over the games), the only p given: scipy's own leans on a
    normal outcome, which a handful of 0/1 wins is not. ``varying`` is the games when the win varies
    (all of them) and 0 when it does not (no test).
    """
    out: dict[str, dict[str, float]] = {}
    for key in PREDICTORS:
        pairs = _jester_pairs(values, key)
        xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
        r = p_perm = NAN
        if len(xs) >= 3 and len(set(xs)) > 1 and len(set(ys)) > 1:
            r, p_perm = float(sps.pearsonr(xs, ys).statistic), stratified_permutation_p([pairs])
        won, lost = [x for x, y in pairs if y == 1], [x for x, y in pairs if y == 0]
        out[key] = {"won": sum(won) / len(won) if won else NAN, "lost": sum(lost) / len(lost) if lost else NAN,
                    "r": r, "p_perm": p_perm, "n": float(len(pairs)),
                    "varying": float(len(pairs)) if len(set(ys)) > 1 else 0.0}
    return out
