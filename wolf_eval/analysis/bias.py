"""The report's bias split: do the ballots favour a name, or a place in the list?

Every cast vote chose one of the names its ballot listed. If no voter minds a name's sound or its
place in the list, a list position (or a name) receives, over many ballots, the votes its share of
the choices would give it: ``1/len(options)`` of each ballot that lists it. The split compares the
votes each name and each list position received (``chosen``) with that share (``expected``): the
ratio is 1 without a bias, and each row says how many ballots it is over.

On ``seating=shuffled`` a ballot's order is a seeded rotation, so a position's ratio away from 1 is
the voters' position bias; on ``seating=fixed`` a position is also a seat, and the name at it is
always the same. The per-game counts are :mod:`wolf_eval.measures.ballot_order`'s. Votes cluster by game, so each
ratio's 95% interval resamples games.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from wolf_eval.analysis.corpus import CELL, cell_games, cells, values
from wolf_eval.analysis.markdown import markdown_table
from wolf_eval.measures.ballot_order import BallotOrders
from wolf_eval.measures.rates import ratio
from wolf_eval.resample import Interval

#: The splits, each labelled by what a ballot listed: the name, or the place (1 = listed first).
SPLITS = ("position", "name")
BOOTSTRAP_DRAWS = 1000
#: A row over fewer games gets no interval: resampling two or three games gives a degenerate one.
MIN_GAMES = 5
_BOOTSTRAP_SEED = 0


def split_rows(games: list[BallotOrders]) -> Iterator[dict[str, Any]]:
    """One row per name and per position: ballots offering it, votes it got, its share against chance."""
    keys = sorted({k for g in games for k in g.offered}, key=_order)
    chosen = np.array([[g.chosen.get(k, 0.0) for k in keys] for g in games])
    expected = np.array([[g.expected.get(k, 0.0) for k in keys] for g in games])
    offered = np.array([[g.offered.get(k, 0.0) for k in keys] for g in games])
    rng = np.random.default_rng(_BOOTSTRAP_SEED)
    # each draw's games as how often each game was drawn: the sums are then one product, not a copy per draw
    weights = rng.multinomial(len(games), np.full(len(games), 1 / len(games)), size=BOOTSTRAP_DRAWS)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = (weights @ chosen) / (weights @ expected)
    for i, (split, label) in enumerate(keys):
        n, got, chance = offered[:, i].sum(), chosen[:, i].sum(), expected[:, i].sum()
        finite = boot[:, i][np.isfinite(boot[:, i])]
        games_in = int((offered[:, i] > 0).sum())
        low, high = np.percentile(finite, [2.5, 97.5]) if len(finite) and games_in >= MIN_GAMES else (np.nan, np.nan)
        yield {"split": split, "label": label, "games": games_in, "ballots": int(n),
               "votes": int(got), "share": ratio(got, n), "chance": ratio(chance, n),
               **Interval(ratio(got, chance), float(low), float(high), games_in).columns("ratio")}


def _order(key: tuple[str, str]) -> tuple[int, int, str]:
    split, label = key
    place = int(label) if label.isdigit() else 10**6
    return SPLITS.index(split), place, label


def bias_table(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell and seating layout: every name's and list position's vote share against chance."""
    rows: list[dict[str, Any]] = []
    if games.empty or "seating" not in games:
        return pd.DataFrame(rows)
    for cell in cells(games):
        orders: list[BallotOrders] = values(cell_games(games, cell), "seating")
        for layout in sorted({o.layout for o in orders}):
            part = [o for o in orders if o.layout == layout]
            lead = dict(zip(CELL, cell, strict=True)) | {"seating": layout}
            rows += [lead | row for row in split_rows(part)]
    return pd.DataFrame(rows)


def _fmt(v: Any) -> str:
    return "–" if v is None or (isinstance(v, float) and not np.isfinite(v)) else f"{v:.2f}"


def _ratio_cell(r: Mapping[Hashable, Any]) -> str:
    """The ratio and its interval, ``1.15 (0.86–1.47)``; the ratio alone where no interval applies."""
    iv = Interval.read(r, "ratio")
    if not np.isfinite(iv.low):
        return _fmt(iv.value)
    return f"{_fmt(iv.value)} ({_fmt(iv.low)}–{_fmt(iv.high)})"


def bias_markdown(games: pd.DataFrame) -> str:
    """The report's section: per cell and layout, the position split, then the name split."""
    table = bias_table(games)
    if table.empty:
        return ""
    out = ["", "## Names and list positions on the ballot", "",
           "Each cast vote chose one name of the list its ballot showed. *Share*: the votes a list position "
           "(1 = listed first; *last* = listed last, whatever the list's length) or a name received, per "
           "ballot that listed it; *chance*: the share a voter blind to names and order would give it "
           "(1/len(options) per ballot); *ratio*: votes over that expectation (1 = no bias), with a 95% "
           f"interval that resamples games (none over fewer than {MIN_GAMES} games). "
           "With `seating=shuffled` (the default) names are drawn per game and each ballot's list is rotated, so "
           "a position's ratio away from 1 is the voters' position bias. With `seating=fixed` a position is always "
           "the same seat and name, so its ratio also carries the roles that seat was dealt in these games (the "
           "seat that held the Jester most often draws a Jester-hunting village's votes).", ""]
    headers = ["Model", "Task", "Condition", "Seating", "Split", "Listed", "Games", "Ballots", "Votes", "Share",
               "Chance", "Ratio (95%)"]
    lines = [[r["model"], r["task"], r["condition"], r["seating"], r["split"], r["label"], str(r["games"]),
              str(r["ballots"]), str(r["votes"]), _fmt(r["share"]), _fmt(r["chance"]),
              _ratio_cell(r)]
             for r in table.to_dict("records")]
    return "\n".join([*out, markdown_table(headers, lines)]) + "\n"
