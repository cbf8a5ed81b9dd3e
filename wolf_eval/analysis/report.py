"""``wolf-eval report``: the papers' tables from any set of Inspect logs of wolf-eval games.

Logs are read through ``inspect_ai.analysis`` (evals_df, samples_df: cells and score values)
plus each sample's store (the finished game, read without its event stream through
:mod:`wolf_eval.store`) into one row per game: its cell, its score values and the per-game values
:mod:`wolf_eval.measures` computes from the game for the report's other tables. Cells are
(model, task, condition); the condition is what :func:`wolf_eval.settings.condition` says differs
from the task's defaults, plus the eval's sampling settings. A game that repeats another's task,
settings, seed, epoch and seat models (the same command run twice into one folder) is counted
once, so a cell's n is its distinct games. Every per-cell table shows the cell's fallback rate and,
where some games fell back on more than 5% of their calls, a sensitivity row without them; the
statement tables split by kind of unit (debate statement, defence, vote reason) beside the pooled
row, each row named by the paper it is comparable with. Every figure is a
:mod:`wolf_eval.measures` function of a cell's per-game values (for the eval's metrics, the same
function its metric calls); this module only groups, orders, formats and draws.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.analysis import (
    EvalColumn,
    EvalInfo,
    EvalModel,
    EvalResults,
    EvalTask,
    SampleColumn,
    SampleSummary,
    evals_df,
    samples_df,
)

from wolf_eval.analysis.logread import sample_stores
from wolf_eval.engine.variants import VARIANTS
from wolf_eval.lessons.tagger import CATEGORIES as LESSON_CATEGORIES
from wolf_eval.measures import calibration as cal
from wolf_eval.measures import cost as cost_
from wolf_eval.measures import features as feat
from wolf_eval.measures import identification as jud
from wolf_eval.measures import ignored as ignored_
from wolf_eval.measures import lessons as les
from wolf_eval.measures import outcome as out_
from wolf_eval.measures import quality as qual
from wolf_eval.measures import sabotage as sab
from wolf_eval.measures.headline import HEADLINE, game_values
from wolf_eval.measures.pooling import count_where_applicable
from wolf_eval.measures.rates import Mean
from wolf_eval.settings import Settings, condition
from wolf_eval.store import logged_record

LEAD = next(iter(HEADLINE))

FACTIONS = out_.FACTIONS
ROLES = cal.ROLES
CATEGORIES = sab.CATEGORIES
PREDICTORS = feat.PREDICTORS
TASK_ORDER = {"wolf": 0, "triadic": 1, "dyadic": 2}
CELL = ["model", "task", "condition"]
#: Per-game values the report computes from the stored game (the scorers' are read from the log).
DERIVED = ("features", "units", "fallbacks")
#: The seat label of a cell's row for all its seat models together.
ALL_SEATS = "all seat models"
#: Eval-level sampling settings that change how models play, so they split cells like task parameters do.
GENERATE_CONDITIONS = ("temperature", "top_p", "top_k", "max_tokens", "reasoning_effort", "reasoning_tokens")
#: A game whose fallbacks exceed this share of its model calls is left out of its cell's sensitivity row.
FALLBACK_LIMIT = 0.05
#: The sample label of a cell's row over all its games.
ALL_GAMES = "all games"
#: The kinds of unit every statement table splits by, the pooled one first.
UNIT_KINDS = (cal.ALL_KINDS, *cal.KINDS)

Values = Mapping[str, float]


@dataclass
class Corpus:
    games: pd.DataFrame  # one row per game: where it was logged, its cell, and its per-game values by source
    skipped: list[str] = field(default_factory=list)  # why logs or samples were left out
    duplicates: list[str] = field(default_factory=list)  # games set aside as repeats of a game already counted


# --------------------------------------------------------------------------- reading


def condition_label(task: str, args: dict[str, Any], metadata: dict[str, Any] | None = None,
                    generate: dict[str, Any] | None = None) -> str:
    """The task parameters that differ from the task's defaults (:func:`wolf_eval.settings.condition`,
    from the settings the log recorded), then the eval's sampling settings."""
    try:
        label = condition(Settings.from_log(task, args, metadata))
    except ValueError as err:  # not a wolf-eval task (its samples hold no game and are left out anyway)
        label = f"unknown settings ({str(err).splitlines()[0]})"
    changed = [] if label == "default" else [label]
    changed += [f"--{k.replace('_', '-')}={_fmt_arg(v)}" for k, v in sorted((generate or {}).items())
                if k in GENERATE_CONDITIONS and not _is_missing(v)]
    return ", ".join(changed) or "default"


def _fmt_arg(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) or v is None else str(v)


def _is_missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _json(v: Any) -> dict[str, Any]:
    return json.loads(v) if isinstance(v, str) and v else {}


def _scored(v: Any) -> bool:
    """Whether a sample summary's score column holds a score (a number, or 0.1.0's values as JSON)."""
    return isinstance(v, str) or (isinstance(v, float | int) and not isinstance(v, bool))


def model_label(model: str, roles_json: Any) -> str:
    """The eval's model, plus any seat roles bound to other models (the judge is not a player)."""
    roles = _json(roles_json)
    seats = [f"{r}={spec['model']}" for r, spec in sorted(roles.items()) if r != "judge"]
    return model + (f" ({', '.join(seats)})" if seats else "")


