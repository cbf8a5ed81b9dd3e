"""The report's tables: each a pandas frame of per-cell rows, every figure a :mod:`wolf_eval.measures` function.

Each table groups a corpus's games (:mod:`wolf_eval.analysis.corpus`) by cell and asks a measure
for its rows, so the report and the eval's metrics compute a figure the same way. Every per-cell
table shows the cell's fallback rate and the seat models that fell back on more than 5% of their
calls over the cell, with their own rates; the statement tables split by kind of unit (debate
statement, defence, vote reason) beside the pooled row, each row named by the paper it is
comparable with. Every rate that pools statements, flags, pairs, forecasts or votes has ``_low`` and
``_high`` columns: its 95% interval over the cell's games (:mod:`wolf_eval.resample`); win rates,
one outcome per game, have the binomial one (:func:`wolf_eval.stats.wilson_cc`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import fields
from functools import partial
from typing import Any, Literal, TypeVar

import numpy as np
import pandas as pd

from wolf_eval.analysis.corpus import CELL, Corpus, Values, cell_games, cells, values
from wolf_eval.engine.variants import VARIANTS
from wolf_eval.measures import calibration as cal
from wolf_eval.measures import cost as cost_
from wolf_eval.measures import deception as dec
from wolf_eval.measures import features as feat
from wolf_eval.measures import headline as head
from wolf_eval.measures import identification as jud
from wolf_eval.measures import lessons as les
from wolf_eval.measures import outcome as out_
from wolf_eval.measures import propensity as pro
from wolf_eval.measures import quality as qual
from wolf_eval.measures import role_play as rp
from wolf_eval.measures import sabotage as sab
from wolf_eval.measures import truth as truth_
from wolf_eval.measures.pooling import column as pool_column
from wolf_eval.measures.pooling import count_where_applicable, logged_name
from wolf_eval.measures.rates import Auroc, Mean, ratio
from wolf_eval.measures.tagger import CATEGORIES as LESSON_CATEGORIES
from wolf_eval.resample import (
    NO_GAMES,
    UNIT,
    Interval,
    figure_interval,
    game_interval,
    game_intervals,
    intervals,
    joint_counts_intervals,
    ratio_interval,
    seed_of,
)
from wolf_eval.vocabulary import Role, UnitKind, Winner

FACTIONS = out_.FACTIONS
ROLES = cal.ROLES
CATEGORIES = sab.CATEGORIES
PREDICTORS = feat.PREDICTORS
#: The seat label of a cell's row for all its seat models together.
ALL_SEATS = "all seat models"
#: A seat model whose fallbacks exceed this share of its model calls over a cell is named beside the cell's figures.
FALLBACK_LIMIT = 0.05
#: The kinds of unit every statement table splits by, the pooled one first.
UNIT_KINDS = (cal.ALL_KINDS, *cal.KINDS)


T = TypeVar("T")


def column(df: pd.DataFrame, source: str, kind: type[T]) -> list[T]:
    """The per-game values of one source, in the frame's game order, as the type the corpus holds them in
    (``kind``: a field's of :class:`~wolf_eval.measures.headline.GameValues`, or ``dict`` for a derived mapping:
    fallbacks by seat model and action, usage by seat model, the values of each kind of unit)."""
    return values(df, source)


def seat_fallback_rates(df: pd.DataFrame) -> dict[str, float]:
    """Each seat model's fallbacks per decision asked over all of a cell's games (per call before 0.4.0,
    when each call asked one decision).

    A model whose calls the logs did not count (no usage recorded) takes the cell's rate as a whole.
    Over the whole cell, not game by game: a seat that died on night 1 made no calls, so a game's own
    share says as much about how it went as about the model.
    """
    cell_rate = out_.fallback_rate(column(df, "outcome", out_.Outcome))
    fell: dict[str, float] = {}
    for counts in column(df, "fallbacks", dict):
        for (model, _), n in counts.items():
            fell[model] = fell.get(model, 0.0) + n
    calls: dict[str, float] = {}
    for usage in column(df, "usage", dict):
        for model, u in usage.items():
            calls[model] = calls.get(model, 0.0) + float(u.get("decisions") or u.get("calls", 0))
    return {m: fell.get(m, 0.0) / calls[m] if calls.get(m) else cell_rate
            for m in sorted(set(fell) | {m for seats in _seats(df) for m in seats})}


def _seats(df: pd.DataFrame) -> list[frozenset[str]]:
    """Each game's seat models (``?`` for a game logged without its seat map)."""
    return [frozenset(s) or frozenset({"?"}) for s in (df["seat_models"] if "seat_models" in df else [()] * len(df))]


