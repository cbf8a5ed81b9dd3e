"""The report's figures (matplotlib, PNG): win rates per cell, suspicion by role and day, the learning curve.

Each figure draws rows of a table of :mod:`wolf_eval.analysis.tables` over all of each cell's
games and all kinds of unit pooled; matplotlib is imported only when a report draws.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wolf_eval.analysis.tables import FACTIONS, ROLES
from wolf_eval.measures import calibration as cal
from wolf_eval.measures.pooling import is_bound
from wolf_eval.resample import Interval

#: Every file a report's figures may be written to: a report replacing an earlier one removes those it did not draw.
FIGURE_FILES = ("win_rates.png", "suspicion_by_day.png", "learning_curve.png", "cost_rating.png")


def figures(tables: dict[str, pd.DataFrame], out: Path) -> list[str]:
    """Win rates with intervals per cell, and suspicion by role and day; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for key, draw in (("win_rates", _win_rates), ("suspicion_by_day", _suspicion_by_day),
                      ("learning_curve", _learning_curve)):
        df = _whole(tables, key)
        if df is not None and not df.empty:
            written.append(draw(plt, df, out))
    return written


def _whole(tables: dict[str, pd.DataFrame], key: str) -> pd.DataFrame | None:
    """A table's rows with all units pooled: what the figures draw."""
    df = tables.get(key)
    if df is None or df.empty:
        return df
    return df[df["unit"] == cal.UNIT_LABELS[cal.ALL_KINDS]] if "unit" in df.columns else df


def _win_rates(plt: Any, rates: pd.DataFrame, out: Path) -> str:
    """Each faction's win rate per cell, with its Wilson interval as error bars.

    Horizontal, one band a cell, so a cell's label (its seat models, which cross-play and ``--model-role``
    make long) reads on its own lines however many cells there are, instead of crowding its neighbours'."""
    labels = [_cell_label(r) for r in rates.to_dict("records")]
    fig, ax = plt.subplots(figsize=(8.0, 1.2 + 0.95 * len(labels)))
    height = 0.8 / len(FACTIONS)
    for i, f in enumerate(FACTIONS):
        ys = [j + (i - (len(FACTIONS) - 1) / 2) * height for j in range(len(rates))]
        vals = rates[f].to_numpy(dtype=float)
        err = _error_bars(rates, f, vals)
        ax.barh(ys, vals, height, xerr=err, capsize=2, label=f)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()  # the first cell on top, as in the tables
    ax.set_xlim(0, 1)
    ax.set_xlabel("win rate (Wilson 95% CI)")
    ax.legend(fontsize=8, ncols=len(FACTIONS), loc="lower center", bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout()
    fig.savefig(out / "win_rates.png", dpi=120)
    plt.close(fig)
    return "win_rates.png"


def _cell_label(r: Mapping[Hashable, Any]) -> str:
    """A cell as a figure names it: the eval's model, each other seat binding on a line of its own, then the task
    and the condition."""
    model, _, bound = str(r["model"]).partition(" (")
    lines = [model, *(f"  {b}" for b in bound.rstrip(")").split(", ") if b)]
    return "\n".join([*lines, r["task"] + ("" if r["condition"] == "default" else f" · {r['condition']}")])


def _suspicion_by_day(plt: Any, by_day: pd.DataFrame, out: Path) -> str:
    """One panel per cell: each role's mean peer suspicion by day."""
    groups = list(dict.fromkeys(zip(by_day["model"], by_day["task"], by_day["condition"], strict=True)))
    ncols = min(3, len(groups))
    nrows = math.ceil(len(groups) / ncols)
    titles = [_cell_label({"model": m, "task": t, "condition": c}) for m, t, c in groups]
    lines = max(t.count("\n") + 1 for t in titles)  # a panel's title, on lines of its own
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, (2.8 + 0.16 * lines) * nrows), squeeze=False,
                             sharey=True, sharex=True)
    days = [c for c in by_day.columns if c.startswith("day ") and not c.endswith(" n") and not is_bound(c)]
    colours = {r: f"C{i}" for i, r in enumerate(ROLES)}
    for ax, cell, title in zip(axes.flat, groups, titles, strict=False):
        sub = by_day[(by_day["model"] == cell[0]) & (by_day["task"] == cell[1]) & (by_day["condition"] == cell[2])]
        for r in sub.to_dict("records"):
            ax.plot([int(d.split()[1]) for d in days], [r[d] for d in days], marker="o", color=colours[r["role"]],
                    label=r["role"])
        ax.set_title(title, fontsize=8)
        ax.tick_params(labelbottom=True)  # a panel with none below it keeps its days
        ax.set_ylim(0, 1)
        ax.xaxis.get_major_locator().set_params(integer=True)
    for ax in axes.flat[len(groups):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("day")
    for ax in axes[:, 0]:
        ax.set_ylabel("mean peer suspicion")
    present = [r for r in ROLES if r in set(by_day["role"])]
    handles = [plt.Line2D([], [], color=colours[r], marker="o", label=r) for r in present]
    fig.legend(handles=handles, loc="upper center", ncols=len(present), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(out / "suspicion_by_day.png", dpi=110)
    plt.close(fig)
    return "suspicion_by_day.png"


def _learning_curve(plt: Any, curve: pd.DataFrame, out: Path) -> str:
    """Each cell's cumulative Jester win rate over its games in play order."""
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for r in curve.to_dict("records"):
        label = f"{r['model']} · {r['task']}" + ("" if r["condition"] == "default" else f" · {r['condition']}")
        ax.plot(range(1, len(r["cumulative"]) + 1), r["cumulative"], marker=".", label=label)
    ax.set_xlabel("game (play order)")
    ax.set_ylabel("cumulative Jester win rate")
    ax.set_ylim(0, 1)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "learning_curve.png", dpi=110)
    plt.close(fig)
    return "learning_curve.png"


def _error_bars(table: pd.DataFrame, column: str, values: np.ndarray) -> list[np.ndarray]:
    """The distances from each row's figure down and up to its interval's ends (:meth:`Interval.read`)."""
    spans = [Interval.read(r, column) for r in table.to_dict("records")]
    return [values - np.array([s.low for s in spans], dtype=float), np.array([s.high for s in spans], dtype=float)
            - values]


def cost_rating(board: pd.DataFrame, out: Path) -> str | None:
    """Each rated, priced model's overall rating (with its interval) against its seats' cost per game:
    the frontier a buyer reads. None (nothing drawn) when no rated model has a known price."""
    shown = board[board["overall"].notna() & board["usd_per_game"].notna()]
    if shown.empty:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.0, 4.2))
    x = shown["usd_per_game"].to_numpy(dtype=float)
    y = shown["overall"].to_numpy(dtype=float)
    err = _error_bars(shown, "overall", y)
    ax.errorbar(x, y, yerr=err, fmt="o", capsize=3)
    for xi, yi, m in zip(x, y, shown["model"], strict=True):
        ax.annotate(m, (xi, yi), textcoords="offset points", xytext=(5, 4), fontsize=8)
    if (x > 0).all():
        ax.set_xscale("log")
    ax.set_xlabel("USD per game (the model's seats, list prices)")
    ax.set_ylabel("overall rating (logits, 95% interval)")
    fig.tight_layout()
    fig.savefig(out / "cost_rating.png", dpi=120)
    plt.close(fig)
    return "cost_rating.png"