def load(logs: str | Path | Iterable[str | Path], keep_duplicates: bool = False) -> Corpus:
    """Read every successful game of the logs: its cell, its score values and the report's per-game values.

    A game that repeats one already read (:func:`repeat_key`) is set aside and listed in the
    corpus's ``duplicates``, unless ``keep_duplicates``: pooling it would count one game's seed,
    seats and settings twice as if they were independent draws.
    """
    paths = [str(logs)] if isinstance(logs, str | Path) else [str(p) for p in logs]
    skipped: list[str] = []
    wanted = {"eval_id", "log", "status", "created", "task_name", "model", "model_roles"}
    columns = [c for c in (*EvalInfo, *EvalTask, *EvalModel, *EvalResults) if c.name in wanted]
    evals = evals_df(paths, quiet=True, columns=[*columns, EvalColumn("task_args", path="eval.task_args"),
                                                 EvalColumn("task_metadata", path="eval.metadata"),
                                                 EvalColumn("generate", path="eval.model_generate_config")])
    if evals.empty:
        return Corpus(pd.DataFrame(), [f"no Inspect logs found in {', '.join(paths)}"])
    for row in evals.itertuples():
        if row.status != "success":
            skipped.append(f"{row.log}: status {row.status}; only its completed games are read")
    evals["task"] = [str(t).split("/")[-1] for t in evals["task_name"]]
    evals["condition"] = [condition_label(t, _json(a), _json(m), _json(g)) for t, a, m, g in zip(
        evals["task"], evals["task_args"], evals["task_metadata"], evals["generate"], strict=True)]
    evals["model"] = [model_label(m, r) for m, r in zip(evals["model"], evals["model_roles"], strict=True)]
    samples = samples_df(paths, quiet=True, columns=[
        SampleColumn("id", path="id", required=True, type=str),
        SampleColumn("epoch", path="epoch", required=True),
        SampleColumn("error", path="error"),
        *(c for c in SampleSummary if c.name == "score_*"),  # which scores a sample has (and 0.1.0's judge)
    ])
    samples = samples.merge(evals[["eval_id", "created", *CELL]], on="eval_id", how="inner")
    games = []
    stores: dict[str, dict[tuple[str, int], dict[str, Any]]] = {}
    for s in samples.to_dict("records"):
        where = f"{s['log']} sample {s['id']} epoch {s['epoch']}"
        if isinstance(s.get("error"), str) and s["error"]:
            skipped.append(f"{where}: the sample failed ({s['error'][:120]})")
            continue
        if s["log"] not in stores:
            stores[s["log"]] = sample_stores(s["log"])
        record = logged_record(stores[s["log"]].get((str(s["id"]), int(s["epoch"])), {}))
        if record.state is None or not any(_scored(s.get(f"score_{k}")) for k in (LEAD, "outcome")):
            skipped.append(f"{where}: no finished, scored game")
            continue
        game = record.game()
        row: dict[str, Any] = {k: s[k] for k in ("log", "created", "id", "epoch", *CELL)}
        row["game"] = f"{s['eval_id']}:{s['id']}:{s['epoch']}"
        row["repeat"] = repeat_key(row, game.seed, record.seat_models, s["eval_id"])
        row["learning_step"] = record.learning_step
        rows = cal.statement_rows(game)
        row |= vars(game_values(game, record, rows))
        if record.judge is None and isinstance(s.get("score_judge"), str):  # a log from before the record kept it
            row["judge"] = {k: float(v) if v is not None else math.nan for k, v in _json(s["score_judge"]).items()}
        row["analysed"] = len(rows)
        row["features"] = feat.game_features(game, rows)
        row["units"] = cal.values_by_kind(game, rows)
        row["fallbacks"] = out_.fallback_counts(game, record.seat_models)
        row["usage"] = {m: u.model_dump() for m, u in record.usage.items()}
        row["ignored"] = dict(record.ignored)
        games.append(row)
    ordered = _ordered(pd.DataFrame(games))
    duplicates: list[str] = []
    if not ordered.empty:
        first: dict[str, str] = {}
        repeats = []
        for r in ordered.to_dict("records"):
            where = f"{r['log']} sample {r['id']} epoch {r['epoch']}"
            if r["repeat"] in first:
                repeats.append(True)
                duplicates.append(f"{where} repeats {first[r['repeat']]}")
            else:
                repeats.append(False)
                first[r["repeat"]] = where
        if not keep_duplicates:
            ordered = ordered[[not d for d in repeats]].reset_index(drop=True)
    return Corpus(ordered, skipped, duplicates)


def repeat_key(row: Mapping[str, Any], seed: int, seat_models: Mapping[str, str], eval_id: str) -> str:
    """What makes two logged games the same draw: task, settings (the cell's condition and model),
    sample, epoch, the game's seed and every seat's model. A game without a seat map (a log from
    before the record kept it) is its own key, so it is never taken for a repeat."""
    if not seat_models:
        return f"unmatched:{eval_id}:{row['id']}:{row['epoch']}"
    return json.dumps([row["task"], row["condition"], row["model"], str(row["id"]), int(row["epoch"]), seed,
                       sorted(seat_models.items())])


def _ordered(games: pd.DataFrame) -> pd.DataFrame:
    if games.empty:
        return games
    games["task_rank"] = games["task"].map(TASK_ORDER).fillna(len(TASK_ORDER))
    games["epoch"] = games["epoch"].astype(int)
    games["game_no"] = pd.to_numeric(games["id"], errors="coerce")
    # a learning run's games were played one after another: its steps are the play order
    games["play_order"] = pd.to_numeric(games["learning_step"], errors="coerce")
    games = games.sort_values(["task_rank", "task", "model", "condition", "created", "play_order", "epoch", "game_no",
                               "id"])
    return games.drop(columns=["task_rank"]).reset_index(drop=True)


def cells(games: pd.DataFrame) -> list[tuple[str, str, str]]:
    return list(dict.fromkeys(zip(games["model"], games["task"], games["condition"], strict=True)))


def _cell(games: pd.DataFrame, cell: tuple[str, str, str]) -> pd.DataFrame:
    m, t, c = cell
    return games[(games["model"] == m) & (games["task"] == t) & (games["condition"] == c)]


