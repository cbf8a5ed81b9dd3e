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
from wolf_eval.analysis.corpus import Corpus, cells, condition_label, load, values
from wolf_eval.analysis.figures import FIGURE_FILES, cost_rating, figures
from wolf_eval.analysis.markdown import headline_markdown, ratings_markdown, render_markdown
from wolf_eval.analysis.rating import DRAWS, NothingToRate, leaderboard
from wolf_eval.analysis.tables import ALL_SEATS, POOLED_CELLS, PREDICTORS, build

__all__ = ["ALL_SEATS", "POOLED_CELLS", "PREDICTORS", "REPORT_FILES", "Corpus", "build", "cells",
           "condition_label", "figures", "headline_markdown", "load", "render_markdown", "values", "write_report"]

#: Every file a report writes; a report written where an earlier one lies replaces all of them.
REPORT_FILES = ("report.md", *FIGURE_FILES)


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
        text += bias_markdown(corpus.games)
        text += "\n" + "\n".join(_ratings_section(corpus, out, rating_draws))
    path.write_text(text, encoding="utf-8")
    return corpus, tables, path


def _ratings_section(corpus: Corpus, out: Path, draws: int) -> list[str]:
    """The leaderboard over every model the games seat, with its cost-against-rating figure; or why there is none."""
    try:
        ratings = leaderboard(corpus.games, draws)
    except NothingToRate as err:
        return ratings_markdown(None, str(err))
    return ratings_markdown(ratings, figure=cost_rating(ratings.board, out))