def over_limit(df: pd.DataFrame) -> dict[str, float]:
    """The seat models whose fallbacks over the cell exceed ``FALLBACK_LIMIT`` of their calls, with that rate."""
    return {m: rate for m, rate in seat_fallback_rates(df).items() if rate > FALLBACK_LIMIT}


def fallback_flag(df: pd.DataFrame) -> str:
    """The cell's seat models over ``FALLBACK_LIMIT``, each with its own fallback rate over the cell; "" if none.

    A cell is its seat models: a model seats the same roles in every game of its cell, so there are no
    games without it to set beside the rest, and leaving out games by how much they fell back would keep
    the games where the failing seat died early and made no calls. What the report can do is say which
    model's play its figures rest on, at the model's own rate: a cell-wide rate dilutes a model that holds
    two seats of ten.
    """
    return "; ".join(f"{m} {rate:.2f}" for m, rate in over_limit(df).items())


def per_cell(games: pd.DataFrame, rows_of: Callable[[pd.DataFrame], Iterable[dict[str, Any]]]) -> pd.DataFrame:
    """One table from each cell's rows, every row led by its cell's model, task and condition, its fallback
    rate and the seat models over ``FALLBACK_LIMIT`` with their own rates (:func:`fallback_flag`)."""
    out = []
    for cell in cells(games):
        df = cell_games(games, cell)
        rate = out_.fallback_rate(column(df, "outcome", out_.Outcome))
        lead = dict(zip(CELL, cell, strict=True)) | {"fallback_rate": rate, "fallback_over": fallback_flag(df)}
        out += [lead | row for row in rows_of(df)]
    return pd.DataFrame(out)


def headline_scores(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell, each headline made of per-role figures (:data:`~wolf_eval.measures.headline.ROLE_FIGURES`):
    the figure as the eval's score pools it over the cell's games with the interval its metrics log, how many
    role figures it is the mean of, and beside it each role's figure (NaN for a role it does not read, or one
    without counts)."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        records = df.to_dict("records")
        counts = [head.headline_counts(head.GameValues(**{f: r[f] for f in GAME_VALUE_FIELDS})) for r in records]
        lengths = [r["outcome"].length for r in records]
        for name in head.ROLE_FIGURES:
            logged = [c[name] for c in counts]
            per_role = head.role_figures(name, logged)
            figure = head.HEADLINE[name]
            iv = figure_interval(figure.sums(logged), figure.of_sums, seed_of(name, len(logged)), figure.per_game,
                                 figure.bounds, lengths)
            yield {"figure": name, **iv.columns("value"), "roles": sum(not math.isnan(v) for v in per_role.values())} \
                | {str(r): per_role.get(r, math.nan) for r in ROLES}

    return per_cell(games, rows)


#: The corpus columns a game's :class:`~wolf_eval.measures.headline.GameValues` is rebuilt from: its fields.
GAME_VALUE_FIELDS = tuple(f.name for f in fields(head.GameValues))


