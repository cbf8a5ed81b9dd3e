"""The same games give the same numbers: every eval metric and every report cell, as recorded.

``tests/data/same_numbers.json`` was recorded from the code at commit 11b65a7 (before the report
was split into its reading, tables, Markdown and figures modules). It holds, for three small evals
played offline on the wolfbot players (triadic on ``cue`` with a judge and ``jester_learning``; wolf
on ``tom`` with its wolves on ``chaos``, so the fallback tables have rows; dyadic on ``random``) and
for the shipped log ``tests/data/release-0.1.0-triadic.eval``:

- every eval metric of each log (``log.results.scores``: score, scorer, metric, value); the shipped
  log is re-scored with today's scorers first (``inspect_ai.score``), since the metrics it was
  written with are fixed in the file and could not show a change, and
- every cell of every table the report builds from them (``build(load(...))``):
  the three played logs as one corpus (three cells, so the predictors' pooled rows are drawn),
  and the shipped log alone.

Re-recorded for issue 26 point 4: the coordination table gained ``abstained`` and the predictors
``p_perm``, ``varying`` and ``abstained``; no cell recorded before changed. Re-recorded for issue 26
point 3: the calibration, confidence-bin, type-yield, detection, suspicion, play-quality (the Doctor's
rates) and judge tables gained ``_low`` and ``_high`` columns (intervals from resampling games); no
cell recorded before changed.

Re-recorded for issue 26 point 2 and issue 27 point 3: every metric is named after its score (was
``pooled``); ``calibration_gap`` and ``detection_f1`` gave way to ``wolf_self_label_gap``,
``self_label_agreement`` and ``village_wolf_auroc``; no other metric and no report cell changed.

Re-recorded for issue 29 point 5: the ``cost`` score's four metrics (``usd_per_game``, ``usd``,
``tokens_per_game``, ``tokens``) were added to every log's metrics (dollars null: the wolfbot players
have no price; tokens null for the release log, which recorded no usage); nothing else changed.

Re-recorded for issue 26 point 2 (the report shows each role-made headline beside its per-role figures):
the ``headline_scores`` table was added to both corpora; no other table, cell or metric changed.

Re-recorded for issue 29 (0.4.0: ``history=compact`` the default): the played evals pass
``history=full``, as recorded, and every cell's condition now names it (``history=full, ...``), the
release log's too (it was played on full history, then the default); no other cell and no metric changed.

Re-recorded for issue 29 (0.4.2: the deception types are stated once in the rules, which every call
of a game shares and a prompt cache serves, instead of at the tail of each analysis): only the prompt
token counts changed (the ``cost`` score's ``tokens`` and ``tokens_per_game``, the cost table's input
tokens); no other cell and no metric changed.

Re-recorded for issue 38 (points 3 and 4): the ``wolfbot`` players' usage is counted in o200k tokens,
with the response schema among the prompt's tokens (was four characters a token, schema left out), and
their replies are what a strict decoder could return (no ``is_deceptive`` beside the deception type,
``notes`` null where they had none, confidence and suspicion on the schema's 0.05 grid). The games are
the same (``tests/test_same_games.py``) and no fallback moved; what changed: the ``cost`` score's
``tokens`` and ``tokens_per_game`` (all three evals) and the cost tables' token columns; every figure
read from a confidence or a suspicion, now on the grid: the dyadic eval's ``village_wolf_auroc``
(0.5171 -> 0.5011) and its headline row, the calibration, confidence-bin, type-yield, detection,
suspicion-by-day and -position tables, and the predictors' mean of the Jester's attracted suspicion.

Re-recorded for deception against the truth and intervals that hold at ten games: the ``draw`` score
left the results (what the three win shares leave of 1) and ``jester_suspicion_rank`` joined them;
every headline score and the judge's gained ``<name>_low`` and ``<name>_high`` metrics; the report
gained the ``deception_by_role`` and ``deception_by_model`` tables, the headline table's
``value_low``/``value_high`` and ``jester_suspicion_rank`` rows, the per-game cost table's ``run``,
and every per-cell table's ``fallback_over`` in place of ``sample`` (a sensitivity row no cell could
have); the predictors lost Pearson's ``p``. Every ``_low`` and ``_high`` cell changed on purpose (the
studentized bootstrap over games; win rates Wilson's with a continuity correction); no other cell and
no metric recorded before changed (each compared by its cell and row key).

Re-recorded for intervals that hold for every headline: an interval over games whose games all gave the
same value was a point (``low == high``); it is now the interval so many agreeing games allow
(``wolf_eval.resample.unseen``), and so is one whose standard error is rounding (``AGREE``). Only
those 346 ``_low`` and ``_high`` cells moved (each was equal to its figure before, up to rounding); no
figure, no other interval and no metric recorded before changed.

Edited for learning as one eval per game: the triadic learning run is three one-game evals, so the
per-game cost table numbers its games' logs ``run`` 1, 2 and 3 (was 1, 1, 1: one log); its eval
metrics are the three games pooled again (``score`` over their samples), as the one eval's were. No
other cell and no metric changed.

Re-recorded for shorter prompts (the rules, roles and instructions say each thing once): only the
prompt token counts moved: the ``cost`` score's ``tokens`` and ``tokens_per_game``, the per-game cost
table's ``input_tokens`` and the per-model one's ``input_tokens`` and ``input_tokens_per_game``; the games,
every other metric and every other cell are unchanged.

Re-recorded for intervals drawn on a logit scale: the studentized interval over games is drawn on the logit of
the figure's place in its range (``wolf_eval.resample.Scale``), so near an end it leans towards the middle. Only
``_low`` and ``_high`` cells moved (834 of them: 22 metrics, 812 table cells, compared by their cell and row key); no
figure, no win rate's interval and no other cell or metric changed.

Re-recorded for the agreeing games' interval taken two-sided (``resample.unseen``: 2.5% left for a miss at each
end, ``1 - 0.025 ** (1 / n)`` of the way to either end, was ``1 - 0.05 ** (1 / n)``): only the 346 ``_low`` and
``_high`` cells of intervals over agreeing games moved, each to what the new share gives; nothing else changed.

Re-recorded for intervals over games of one length (0.8.0): the shipped log's games all ended on day 1 under a
cap of 2 days, so its three pooled headlines' intervals widen to what so many games allow of longer games
(``wolf_eval.resample.one_length``): its six ``_low``/``_high`` metrics and the release report's headline rows
moved, and that table gained the ``value_widened`` column saying why; the played evals, every other cell and every
other metric are unchanged.

Re-recorded for games that mostly agree (0.9.0): where more than half of an interval's games give one value and a
few differ, the interval reaches at least as far as the share of differing games could be
(``wolf_eval.resample.few_differ``). Only 35 ``_low``/``_high`` cells of the played evals' detail tables moved
(calibration, confidence bins, type yield, detection by role and by model, suspicion by day and by position, the
judge), every one outward; no figure, no headline table's cell and no eval metric changed.

A refactor that changes any figure a published table or an eval's score holds fails here.

Serialised deterministically: NaN as null, floats rounded to 10 significant digits, columns and
rows in the order the tables hold them. What varies from run to run is each log's location, eval
id and times, and the lessons folder's path; none of them is recorded. Of a log only its scores
are read, and no table holds any of them: the per-game frame's ``log``, ``created`` and ``game``
columns never reach a table, and ``lessons_dir`` is not part of a cell's condition. Everything
else (the wolfbot players' replies and token counts, every table cell) was the same on every run.

To record again (only when a change of numbers is intended, and say why in the commit)::

    WOLF_EVAL_RECORD=1 .venv/bin/pytest tests/test_same_numbers.py

which rewrites the JSON from the code as it is and then compares against what it wrote.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers import learned, run
from inspect_ai import score
from inspect_ai.log import EvalLog, read_eval_log

from wolf_eval.analysis.corpus import load
from wolf_eval.analysis.tables import build
from wolf_eval.tasks import game_scorers

pytestmark = pytest.mark.slow

DATA = Path(__file__).parent / "data"
RECORDED = DATA / "same_numbers.json"
RELEASE = DATA / "release-0.1.0-triadic.eval"
RECORD = os.environ.get("WOLF_EVAL_RECORD") == "1"

#: Recorded on the fixed layout (seat i always the same name, lists in seat order) and with one call per
#: decision (the only way before joint calls), so played so again: a hostile ``chaos`` reply to a joint
#: call sinks every decision it asked, so the wolf eval's chaos games would differ under joint calls, and
#: every call's tokens would. ``tests/test_joint.py`` shows the other players play the same games either way.
SHORT = {"games": 3, "max_debate_turns": 1, "max_explanation_turns": 1, "max_days": 2, "seating": "fixed",
         "calls": "per_decision", "history": "full"}
#: (task, model, extra task args, extra eval args): the played logs. The lessons folder is filled in per run.
PLAYED: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
    ("triadic", "wolfbot/cue", {"jester_learning": True}, {"model_roles": {"judge": "wolfbot/cue"}}),
    ("wolf", "wolfbot/tom", {}, {"model_roles": {"werewolf": "wolfbot/chaos"}}),
    ("dyadic", "wolfbot/random", {}, {}),
]


def number(v: Any) -> Any:
    """A value as the JSON holds it: NaN as null, floats to 10 significant digits, containers element-wise."""
    if isinstance(v, dict):
        return {str(k): number(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [number(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, str):  # numpy scalars
        v = v.item()
    if isinstance(v, bool) or v is None or isinstance(v, str | int):
        return v
    if isinstance(v, float):
        return None if math.isnan(v) else float(f"{v:.10g}")
    raise TypeError(f"unexpected value in a table: {v!r} ({type(v).__name__})")


def metrics(log: EvalLog) -> list[list[Any]]:
    """Every eval metric of a log: [score name, scorer, metric, value]."""
    assert log.results is not None
    return [[s.name, s.scorer, name, number(m.value)] for s in log.results.scores for name, m in s.metrics.items()]


def cells(tables: dict[str, pd.DataFrame]) -> dict[str, dict[str, Any]]:
    """Every table's columns and rows, in the order the report holds them."""
    return {key: {"columns": [str(c) for c in df.columns],
                  "rows": [[number(v) for v in row] for row in df.itertuples(index=False, name=None)]}
            for key, df in tables.items()}


