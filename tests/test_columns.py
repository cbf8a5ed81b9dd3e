"""A figure's interval and a model's rating are written to a table's row in one place and read back from it in one
place, under the names the eval logs a figure's interval metrics by."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from wolf_eval.analysis.rating import Rated, Rating
from wolf_eval.measures.pooling import bound_name, is_bound
from wolf_eval.resample import NO_GAMES, Interval
from wolf_eval.scorers.game_scores import figure_metrics


def test_an_interval_is_written_as_its_logged_metric_names_and_read_back() -> None:
    iv = Interval(0.6, 0.35, 0.8, 9)
    row = {"games": 9} | iv.columns("village_wolf_auroc")
    assert row == {"games": 9, "village_wolf_auroc": 0.6, "village_wolf_auroc_low": 0.35,
                   "village_wolf_auroc_high": 0.8}
    assert Interval.read(row, "village_wolf_auroc").figure == (0.6, 0.35, 0.8)
    names = [m.__registry_info__.name.split("/")[-1] for m in figure_metrics("village_wolf_auroc")]  # type: ignore[attr-defined]
    assert names == ["village_wolf_auroc", *(bound_name("village_wolf_auroc", e) for e in ("low", "high"))]
    assert [is_bound(c) for c in row] == [False, False, True, True]


def test_a_difference_keeps_its_figure_apart_from_its_ends_and_a_row_without_ends_reads_as_no_interval() -> None:
    row = Interval(-0.25, -0.7, 0.28, 4).columns("win", "win_difference")
    assert list(row) == ["win_difference", "win_low", "win_high"]
    assert Interval.read(row, "win", "win_difference").figure == (-0.25, -0.7, 0.28)
    bare = Interval.read({"days": 2.5}, "days")
    assert bare.value == 2.5 and math.isnan(bare.low) and math.isnan(bare.high)
    assert all(math.isnan(v) for v in NO_GAMES.columns("evasion").values())


def test_a_leaderboard_cell_survives_its_table() -> None:
    """Model 1 is rated, model 0 sat there but its games leave the rating open above: only the prior holds it."""
    column = Rating(np.array([math.nan, 0.4]), np.array([math.nan, -0.1]), np.array([math.nan, 0.9]),
                    np.array([3, 5]), np.array([True, False]), np.array([True, False]), np.array([False, False]))
    board = pd.DataFrame([{"model": m} | column.cell(i).columns("wolves") for i, m in enumerate(("a", "b"))])
    assert list(board.columns) == ["model", "wolves", "wolves_low", "wolves_high", "wolves_games", "wolves_same",
                                   "wolves_open_above", "wolves_open_below"]
    a, b = (Rated.read(r, "wolves") for r in board.to_dict("records"))
    assert (a.seated, a.same_result, a.open_above, a.open_below) == (3, True, True, False)
    assert math.isnan(a.rating.value)
    assert (b.rating.figure, b.seated, b.same_result) == ((0.4, -0.1, 0.9), 5, False)