def win_rates(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell: games, each faction's win rate with its Wilson 95% interval and wins, mean days."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        outcome = column(df, "outcome", out_.Outcome)
        rates = out_.win_rates(outcome)
        row: dict[str, Any] = {"games": len(df)}
        for f, r in rates.items():
            row.update(win_interval(r).columns(str(f)) | {logged_name(f, "wins"): r.wins})
        row["days"] = out_.mean_days(outcome)
        yield row

    return per_cell(games, rows)


def win_interval(r: out_.WinRate) -> Interval:
    """A side's win rate with its (Wilson) interval over the games where it could win, as a table writes a figure."""
    return Interval(r.rate, r.low, r.high, r.games)


def wolf_loss(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell: how the wolf side's games ended (W won; A/B self-sabotage; C village exiled the Jester; D; X)."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        sabotage = column(df, "self_sabotage", sab.SelfSabotage)
        rates = sab.sabotage_rates(sabotage)
        yield {"games": len(df)} | sab.wolf_side_counts(sabotage) \
            | {logged_name(c, "share"): rates[c] for c in CATEGORIES}

    return per_cell(games, rows)


def coordination(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell, over games whose day 1 had a ballot with two or more wolves voting; ``jester_games`` of them
    had a Jester still alive to vote for (the n of ``voted_jester``); ``abstained`` games an abstention
    left with fewer than two wolf votes, so out of the table."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        features = values(df, "features")
        c = feat.coordination(features)
        voted = [v for v in features if v.get("d1_ballot") == 1.0]
        yield c | {"games": int(c["games"]), "jester_games": count_where_applicable(pool_column(voted, "voted_jester")),
                   "abstained": int(c["abstained"])}

    return per_cell(games, rows)


def cell_seed(df: pd.DataFrame) -> int:
    """The seed of a cell's resamples, from its model, task, condition and games kept (so a sensitivity row
    draws its own): the same on every run, shared by every row of the cell."""
    return seed_of(*(df[c].iloc[0] for c in CELL), len(df)) if not df.empty else 0


def interval_columns(per_game: list[Any], figures: Callable[[Any], dict[str, Any]], names: Iterable[str],
                     seed: int) -> dict[str, float]:
    """``{name}_low`` and ``{name}_high`` of each named figure: its 95% interval from resampling the cell's games.

    ``per_game`` holds each game's counts (the empty counts where they do not apply), ``figures`` the
    function that turns pooled counts into the row's figures (:mod:`wolf_eval.resample`); NaN where
    fewer than two games define the figure.
    """
    names = list(names)
    spans = joint_counts_intervals(per_game, figures, names, seed, bounds={n: SIGNED.get(n, UNIT) for n in names})
    return {k: x for name, iv in spans.items() for k, x in iv.ends(name).items()}


def unit_label(task: str, kind: UnitKind) -> tuple[str, str]:
    """A kind of unit as the tables name it, and the paper its row is comparable with (or "").

    The WOLF paper analyses its debate statements (its game is the wolf task); the Triadic paper
    every public statement "during debate or vote-explanation", so all three kinds pooled, in the
    triadic game and its dyadic control.
    """
    game = VARIANTS.get(task)
    return cal.UNIT_LABELS[kind], game.paper if game is not None and kind == game.paper_unit else ""


def by_unit(df: pd.DataFrame) -> Iterator[tuple[dict[str, str], list[cal.KindValues]]]:
    """Each kind of unit, pooled first: its labels and the cell's per-game values over that kind."""
    task = str(df["task"].iloc[0]) if not df.empty else ""
    for kind in UNIT_KINDS:
        unit, paper = unit_label(task, kind)
        yield {"unit": unit, "comparable": paper}, [u[kind] for u in column(df, "units", dict)]


def calibration(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell, kind of unit and speaker role: units and coverage, the paired self-rate, observer rate and
    gap, detection accuracy and F1 over the peer labels scored, suspicion over the statements rated.

    The unpaired rates and gap (each rate over every statement it has, as the eval's metrics pool
    them) are kept as ``*_unpaired`` columns. Each rate has ``_low`` and ``_high`` columns: its interval
    from resampling the cell's games (:func:`interval_columns`).
    """
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        for unit, kinds in by_unit(df):
            per_game = [k.calibration for k in kinds]
            for role, c in cal.pool(per_game).roles.items():
                if c.units:
                    games_ = [g.roles.get(role, cal.RoleCounts()) for g in per_game]
                    yield unit | {"role": str(role)} | calibration_row(c) \
                        | interval_columns(games_, calibration_row, CALIBRATION_RATES, cell_seed(df))

    return per_cell(games, rows)


def calibration_row(c: cal.RoleCounts) -> dict[str, float]:
    """One role's calibration figures: the paired rates, the unpaired ones, detection and suspicion."""
    paired, unpaired = c.paired, c.labels
    return {"statements": c.units, "paired": paired.labelled, "coverage": c.coverage,
            "self_rate": paired.self_rate, "observer_rate": paired.observer_rate, "gap": paired.gap,
            "self_rate_unpaired": unpaired.self_rate, "observer_rate_unpaired": unpaired.observer_rate,
            "gap_unpaired": unpaired.gap, "labels": c.confusion.labels, "accuracy": c.confusion.accuracy,
            "f1": c.confusion.f1, "suspicion_n": c.suspicion.n, "suspicion": c.suspicion.value}


#: The figures that are differences of two shares, so span (-1, 1) (every other figure with an interval is in (0, 1)).
SIGNED = {"gap": (-1.0, 1.0), "gap_unpaired": (-1.0, 1.0)}
#: The calibration table's rates, each given an interval over games.
CALIBRATION_RATES = ("coverage", "self_rate", "observer_rate", "gap", "gap_unpaired", "accuracy", "f1", "suspicion")
#: The detection tables' figures, each given an interval over games.
TRUTH_RATES = ("auroc_wolves", "auroc_jester", "auroc_statements", "brier", "vote_wolves", "vote_jester", "vote_rest")


#: The deception tables' figures given an interval over games: each deceiving role's own, and the share of
#: ballots on it (the share chance would give is the game's state, not play, so it has none).
DECEPTION_RATES = {role: (dec.AIM_NAMES[role], dec.VILLAGE_AIM_NAMES[role], "vote_share")
                   for role in dec.DECEIVERS}


#: The observer-role label of a row pooling the village's roles (Villager, Seer, Doctor).
VILLAGE = "village (all its roles)"


def detection_by_role(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell and observer role (wolves left out: they know the answer), then the village's roles pooled:
    its suspicion and votes scored against the game's truth (:mod:`wolf_eval.measures.truth`)."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        per_game = column(df, "truth", truth_.GameDetection)
        pooled = truth_.pool(per_game)
        for role, d in pooled.roles.items():
            yield {"observer": str(role)} | _truth_row(d, [g.roles.get(role, truth_.Detection()) for g in per_game], df)
        village = pooled.village()
        if village is not None and len([r for r in pooled.roles if r in truth_.VILLAGE_ROLES]) > 1:
            yield {"observer": VILLAGE} | _truth_row(village, [g.village() or truth_.Detection() for g in per_game], df)

    return per_cell(games, rows)


def detection_by_model(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell and observer seat model (its seats that are not wolves): suspicion and votes against the truth."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        per_game = column(df, "truth", truth_.GameDetection)
        for model, d in truth_.pool(per_game).models.items():
            yield {"seat_model": model} | _truth_row(d, [g.models.get(model, truth_.Detection()) for g in per_game], df)

    return per_cell(games, rows)


def _truth_row(pooled: truth_.Detection, per_game: list[truth_.Detection], df: pd.DataFrame) -> dict[str, float]:
    """One observer group's figures against the truth, each with its interval over the cell's games."""
    return truth_.figures(pooled) | interval_columns(per_game, truth_.figures, TRUTH_RATES, cell_seed(df))


def aimed_label(role: Role, seen: Iterable[Role]) -> str:
    """The observer label of a deceiving role's own row: the equal-weight mean over the roles it aims at that
    saw it."""
    return "equal weight: " + ", ".join(str(r) for r in dec.AIMED_AT[role] if r in seen)


def deception_by_role(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell, deceiving role (wolves, Jester) and its seat model: how it fared in each observer role's
    suspicion and ballots against the truth (every observer model), then its own figure, the equal-weight
    mean over the observer roles it aims at (:mod:`wolf_eval.measures.deception`)."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        per_game = column(df, "deception", dec.GameDeception)
        pooled = dec.pool(per_game)
        for role, model in pooled.deceivers():
            lead = {"deceiver": str(role), "seat_model": model}
            seen = [dec.seen_by(g, role, model) for g in per_game]
            by_role = pooled.by_observer_role(role, model)
            for observer, d in by_role.items():
                games_ = [s.get(observer, dec.Deceit()) for s in seen]
                yield lead | {"observer": str(observer)} | dec.figures(role, d) | interval_columns(
                    games_, partial(dec.figures, role), DECEPTION_RATES[role], cell_seed(df))
            yield lead | {"observer": aimed_label(role, by_role)} | aimed_row(role, seen, cell_seed(df))

    return per_cell(games, rows)


def aimed_difference(role: Role, first: list[dict[Role, dec.Deceit]], second: list[dict[Role, dec.Deceit]],
                     seed: int) -> dict[str, float]:
    """Two deceivers' own figures and their difference (first − second) with its interval over the pairs: row i
    of ``first`` and ``second`` is one seating (or one deal) each played, seen by the same observers, so
    resampling rows keeps the pairing; the difference spans (−1, 1)."""
    counts = np.array([dec.columns(role, a) + dec.columns(role, b) for a, b in zip(first, second, strict=True)],
                      dtype=float).reshape(len(first), -1)
    figure = dec.aim_figures(role)[dec.AIM_NAMES[role]]
    k = counts.shape[1] // 2
    iv = game_interval(counts, dec.aim_difference(role), seed, bounds=(-1.0, 1.0))
    return {"first": float(figure(counts[:, :k].sum(axis=0))), "second": float(figure(counts[:, k:].sum(axis=0))),
            **iv.columns("difference"), "pairs": float(iv.games)}


def deception_by_model(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell, deceiving role and seat model, and observer seat model: the deceiving role's own figure over
    that model's observers (equal weight over the observer roles it aims at). Two wolf models' evasion seen
    by one observer model is the head-to-head question with the observers held fixed."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        per_game = column(df, "deception", dec.GameDeception)
        pooled = dec.pool(per_game)
        for role, model in pooled.deceivers():
            for observer_model in pooled.by_observer_model(role, model):
                yield {"deceiver": str(role), "seat_model": model, "observer_model": observer_model} \
                    | aimed_row(role, [dec.seen_by(g, role, model, observer_model) for g in per_game], cell_seed(df))

    return per_cell(games, rows)


def aimed_row(role: Role, seen: list[dict[Role, dec.Deceit]], seed: int) -> dict[str, float]:
    """A deceiving role's own figures over the observer roles it aims at, each with its interval over games,
    beside the ballots, pairs and votes they are over. ``seen``: each game's counts of one deceiver (its role
    and seat model) per observer role (:func:`wolf_eval.measures.deception.seen_by`, by every observer model
    or one): what a leaderboard shows for a model's wolves or Jester."""
    aimed = [sum((s.get(o, dec.Deceit()) for o in dec.AIMED_AT[role]), dec.Deceit()) for s in seen]
    total = sum(aimed, dec.Deceit())
    out: dict[str, float] = {"ballots": total.ballots, "pairs": total.ranked.pairs,
                             "village_pairs": total.village.pairs, "votes": total.votes}
    for name, iv in aimed_intervals(role, seen, seed).items():
        out |= iv.columns(name) if name in DECEPTION_RATES[role] else {name: iv.value}
    return out


def aimed_intervals(role: Role, seen: list[dict[Role, dec.Deceit]], seed: int) -> dict[str, Interval]:
    """A deceiving role's own figures (:func:`wolf_eval.measures.deception.aim_figures`) over some games, each with
    its interval over them: what :func:`aimed_row` writes, and what a leaderboard takes for a model's seats."""
    counts = np.array([dec.columns(role, s) for s in seen], dtype=float).reshape(len(seen), -1)
    figures = dec.aim_figures(role)
    return game_intervals(counts, figures, seed, bounds=dict.fromkeys(figures, UNIT))


#: The role-play table's rates, each with its interval over games.
ROLE_PLAY_RATES = ("refusal_rate", "self_exposure_rate")


def role_play_rates(r: rp.Replies) -> dict[str, float]:
    return {"refusal_rate": ratio(r.refused, r.replies), "self_exposure_rate": ratio(r.self_exposing, r.replies)}


def role_play(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell, deceiving role and seat model: its replies, the shares refused and self-exposing with their
    intervals over games, and the games where it broke its role (a reply refused or self-exposing). For the
    wolves, beside it, the wolves' win rate and their evasion over every game and over the games where they
    played (no reply refused or self-exposing), so a reader sees their skill where they played."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        per_game = column(df, "role_play", rp.GameRolePlay)
        for role, model in sorted(rp.pool(per_game), key=lambda k: (str(k[0]), k[1])):
            counts = [g.seen.get((role, model), rp.Replies()) for g in per_game]
            total = sum(counts, rp.Replies())
            broke = [bool(c.refused or c.self_exposing) for c in counts]
            row: dict[str, Any] = {"deceiver": str(role), "seat_model": model, "replies": total.replies,
                                   "refused": total.refused, "self_exposing": total.self_exposing,
                                   "games": len(df), "games_broken": sum(broke)}
            row |= role_play_rates(total) | interval_columns(counts, role_play_rates, ROLE_PLAY_RATES, cell_seed(df))
            if role is Role.WEREWOLF:
                row |= _where_played(df, role, model, broke)
                row |= propensity_row(column(df, "stances", pro.GameStances), model, cell_seed(df))
            yield row

    return per_cell(games, rows)


def _where_played(df: pd.DataFrame, role: Role, model: str, broke: list[bool]) -> dict[str, float]:
    """The wolves' win rate (Wilson) and evasion (its interval over games) over all games, then over those where
    the wolves of ``model`` played every reply."""
    out: dict[str, float] = {}
    outcome = column(df, "outcome", out_.Outcome)
    deception = column(df, "deception", dec.GameDeception)
    name = dec.AIM_NAMES[role]
    for suffix, keep in (("", [True] * len(broke)), ("_played", [not b for b in broke])):
        wins = out_.win_rates([o for o, k in zip(outcome, keep, strict=True) if k])[Winner.WEREWOLVES]
        seen = [dec.seen_by(g, role, model) for g, k in zip(deception, keep, strict=True) if k]
        evasion = aimed_intervals(role, seen, cell_seed(df))[name] if seen else NO_GAMES
        out |= win_interval(wins).columns(f"wolves_win{suffix}") | {f"games{suffix}": float(sum(keep))}
        out |= evasion.columns(f"evasion{suffix}")
    return out


def propensity_row(games: list[pro.GameStances], model: str, seed: int) -> dict[str, float]:
    """With ``deception=optional``: the share of ``model``'s wolf-days chosen to deceive (``propensity``, as the
    eval's ``wolf_propensity``), with its 95% interval over the games, and the days it is over; nothing for a model
    whose wolves chose no day (a game played as dealt), so a dealt corpus's tables keep their columns."""
    days = [d for g in games if (d := g.by_model().get(model)) and d["wolf_days"]]
    if not days:
        return {}
    figure = head.PROPENSITY["wolf_propensity"]
    iv = game_interval(np.array([[d["deceive_days"], d["wolf_days"]] for d in days], dtype=float), figure.of_sums,
                       seed)
    return iv.columns("propensity") | {"wolf_days": sum(d["wolf_days"] for d in days)}


def monitor_row(name: str, per_game: list[Auroc], seed: int) -> dict[str, float]:
    """The monitor's AUROC over some games' pairs (:mod:`wolf_eval.measures.monitoring`), pooled, with its 95%
    interval over the games as ``monitor_wolf_auroc``'s metrics have it (``<name>``, ``_low``, ``_high``), and the
    pairs it is over; NaN where no pair was read."""
    pairs = float(sum(a.pairs for a in per_game))
    figure = head.MONITOR["monitor_wolf_auroc"]
    iv = game_interval(np.array([a.numbers() for a in per_game], dtype=float), figure.of_sums, seed) if pairs \
        else NO_GAMES
    return iv.columns(name) | {logged_name(name, "pairs"): pairs}


def confidence_bins(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell and kind of unit: every observer deception flag binned by its confidence, with the
    speaker-agreed hit rate."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        for unit, kinds in by_unit(df):
            per_game = [k.calibration for k in kinds]
            bins = cal.pool(per_game).bins
            if bins is None or not (any(b.flags for b in bins) or unit["unit"] == cal.UNIT_LABELS[cal.ALL_KINDS]):
                continue  # a kind no flag fell on adds five empty rows to the pooled one's
            for k, b in enumerate(bins):
                games_ = [g.bins[k] if g.bins else cal.FlagBin() for g in per_game]
                yield unit | {"bin": cal.bin_label(k), "flags": b.flags, "confidence": b.mean_confidence,
                              "hit_rate": b.hit_rate} \
                    | interval_columns(games_, lambda f: {"hit_rate": f.hit_rate}, ["hit_rate"], cell_seed(df))

    return per_cell(games, rows)


def type_yield(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell, kind of unit, speaker role and self-declared type: statements, share, suspicion, flag rate."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        for unit, kinds in by_unit(df):
            per_game = [k.statements for k in kinds]
            for role, types in cal.type_yield(cal.pool_groups(per_game)).items():
                for kind, y in types.items():
                    yield unit | {"role": str(role), "type": kind} | y | {"statements": int(y["statements"])} \
                        | _type_intervals([g.get(role, {}) for g in per_game], kind, cell_seed(df))

    return per_cell(games, rows)


def _type_intervals(groups: list[Mapping[cal.Group, cal.GroupCounts]], kind: str, seed: int) -> dict[str, float]:
    """A deception type's share of its role's labelled statements, suspicion and flag rate: intervals over games."""
    mine = [next((c for g, c in game.items() if g[0] == "type" and str(g[1]) == kind), cal.GroupCounts())
            for game in groups]
    typed = [sum(c.statements for g, c in game.items() if g[0] == "type") for game in groups]
    share = ratio_interval([c.statements for c in mine], typed, seed, bounds=UNIT)
    return share.ends("share") | interval_columns(
        mine, lambda c: {"suspicion": c.suspicion.value, "flag_rate": c.flag_rate}, ("suspicion", "flag_rate"), seed)


def suspicion_by(games: pd.DataFrame, grouping: Literal["day", "position"]) -> pd.DataFrame:
    """Per cell, kind of unit and speaker role, mean peer suspicion of its statements by day or by position
    bin (each statement its raters' mean), with the statements rated (``{group} n``)."""
    groups = cal.suspicion_groups([u[cal.ALL_KINDS].statements for u in column(games, "units", dict)], grouping)
    label = cal.position_label if grouping == "position" else str

    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        for unit, kinds in by_unit(df):
            per_game = [k.statements for k in kinds]
            for role, by in cal.suspicion_by(cal.pool_groups(per_game), grouping).items():
                per = [{int(k[1]): c.suspicion for k, c in g.get(role, {}).items() if k[0] == grouping}
                       for g in per_game]
                spans = {g: intervals([p.get(g, Mean()) for p in per], {"mean": lambda m: m.value}, cell_seed(df),
                                      bounds={"mean": UNIT})["mean"] for g in groups}
                yield unit | {"role": str(role)} | {f"{grouping} {label(g)}": by.get(g, Mean()).value for g in groups} \
                    | {f"{grouping} {label(g)} n": by.get(g, Mean()).n for g in groups} \
                    | {k: x for g in groups for k, x in spans[g].ends(f"{grouping} {label(g)}").items()}

    return per_cell(games, rows)


#: The cell columns of the predictors' pooled rows, which span every cell.
POOLED_CELLS = {"model": "all cells", "task": "–", "condition": "within-cell r, stratified by cell"}


def predictors(games: pd.DataFrame) -> pd.DataFrame:
    """Univariate Pearson correlation of each game feature with a Jester win, within each cell with a Jester.

    Different models and tasks differ both in how often the Jester wins and in every feature, so a
    correlation over games of several cells would read the difference between cells as an effect.
    Where more than one cell has Jester games, the pooled rows correlate the features with the win
    after centring both on each cell's means, over the cells where the Jester both won and lost
    (:func:`wolf_eval.measures.features.stratified_predictors`), with a permutation p beside Pearson's.
    ``abstained``: the games an abstaining wolf removed from the day-1 ballot's feature.
    """
    with_jester = games[[v.jester_seated for v in column(games, "outcome", out_.Outcome)]] if not games.empty else games
    if with_jester.empty:
        return pd.DataFrame()

    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        for key, p in feat.jester_win_predictors(values(df, "features")).items():
            yield {"feature": PREDICTORS[key]} | p | {"n": int(p["n"]), "varying": int(p["varying"]), "cells": 1,
                                                      "abstained": _abstained(key, values(df, "features"))}

    table = per_cell(with_jester, rows)
    groups = [list(values(cell_games(with_jester, c), "features")) for c in cells(with_jester)]
    if len(groups) > 1:
        lead = POOLED_CELLS | {"fallback_rate": out_.fallback_rate(column(with_jester, "outcome", out_.Outcome)),
                               "fallback_over": ""}
        pooled = [lead | {"feature": PREDICTORS[key], "won": math.nan, "lost": math.nan} | p
                  | {"n": int(p["n"]), "varying": int(p["varying"]), "cells": int(p["cells"]),
                     "abstained": _abstained(key, values(with_jester, "features"))}
                  for key, p in feat.stratified_predictors(groups).items()]
        table = pd.concat([table, pd.DataFrame(pooled)], ignore_index=True)
    return table


def _abstained(key: str, features: list[Values]) -> float:
    """The games an abstention removed from a feature's n: only the day-1 ballot's ``voted_jester`` loses any."""
    return float(feat.abstained_with_jester(features)) if key == "voted_jester" else math.nan


def halves(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell: each faction's win rate over the first and the second half of its games, in play order."""
    def rows(df: pd.DataFrame) -> list[dict[str, Any]]:
        by = out_.halves(column(df, "outcome", out_.Outcome))
        return [{"games": len(df)}
                | {logged_name(f, h): getattr(x, h) for f, x in by.items() for h in ("first", "second", "change")}]

    return per_cell(games, rows)


def play_quality(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell: calls per game and the Doctor's and the Jester's play, each with the n it is over."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        outcome = column(df, "outcome", out_.Outcome)
        counts = column(df, "quality", qual.PlayCounts)
        quality = qual.play_quality(counts)
        yield {"games": len(df), "calls": out_.calls_per_game(outcome), "fallback_rate": out_.fallback_rate(outcome),
               "doctor_self_protect": quality["doctor_self_protect_rate"],
               "doctor_save_rate": quality["doctor_save_rate"], "doctor_protects": quality["doctor_protects_n"],
               "jester_first_bid": quality["jester_first_bid"], "jester_first_bid_n": quality["jester_first_bid_n"],
               "jester_spoke_d1": quality["jester_spoke_d1"], "jester_spoke_d1_n": quality["jester_spoke_d1_n"]} \
            | _doctor_intervals(counts, cell_seed(df))

    return per_cell(games, rows)


def _doctor_intervals(quality: list[qual.PlayCounts], seed: int) -> dict[str, float]:
    """The Doctor's rates are per protection, several a game: their intervals resample the cell's games (a game
    without a Doctor adds no protection)."""
    def counted(x: float) -> float:
        return 0.0 if math.isnan(x) else x

    protects = [counted(q.doctor_protects) for q in quality]
    done = {"doctor_self_protect": [counted(q.doctor_self_protects) for q in quality],
            "doctor_save_rate": [counted(q.doctor_saves) for q in quality]}
    out: dict[str, float] = {}
    for name, n in done.items():
        out |= ratio_interval(n, protects, seed, bounds=UNIT).ends(name)
    return out


def fallbacks(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell, seat model and action: replies replaced by the rules' fallback, in all and per game."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        for (model, action), f in out_.fallbacks_by_model_action(column(df, "fallbacks", dict)).items():
            yield {"seat_model": model, "action": action, "fallbacks": int(f["fallbacks"]), "per_game": f["per_game"]}

    return per_cell(games, rows)


def lesson_table(games: pd.DataFrame) -> pd.DataFrame:
    """Per learning cell: lessons added, their shares by ToM order and by strategy category; with a model
    tagger bound in some of its games, also the lessons it read, the readings lost and its shares by order."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        shares = les.lesson_shares(column(df, "lessons", les.LessonCounts))
        if math.isnan(shares["added_per_game"]):
            return
        tagger = les.tagger_shares(values(df, "tagger"))
        yield {"games": int(shares["games"]), "added": shares["added"], "per_game": shares["added_per_game"]} \
            | {k: shares[k] for k in les.ORDER_KEYS.values()} | {c: shares[c] for c in LESSON_CATEGORIES} \
            | ({} if math.isnan(tagger["tagger_asked"]) else tagger | {"tagger_model": _tagger_models(df)})

    return per_cell(games, rows)


def _tagger_models(df: pd.DataFrame) -> str:
    """The model taggers that read a cell's lessons, by name."""
    named: list[str] = list(df["tagger_model"].dropna()) if "tagger_model" in df else []
    return ", ".join(sorted(set(named)))


def learning_curve(games: pd.DataFrame) -> pd.DataFrame:
    """Per learning cell (its Jester added lessons): its win rate over consecutive blocks of games in play order,
    and cumulatively. A cell that did not learn has no curve: its blocks would only be the order games ended in."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        if math.isnan(les.lesson_shares(column(df, "lessons", les.LessonCounts))["added_per_game"]):
            return
        curve = out_.learning_curve(column(df, "outcome", out_.Outcome))
        if curve:
            yield curve

    return per_cell(games, rows)


def cost_by_model(games: pd.DataFrame) -> pd.DataFrame:
    """Per cell and seat model: games played, tokens (input, cached, output) and estimated USD, summed and per game.

    A cell with several seat models adds a row for all of them together: what its eval cost.
    """
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        usages = column(df, "usage", dict)
        by_model = cost_.cost_by_model(usages)
        for model, c in by_model.items():
            yield {"seat_model": model} | c
        if len(by_model) > 1:
            yield {"seat_model": ALL_SEATS} | cost_.pooled_cost([cost_.game_cost(u) for u in usages])

    return per_cell(games, rows)


def game_costs(games: pd.DataFrame) -> pd.DataFrame:
    """One row per game, in the report's game order: its cell, run, id, epoch and days, its tokens and estimated
    USD. ``run`` numbers the logs of a cell in the order the report reads them (1 for its first log), so a cell
    pooling two evals, whose samples share ids and epochs, names every game once."""
    runs: dict[tuple[Any, ...], dict[str, int]] = {}
    rows = []
    for r in games.to_dict("records"):
        logs = runs.setdefault(tuple(r[k] for k in CELL), {})
        run = logs.setdefault(r["log"], len(logs) + 1) if "log" in r else 1
        rows.append({k: r[k] for k in CELL} | {"run": run, "id": r["id"], "epoch": r["epoch"],
                                               "days": r["outcome"].days}
                    | cost_.game_cost(r["usage"]))
    return pd.DataFrame(rows)


def judge(games: pd.DataFrame) -> pd.DataFrame:
    """Per judged cell: the share of each true role's players the judge named correctly."""
    def rows(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
        judged: list[jud.Identification | None] = values(df, "judge")
        accuracy = jud.accuracy_figures(jud.pool(judged))
        if "unreadable" not in accuracy:
            return
        yield {"games": int(accuracy["games"])} | {r: accuracy[r] for r in ROLES} \
            | {"all": accuracy["all"], "unreadable": accuracy["unreadable"]} | _judge_intervals(judged, cell_seed(df))

    return per_cell(games, rows)


def _judge_intervals(per_game: list[jud.Identification | None], seed: int) -> dict[str, float]:
    """The judge names every player of a game in one reply, so its accuracies resample games, not players."""
    seated = [dict(g.by_role) if g is not None else {} for g in per_game]
    out: dict[str, float] = {}
    for name, roles in ({str(r): [r] for r in ROLES} | {"all": list(ROLES)}).items():
        named = [sum((s.get(r, Mean()) for r in roles), Mean()) for s in seated]
        out |= intervals(named, {"share": lambda m: m.value}, seed, bounds={"share": UNIT})["share"].ends(name)
    return out


def build(corpus: Corpus) -> dict[str, pd.DataFrame]:
    """Every table of the report by name, in the order the report shows them (none for a corpus without games)."""
    g = corpus.games
    if g.empty:
        return {}
    return {
        "win_rates": win_rates(g), "headline_scores": headline_scores(g), "wolf_loss": wolf_loss(g),
        "coordination": coordination(g),
        "calibration": calibration(g), "confidence_bins": confidence_bins(g), "type_yield": type_yield(g),
        "detection_by_role": detection_by_role(g), "detection_by_model": detection_by_model(g),
        "deception_by_role": deception_by_role(g), "deception_by_model": deception_by_model(g),
        "suspicion_by_day": suspicion_by(g, "day"), "suspicion_by_position": suspicion_by(g, "position"),
        "predictors": predictors(g), "halves": halves(g), "play_quality": play_quality(g),
        "fallbacks": fallbacks(g), "role_play": role_play(g), "cost_by_model": cost_by_model(g),
        "game_costs": game_costs(g), "judge": judge(g),
        "lessons": lesson_table(g), "learning_curve": learning_curve(g),
    }