def as_text(numbers: dict[str, Any]) -> str:
    """The JSON with one metric or one table row a line, so a re-recording's diff names the cells it changed."""
    def line(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False)

    out = ['{"metrics": {']
    out += [",\n".join(f" {line(log)}: [\n" + ",\n".join(f"  {line(m)}" for m in ms) + "]"
                       for log, ms in numbers["metrics"].items()), '},', '"tables": {']
    corpora = []
    for corpus, tables in numbers["tables"].items():
        parts = [f"  {line(key)}: {{\"columns\": {line(t['columns'])},\n   \"rows\": ["
                 + ",".join(f"\n    {line(r)}" for r in t["rows"]) + "]}" for key, t in tables.items()]
        corpora.append(f" {line(corpus)}: {{\n" + ",\n".join(parts) + "}")
    out += [",\n".join(corpora), "}}"]
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("same_numbers")
    logs: dict[str, list[list[Any]]] = {}
    for task, model, extra, eval_args in PLAYED:
        if extra.get("jester_learning"):  # an eval per game: the run's metrics are its games' pooled again
            args = {k: v for k, v in SHORT.items() if k != "games"} | {"lessons_dir": str(folder / "lessons")}
            run_logs = learned(model, folder / "logs", SHORT["games"], task_args=args, **eval_args)
            log = run_logs[0].model_copy(update={"samples": [s for x in run_logs for s in x.samples or []]})
            log = score(log, game_scorers(), action="overwrite", display="none")
        else:
            log = run(task, model, folder / "logs", task_args=SHORT | extra, **eval_args)
        assert log.status == "success", log.error
        logs[f"{task} {model}"] = metrics(log)
    shipped = read_eval_log(str(RELEASE))
    logs[f"{RELEASE.name} re-scored"] = metrics(score(shipped, game_scorers(), action="overwrite", display="none"))
    numbers = {"metrics": logs,
               "tables": {"played": cells(build(load(folder / "logs"))), "release": cells(build(load(RELEASE)))}}
    if RECORD:
        RECORDED.write_text(as_text(numbers), encoding="utf-8")
    return numbers


