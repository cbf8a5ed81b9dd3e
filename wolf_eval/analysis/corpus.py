"""Reading logs into games: the report's corpus (one row per distinct game) and cross-play's seated games.

The report reads its logs through ``inspect_ai.analysis`` (evals_df, samples_df: cells and score
values) plus each sample's store (the finished game, read without its event stream through
:mod:`wolf_eval.analysis.logread`) into one row per game: its cell, its score values and the
per-game values :mod:`wolf_eval.measures` computes from the game for the report's other tables.
Cells are (model, task, condition); the condition is what :func:`wolf_eval.settings.condition`
says differs from the task's defaults, plus the eval's sampling settings. A game that is another
game (the same final state, seat models and judge's verdict: the same log read twice, or a
deterministic player's run repeated) is counted once, so a cell's n is its distinct games; games
whose settings match but whose play differs (another ``--seed``, a provider's other replies, a
judged rerun) are all counted.

``wolf-eval compare`` reads the same logs game by game (:func:`log_games`): every finished
game with what names its seating, so games dealt the same seats can be paired.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Hashable, Iterable, Iterator, Mapping
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
from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

from wolf_eval.analysis.logread import sample_stores
from wolf_eval.bindings import Bindings
from wolf_eval.engine import GameState
from wolf_eval.engine.variants import VARIANTS
from wolf_eval.logfiles import inspect_logs, sample_error
from wolf_eval.measures import calibration as cal
from wolf_eval.measures import features as feat
from wolf_eval.measures import identification as jud
from wolf_eval.measures import lessons as les
from wolf_eval.measures import outcome as out_
from wolf_eval.measures import truth
from wolf_eval.measures.ballot_order import ballot_orders
from wolf_eval.measures.headline import HEADLINE, game_values
from wolf_eval.settings import Settings, condition
from wolf_eval.store import GameRecord, logged_record
from wolf_eval.vocabulary import FACTION_OF

LEAD = next(iter(HEADLINE))

TASK_ORDER = {name: rank for rank, name in enumerate(VARIANTS)}
CELL = ["model", "task", "condition"]
#: Per-game values the report computes from the stored game (the scorers' are read from the log).
DERIVED = ("features", "units", "fallbacks", "truth", "seating", "tagger")
#: Eval-level sampling settings that change how models play, so they split cells like task parameters do.
GENERATE_CONDITIONS = ("temperature", "top_p", "top_k", "max_tokens", "reasoning_effort", "reasoning_tokens")

Values = Mapping[str, float]


@dataclass
class Corpus:
    games: pd.DataFrame  # one row per game: where it was logged, its cell, and its per-game values by source
    skipped: list[str] = field(default_factory=list)  # why logs or samples were left out
    duplicates: list[str] = field(default_factory=list)  # games set aside as repeats of a game already counted


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
                if k in GENERATE_CONDITIONS and not is_missing(v)]
    return ", ".join(changed) or "default"


def _fmt_arg(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) or v is None else str(v)


def is_missing(v: Any) -> bool:
    """Whether a logged value is absent: None or NaN."""
    return v is None or (isinstance(v, float) and math.isnan(v))


def _json(v: Any) -> dict[str, Any]:
    return json.loads(v) if isinstance(v, str) and v else {}


def _json_object(v: Any) -> dict[str, Any]:
    """A summary column's JSON object, or {} for anything else: beside a release that logged a mapping,
    ``samples_df`` turns the plain numbers of later logs in the same column into text such as "nan"."""
    try:
        found = json.loads(v) if isinstance(v, str) else None
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _scored(v: Any) -> bool:
    """Whether a sample summary's score column holds a score (a number, or 0.1.0's values as JSON)."""
    return isinstance(v, str) or (isinstance(v, float | int) and not isinstance(v, bool))


def model_label(model: str, roles_json: Any, game: GameState, seat_models: Mapping[str, str]) -> str:
    """The eval's model, plus each role binding that seated a player of the game.

    Read from the game's seats, not from the eval's bindings alone: a binding no seat took (the
    judge, a misspelt role or one the task does not deal, which older releases accepted) played
    nothing, and naming it would file a one-model game as a comparison.
    """
    played = {(p.role.value, seat_models.get(p.name)) for p in game.players}
    seats = [f"{r}={m}" for r, m in sorted(Bindings.of(model, _json(roles_json)).roles.items()) if (r, m) in played]
    return model + (f" ({', '.join(seats)})" if seats else "")


# --------------------------------------------------------------------------- the report's corpus


def load(logs: str | Path | Iterable[str | Path], keep_duplicates: bool = False) -> Corpus:
    """Read every successful game of the logs: its cell, its score values and the report's per-game values.

    A game that is one already read (:func:`same_game_key`) is set aside and listed in the
    corpus's ``duplicates``, unless ``keep_duplicates``: pooling it would count one game twice as
    if it were two independent draws.
    """
    paths = [str(logs)] if isinstance(logs, str | Path) else [str(p) for p in logs]
    files, skipped = inspect_logs(paths)  # a file Inspect takes for a log but cannot read is named and left out
    evals = _evals(files) if files else pd.DataFrame()
    if evals.empty:
        return Corpus(pd.DataFrame(), [*skipped, f"no Inspect logs found in {', '.join(paths)}"])
    skipped += [f"{row.log}: status {row.status}; only its completed games are read"
                for row in evals.itertuples() if row.status != "success"]
    games = _games(_samples(files, evals), skipped)
    ordered, duplicates = _set_aside_repeats(_ordered(pd.DataFrame(games)), keep_duplicates)
    return Corpus(ordered, skipped, duplicates)


def _evals(paths: list[str]) -> pd.DataFrame:
    """One row per eval: its log, status, creation time, model bindings and cell (its model, task, condition)."""
    wanted = {"eval_id", "log", "status", "created", "task_name", "model", "model_roles"}
    columns = [c for c in (*EvalInfo, *EvalTask, *EvalModel, *EvalResults) if c.name in wanted]
    evals = evals_df(paths, quiet=True, columns=[*columns, EvalColumn("task_args", path="eval.task_args"),
                                                 EvalColumn("task_metadata", path="eval.metadata"),
                                                 EvalColumn("generate", path="eval.model_generate_config")])
    if evals.empty:
        return evals
    evals["task"] = [str(t).split("/")[-1] for t in evals["task_name"]]
    evals["condition"] = [condition_label(t, _json(a), _json(m), _json(g)) for t, a, m, g in zip(
        evals["task"], evals["task_args"], evals["task_metadata"], evals["generate"], strict=True)]
    return evals


def _samples(paths: list[str], evals: pd.DataFrame) -> pd.DataFrame:
    """One row per sample: its id, epoch, error and which scores it has, with its eval's cell."""
    samples = samples_df(paths, quiet=True, columns=[
        SampleColumn("id", path="id", required=True, type=str),
        SampleColumn("epoch", path="epoch", required=True),
        SampleColumn("error", path="error"),
        *(c for c in SampleSummary if c.name == "score_*"),  # which scores a sample has (and 0.1.0's judge)
    ])
    return samples.merge(evals[["eval_id", "created", "model_roles", *CELL]], on="eval_id", how="inner")


