"""The report leads with the answer: each cell's headline figures with their intervals, the comparison of cells
that share a task and condition and differ in one faction's model alone, with its verdict, the games and the cost;
the detail after it."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd

from wolf_eval.analysis.markdown import first_page

A, B, C = ("model/a", "triadic", "default"), ("model/b", "triadic", "default"), ("model/a", "wolf", "default")


def _cell(cell: tuple[str, str, str], **figures: float) -> dict[str, object]:
    return {"model": cell[0], "task": cell[1], "condition": cell[2], "fallback_rate": 0.0, "fallback_over": "",
            **figures}


def _rates(cell: tuple[str, str, str], games: int, **shares: tuple[float, float, float]) -> dict[str, object]:
    row = _cell(cell, games=games)
    for faction in ("villagers", "werewolves", "jester", "draw"):
        v, low, high = shares.get(faction, (math.nan, math.nan, math.nan))
        row |= {faction: v, f"{faction}_low": low, f"{faction}_high": high}
    return row


def _tables() -> dict[str, pd.DataFrame]:
    none = (math.nan, math.nan, math.nan)
    win_rates = pd.DataFrame([_rates(A, 10, villagers=(0.6, 0.3, 0.85), werewolves=(0.1, 0.01, 0.4),
                                     jester=(0.3, 0.1, 0.6)),
                              _rates(B, 10, villagers=(0.1, 0.01, 0.4), werewolves=(0.2, 0.05, 0.5),
                                     jester=(0.7, 0.4, 0.9)),
                              _rates(C, 4, villagers=(0.5, 0.15, 0.85), werewolves=(0.5, 0.15, 0.85), jester=none)])
    scores = pd.DataFrame([_cell(A, figure="village_wolf_auroc", value=0.8, value_low=0.7, value_high=0.9),
                           _cell(B, figure="village_wolf_auroc", value=0.5, value_low=0.45, value_high=0.55),
                           _cell(A, figure="jester_suspicion_rank", value=0.6, value_low=math.nan,
                                 value_high=math.nan),
                           _cell(C, figure="village_wolf_auroc", value=0.9, value_low=0.8, value_high=1.0)])
    costs = pd.DataFrame([{"model": m, "task": t, "condition": c, "usd": usd}
                          for (m, t, c), usd, n in ((A, 0.5, 10), (B, math.nan, 10), (C, 0.25, 4))
                          for _ in range(n)])
    scores = pd.concat([scores, pd.DataFrame([_cell(A, figure="wolf_refusal_rate", value=0.05, value_low=0.01,
                                                    value_high=0.2)])], ignore_index=True)
    played = {"wolves_win": 0.1, "wolves_win_low": 0.01, "wolves_win_high": 0.4, "games_played": 8.0,
              "wolves_win_played": 0.125, "wolves_win_played_low": 0.01, "wolves_win_played_high": 0.5,
              "evasion": 0.3, "evasion_low": 0.2, "evasion_high": 0.4,
              "evasion_played": 0.35, "evasion_played_low": 0.25, "evasion_played_high": 0.45}
    role_play = pd.DataFrame([_cell(A, deceiver="werewolf", seat_model="model/a", games=10, games_broken=2, **played),
                              _cell(A, deceiver="jester", seat_model="model/a", games=10, games_broken=1)])
    return {"win_rates": win_rates, "headline_scores": scores, "game_costs": costs, "role_play": role_play}


#: Who sat where in each cell's games: A and B differ in the village alone, C is a self-play game on wolf.
SEATS = {A: {"villagers": {"model/a": 6}, "werewolves": {"model/o": 2}, "jester": {"model/o": 1}},
         B: {"villagers": {"model/b": 6}, "werewolves": {"model/o": 2}, "jester": {"model/o": 1}},
         C: {"villagers": {"model/a": 6}, "werewolves": {"model/a": 2}}}


def _games(*counts: tuple[tuple[str, str, str], int]) -> pd.DataFrame:
    return pd.DataFrame([{"model": cell[0], "task": cell[1], "condition": cell[2], "factions": SEATS[cell]}
                         for cell, n in counts for _ in range(n)])


def _page() -> list[str]:
    games = _games((A, 10), (B, 10), (C, 4))
    return "\n".join(first_page(SimpleNamespace(games=games), _tables())).splitlines()  # type: ignore[arg-type]


def _row(lines: list[str], *starts: str) -> str:
    return next(line for line in lines if line.startswith("| " + " | ".join(starts) + " |"))


def test_the_first_page_gives_each_cells_headline_figures_with_intervals_and_cost() -> None:
    lines = _page()
    assert lines[0] == "# wolf-eval report"
    assert lines[2].startswith("**24 games in 3 cells; cost: n/a**")  # one cell has no price
    a = _row(lines, *A)
    assert "| 10 | 0.60 [0.30, 0.85] | 0.10 [0.01, 0.40] | 0.30 [0.10, 0.60] | 0.80 [0.70, 0.90] |" in a
    assert "| 0.60 (1 game: no interval) |" in a and a.endswith("| 0.5000 |")
    assert _row(lines, *B).endswith("| n/a |")
    assert "| – | 0.90 [0.80, 1.00] | – |" in _row(lines, *C)  # no Jester on wolf


def test_the_comparison_pairs_cells_of_one_task_and_condition_with_a_verdict() -> None:
    """A − B, each side widened by the root of the squared distances to the ends that move it (Newcombe's
    method 10): villagers 0.5 − √(0.3² + 0.3²) = 0.0757 to 0.5 + √(0.25² + 0.09²) = 0.7657; detection
    0.3 ∓ √(0.1² + 0.05²). A and B differ in the village alone, so the village's figures are compared."""
    lines = _page()
    assert "## The comparison" in lines
    why = "only the village's seats differ; in both: wolves model/o; Jester model/o"
    assert _row(lines, "triadic", "default", "village", "model/a", "model/b", why, "Village wins") == \
        (f"| triadic | default | village | model/a | model/b | {why} | Village wins | +0.50 [+0.08, +0.77] "
         "| model/a higher |")
    assert _row(lines, "triadic", "default", "village", "model/a", "model/b", why, "`village_wolf_auroc`") == \
        (f"| triadic | default | village | model/a | model/b | {why} | `village_wolf_auroc` | +0.30 [+0.19, +0.41] "
         "| model/a higher |")
    assert not any(line.startswith("| wolf |") for line in lines)  # C has no partner on its task
    assert sum(line.startswith("| triadic | default |") for line in lines) == 2  # the Jester's figures are not A's