def values(df: pd.DataFrame, source: str) -> list[Values]:
    """The per-game values of one source (a scorer's name or one of ``DERIVED``), in the frame's game order."""
    return list(df[source]) if source in df else []


# --------------------------------------------------------------------------- tables


def game_fallback_share(outcome: Values) -> float:
    """The share of one game's model calls that fell back (NaN for a game that logged no calls)."""
    calls = float(outcome.get("calls", math.nan))
    return float(outcome.get("fallbacks", math.nan)) / calls if calls else math.nan


def fallback_samples(df: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    """A cell's games, then, if some fell back on more than ``FALLBACK_LIMIT`` of their calls, the rest.

    The fallback defaults (abstain, bid 0, a random night target) shift outcomes, so a figure that
    moves between the two rows owes part of its value to unreadable replies.
    """
    yield ALL_GAMES, df
    kept = df[[not game_fallback_share(v) > FALLBACK_LIMIT for v in values(df, "outcome")]]
    if 0 < len(kept) < len(df):
        yield f"games ≤{FALLBACK_LIMIT:.0%} fallbacks ({len(kept)} of {len(df)})", kept


def per_cell(games: pd.DataFrame, rows_of: Callable[[pd.DataFrame], Iterable[dict[str, Any]]],
             sensitivity: bool = True) -> pd.DataFrame:
    """One table from each cell's rows, every row led by its cell's model, task and condition, the games it
    covers (``sample``) and their fallback rate; with ``sensitivity``, each cell's rows again without the
    games that fell back on more than ``FALLBACK_LIMIT`` of their calls (when it had any)."""
    out = []
    for cell in cells(games):
        df = _cell(games, cell)
        for label, part in fallback_samples(df) if sensitivity else [(ALL_GAMES, df)]:
            lead = dict(zip(CELL, cell, strict=True)) | {"sample": label,
                                                          "fallback_rate": out_.fallback_rate(values(part, "outcome"))}
            out += [lead | row for row in rows_of(part)]
    return pd.DataFrame(out)


def win_rates(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell: games, each faction's win rate with its Wilson 95% interval and wins, mean days."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        outcome = values(df, "outcome")
        rates = out_.win_rates(outcome)
        row: dict[str, Any] = {"games": len(df)}
        for f in FACTIONS:
            row.update({f: rates[f], f"{f}_low": rates[f"{f}_ci_low"], f"{f}_high": rates[f"{f}_ci_high"],
                        f"{f}_wins": rates[f"{f}_wins"]})
        row["days"] = out_.mean_days(outcome)
        yield row

    return per_cell(games, rows)


def wolf_loss(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell: how the wolf side's games ended (W won; A/B self-sabotage; C village exiled the Jester; D; X)."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        sabotage = values(df, "self_sabotage")
        rates = sab.sabotage_rates(sabotage)
        yield {"games": len(df)} | sab.wolf_side_counts(sabotage) | {f"{c}_share": rates[c] for c in CATEGORIES}

    return per_cell(games, rows)


def coordination(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell, over games whose day 1 had a ballot with two or more wolves voting; ``jester_games`` of them
    had a Jester still alive to vote for (the n of ``voted_jester``)."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        features = values(df, "features")
        c = feat.coordination(features)
        voted = [v for v in features if v.get("d1_ballot") == 1.0]
        yield c | {"games": int(c["games"]), "jester_games": count_where_applicable(voted, "voted_jester")}

    return per_cell(games, rows)


def unit_label(task: str, kind: str) -> tuple[str, str]:
    """A kind of unit as the tables name it, and the paper its row is comparable with (or "").

    The WOLF paper analyses its debate statements (its game is the wolf task); the Triadic paper
    every public statement "during debate or vote-explanation", so all three kinds pooled, in the
    triadic game and its dyadic control.
    """
    game = VARIANTS.get(task)
    return cal.UNIT_LABELS[kind], game.paper if game is not None and kind == game.paper_unit else ""


def by_unit(df: pd.DataFrame, part: str) -> Iterator[tuple[dict[str, str], list[Values]]]:
    """Each kind of unit, pooled first: its labels and the cell's per-game values of one part
    (``calibration`` or ``statements``)."""
    task = str(df["task"].iloc[0]) if not df.empty else ""
    for kind in UNIT_KINDS:
        unit, paper = unit_label(task, kind)
        yield {"unit": unit, "comparable": paper}, [getattr(u[kind], part) for u in values(df, "units")]


def calibration(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell, kind of unit and speaker role: units and coverage, the paired self-rate, observer rate and
    gap, detection accuracy and F1 over the peer labels scored, suspicion over the statements rated.

    The unpaired rates and gap (each rate over every statement it has, as the eval's metrics pool
    them) are kept as ``*_unpaired`` columns.
    """
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        for unit, per_game in by_unit(df, "calibration"):
            for role, c in cal.pool(per_game).roles.items():
                if c.units:
                    yield unit | {"role": str(role)} | calibration_row(c)

    return per_cell(games, rows)


def calibration_row(c: cal.RoleCounts) -> dict[str, float]:
    """One role's calibration figures: the paired rates, the unpaired ones, detection and suspicion."""
    paired, unpaired = c.paired, c.labels
    return {"statements": c.units, "paired": paired.labelled, "coverage": c.coverage,
            "self_rate": paired.self_rate, "observer_rate": paired.observer_rate, "gap": paired.gap,
            "self_rate_unpaired": unpaired.self_rate, "observer_rate_unpaired": unpaired.observer_rate,
            "gap_unpaired": unpaired.gap, "labels": c.confusion.labels, "accuracy": c.confusion.accuracy,
            "f1": c.confusion.f1, "suspicion_n": c.suspicion.n, "suspicion": c.suspicion.value}


def confidence_bins(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell and kind of unit: every observer deception flag binned by its confidence, with the
    speaker-agreed hit rate."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        for unit, per_game in by_unit(df, "calibration"):
            bins = cal.pool(per_game).bins
            if bins is None or not (any(b.flags for b in bins) or unit["unit"] == cal.UNIT_LABELS[cal.ALL_KINDS]):
                continue  # a kind no flag fell on adds five empty rows to the pooled one's
            for k, b in enumerate(bins):
                yield unit | {"bin": cal.bin_label(k), "flags": b.flags, "confidence": b.mean_confidence,
                              "hit_rate": b.hit_rate}

    return per_cell(games, rows)


def type_yield(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell, kind of unit, speaker role and self-declared type: statements, share, suspicion, flag rate."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        for unit, per_game in by_unit(df, "statements"):
            for role, types in cal.type_yield(cal.pool_groups(per_game)).items():
                for kind, y in types.items():
                    yield unit | {"role": str(role), "type": kind} | y | {"statements": int(y["statements"])}

    return per_cell(games, rows)


def suspicion_by(games: pd.DataFrame, column: str) -> pd.DataFrame:
    """Per cell, kind of unit and speaker role, mean peer suspicion of its statements by day or by position
    bin (each statement its raters' mean), with the statements rated (``{group} n``)."""
    groups = cal.suspicion_groups([u[cal.ALL_KINDS].statements for u in values(games, "units")], column)
    label = cal.position_label if column == "position" else str

    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        for unit, per_game in by_unit(df, "statements"):
            for role, by in cal.suspicion_by(cal.pool_groups(per_game), column).items():
                yield unit | {"role": str(role)} | {f"{column} {label(g)}": by.get(g, Mean()).value for g in groups} \
                    | {f"{column} {label(g)} n": by.get(g, Mean()).n for g in groups}

    return per_cell(games, rows)


#: The cell columns of the predictors' pooled rows, which span every cell.
POOLED_CELLS = {"model": "all cells", "task": "–", "condition": "within-cell r, stratified by cell"}


def predictors(games: pd.DataFrame) -> pd.DataFrame:
    """Univariate Pearson correlation of each game feature with a Jester win, within each cell with a Jester.

    Different models and tasks differ both in how often the Jester wins and in every feature, so a
    correlation over games of several cells would read the difference between cells as an effect.
    Where more than one cell has Jester games, the pooled rows correlate the features with the win
    after centring both on each cell's means (:func:`wolf_eval.measures.features.stratified_predictors`).
    """
    with_jester = games[[not math.isnan(v.get("jester", math.nan)) for v in values(games, "outcome")]] \
        if not games.empty else games
    if with_jester.empty:
        return pd.DataFrame()

    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        for key, p in feat.jester_win_predictors(values(df, "features")).items():
            yield {"feature": PREDICTORS[key]} | p | {"n": int(p["n"]), "cells": 1}

    table = per_cell(with_jester, rows)
    groups = [list(values(_cell(with_jester, c), "features")) for c in cells(with_jester)]
    if len(groups) > 1:
        lead = POOLED_CELLS | {"sample": ALL_GAMES, "fallback_rate": out_.fallback_rate(values(with_jester, "outcome"))}
        pooled = [lead | {"feature": PREDICTORS[key], "won": math.nan, "lost": math.nan} | p
                  | {"n": int(p["n"]), "cells": int(p["cells"])}
                  for key, p in feat.stratified_predictors(groups).items()]
        table = pd.concat([table, pd.DataFrame(pooled)], ignore_index=True)
    return table


def halves(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell: each faction's win rate over the first and the second half of its games, in play order."""
    return per_cell(games, lambda df: [{"games": len(df)} | out_.halves(values(df, "outcome"))])


def play_quality(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell: calls per game and the Doctor's and the Jester's play, each with the n it is over."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        outcome, quality = values(df, "outcome"), qual.play_quality(values(df, "quality"))
        yield {"games": len(df), "calls": out_.calls_per_game(outcome), "fallback_rate": out_.fallback_rate(outcome),
               "doctor_self_protect": quality["doctor_self_protect_rate"],
               "doctor_save_rate": quality["doctor_save_rate"], "doctor_protects": quality["doctor_protects_n"],
               "jester_first_bid": quality["jester_first_bid"], "jester_first_bid_n": quality["jester_first_bid_n"],
               "jester_spoke_d1": quality["jester_spoke_d1"], "jester_spoke_d1_n": quality["jester_spoke_d1_n"]}

    return per_cell(games, rows)


def fallbacks(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell, seat model and action: replies replaced by the rules' fallback, in all and per game."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        for (model, action), f in out_.fallbacks_by_model_action(values(df, "fallbacks")).items():
            yield {"seat_model": model, "action": action, "fallbacks": int(f["fallbacks"]), "per_game": f["per_game"]}

    return per_cell(games, rows, sensitivity=False)


def lesson_table(games: pd.DataFrame) -> pd.DataFrame:
    """Per learning cell: lessons added, their shares by ToM order and by strategy category."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        shares = les.lesson_shares(values(df, "lessons"))
        if math.isnan(shares["added_per_game"]):
            return
        yield {"games": int(shares["games"]), "added": shares["added"], "per_game": shares["added_per_game"]} \
            | {f"order_{o}": shares[f"order_{o}"] for o in les.ORDERS} | {c: shares[c] for c in LESSON_CATEGORIES}

    return per_cell(games, rows)


def learning_curve(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell with a Jester: its win rate over consecutive blocks of games in play order, and cumulatively."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        curve = out_.learning_curve(values(df, "outcome"))
        if curve:
            yield curve

    return per_cell(games, rows)


def cost_by_model(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell and seat model: games played, tokens (input, cached, output) and estimated USD, summed and per game.

    A cell with several seat models adds a row for all of them together: what its eval cost.
    """
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        usages = values(df, "usage")
        by_model = cost_.cost_by_model(usages)
        for model, c in by_model.items():
            yield {"seat_model": model} | c
        if len(by_model) > 1:
            yield {"seat_model": ALL_SEATS} | cost_.pooled_cost([cost_.game_cost(u) for u in usages])

    return per_cell(games, rows, sensitivity=False)


def game_costs(games: pd.DataFrame) -> pd.DataFrame:
    """One row per game, in the report's game order: its cell, id, epoch and days, its tokens and estimated USD."""
    return pd.DataFrame([{k: r[k] for k in (*CELL, "id", "epoch")} | {"days": r["outcome"].get("days", math.nan)}
                         | cost_.game_cost(r["usage"]) for r in games.to_dict("records")])


def judge(games: pd.DataFrame) -> pd.DataFrame:
    """Per judged cell: the share of each true role's players the judge named correctly."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        accuracy = jud.judge_accuracy(values(df, "judge"))
        if "unreadable" not in accuracy:
            return
        yield {"games": int(accuracy["games"])} | {r: accuracy[r] for r in ROLES} \
            | {"all": accuracy["all"], "unreadable": accuracy["unreadable"]}

    return per_cell(games, rows)


# --------------------------------------------------------------------------- markdown


def _num(v: Any, digits: int = 2) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, float) and v.is_integer() and digits == 0:
        return str(int(v))
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


CELL_HEADERS = ["Model", "Task", "Condition"]
FALLBACK_HEADER = "Fallback rate"


def _cell_cols(r: Any) -> list[str]:
    """A row's cell as the tables print it: a sensitivity row names the games it keeps after its condition,
    and a per-cell row ends with the fallback rate of the games it covers."""
    sample = r.get("sample", ALL_GAMES)
    lead = [r["model"], r["task"], r["condition"] if sample == ALL_GAMES else f"{r['condition']}; {sample}"]
    return lead + ([_fallback(r["fallback_rate"])] if "fallback_rate" in r else [])


def _fallback(v: Any) -> str:
    return _num(v, 4)


def _cell_headers(df: pd.DataFrame) -> list[str]:
    return CELL_HEADERS + ([FALLBACK_HEADER] if "fallback_rate" in df.columns else [])


def _render(df: pd.DataFrame, columns: list[tuple[str, str, Callable[[Any], str]]], cell: bool = True) -> str:
    if df.empty:
        return "_No games in these logs apply._"
    headers = (_cell_headers(df) if cell else []) + [h for h, _, _ in columns]
    rows = [(_cell_cols(r) if cell else []) + [fmt(r[c]) for _, c, fmt in columns] for r in df.to_dict("records")]
    return markdown_table(headers, rows)


def _and_n(shown: str, n: Any) -> str:
    """A figure with the n it is over, ``0.67 (n=6)``."""
    return shown if _is_missing(n) else f"{shown} (n={_num(float(n), 0)})"


def _render_n(df: pd.DataFrame, columns: list[tuple[str, str, Callable[[Any], str], str | None]]) -> str:
    """Like :func:`_render`, each column optionally followed by the column holding its n."""
    if df.empty:
        return "_No games in these logs apply._"
    headers = _cell_headers(df) + [h for h, *_ in columns]
    rows = []
    for r in df.to_dict("records"):
        rows.append(_cell_cols(r) + [fmt(r[c]) if n is None else _and_n(fmt(r[c]), r[n]) for _, c, fmt, n in columns])
    return markdown_table(headers, rows)


#: The leading columns of every table split by kind of unit.
UNIT_COLUMNS: list[tuple[str, str, Callable[[Any], str]]] = [("Unit", "unit", str),
                                                              ("Comparable with", "comparable", str)]


def headline_markdown(rates: pd.DataFrame) -> str:
    """The headline table: each faction's win rate and Wilson 95% interval per cell."""
    def rate(r: dict[str, Any], f: str) -> str:
        if math.isnan(r[f]):
            return "–"
        return f"{r[f]:.2f} [{r[f + '_low']:.2f}, {r[f + '_high']:.2f}]"
    headers = [*_cell_headers(rates), "Games", "Villagers", "Werewolves", "Jester", "Draw", "Days"]
    rows = [[*_cell_cols(r), str(r["games"]), *(rate(r, f) for f in FACTIONS), _num(r["days"], 1)]
            for r in rates.to_dict("records")]
    return markdown_table(headers, rows)


def _r2(v: Any) -> str:
    return _num(v, 2)


def _n0(v: Any) -> str:
    return _num(float(v), 0) if not isinstance(v, str) else v


def _signed(v: Any) -> str:
    return "–" if math.isnan(v) else f"{v:+.2f}"


def build(corpus: Corpus) -> dict[str, pd.DataFrame]:
    g = corpus.games
    if g.empty:
        return {}
    return {
        "win_rates": win_rates(g), "wolf_loss": wolf_loss(g), "coordination": coordination(g),
        "calibration": calibration(g), "confidence_bins": confidence_bins(g), "type_yield": type_yield(g),
        "suspicion_by_day": suspicion_by(g, "day"), "suspicion_by_position": suspicion_by(g, "position"),
        "predictors": predictors(g), "halves": halves(g), "play_quality": play_quality(g),
        "fallbacks": fallbacks(g), "cost_by_model": cost_by_model(g), "game_costs": game_costs(g), "judge": judge(g),
        "lessons": lesson_table(g), "learning_curve": learning_curve(g),
    }


def render_markdown(corpus: Corpus, tables: dict[str, pd.DataFrame], figures: list[str]) -> str:
    if not tables:
        return "# wolf-eval report\n\nNo finished games found.\n" + "".join(f"\n- {s}" for s in corpus.skipped)
    g = corpus.games
    out = ["# wolf-eval report", "",
           f"{len(g)} games in {len(cells(g))} cells (model, task, condition). Rates are pooled over games; "
           "intervals are Wilson 95%; – marks a value that does not apply or has no data.", ""]
    if corpus.skipped:
        out += ["Left out:", *(f"- {s}" for s in corpus.skipped), ""]
    if corpus.duplicates:
        kept = "counted here as well (`--keep-duplicates`)" if any(g["repeat"].duplicated()) else "set aside"
        out += [f"{len(corpus.duplicates)} duplicate games {kept}: each repeats the task, settings, seed, epoch and "
                "seat models of a game already counted (the same command run again into these logs), so pooling "
                "it would count one draw twice." + ("" if kept != "set aside" else
                                                   " Run with `--keep-duplicates` to count them."), "",
                *(f"- {d}" for d in corpus.duplicates), ""]
    out += [f"Every per-cell table shows the cell's fallback rate (fallbacks per model call). Where some of a "
            f"cell's games fell back on more than {FALLBACK_LIMIT:.0%} of their calls, a sensitivity row follows "
            "without them (its condition names the games it keeps): the fallback defaults (abstain, bid 0, a "
            "random night target) shift outcomes.", ""]
    over = [(cell, len(_cell(g, cell))) for cell in cells(g)
            if all(game_fallback_share(v) > FALLBACK_LIMIT for v in values(_cell(g, cell), "outcome"))]
    if over:
        out += [f"No sensitivity row can be drawn where every game fell back on more than {FALLBACK_LIMIT:.0%} of "
                "its calls:", *(f"- {' · '.join(cell)} ({n} of {n} games)" for cell, n in over), ""]

    out += ["## Win rates", "", headline_markdown(tables["win_rates"]), ""]
    if "win_rates.png" in figures:
        out += ["![Win rates per cell](win_rates.png)", ""]

    wl = tables["wolf_loss"]
    out += ["## Wolf-side outcomes", "",
            "W wolves won; A Jester exiled with a wolf vote in the exiling ballot; B wolves killed the Jester at "
            "night and lost; C Jester exiled with no wolf vote; D villagers won otherwise; X draw. Count (share).", "",
            _wolf_loss_md(wl), ""]

    out += ["## Day-1 wolf coordination", "",
            "Day 1's first ballot, over games where two or more wolves voted in it (Games). Voted Jester is over "
            "those of them whose Jester was still alive to vote for (n).", "",
            _render_n(tables["coordination"], [("Games", "games", str, None), ("Unanimous", "unanimous", _r2, None),
                                               ("Voted Jester", "voted_jester", _r2, "jester_games"),
                                               ("Voted partner", "voted_partner", _r2, None),
                                               ("Wolves won", "wolves_won", _r2, None)]), ""]

    units_note = ("Each unit of analysis is a debate statement (open explanation-round turns included), a defence "
                  "or a vote reason; each cell shows all units pooled, then each kind alone. Comparable with: the "
                  "WOLF paper analyses debate statements (wolf task), the Triadic paper every public statement "
                  "during debate or vote-explanation, all three kinds pooled (triadic task; dyadic is its control).")
    out += ["## Calibration and detection by speaker role", "", units_note, "",
            "Units: the role's analysed statements; Paired: those with both the speaker's own label and at least "
            "one peer's; Coverage = Paired / Units. Self-rate (share self-tagged deceptive), observer rate (mean "
            "share of observers flagging a statement) and Gap = observer rate − self-rate are all over the paired "
            "statements, so both rates cover the same statements (Unpaired gap: each rate over every statement it "
            "has, as the eval's calibration_gap pools them). Accuracy and F1: every peer flag (n) against the "
            "speaker's self-label. Suspicion: the mean over rated statements (n) of each one's mean rating.", "",
            _render_n(tables["calibration"], [
                *((h, c, f, None) for h, c, f in UNIT_COLUMNS), ("Role", "role", str, None),
                ("Units", "statements", _n0, None), ("Paired", "paired", _n0, None),
                ("Coverage", "coverage", _r2, None),
                ("Self-rate", "self_rate", _r2, None), ("Observer rate", "observer_rate", _r2, None),
                ("Gap", "gap", _signed, None), ("Unpaired gap", "gap_unpaired", _signed, None),
                ("Accuracy", "accuracy", _r2, "labels"), ("F1", "f1", _r2, None),
                ("Suspicion", "suspicion", _r2, "suspicion_n")]), ""]

    out += ["## Observer confidence calibration", "",
            "Every observer deception flag, binned by the observer's confidence; hit rate = share the speaker "
            "self-tagged deceptive. By kind of unit as above.", "",
            _render(tables["confidence_bins"], [*UNIT_COLUMNS, ("Confidence", "bin", str), ("Flags", "flags", _n0),
                                                ("Mean confidence", "confidence", _r2),
                                                ("Hit rate", "hit_rate", _r2)]), ""]

    out += ["## Deception-type yield", "",
            "Statements by the speaker's self-declared type: share of the role's statements, mean peer suspicion "
            "(each statement its raters' mean), and mean share of observers flagging them. By kind of unit as above.",
            "",
            _render(tables["type_yield"], [*UNIT_COLUMNS, ("Role", "role", str), ("Type", "type", str),
                                           ("Statements", "statements", str), ("Share", "share", _r2),
                                           ("Suspicion", "suspicion", _r2), ("Flag rate", "flag_rate", _r2)]), ""]

    for key, title, note in (("suspicion_by_day", "Suspicion attracted by role and day", "Mean peer suspicion "
                              "of each role's statements (each statement its raters' mean), by the day they were made, "
                              "with the statements rated (n). By kind of unit as above."),
                             ("suspicion_by_position", "Suspicion attracted by role and position in the day",
                              "By the statement's place among the day's analysed statements (1 = first), with the "
                              "statements rated (n). By kind of unit as above.")):
        df = tables[key]
        cols = [c for c in df.columns if c.startswith(("day ", "position ")) and not c.endswith(" n")] \
            if not df.empty else []
        out += [f"## {title}", "", note, "",
                _render_n(df, [*((h, c, f, None) for h, c, f in UNIT_COLUMNS), ("Role", "role", str, None)]
                          + [(c.capitalize(), c, _r2, f"{c} n") for c in cols]), ""]
        if key == "suspicion_by_day" and "suspicion_by_day.png" in figures:
            out += ["![Suspicion by role and day](suspicion_by_day.png)", ""]

    out += ["## Univariate predictors of a Jester win", "",
            "Pearson r (scipy) of each game feature with the Jester winning, within each cell, with the feature's "
            "mean in won and lost games and the games it applies to (n: a Jester killed on night 1 has no day-1 "
            "features). Cells differ in both, so no correlation pools games across cells; where several cells have "
            "a Jester, the last rows correlate within cells (each feature and the win centred on its cell's means; "
            "p on n − cells − 1 degrees of freedom).", "",
            _render(tables["predictors"], [("Feature", "feature", str), ("Won", "won", _r2), ("Lost", "lost", _r2),
                                           ("r", "r", _signed), ("p", "p", _p), ("n", "n", str),
                                           ("Cells", "cells", str)]), ""]

    out += ["## First half versus second half", "",
            "Win rates over each cell's games in play order (log creation, epoch, game number).", "",
            _render(tables["halves"], [("Games", "games", str)] + [
                (f"{f.capitalize()} {h}", f"{f}_{h}", _signed if h == "change" else _r2)
                for f in FACTIONS[:3] for h in ("first", "second", "change")]), ""]

    out += ["## Play quality", "",
            "The Doctor's rates are over its protections (n), the Jester's over the games it was alive on day 1 "
            "(n: a Jester killed on night 1 never had the chance, so it is left out rather than counted silent).", "",
            _render_n(tables["play_quality"], [("Games", "games", str, None),
                                               ("Calls/game", "calls", lambda v: _num(v, 0), None),
                                               ("Doctor self-protect", "doctor_self_protect", _r2, "doctor_protects"),
                                               ("Doctor save rate", "doctor_save_rate", _r2, "doctor_protects"),
                                               ("Jester first bid", "jester_first_bid", lambda v: _num(v, 1),
                                                "jester_first_bid_n"),
                                               ("Jester spoke day 1", "jester_spoke_d1", _r2,
                                                "jester_spoke_d1_n")]), ""]

    out += ["## Fallbacks by seat model and action", ""]
    if tables["fallbacks"].empty:
        out += ["_No reply in these games needed a fallback._", ""]
    else:
        out += ["Replies the rules replaced with their fallback (bid 0, pass, abstain, a seeded legal night "
                "target; a missing analysis).", "",
                _render(tables["fallbacks"], [("Seat model", "seat_model", str), ("Action", "action", str),
                                              ("Fallbacks", "fallbacks", str), ("Per game", "per_game", _r2)]), ""]

    out += _cost_markdown(g, tables)

    out += ["## Judge identification accuracy", ""]
    if tables["judge"].empty:
        out += ["_No judge in these logs (bind one with `--model-role judge=<model>`)._", ""]
    else:
        out += ["Share of each true role's players the post-game judge named from the public record.", "",
                _render(tables["judge"], [("Games", "games", str), *((r.capitalize(), r, _r2) for r in ROLES),
                                          ("All", "all", _r2), ("Unreadable", "unreadable", _r2)]), ""]

    out += ["## Jester lessons", ""]
    if tables["lessons"].empty:
        out += ["_No lessons in these logs (played without `jester_learning`)._", ""]
    else:
        out += ["Lessons the Jester's model added, tagged by `wolf_eval.lessons.tagger`: share by theory-of-mind order "
                "(3rd: an explicit cross-faction contrast; 2nd: a perception verb; 1st: neither), then by strategy "
                "category (multi-label, so categories need not sum to 1).", "",
                _render(tables["lessons"], [("Games", "games", str), ("Added", "added", _n0),
                                            ("Per game", "per_game", lambda v: _num(v, 1)),
                                            ("1st", "order_1", _r2), ("2nd", "order_2", _r2), ("3rd", "order_3", _r2)]),
                "",
                _render(tables["lessons"], [(c, c, _r2) for c in LESSON_CATEGORIES]), ""]
    curve = tables["learning_curve"]
    out += ["## Learning curve", "", "The Jester's win rate over consecutive blocks of five games, in play order "
            "(a learning run's games are played one after another).", ""]
    cols = [c for c in curve.columns if c.startswith(("games ", "game "))] if not curve.empty else []
    out += [_render(curve, [("Games", "games", str)] + [(c.capitalize(), c, _r2) for c in cols]), ""]
    if "learning_curve.png" in figures:
        out += ["![Cumulative Jester win rate](learning_curve.png)", ""]
    return "\n".join(out)


def _tokens(v: Any) -> str:
    return "–" if math.isnan(v) else f"{v:,.0f}"


def _usd(v: Any) -> str:
    return "n/a" if math.isnan(v) else f"{v:,.4f}"


_TOKEN_COLUMNS = [("In", "input_tokens", _tokens), ("Cached", "cached_tokens", _tokens),
                  ("Out", "output_tokens", _tokens), ("USD", "usd", _usd)]


def _cost_markdown(games: pd.DataFrame, tables: dict[str, pd.DataFrame]) -> list[str]:
    """The tokens and cost sections: per cell and seat model (with what each model's provider ignored), per game."""
    out = ["## Tokens and cost by seat model", "",
           "Tokens as each provider reported them to Inspect, over every call of the game's seats (the Jester's "
           "lessons call included, the post-game judge not): In = prompt tokens not read from a cache (cache writes "
           "included), Cached = prompt-cache reads, Out = output tokens. USD is estimated at list prices "
           f"(`wolf_eval/data/prices.json`, with `{cost_.PRICES_ENV}` on top) when the report is made.", ""]
    by_model = tables["cost_by_model"]
    if by_model.empty:
        out += ["_These logs recorded no token usage._", ""]
    else:
        out += [_render(by_model, [("Seat model", "seat_model", str), ("Games", "games", _n0), *_TOKEN_COLUMNS,
                                   *((f"{h}/game", f"{c}_per_game", f) for h, c, f in _TOKEN_COLUMNS)]), ""]
    unpriced = cost_.unpriced(values(games, "usage"))
    if unpriced:
        shape = '{"%s": {"input": …, "cache_read": …, "cache_write": …, "output": …}}' % unpriced[0]
        out += [f"n/a: no known price for {', '.join(f'`{m}`' for m in unpriced)}. To price a model, write its "
                f"US dollars per million tokens to a JSON file (`{shape}`) and set "
                f"`{cost_.PRICES_ENV}=/path/to/it.json`; it adds to or overrides the package's table.", ""]
    ignored = ignored_.ignored_over_games(values(games, "ignored"))
    if ignored:
        out += ["Requested settings a seat's provider ignored (these games did not run with them):", "",
                *(f"- `{m}` ignored the requested {' and '.join(what)}" for m, what in ignored.items()), ""]
    out += ["## Tokens and cost per game", "",
            _render(tables["game_costs"], [("Game", "id", str), ("Epoch", "epoch", str),
                                           ("Days", "days", lambda v: _num(v, 0)), *_TOKEN_COLUMNS]), ""]
    return out


def _p(v: Any) -> str:
    if math.isnan(v):
        return "–"
    return f"{v:.3f}" if v >= 0.001 else f"{v:.1e}"


def _wolf_loss_md(wl: pd.DataFrame) -> str:
    if wl.empty:
        return "_No games in these logs apply._"
    def cs(r: dict[str, Any], c: str) -> str:
        v = r[c]
        return "–" if math.isnan(v) else f"{int(v)} ({r[c + '_share']:.2f})"
    headers = [*_cell_headers(wl), "Games", *CATEGORIES]
    rows = [[*_cell_cols(r), str(r["games"]), *(cs(r, c) for c in CATEGORIES)] for r in wl.to_dict("records")]
    return markdown_table(headers, rows)


# --------------------------------------------------------------------------- figures


def figures(tables: dict[str, pd.DataFrame], out: Path) -> list[str]:
    """Win rates with intervals per cell, and suspicion by role and day; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []

    def whole(key: str) -> pd.DataFrame | None:
        """A table's rows over all of each cell's games (and all units pooled): what the figures draw."""
        df = tables.get(key)
        if df is None or df.empty:
            return df
        df = df[df["sample"] == ALL_GAMES]
        return df[df["unit"] == cal.UNIT_LABELS[cal.ALL_KINDS]] if "unit" in df.columns else df

    rates = whole("win_rates")
    if rates is not None and not rates.empty:
        labels = [f"{r['model']}\n{r['task']}" + ("" if r["condition"] == "default" else f"\n{r['condition']}")
                  for r in rates.to_dict("records")]
        fig, ax = plt.subplots(figsize=(max(6.0, 1.6 * len(labels)), 4.2))
        width = 0.8 / len(FACTIONS)
        for i, f in enumerate(FACTIONS):
            xs = [j + (i - 1.5) * width for j in range(len(rates))]
            vals = rates[f].to_numpy(dtype=float)
            err = [vals - rates[f"{f}_low"].to_numpy(dtype=float), rates[f"{f}_high"].to_numpy(dtype=float) - vals]
            ax.bar(xs, vals, width, yerr=err, capsize=3, label=f)
        ax.set_xticks(range(len(labels)), labels, fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_ylabel("win rate (Wilson 95% CI)")
        ax.legend(fontsize=8, ncols=4, loc="upper center", bbox_to_anchor=(0.5, 1.12))
        fig.tight_layout()
        fig.savefig(out / "win_rates.png", dpi=120)
        plt.close(fig)
        written.append("win_rates.png")
    by_day = whole("suspicion_by_day")
    if by_day is not None and not by_day.empty:
        groups = list(dict.fromkeys(zip(by_day["model"], by_day["task"], by_day["condition"], strict=True)))
        ncols = min(3, len(groups))
        nrows = math.ceil(len(groups) / ncols)
        fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.2 * nrows), squeeze=False,
                                 sharey=True, sharex=True)
        days = [c for c in by_day.columns if c.startswith("day ") and not c.endswith(" n")]
        colours = {r: f"C{i}" for i, r in enumerate(ROLES)}
        for ax, cell in zip(axes.flat, groups, strict=False):
            sub = by_day[(by_day["model"] == cell[0]) & (by_day["task"] == cell[1]) & (by_day["condition"] == cell[2])]
            for r in sub.to_dict("records"):
                ax.plot([int(d.split()[1]) for d in days], [r[d] for d in days], marker="o", color=colours[r["role"]],
                        label=r["role"])
            ax.set_title(f"{cell[0]} · {cell[1]}" + ("" if cell[2] == "default" else f"\n{cell[2]}"), fontsize=9)
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
        written.append("suspicion_by_day.png")
    curve = whole("learning_curve")
    if curve is not None and not curve.empty:
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
        written.append("learning_curve.png")
    return written


def write_report(logs: str | Path | Iterable[str | Path], out: Path,
                 keep_duplicates: bool = False) -> tuple[Corpus, dict[str, pd.DataFrame], Path]:
    corpus = load(logs, keep_duplicates)
    tables = build(corpus)
    out.mkdir(parents=True, exist_ok=True)
    drawn = figures(tables, out) if tables else []
    path = out / "report.md"
    path.write_text(render_markdown(corpus, tables, drawn), encoding="utf-8")
    return corpus, tables, path
