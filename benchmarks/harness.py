"""What the benchmarks share: ``-T`` values read as ``inspect eval`` reads them, and one eval played.

A benchmark imports it by name (``from harness import play``): Python puts a script's own folder,
``benchmarks/``, on ``sys.path``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import (
    EvalLog,
    EvalSample,
    read_eval_log,
    read_eval_log_sample_summaries,
    resolve_sample_attachments,
)

#: The ways a game ends, as the ``village_win`` score counts them.
FACTIONS = ("villagers", "werewolves", "jester", "draw")


def add_task_args(parser: argparse.ArgumentParser) -> None:
    """The ``-T NAME=VALUE`` option, repeatable, read into ``args.T`` (see :func:`task_args`)."""
    parser.add_argument("-T", action="append", default=[], metavar="NAME=VALUE",
                        help="a task parameter, as for inspect eval: a YAML value, a comma-separated one a list")


def task_args(pairs: Iterable[str]) -> dict[str, Any]:
    """``-T NAME=VALUE`` pairs as ``inspect eval -T`` reads them, so a benchmark plays what the command would.

    The value is YAML (``3`` an int, ``true`` a bool, ``[a, b]`` a list); a string value with commas
    is the list of its parts; a dash in a name is an underscore. A pair with no ``=`` stops the
    benchmark, where ``inspect eval`` would drop it without a word.
    """
    args: dict[str, Any] = {}
    for pair in pairs:
        name, eq, raw = pair.partition("=")
        if not eq or not name:
            raise SystemExit(f"-T {pair}: expected NAME=VALUE")
        value = yaml.safe_load(raw)
        if isinstance(value, str) and "," in value:
            value = value.split(",")
        args[name.replace("-", "_")] = value
    return args


def play(task: str | Task, log_dir: str | Path, what: str = "", **options: Any) -> tuple[EvalLog, float]:
    """Play one eval of a wolf-eval task (its name, e.g. ``triadic``, or a ``Task``) with its log in ``log_dir``.

    ``options`` go to ``inspect_ai.eval`` (``model``, ``task_args``, ``max_samples``, ...; the display
    is ``none`` unless given). Returns the log eval returned and the wall seconds it took; stops the
    benchmark, naming ``what`` (default: the task), unless every game finished.
    """
    options.setdefault("display", "none")
    start = time.perf_counter()
    [log] = inspect_eval(f"wolf_eval/{task}" if isinstance(task, str) else task, log_dir=str(log_dir), **options)
    wall = time.perf_counter() - start
    if log.status != "success":
        raise SystemExit(f"{what or task}: eval {log.status}: {log.error}")
    return log, wall


def game_counts(log: EvalLog) -> list[dict[str, float]]:
    """Each game's ``village_win`` counts (the winning faction's is 1, a triadic-only one is NaN elsewhere),
    with its ``fallback_rate`` counts (``calls``, ``fallbacks``).

    Read from the sample summaries: ``log.samples`` would load every game's events, which for 400
    games with deception analysis on is more memory than a small machine has.
    """
    return [{**s.scores["village_win"].metadata["counts"], **s.scores["fallback_rate"].metadata["counts"]}
            for s in read_eval_log_sample_summaries(log.location)]


def winner(counts: dict[str, float]) -> str:
    """The faction that won a game, from its ``village_win`` counts."""
    return next(f for f in FACTIONS if counts[f] == 1.0)


def logged_games(log: EvalLog | str) -> list[EvalSample]:
    """Every game of a log (or a log file's path) with its events, prompts resolved from attachments.

    Read whole: call it before the log's folder goes, if it is a temporary one.
    """
    location = log if isinstance(log, str) else log.location
    return [resolve_sample_attachments(s) for s in read_eval_log(location).samples or []]
