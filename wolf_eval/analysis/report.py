"""``wolf-eval report``: the papers' tables from any set of Inspect logs of wolf-eval games.

The report is made in four rooms, each with one job:

- :mod:`wolf_eval.analysis.corpus` reads the logs into one row per distinct game (its cell, its
  score values and the per-game values the tables need), setting aside repeats of a game;
- :mod:`wolf_eval.analysis.tables` groups the games by cell (model, task, condition) into the
  report's tables, every figure a :mod:`wolf_eval.measures` function (for the eval's metrics, the
  same function its metric calls);
- :mod:`wolf_eval.analysis.markdown` formats the tables as ``report.md``;
- :mod:`wolf_eval.analysis.figures` draws the PNG figures;
- :mod:`wolf_eval.analysis.rating` fits the leaderboard of ratings across models (``wolf-eval rate``).

This module writes a report from them. The names callers took from it before the rooms existed
(``load``, ``build``, ``render_markdown`` and the rest of ``__all__``) are still importable here.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from wolf_eval.analysis.bias import bias_markdown
from wolf_eval.analysis.corpus import Corpus, cell_games, cells, condition_label, load, values
from wolf_eval.analysis.figures import FIGURE_FILES, cost_rating, figures
from wolf_eval.analysis.markdown import (
    detail_sections,
    first_page,
    headline_markdown,
    opening,
    ratings_markdown,
    render_markdown,
)
from wolf_eval.analysis.rating import DRAWS, NothingToRate, leaderboard
from wolf_eval.analysis.tables import ALL_SEATS, POOLED_CELLS, PREDICTORS, build

__all__ = ["ALL_SEATS", "POOLED_CELLS", "PREDICTORS", "CELL_FILES", "REPORT_FILES", "Corpus", "build", "cells",
           "condition_label", "figures", "headline_markdown", "load", "render_markdown", "values", "write_report"]

#: Every file a report writes, but its cells' detail files (:func:`cell_file`); a report written where an earlier
#: one lies replaces all of them.
REPORT_FILES = ("report.md", *FIGURE_FILES)
#: The cells' detail files, as a pattern: a report replaces every one an earlier report wrote.
CELL_FILES = "cell-*.md"
#: The longest report.md, in lines, that holds every cell's detail; past it each cell's detail has a file of its own.
REPORT_LINES = 400


def write_report(logs: str | Path | Iterable[str | Path], out: Path,
                 keep_duplicates: bool = False,
                 rating_draws: int = DRAWS) -> tuple[Corpus, dict[str, pd.DataFrame], Path]:
    """Read the logs, build the tables, draw the figures and write ``report.md`` into ``out``.

    Returns the corpus read, the tables and the Markdown file, so the command line can print the
    headline table and what was left out without reading the logs again. ``rating_draws``: bootstrap
    draws of the leaderboard's intervals.
    """
    corpus = load(logs, keep_duplicates)
    tables = build(corpus)
    out.mkdir(parents=True, exist_ok=True)
    drawn = figures(tables, out) if tables else []
    path = out / "report.md"
    text = render_markdown(corpus, tables, drawn)
    if tables:
        ratings = "\n" + "\n".join(_ratings_section(corpus, out, rating_draws))
        text += bias_markdown(corpus.games) + ratings
        if text.count("\n") > REPORT_LINES and len(cells(corpus.games)) > 1:
            text = "\n".join([*first_page(corpus, tables), *opening(corpus),
                              *_cell_files(corpus.games, tables, drawn, out)]) + ratings
    path.write_text(text, encoding="utf-8")
    return corpus, tables, path


def cell_file(k: int) -> str:
    """The name of the k-th cell's detail file (1-based), beside report.md (one of :data:`CELL_FILES`)."""
    return CELL_FILES.replace("*", str(k))


def _cell_files(games: pd.DataFrame, tables: dict[str, pd.DataFrame], drawn: list[str], out: Path) -> list[str]:
    """Write each cell's detail to a file of its own (every table of the detail, that cell's rows alone); the
    report's section that links them, with the figures drawn over every cell."""
    lines = ["## Each cell's detail", "",
             f"The detail of these {len(cells(games))} cells runs past {REPORT_LINES} lines, so each cell's tables are "
             "in a file of their own: the same tables, headings and notes, with that cell's rows alone.", ""]
    for k, cell in enumerate(cells(games), 1):
        mine = cell_games(games, cell)
        own = {name: _rows_of(t, cell) for name, t in tables.items()}
        text = "\n".join([f"# {' · '.join(cell)}", "", f"{len(mine)} games. [The report](report.md) has every cell's "
                          "answer and how the intervals are drawn.", "", *detail_sections(mine, own, [])])
        (out / cell_file(k)).write_text(text + bias_markdown(mine), encoding="utf-8")
        lines.append(f"- [{' · '.join(cell)}]({cell_file(k)}): {len(mine)} games")
    lines.append("")
    lines += [f"![{alt}]({name})" for name, alt in (("win_rates.png", "Win rates per cell"),
                                                     ("suspicion_by_day.png", "Suspicion by role and day"))
              if name in drawn]
    return [*lines, ""]


def _rows_of(table: pd.DataFrame, cell: tuple[str, str, str]) -> pd.DataFrame:
    """A table's rows of one cell; a table not kept per cell whole."""
    return cell_games(table, cell) if {"model", "task", "condition"} <= set(table.columns) else table


def _ratings_section(corpus: Corpus, out: Path, draws: int) -> list[str]:
    """The leaderboard over every model the games seat, with its cost-against-rating figure; or why there is none."""
    try:
        ratings = leaderboard(corpus.games, draws)
    except NothingToRate as err:
        return ratings_markdown(None, str(err))
    return ratings_markdown(ratings, figure=cost_rating(ratings.board, out))
