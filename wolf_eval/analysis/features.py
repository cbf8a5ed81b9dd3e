"""Game-level features the report tabulates: day-1 wolf coordination and the Jester-win predictors.

Pure functions of a finished GameState, so they can be checked against games built by hand.
"""

from __future__ import annotations

import math

from wolf_eval.analysis.statements import StatementRow, statement_rows
from wolf_eval.engine import GameState, Record, Role
from wolf_eval.engine.game import analysed

NAN = math.nan


def _first_ballot(game: GameState, day: int) -> list[Record]:
    """The day's first ballot (``first`` with defences, ``only`` without)."""
    return [r for r in game.records if r.kind == "vote" and r.day == day and r.data.get("ballot") in ("first", "only")]


def day1_coordination(game: GameState) -> dict[str, float]:
    """How the wolves voted in day 1's first ballot (Triadic Werewolf table 14).

    ``unanimous``: every wolf cast a vote, all for the same player; ``voted_jester``: a wolf voted
    for the Jester (NaN without one); ``voted_partner``: a wolf voted for a fellow wolf. All NaN
    when day 1 had no ballot or fewer than two wolves voted in it.
    """
    wolves = set(game.wolves())
    votes = [r for r in _first_ballot(game, 1) if r.actor in wolves]
    out = {"d1_ballot": 0.0, "unanimous": NAN, "voted_jester": NAN, "voted_partner": NAN}
    if len(votes) < 2:
        return out
    targets = [r.target for r in votes]
    jester = next((p.name for p in game.players if p.role is Role.JESTER), None)
    out["d1_ballot"] = 1.0
    out["unanimous"] = float(None not in targets and len(set(targets)) == 1)
    out["voted_jester"] = NAN if jester is None else float(jester in targets)
    out["voted_partner"] = float(any(r.target in wolves for r in votes))
    return out


def _dead_before(game: GameState, index: int) -> set[str]:
    return {r.target for r in game.records[:index] if r.kind in ("death", "exile") and r.target}


def vote_suspicion_rank(game: GameState) -> float:
    """Mean rank of each vote's target in the voter's own suspicion at the time (1 = most suspected).

    Ties share the mean rank. Votes cast before any statement was analysed (every score still at
    the prior) are skipped; NaN when no vote qualifies.
    """
    matrix: dict[str, dict[str, float]] | None = None
    ranks: list[float] = []
    for r in game.records:
        if r.kind == "deception":
            matrix = r.data["suspicion"]
        elif r.kind == "vote" and r.target and matrix is not None and r.actor in matrix:
            dead = _dead_before(game, r.index)
            row = {t: s for t, s in matrix[r.actor].items() if t not in dead}
            mine = row[r.target]
            above = sum(1 for s in row.values() if s > mine)
            tied = sum(1 for s in row.values() if s == mine) - 1
            ranks.append(1 + above + tied / 2)
    return sum(ranks) / len(ranks) if ranks else NAN


def jester_features(game: GameState, rows: list[StatementRow] | None = None) -> dict[str, float]:
    """The Jester's public statements, its self-tagged deception rate and the suspicion it attracted."""
    jester = next((p.name for p in game.players if p.role is Role.JESTER), None)
    out = {"jester_statements": NAN, "jester_self_rate": NAN, "jester_suspicion": NAN}
    if jester is None:
        return out
    out["jester_statements"] = float(sum(1 for r in game.records if analysed(r) and r.actor == jester))
    rows = [s for s in (statement_rows(game) if rows is None else rows) if s.speaker == jester]
    labelled = [s.self_deceptive for s in rows if s.self_deceptive is not None]
    ratings = [x for s in rows for x in s.suspicions]
    if labelled:
        out["jester_self_rate"] = sum(labelled) / len(labelled)
    if ratings:
        out["jester_suspicion"] = sum(ratings) / len(ratings)
    return out


def game_features(game: GameState, rows: list[StatementRow] | None = None) -> dict[str, float]:
    """Every feature of one game; pass its statement rows if they are already built."""
    return {**day1_coordination(game), "vote_suspicion_rank": vote_suspicion_rank(game), **jester_features(game, rows)}