def test_cells_that_differ_in_more_than_one_faction_are_not_paired() -> None:
    from wolf_eval.analysis.markdown import paired_faction

    a, b = ({k: frozenset(v) for k, v in SEATS[cell].items()} for cell in (A, B))
    assert paired_faction(a, b) == "villagers" and paired_faction(b, a) == "villagers"
    both = b | {"jester": frozenset({"model/b"})}
    assert paired_faction(a, both) is None  # the village and the Jester differ: the whole seating, not one faction
    assert paired_faction(a, a) is None  # the same seats: nothing to compare
    shared = b | {"villagers": frozenset({"model/b", "model/c"})}
    assert paired_faction(a, shared) is None  # two models share the village: not one model's play
    assert paired_faction(a, {k: v for k, v in a.items() if k != "jester"}) is None  # a faction seated in one alone


def test_an_interval_about_zero_shows_no_difference() -> None:
    tables = _tables()
    tables["win_rates"].loc[1, ["villagers", "villagers_low", "villagers_high"]] = [0.5, 0.2, 0.8]
    lines = "\n".join(first_page(SimpleNamespace(games=_games((A, 10), (B, 10))), tables)).splitlines()  # type: ignore[arg-type]
    why = "only the village's seats differ; in both: wolves model/o; Jester model/o"
    assert _row(lines, "triadic", "default", "village", "model/a", "model/b", why, "Village wins").endswith(
        "| no difference shown |")


def test_the_wolves_refusal_rate_and_their_figures_where_they_played_are_on_the_first_page() -> None:
    """A's wolves broke their role in 2 of 10 games: beside every game's win rate and evasion, the 8 where they
    played; a cell whose wolves never broke it has no such row."""
    lines = _page()
    assert "| 0.05 [0.01, 0.20] |" in _row(lines, *A)  # wolf_refusal_rate, after the Jester's rank
    assert "## Where the wolves played" in lines
    assert _row(lines, *A, "0.0000", "model/a") == ("| model/a | triadic | default | 0.0000 | model/a | 10 | 2 | "
                                                    "0.10 [0.01, 0.40] | 0.12 [0.01, 0.50] (n=8) | 0.30 [0.20, 0.40] "
                                                    "| 0.35 [0.25, 0.45] |")
    tables = _tables()
    tables["role_play"]["games_broken"] = 0
    calm = "\n".join(first_page(SimpleNamespace(games=_games((A, 10), (B, 10), (C, 4))), tables))  # type: ignore[arg-type]
    assert "## Where the wolves played" not in calm and "No wolf reply in these games was refused" in calm
