"""Measures, once: every figure the report prints equals the log's figure for the same games.

The report recomputes each game's values from its record; the log holds the same per-game values
in the headline score's metadata and pools the headline metrics from them. One
:mod:`wolf_eval.measures` function pools both, so they must agree exactly. Checked on small
wolfbot games (a triadic learning run with a judge, and a wolf run with a hostile player, both
with deception analysis) and on the log release 0.1.0 wrote, which today's report, replay and
export must still read.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import learned, run
from inspect_ai.log import EvalLog, read_eval_log

from wolf_eval.analysis import report
from wolf_eval.cli import main
from wolf_eval.measures import calibration as cal
from wolf_eval.measures import identification as judge
from wolf_eval.measures import lessons, outcome, quality, sabotage
from wolf_eval.measures.tagger import CATEGORIES as LESSON_CATEGORIES

RELEASE = Path(__file__).parent / "data" / "release-0.1.0-triadic.eval"
SHORT = {"games": 3, "max_days": 3, "max_debate_turns": 2, "seed": 11}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[EvalLog]]:
    folder = tmp_path_factory.mktemp("measures")
    learning = {k: v for k, v in SHORT.items() if k != "games"} | {"max_explanation_turns": 1,
                                                                    "lessons_dir": str(folder / "lessons")}
    # a learning run is an eval per game: one game, so its eval is the report's whole cell, as the wolf eval is
    logs = [*learned("wolfbot/cue", folder, 1, model_roles={"judge": "wolfbot/tom"}, task_args=learning),
            run("wolf", "wolfbot/chaos", folder, task_args=SHORT)]
    assert all(log.status == "success" for log in logs), [log.error for log in logs]
    return folder, logs


def metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    assert log.results is not None
    return {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}


def the_row(df: Any, cell: tuple[str, str, str], **where: Any) -> dict[str, Any]:
    sel = df[(df["model"] == cell[0]) & (df["task"] == cell[1]) & (df["condition"] == cell[2])]
    for k, v in where.items():
        sel = sel[sel[k] == v]
    assert len(sel) == 1, f"{cell} {where}: {len(sel)} rows"
    return sel.iloc[0].to_dict()


def equal(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def as_logged(values: Any) -> Any:
    """A game's values as its score's metadata logs them (the report holds them typed; None: no judge)."""
    return judge.no_judge() if values is None else values.flat()


def calibration_figures(unit: cal.UnitCalibration) -> dict[str, float]:
    """The pooled calibration figures under the names release 0.1.0 logged them as metrics."""
    out: dict[str, float] = {}
    for role, c in unit.roles.items():
        out |= {f"{role}_self_rate": c.labels.self_rate, f"{role}_observer_rate": c.labels.observer_rate,
                f"{role}_gap": c.labels.gap, f"{role}_accuracy": c.confusion.accuracy, f"{role}_f1": c.confusion.f1,
                f"{role}_suspicion": c.suspicion.value}
        out |= {f"{role}_{t}": c.type_share(t) for t in cal.TYPES}
    for k, b in enumerate(unit.bins or ()):
        out |= {f"bin{k}_flags": b.flags, f"bin{k}_confidence": b.mean_confidence, f"bin{k}_hit_rate": b.hit_rate}
    return out


def logged_metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    """What the log's per-game values pool to, under the names release 0.1.0 logged as metrics."""
    if not any("village_win" in (s.scores or {}) for s in log.samples or []):
        return metrics(log)  # release 0.1.0 logged these metrics itself
    games = [s.scores["village_win"].metadata["values"] for s in log.samples]
    per = {k: [g[k] for g in games] for k in games[0]}
    ends = [outcome.Outcome.from_flat(v) for v in per["outcome"]]
    return {
        "outcome": {**{k: v for f, r in outcome.win_rates(ends).items()
                       for k, v in ((f"{f}", r.rate), (f"{f}_ci_low", r.low), (f"{f}_ci_high", r.high))},
                    "game_length": outcome.mean_days(ends),
                    "fallback_rate": outcome.fallback_rate(ends)},
        "quality": quality.play_quality([quality.PlayCounts.from_flat(v) for v in per["quality"]]),
        "self_sabotage": sabotage.sabotage_rates([sabotage.SelfSabotage.from_flat(v) for v in per["self_sabotage"]]),
        "calibration": calibration_figures(cal.pool(cal.UnitCalibration.from_flat(v) for v in per["calibration"])),
        "lessons": lessons.lesson_shares([lessons.LessonCounts.from_flat(v) for v in per["lessons"]]),
        "judge": judge.judge_accuracy([s.scores["judge"].metadata["counts"] for s in log.samples]),
    }


