"""The tasks as the Inspect Evals Register and its linter see them: ``@task`` functions in ``wolf_eval/tasks.py``.

The Register names each task by its file (``wolf_eval/tasks.py``) and function; the linter reads the
decorator from the source, Inspect from its registry. Both must find the same three tasks, each
playing its games with the ``play_game`` solver and taking the parameter table's ``-T`` names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml
from inspect_ai._util.registry import registry_info  # tests may read Inspect's registry directly

from wolf_eval.settings import PARAMETERS, Settings
from wolf_eval.solvers.play import play_game
from wolf_eval.tasks import dyadic, triadic, wolf

ROOT = Path(__file__).resolve().parents[1]
TASK_FILE = ROOT / "wolf_eval" / "tasks.py"
TASKS = {"wolf": wolf, "triadic": triadic, "dyadic": dyadic}


def decorated_tasks(path: Path) -> list[str]:
    """The functions of ``path`` decorated with ``@task``, read from the source as the linter reads them."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
            and any(isinstance(d, ast.Name) and d.id == "task" for d in node.decorator_list)]


def test_each_task_is_a_task_function_in_the_file_the_register_names() -> None:
    assert decorated_tasks(TASK_FILE) == list(TASKS)
    for name, function in TASKS.items():
        info = registry_info(function)
        assert (info.type, info.name) == ("task", f"wolf_eval/{name}")
        assert info.metadata["params"] == [*PARAMETERS, "unknown"]


@pytest.mark.parametrize("name", list(TASKS))
def test_each_task_plays_its_games_with_play_game_under_its_settings(name: str) -> None:
    made = TASKS[name](games=2, history="full")
    assert registry_info(made.solver).name == "wolf_eval/play_game"
    assert registry_info(play_game(Settings.defaults(name))).name == "wolf_eval/play_game"  # type: ignore[arg-type]
    assert made.metadata["settings"] == Settings.from_task_args(name, games=2, history="full").model_dump(mode="json")
    assert len(made.dataset) == 2


def test_eval_yaml_and_the_register_entry_name_the_tasks_and_files_that_exist() -> None:
    """eval.yaml's tasks, and the draft Register entry's task paths and functions, are the ones the code defines."""
    meta = yaml.safe_load((ROOT / "wolf_eval" / "eval.yaml").read_text(encoding="utf-8"))
    assert [t["name"] for t in meta["tasks"]] == list(TASKS)
    assert {t["dataset_samples"] for t in meta["tasks"]} == {Settings.model_fields["games"].default}
    assert meta["arxiv"] == ["https://arxiv.org/abs/2512.09187", "https://arxiv.org/abs/2606.27909"]
    entry = yaml.safe_load((ROOT / "examples" / "register" / "eval.yaml").read_text(encoding="utf-8"))
    for listed in entry["tasks"]:
        assert (ROOT / listed["task_path"]).is_file()
        assert listed["name"] in decorated_tasks(ROOT / listed["task_path"])
    assert [t["name"] for t in entry["tasks"]] == list(TASKS)
    assert len(entry["source"]["repository_commit"]) == 40