def _games(samples: pd.DataFrame, skipped: list[str]) -> list[dict[str, Any]]:
    """A row per finished, scored game of the samples; why any other sample was left out goes to ``skipped``."""
    games = []
    stores: dict[str, dict[tuple[str, int], dict[str, Any]]] = {}
    for s in samples.to_dict("records"):
        where = f"{s['log']} sample {s['id']} epoch {s['epoch']}"
        if isinstance(s.get("error"), str) and s["error"]:
            skipped.append(f"{where}: the sample failed ({sample_error(s['error'])})")
            continue
        if s["log"] not in stores:
            stores[s["log"]] = sample_stores(s["log"])
        record = logged_record(stores[s["log"]].get((str(s["id"]), int(s["epoch"])), {}))
        if record.state is None or not any(_scored(s.get(f"score_{k}")) for k in (LEAD, "outcome")):
            skipped.append(f"{where}: no finished, scored game")
            continue
        games.append(_game_row(s, record))
    return games



def faction_seats(game: GameState, seat_models: Mapping[str, str]) -> dict[str, dict[str, int]]:
    """Per faction seated, how many of its seats each model played (``?`` for a seat of unknown model)."""
    out: dict[str, dict[str, int]] = {}
    for p in game.players:
        models = out.setdefault(str(FACTION_OF[p.role]), {})
        model = seat_models.get(p.name, truth.UNKNOWN_MODEL)
        models[model] = models.get(model, 0) + 1
    return out

