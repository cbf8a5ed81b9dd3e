"""The headline metrics of logs as they were written, beside the same games re-scored with today's scorers.

    python benchmarks/headlines.py /tmp/scores-cue /tmp/scores-tom /tmp/scores-random

For each log (a file, or every log in a folder) the logged metrics are "before" (whatever release
wrote the log) and "after" is ``inspect_ai.score`` with this checkout's scorers over the very same
games, read from each sample's store: no game is played again. A figure only one side has shows
as a dash. The table is Markdown, one row per figure and one column pair per log.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from inspect_ai import score
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from wolf_eval.tasks import game_scorers


def logged(log: EvalLog) -> dict[str, float]:
    """Each score's metric (the one a release named ``pooled``, or the one named after its score)."""
    assert log.results is not None
    return {s.name: next(iter(s.metrics.values())).value for s in log.results.scores if s.metrics}


def cell(v: float | None) -> str:
    return "–" if v is None else "NaN" if math.isnan(v) else f"{v:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", help="log files or folders")
    paths = [p for arg in parser.parse_args().logs
             for p in ([arg] if Path(arg).is_file() else [i.name for i in list_eval_logs(arg)])]
    columns: list[tuple[str, dict[str, float], dict[str, float]]] = []
    for path in paths:
        log = read_eval_log(path)
        before = logged(log)
        after = logged(score(log, game_scorers(), action="overwrite", display="none"))
        columns.append((f"{log.eval.model} ({len(log.samples or [])} games)", before, after))
    names = list(dict.fromkeys(n for _, b, a in columns for n in (*a, *b)))
    print("| figure | " + " | ".join(f"{label} before | after" for label, _, _ in columns) + " |")
    print("|---|" + "---|---|" * len(columns))
    for name in names:
        print(f"| `{name}` | " + " | ".join(f"{cell(b.get(name))} | {cell(a.get(name))}" for _, b, a in columns) + " |")


if __name__ == "__main__":
    main()
