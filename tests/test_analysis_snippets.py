"""The pandas snippets of docs/analysis.md, run as written on a folder holding a ``wolf-eval compare`` run and an
eval with ``--model-role`` bindings: each matchup is its own group.

The snippets once grouped games by the wolves' and the village's models only, which pooled a compare run's
"cue as the Jester" games with its "tom as the Jester" games (the other seats the same reference), and read the
evals' faction models from metadata a compare run did not record, so one eval of seven had a group.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from helpers import run

from wolf_eval.cli import main

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "analysis.md"
SHORT = {"games": 1, "max_days": 1, "max_debate_turns": 1, "max_explanation_turns": 1, "deception_analysis": False}


def snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


def run_snippet(code: str, logs: Path) -> dict[str, Any]:
    assert code.count('"logs"') >= 1, "a snippet reads the folder named \"logs\""
    namespace: dict[str, Any] = {}
    exec(compile(code.replace('"logs"', repr(str(logs))), str(PAGE), "exec"), namespace)  # noqa: S102
    return namespace


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("snippets")
    args = [a for k, v in SHORT.items() for a in ("-T", f"{k}={str(v).lower()}")]
    assert main(["compare", "wolfbot/cue", "wolfbot/tom", "--against", "wolfbot/random", "--task", "triadic",
                 "--log-dir", str(folder), "--display", "none", *args]) == 0
    run("triadic", model="wolfbot/cue", log_dir=folder, model_roles={"jester": "wolfbot/tom"}, task_args=SHORT)
    return folder


#: The seven matchups (village, wolves, Jester): each compared model in each faction against the reference, and
#: the --model-role eval.
MATCHUPS = {("wolfbot/cue", "wolfbot/random", "wolfbot/random"), ("wolfbot/random", "wolfbot/cue", "wolfbot/random"),
            ("wolfbot/random", "wolfbot/random", "wolfbot/cue"), ("wolfbot/tom", "wolfbot/random", "wolfbot/random"),
            ("wolfbot/random", "wolfbot/tom", "wolfbot/random"), ("wolfbot/random", "wolfbot/random", "wolfbot/tom"),
            ("wolfbot/cue", "wolfbot/cue", "wolfbot/tom")}


def test_the_page_has_the_two_snippets() -> None:
    assert len(snippets()) == 2


@pytest.mark.slow
def test_the_games_snippet_groups_each_matchup_apart(logs: Path) -> None:
    wins = run_snippet(snippets()[0], logs)["wins"]
    groups = {key[1:4] for key in wins.index}
    assert groups == MATCHUPS
    assert all(key[0] == "triadic" for key in wins.index)
    # each group's shares of its games' winners sum to 1: one game each
    assert wins.groupby(level=[0, 1, 2, 3], dropna=False).sum().round(9).eq(1).all()


@pytest.mark.slow
def test_the_evals_snippet_gives_every_eval_its_matchup(logs: Path) -> None:
    namespace = run_snippet(snippets()[1], logs)
    evals = namespace["evals"]
    assert len(evals) == 7
    assert evals[["villagers_model", "werewolves_model", "jester_model"]].notna().all().all()
    table = evals.groupby(namespace["matchup"], dropna=False).completed_samples.sum()
    assert {key[1:] for key in table.index} == MATCHUPS and table.eq(1).all()
    # and the log list tells a compare run's evals apart by their tag, which leads with who played which side and
    # names the score the list's SCORE column shows
    tags = set(evals.tags)
    assert {"wolfbot/cue as Jester against wolfbot/random · SCORE: village_win",
            "wolfbot/tom as wolves against wolfbot/random · SCORE: village_win", "SCORE: village_win"} <= tags