def _game_row(s: Mapping[Hashable, Any], record: GameRecord) -> dict[str, Any]:
    """One game's row: where it was logged, its cell, its repeat key and its per-game values by source."""
    game = record.game()
    row: dict[str, Any] = {k: s[k] for k in ("log", "created", "id", "epoch", *CELL)}
    row["model"] = model_label(s["model"], s["model_roles"], game, record.seat_models)
    row["game"] = f"{s['eval_id']}:{s['id']}:{s['epoch']}"
    row["repeat"] = same_game_key(record, [row[k] for k in CELL])
    row["seat_models"] = tuple(sorted(set(record.seat_models.values())))
    row["factions"] = faction_seats(game, record.seat_models)
    row["learning_step"] = record.learning_step
    row["tagger"] = les.tagger_values(record)
    row["tagger_model"] = record.tagger_model
    row["monitor_model"] = record.monitor_model
    rows = cal.statement_rows(game)
    by_kind = cal.values_by_kind(game, rows)
    row |= vars(game_values(game, record, rows, calibration=by_kind[cal.ALL_KINDS].calibration))
    logged_judge = _json_object(s.get("score_judge"))  # a log from before the record kept the judge's counts
    if record.judge is None and logged_judge:
        row["judge"] = jud.Identification.from_flat(
            {k: float(v) if v is not None else math.nan for k, v in logged_judge.items()})
    row["analysed"] = len(rows)
    row["features"] = feat.game_features(game, rows)
    row["units"] = by_kind
    row["seating"] = ballot_orders(game)
    row["fallbacks"] = out_.fallback_counts(game, record.seat_models)
    row["usage"] = {m: u.model_dump() for m, u in record.usage.items()}
    row["ignored"] = dict(record.ignored)
    return row


def same_game_key(record: GameRecord, cell: list[str]) -> str:
    """What makes two logged games the same game: a hash of the final state (every record, the seed,
    the seats), every seat's model and the judge's verdict, within one cell (a game is in one cell).

    Never the settings alone: two runs that differ only in the eval's ``--seed``, or the same command
    on a provider whose replies vary, played different games, and a judged rerun of an unjudged run
    carries what the first lacks. Only a game replayed record for record, by the same seat models
    and judged alike (the same log read twice, a deterministic player's identical rerun), repeats.
    """
    text = json.dumps([cell, record.state, sorted(record.seat_models.items()), record.judge], sort_keys=True,
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest()


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


def _set_aside_repeats(ordered: pd.DataFrame, keep_duplicates: bool) -> tuple[pd.DataFrame, list[str]]:
    """The games without those that repeat an earlier one (all of them with ``keep_duplicates``), and the repeats."""
    duplicates: list[str] = []
    if ordered.empty:
        return ordered, duplicates
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
    return ordered, duplicates


def cells(games: pd.DataFrame) -> list[tuple[str, str, str]]:
    return list(dict.fromkeys(zip(games["model"], games["task"], games["condition"], strict=True)))


def cell_games(games: pd.DataFrame, cell: tuple[str, str, str]) -> pd.DataFrame:
    """The games of one cell (model, task, condition), in the frame's order."""
    m, t, c = cell
    return games[(games["model"] == m) & (games["task"] == t) & (games["condition"] == c)]


def values(df: pd.DataFrame, source: str) -> list[Any]:
    """The per-game values of one source (a scorer's name or one of ``DERIVED``), in the frame's game order.

    A frame's column is untyped: each source holds its own type (a :data:`Values` mapping, or a measure's
    typed counts), which the caller names where it reads them."""
    return list(df[source]) if source in df else []


# --------------------------------------------------------------------------- cross-play's games


@dataclass(frozen=True)
class SeatedGame:
    """A finished game and what names its seating: games with the same task, condition, seed, sample
    and epoch were dealt the same seats and roles."""

    log: str
    task: str
    condition: str
    seed: Any
    sample: str
    epoch: int
    record: GameRecord


def log_games(path: str, skipped: list[str]) -> Iterator[SeatedGame]:
    """Every finished game of one log (as :func:`wolf_eval.logfiles.inspect_logs` lists it); why others were left
    out goes to ``skipped``.

    A game needs no score here, only its final state; its condition is the task parameters alone
    (cross-play runs every pairing with the same sampling settings). One log's stores are held at a time.
    """
    header = read_eval_log(path, header_only=True)
    if header.eval.task.split("/")[-1] not in VARIANTS:
        skipped.append(f"{path}: task {header.eval.task} is not a wolf-eval game")
        return
    task = header.eval.task.split("/")[-1]
    condition = condition_label(task, dict(header.eval.task_args or {}), dict(header.eval.metadata or {}), {})
    failed = {(str(s.id), s.epoch) for s in read_eval_log_sample_summaries(path) if s.error}
    for (sample, epoch), store in sorted(sample_stores(path).items()):
        record = logged_record(store)
        if (sample, epoch) in failed or record.state is None:
            skipped.append(f"{path} sample {sample} epoch {epoch}: no finished game")
            continue
        yield SeatedGame(path, task, condition, header.eval.task_args.get("seed", 0), sample, epoch, record)