def assert_report_matches_metrics(folder: Path | str, logs: list[EvalLog]) -> int:
    """Every report figure equals the log's figure; returns how many figures were compared."""
    tables = report.build(report.load(folder))
    compared = 0

    def same(figure: float, metric: dict[str, float], key: str, what: str) -> None:
        nonlocal compared
        value = metric.get(key, math.nan)  # a metric left out of the summary (nothing measured) is NaN
        assert equal(float(figure), float(value)), f"{what}: report {figure}, eval metric {key} {value}"
        compared += 1

    for log in logs:
        cell = (log.eval.model, log.eval.task.split("/")[-1], report.condition_label(
            log.eval.task, log.eval.task_args, log.eval.metadata, log.eval.model_generate_config.model_dump()))
        m = logged_metrics(log)
        released = not any("village_win" in (x.scores or {}) for x in log.samples or [])
        rates = the_row(tables["win_rates"], cell)
        for f in outcome.FACTIONS:
            for column, key in ((f, f), (f"{f}_low", f"{f}_ci_low"), (f"{f}_high", f"{f}_ci_high")):
                if column != f and released:  # 0.1.0 logged Wilson's interval; now continuity-corrected
                    continue
                same(rates[column], m["outcome"], key, f"win rate {column}")
        same(rates["days"], m["outcome"], "game_length", "game length")
        quality = the_row(tables["play_quality"], cell)
        same(quality["fallback_rate"], m["outcome"], "fallback_rate", "fallback rate")
        for column, key in (("doctor_self_protect", "doctor_self_protect_rate"),
                            ("doctor_save_rate", "doctor_save_rate"), ("jester_first_bid", "jester_first_bid"),
                            ("jester_spoke_d1", "jester_spoke_d1")):
            same(quality[column], m["quality"], key, f"play quality {column}")
        wolf_side = the_row(tables["wolf_loss"], cell)
        for c in sabotage.CATEGORIES:
            same(wolf_side[f"{c}_share"], m["self_sabotage"], c, f"wolf-side category {c}")
        roles = tables["calibration"]
        roles = roles[roles["unit"] == "all units"] if not roles.empty else roles  # the eval pools every kind
        spoke = (set(roles[(roles["model"] == cell[0]) & (roles["task"] == cell[1])]["role"])
                 if not roles.empty else set())
        for role in spoke:
            r = the_row(roles, cell, role=role)
            # the eval pools each rate over every statement it has; the report prints the paired rates and
            # keeps those as *_unpaired
            for k, column in (("self_rate", "self_rate_unpaired"), ("observer_rate", "observer_rate_unpaired"),
                              ("gap", "gap_unpaired"), ("accuracy", "accuracy"), ("f1", "f1"),
                              ("suspicion", "suspicion")):
                if k == "suspicion" and released:  # 0.1.0 pooled every rating; now each statement's mean
                    continue
                same(r[column], m["calibration"], f"{role}_{k}", f"calibration {role} {k}")
        if not tables["type_yield"].empty:
            for y in tables["type_yield"].to_dict("records"):
                if (y["model"], y["task"], y["condition"]) == cell and y["unit"] == "all units":
                    same(y["share"], m["calibration"], f"{y['role']}_{y['type']}",
                         f"type share {y['role']} {y['type']}")
        bins = tables["confidence_bins"]
        bins = bins[bins["unit"] == "all units"] if not bins.empty else bins
        for k in range(cal.BINS):
            if not math.isnan(m["calibration"].get(f"bin{k}_flags", math.nan)):  # a bin with flags
                b = the_row(bins, cell, bin=cal.bin_label(k))
                for c in ("flags", "confidence", "hit_rate"):
                    same(b[c], m["calibration"], f"bin{k}_{c}", f"confidence bin {k} {c}")
        if not math.isnan(m["lessons"]["added_per_game"]):
            lessons = the_row(tables["lessons"], cell)
            same(lessons["per_game"], m["lessons"], "added_per_game", "lessons per game")
            for key in (*(f"order_{o}" for o in (1, 2, 3)), *LESSON_CATEGORIES):
                same(lessons[key], m["lessons"], key, f"lesson share {key}")
        if not math.isnan(m["judge"]["all"]):
            judged = the_row(tables["judge"], cell)
            for key in (*cal.ROLES, "all", "unreadable"):
                same(judged[key], m["judge"], key, f"judge accuracy {key}")
    return compared