@pytest.fixture(scope="module")
def recorded(observed: dict[str, Any]) -> dict[str, Any]:
    return json.loads(RECORDED.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_every_eval_metric_is_unchanged(observed: dict[str, Any], recorded: dict[str, Any]) -> None:
    assert list(observed["metrics"]) == list(recorded["metrics"])
    for log, then in recorded["metrics"].items():
        now = observed["metrics"][log]
        assert [m[:3] for m in now] == [m[:3] for m in then], f"{log}: the scores or metrics differ"
        changed = [f"{name}/{metric}: {was} -> {value}"
                   for (name, _, metric, was), (*_, value) in zip(then, now, strict=True) if was != value]
        assert not changed, f"{log}: " + "; ".join(changed)


@pytest.mark.parametrize("corpus", ["played", "release"])
def test_every_report_cell_is_unchanged(observed: dict[str, Any], recorded: dict[str, Any], corpus: str) -> None:
    now, then = observed["tables"][corpus], recorded["tables"][corpus]
    assert list(now) == list(then), "the report builds other tables"
    for key, table in then.items():
        assert now[key]["columns"] == table["columns"], f"{key}: the columns differ"
        assert len(now[key]["rows"]) == len(table["rows"]), f"{key}: the number of rows differs"
        changed = [f"row {i} {col}: {was!r} -> {value!r}"
                   for i, (old, new) in enumerate(zip(table["rows"], now[key]["rows"], strict=True))
                   for col, was, value in zip(table["columns"], old, new, strict=True) if was != value]
        assert not changed, f"{key}: {len(changed)} cells differ: " + "; ".join(changed[:10])
