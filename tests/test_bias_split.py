"""The report's split of the vote by name and by list position finds a bias that is there, and none that is not.

Constructed ballots with a known bias: voters who take the first listed name with probability ``p``
(else any name at random) give position 1 a ratio of ``p * k + 1 - p`` on lists of ``k`` and every
other position ``1 - p``; a name voters favour shows the same way in the name split. Unbiased voters
give ratios near 1, with intervals that cover it.
"""

from __future__ import annotations

from random import Random

import pandas as pd
import pytest

from wolf_eval.analysis.bias import bias_markdown, bias_table, split_rows
from wolf_eval.measures.ballot_order import LAST, BallotOrders

NAMES = ("Ava", "Ben", "Cleo", "Dev", "Eli", "Faye", "Gus", "Hana", "Ivo")
K = 8  # names on each ballot


def game(rng: Random, first: float = 0.0, favourite: str | None = None, favour: float = 0.0) -> BallotOrders:
    """Ten ballots of ``K`` of the names, each list rotated at random as ``seating=shuffled`` shows it."""
    out = BallotOrders(layout="shuffled")
    for _ in range(10):
        names = rng.sample(NAMES, K)
        start = rng.randrange(K)
        options = names[start:] + names[:start]
        if favourite in options and rng.random() < favour:
            target = favourite
        elif rng.random() < first:
            target = options[0]
        else:
            target = rng.choice(options)
        for place, name in enumerate(options, start=1):
            out.add(("position", str(place)), 1 / K, name == target)
            out.add(("name", name), 1 / K, name == target)
            if place == K:
                out.add(("position", LAST), 1 / K, name == target)
    return out


def rows(games: list[BallotOrders]) -> dict[tuple[str, str], dict]:
    return {(r["split"], r["label"]): r for r in split_rows(games)}


def test_a_first_position_bias_shows_at_its_true_size_and_only_there() -> None:
    rng = Random(1)
    p = 0.25
    split = rows([game(rng, first=p) for _ in range(300)])
    top = split[("position", "1")]
    assert top["ratio"] == pytest.approx(p * K + 1 - p, abs=0.21)  # 2.75, give or take three standard errors
    assert top["ratio_low"] > 1 and top["ballots"] == 3000 and top["chance"] == pytest.approx(1 / K)
    for place in range(2, K + 1):
        r = split[("position", str(place))]
        assert r["ratio"] == pytest.approx(1 - p, abs=0.13) and r["ratio_high"] < 1
    assert split[("position", LAST)]["votes"] == split[("position", str(K))]["votes"]


def test_a_favoured_name_shows_in_the_name_split_and_not_in_the_positions() -> None:
    rng = Random(2)
    split = rows([game(rng, favourite="Cleo", favour=0.3) for _ in range(300)])
    cleo = split[("name", "Cleo")]
    assert cleo["ratio"] == pytest.approx(0.3 * K + 0.7, abs=0.2) and cleo["ratio_low"] > 2  # 3.1
    assert all(split[("name", n)]["ratio_high"] < 1 for n in NAMES if n != "Cleo")
    positions = [r for (s, _), r in split.items() if s == "position"]
    assert sum(r["ratio_low"] <= 1 <= r["ratio_high"] for r in positions) >= len(positions) - 1


def test_unbiased_voters_give_ratios_near_one() -> None:
    rng = Random(3)
    split = rows([game(rng) for _ in range(300)])
    assert all(abs(r["ratio"] - 1) < 0.15 for r in split.values())
    covered = sum(r["ratio_low"] <= 1 <= r["ratio_high"] for r in split.values())
    assert covered >= len(split) - 2  # 95% intervals: one or two of eighteen may miss


def test_the_report_section_splits_per_cell_and_layout_with_n() -> None:
    rng = Random(4)
    orders = [game(rng, first=0.5) for _ in range(6)] + [BallotOrders(layout="fixed")]
    games = pd.DataFrame({"model": "m", "task": "triadic", "condition": "default", "seating": orders})
    table = bias_table(games)
    assert set(table["seating"]) == {"shuffled"}  # a layout without a cast vote has no row
    first = table[(table["split"] == "position") & (table["label"] == "1")].iloc[0]
    assert first["games"] == 6 and first["ballots"] == 60
    text = bias_markdown(games)
    assert "## Names and list positions on the ballot" in text
    assert "| m | triadic | default | shuffled | position | 1 | 6 | 60 |" in text
    few = bias_table(games.iloc[:3])
    assert few["ratio_low"].isna().all()  # fewer than five games: no interval