@pytest.mark.slow
def test_the_report_prints_the_eval_metrics(played: tuple[Path, list[EvalLog]]) -> None:
    folder, logs = played
    m = logged_metrics(logs[0])
    # the games exercise what is compared: analysis, lessons, a judge, fallbacks
    assert "jester_self_rate" in m["calibration"] and m["lessons"]["added_per_game"] > 0
    assert not math.isnan(m["judge"]["all"]) and logged_metrics(logs[1])["outcome"]["fallback_rate"] > 0
    assert assert_report_matches_metrics(folder, logs) > 60


@pytest.mark.slow
def test_the_headline_metrics_are_the_reports_figures(played: tuple[Path, list[EvalLog]]) -> None:
    folder, logs = played
    tables = report.build(report.load(folder))
    for log in logs:
        head = {k: v[k] for k, v in metrics(log).items() if k != "cost"}  # each score's metric carries its name
        cell = (log.eval.model, log.eval.task.split("/")[-1], report.condition_label(
            log.eval.task, log.eval.task_args, log.eval.metadata, log.eval.model_generate_config.model_dump()))
        rates = the_row(tables["win_rates"], cell)
        for name, faction in (("village_win", "villagers"), ("wolves_win", "werewolves"), ("jester_win", "jester")):
            assert equal(head[name], rates[faction]), name
        assert equal(head["fallback_rate"], the_row(tables["play_quality"], cell)["fallback_rate"])
        assert equal(metrics(log)["judge"]["judge"], logged_metrics(log)["judge"]["all"])
        assert len(head) + 1 <= 13  # the cost score is the thirteenth
        spent = tables["game_costs"]
        spent = spent[(spent["model"] == cell[0]) & (spent["task"] == cell[1]) & (spent["condition"] == cell[2])]
        tokens = spent["input_tokens"] + spent["cached_tokens"] + spent["output_tokens"]
        assert metrics(log)["cost"]["tokens"] == tokens.sum() and len(spent) == len(log.samples or [])
        # the role-fair headlines read against the report's per-role rows: the wolves' Gap, the mean of the
        # roles' Accuracy, the mean of the village roles' AUROC wolves (all units; each role weighted equally)
        roles = tables["calibration"][tables["calibration"]["unit"] == "all units"]
        mine = roles[(roles["model"] == cell[0]) & (roles["task"] == cell[1])]
        assert head["wolf_self_label_gap"] == pytest.approx(the_row(roles, cell, role="werewolf")["gap"], nan_ok=True)
        assert head["self_label_agreement"] == pytest.approx(mine["accuracy"].dropna().mean())
        seen = tables["detection_by_role"]
        village = seen[(seen["model"] == cell[0]) & seen["observer"].isin(["villager", "seer", "doctor"])]
        assert head["village_wolf_auroc"] == pytest.approx(village["auroc_wolves"].dropna().mean())


@pytest.mark.slow
def test_the_report_pools_the_per_game_scores_the_log_holds(played: tuple[Path, list[EvalLog]]) -> None:
    """A cell's figures are pooled from the same per-game values the log holds, game for game."""
    folder, logs = played
    corpus = report.load(folder)
    for log in logs:
        games = corpus.games[corpus.games["model"] == log.eval.model]
        ordered = sorted(log.samples, key=lambda s: int(s.id))
        for scorer in ("outcome", "self_sabotage", "calibration", "quality", "judge", "lessons"):
            logged = [s.scores["judge"].metadata["counts"] if scorer == "judge"
                      else s.scores["village_win"].metadata["values"][scorer] for s in ordered]
            read = [as_logged(v) for v in report.values(games, scorer)]
            assert len(read) == len(logged) == len(log.samples or [])
            assert all(a.keys() == b.keys() and all(equal(a[k], float(b[k])) for k in b)
                       for a, b in zip(read, logged, strict=True)), scorer


def test_the_release_logs_per_game_scores_are_what_its_records_give_today() -> None:
    """Release 0.1.0 logged each game's values as scores; today's measures, from its records, agree,
    except the suspicion a statement attracted, now its raters' mean (it was every rating pooled)."""
    corpus = report.load(RELEASE)
    log = read_eval_log(str(RELEASE))
    ordered = sorted(log.samples, key=lambda s: int(s.id))
    for scorer in ("outcome", "self_sabotage", "calibration", "quality", "lessons"):
        read = [as_logged(v) for v in report.values(corpus.games, scorer)]
        logged = [s.scores[scorer].value for s in ordered]
        assert all(all(equal(a[k], float(b[k])) for k in b if not k.endswith(("suspicion_sum", "suspicion_n")))
                   for a, b in zip(read, logged, strict=True)), scorer


