"""Three report defects mended, each pinned on the case that showed it.

a. The predictor tables printed Pearson's t-based p beside the permutation p; on a few won-or-lost
   games it reads far below anything a valid test of them can reach. Only the permutation p is printed.
b. The fallback sensitivity row could never appear: a cell is its seat models, so a model over the limit
   sits in every game of its cell. The report names such a model beside the cell's fallback rate, at its
   own rate over the cell, instead of promising a row it cannot draw.
c. A cell pooling two logs listed games under the same id and epoch in the per-game cost table; each game
   now carries its run (the cell's n-th log), so every game is named once.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from scipy import stats as sps

from wolf_eval.analysis import markdown, tables
from wolf_eval.analysis.corpus import Corpus
from wolf_eval.measures.features import PREDICTORS
from wolf_eval.measures.outcome import Outcome
from wolf_eval.stats import stratified_permutation_p
from wolf_eval.vocabulary import Winner

# --------------------------------------------------------------------------- a. only valid p-values

#: Per cell, (the Jester's suspicion, whether it won): the feature separates won from lost games exactly.
SEPARATED = {"m1": [(0.10, 0.0), (0.20, 0.0), (0.30, 0.0), (0.70, 1.0), (0.80, 1.0), (0.90, 1.0)],
             "m2": [(0.15, 0.0), (0.25, 0.0), (0.75, 1.0), (0.85, 1.0)]}


def _predictor_games() -> pd.DataFrame:
    rows = []
    for model, pairs in SEPARATED.items():
        for x, won in pairs:
            rows.append({"model": model, "task": "triadic", "condition": "default",
                         "outcome": _outcome(Winner.JESTER if won else Winner.VILLAGERS),
                         "features": {"jester_won": won, "jester_suspicion": x}})
    return pd.DataFrame(rows)


def test_the_predictor_tables_print_only_the_permutation_p() -> None:
    games = _predictor_games()
    table = tables.predictors(games)
    assert "p" not in table.columns and "p_perm" in table.columns
    # what the t distribution says of the first cell: far below any test of 6 games, 3 of them won (1 in 20)
    xs, ys = zip(*SEPARATED["m1"], strict=True)
    assert sps.pearsonr(xs, ys).pvalue < 0.01 < 1 / 20
    text = "\n".join(markdown._game_sections({"predictors": table, "halves": pd.DataFrame(),
                                              "play_quality": pd.DataFrame()}))
    header = next(line for line in text.splitlines() if line.startswith("| Model") and "Perm. p" in line)
    assert "| p |" not in header
    # the permutation p of an exact separation is its floor: 2 orders in 20 (m1), 2 in 6 (m2), 2 in 120 (both,
    # shuffled within each cell), each with the seeded draws' noise
    suspicion = table[table["feature"] == PREDICTORS["jester_suspicion"]]
    assert list(suspicion["p_perm"]) == pytest.approx([2 / 20, 2 / 6, 2 / 120], abs=0.01)
    assert stratified_permutation_p([SEPARATED["m1"]]) == suspicion["p_perm"].iloc[0]
    printed = [line for line in text.splitlines() if PREDICTORS["jester_suspicion"] in line]
    assert len(printed) == 3  # each cell, and the two pooled within cells
    assert all("e-0" not in line for line in printed)  # no p printed in scientific notation: none that small


# --------------------------------------------------------------------------- b. fallbacks over the limit

CELL = {"model": "m", "task": "triadic", "condition": "default"}


def _outcome(winner: Winner, days: float = 2.0, calls: float = 10.0, fallbacks: float = 0.0) -> Outcome:
    """A game's outcome with a Jester seated: its winner, days, calls (each one decision) and fallbacks."""
    return Outcome(winner, jester_seated=True, days=days, calls=calls, decisions=calls, fallbacks=fallbacks, reasks=0.0)


def _fallback_game(flaky_calls: int, flaky_fallbacks: int, jester_won: bool) -> dict[str, Any]:
    """One game's row: 90 calls by ``good`` seats and ``flaky``'s calls and fallbacks (it sits in every game)."""
    winner = Winner.JESTER if jester_won else Winner.VILLAGERS
    return CELL | {"outcome": _outcome(winner, calls=90.0 + flaky_calls, fallbacks=float(flaky_fallbacks)),
                   "fallbacks": {("flaky", "vote"): flaky_fallbacks} if flaky_fallbacks else {},
                   "usage": {"good": {"calls": 90}, "flaky": {"calls": flaky_calls}},
                   "seat_models": ("flaky", "good")}


def test_a_seat_model_over_the_limit_is_named_beside_every_row_of_its_cell_at_its_own_rate() -> None:
    # flaky fell back on 32 of its 40 calls over the cell (0.80), 32 of 580 calls in all (0.055): the cell's own
    # rate hides how much of flaky's play the defaults made
    games = pd.DataFrame([_fallback_game(10, 8, jester_won=False) for _ in range(4)]
                         + [_fallback_game(0, 0, jester_won=True) for _ in range(2)])
    rates = tables.win_rates(games)
    text = markdown.headline_markdown(rates)
    assert "| m | triadic | default | 0.0552 (over 5%: flaky 0.80) | 6 |" in text
    assert len(rates) == 1 and rates["fallback_over"].iloc[0] == "flaky 0.80"
    opening = "\n".join(markdown.opening(Corpus(games)))
    assert "- m · triadic · default: flaky 0.80" in opening
    assert "sensitivity row" not in opening  # no promise of a row that no cell can have


def test_a_cell_under_the_limit_is_not_flagged() -> None:
    games = pd.DataFrame([_fallback_game(10, 0, jester_won=False), _fallback_game(10, 0, jester_won=True)])
    assert tables.win_rates(games)["fallback_over"].iloc[0] == ""
    assert "over 5%" not in markdown.headline_markdown(tables.win_rates(games))


# --------------------------------------------------------------------------- c. one row per game


def test_a_cell_pooling_two_logs_names_every_game_once() -> None:
    """Two evals of one cell, each with samples 1 and 2 at epoch 1: four games, four keys."""
    usage = {"m": {"input_tokens": 10, "output_tokens": 2, "cached_tokens": 0}}
    games = pd.DataFrame([CELL | {"log": log, "id": i, "epoch": 1, "outcome": _outcome(Winner.DRAW, days=1.0),
                                  "usage": usage}
                          for log in ("first.eval", "second.eval") for i in (1, 2)])
    costs = tables.game_costs(games)
    text = "\n".join(markdown._cost_markdown(games, {"cost_by_model": pd.DataFrame(), "game_costs": costs}))
    printed = [line for line in text.splitlines() if line.startswith("| m | triadic | default |")]
    assert len(printed) == 4 and len(set(printed)) == 4
    assert "| m | triadic | default | 2 | 1 | 1 | 1 |" in text  # the second log's sample 1
    keys = costs[["model", "task", "condition", "run", "id", "epoch"]].apply(tuple, axis=1)
    assert keys.is_unique and list(costs["run"]) == [1, 1, 2, 2]