# --------------------------------------------------------------------------- release 0.1.0


def test_the_release_log_reports_as_before() -> None:
    tables = report.build(report.load(RELEASE))
    [rates] = tables["win_rates"].to_dict("records")
    assert (rates["model"], rates["task"], rates["games"]) == ("wolfbot/cue", "triadic", 2)
    # 2 of 2 games: Wilson's interval with the continuity correction (0.4 printed Wilson's, [0.34, 1.00])
    assert (rates["jester"], round(rates["jester_low"], 2), rates["jester_high"]) == (1.0, 0.20, 1.0)
    assert (rates["villagers"], rates["werewolves"], rates["draw"], rates["days"]) == (0.0, 0.0, 0.0, 1.0)
    headline = report.headline_markdown(tables["win_rates"])
    assert "| wolfbot/cue | triadic | " + rates["condition"] + " | 0.0000 | 2 | 0.00 [0.00, 0.80] | " \
           "0.00 [0.00, 0.80] | 1.00 [0.20, 1.00] | 0.00 [0.00, 0.80] | 1.0 |" in headline
    assert assert_report_matches_metrics(RELEASE, [read_eval_log(str(RELEASE))]) > 30


def test_the_release_log_replays_and_exports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(RELEASE)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all(
        line.endswith("replays exactly (241 replies, 13 waves, 94 records, scores equal)") for line in lines), lines
    assert main(["export", str(RELEASE), "--out", str(tmp_path)]) == 0
    written = capsys.readouterr().out.split()
    assert written and all(Path(p).is_file() for p in written)
    events = [json.loads(line) for p in written if p.endswith(".ndjson")
              for line in Path(p).read_text(encoding="utf-8").splitlines()]
    assert events and {"timestamp", "day", "phase", "step", "event", "actor", "details"} <= set(events[0])


#: How a second copy of a formula would read: F1 and accuracy from confusion counts, a calibration gap,
#: a confusion cell chosen from a flag and a label.
FORMULA_COPIES = (r"2\s*\*\s*[\w.]*tp\b", r"\btp\s*\+\s*[\w.]*tn\b", r"observer_rate\w*\s*-\s*[\w.]*self_rate",
                  r"flag_share\W+.*-\W*.*self_deceptive", r'"tp" if|"fp" if|"fn" if', r"\btp\s*\+=")


def formula_copies(text: str) -> list[str]:
    import re

    return [line.strip() for line in text.splitlines() if any(re.search(p, line) for p in FORMULA_COPIES)]


def test_each_formula_is_written_once() -> None:
    """The calibration gap, accuracy, F1 and the confusion counts live in ``wolf_eval/measures/rates.py``;
    the headline scores, the report, ``compare`` and the explanation call them."""
    root = Path(__file__).resolve().parents[1]
    home = root / "wolf_eval" / "measures" / "rates.py"
    copies = {str(p.relative_to(root)): formula_copies(p.read_text(encoding="utf-8"))
              for folder in ("wolf_eval", "scorers", "solvers", "tasks") for p in (root / folder).rglob("*.py")
              if p != home}
    assert {k: v for k, v in copies.items() if v} == {}
    assert formula_copies(home.read_text(encoding="utf-8"))  # the patterns do see the formulas where they live


def test_a_second_copy_of_a_formula_is_caught() -> None:
    old_compare = ('''    return (float(g["flag_share"].sum()) - float(g["self_deceptive"].sum())) / paired'''
                   ''' if paired else math.nan''')
    old_explain = '''        if 2 * tp + fp + fn:'''
    old_gap = '''        out[f"{r}_gap"] = observer_rate - self_rate'''
    assert all(formula_copies(code) for code in (old_compare, old_explain, old_gap))


@pytest.mark.slow
def test_a_release_log_beside_todays_logs_reads_both(played: tuple[Path, list[EvalLog]], tmp_path: Path) -> None:
    """The 0.1.0 log kept its judge's counts as a dict-valued score; beside today's logs, whose judge score is a
    number (NaN without a judge), ``samples_df`` makes that column text. The report reads both kinds of game."""
    folder, logs = played
    for path in [*folder.glob("*.eval"), RELEASE]:
        shutil.copy(path, tmp_path / path.name)
    corpus = report.load(tmp_path)
    assert len(corpus.games) == len(read_eval_log(str(RELEASE)).samples) + sum(len(log.samples) for log in logs)
    judged = [v for v in report.values(corpus.games, "judge") if v is not None]
    assert len(judged) == len(logs[0].samples or [])  # the triadic eval's judge; the release and the wolf eval had none
