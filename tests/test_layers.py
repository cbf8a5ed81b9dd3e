"""Imports point down the layers only (docs/design.md, § Layers), read from the source with ``ast``.

Every import counts, including ones inside functions and relative ones.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The front door: the modules Inspect loads (the tasks, their solver and their scorers).
INSPECT_LAYER = ("wolf_eval.tasks", "wolf_eval.scorers", "wolf_eval.solvers")
INSPECT_LAYER_FILES = ("wolf_eval/tasks.py", "wolf_eval/scorers", "wolf_eval/solvers")


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    parts = list(rel.parts[:-1])
    if rel.name != "__init__.py":
        parts.append(rel.stem)
    return ".".join(parts)


def imports_of(path: Path) -> Iterator[tuple[int, str]]:
    """(line, imported name) for every import in the file; ``from a import b`` yields ``a.b``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def sources(*places: str) -> list[Path]:
    """The Python files of each folder, or the file itself."""
    files = [p for f in places for p in ((ROOT / f).rglob("*.py") if (ROOT / f).is_dir() else [ROOT / f])]
    return sorted(p for p in files if "egg-info" not in p.parts)


def under(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def violations(files: list[Path], forbidden: tuple[str, ...] = (), allowed: tuple[str, ...] | None = None,
               scope: str = "wolf_eval") -> list[str]:
    """Imports of a forbidden package, or (with ``allowed``) of any package of ``scope`` outside the allowed ones."""
    bad = []
    for path in files:
        for line, name in imports_of(path):
            if under(name, *forbidden) or (allowed is not None and under(name, scope) and not under(name, *allowed)):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    return bad


def test_module_names_are_their_paths() -> None:
    assert module_name(ROOT / "wolf_eval" / "scorers" / "judge.py") == "wolf_eval.scorers.judge"
    assert module_name(ROOT / "wolf_eval" / "measures" / "__init__.py") == "wolf_eval.measures"
    assert dict(imports_of(ROOT / "wolf_eval" / "measures" / "outcome.py")).values()


def test_only_the_registry_imports_the_inspect_layer() -> None:
    """The rest of the package (the game, the agents, the measures, the analysis) never reaches up into it; the
    package's ``__init__`` exports the tasks by name, imported on first use."""
    entry = (ROOT / "wolf_eval" / "_registry.py", ROOT / "wolf_eval" / "__init__.py")
    files = [p for p in sources("wolf_eval") if p not in entry and p not in sources(*INSPECT_LAYER_FILES)]
    assert violations(files, forbidden=INSPECT_LAYER) == []


def test_the_engine_and_the_record_vocabulary_stand_alone() -> None:
    files = [*sources("wolf_eval/engine"), ROOT / "wolf_eval" / "records.py"]
    forbidden = ("inspect_ai", "wolf_eval.agents", "wolf_eval.solvers", "wolf_eval.measures", "wolf_eval.analysis",
                 "wolf_eval.scorers", "wolf_eval.tasks", "wolf_eval.providers", "wolf_eval.baseline", "wolf_eval.store")
    assert violations(files, forbidden=forbidden) == []


def test_measures_read_only_records_vocabulary_engine_store_and_stats() -> None:
    """The lessons' taggers are measures now; the learning loop (``wolf_eval.lessons``) is not read by any."""
    allowed = ("wolf_eval.measures", "wolf_eval.records", "wolf_eval.engine", "wolf_eval.store", "wolf_eval.stats",
               "wolf_eval.vocabulary")
    assert violations(sources("wolf_eval/measures"), allowed=allowed) == []


def test_the_baseline_players_read_only_the_observation() -> None:
    """The bots play a seat as a model would, from its observation: no Inspect, no provider, no stored game."""
    forbidden = ("inspect_ai", "wolf_eval.providers", "wolf_eval.store", "wolf_eval.measures", "wolf_eval.analysis",
                 *INSPECT_LAYER)
    assert violations(sources("wolf_eval/baseline"), forbidden=forbidden) == []


@pytest.mark.parametrize("folder,forbidden", [
    ("wolf_eval/scorers", ("wolf_eval.solvers", "wolf_eval.tasks")),
    ("wolf_eval/solvers", ("wolf_eval.scorers", "wolf_eval.tasks")),
    ("wolf_eval/analysis", ("wolf_eval.agents", "wolf_eval.providers", "wolf_eval.baseline", "wolf_eval.replay",
                           "wolf_eval.cli")),
])
def test_the_inspect_layer_and_analysis_point_down(folder: str, forbidden: tuple[str, ...]) -> None:
    assert violations(sources(folder), forbidden=forbidden) == []


@pytest.mark.parametrize("path", sources(*INSPECT_LAYER_FILES), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_inspect_layer_file_loads_by_its_path(path: Path) -> None:
    """As Inspect loads a file named on its command line (``inspect eval wolf_eval/tasks.py@triadic``,
    ``inspect score --scorer wolf_eval/scorers/judge.py@judge``): by path, as a module of no package, where a
    relative import fails; so the front door imports the package by its absolute names."""
    import importlib.util
    import sys

    name = path.relative_to(ROOT).as_posix()
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]


def test_only_public_inspect_api() -> None:
    """The shipped code and the benchmarks (tests may check themselves against Inspect's internals)."""
    bad = [f"{p.relative_to(ROOT)}:{line} imports {name}"
           for p in sources("wolf_eval", "benchmarks") for line, name in imports_of(p)
           if under(name, "inspect_ai") and any(part.startswith("_") for part in name.split(".")[1:])]
    assert bad == []


def test_a_forbidden_import_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks see imports at any depth, relative ones included."""
    fake = tmp_path / "wolf_eval" / "measures" / "bad.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("def f():\n    from ..agents import player\n    import inspect_ai._util.x\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    allowed = ("wolf_eval.measures", "wolf_eval.records")
    assert violations([fake], allowed=allowed) == ["wolf_eval/measures/bad.py:2 imports wolf_eval.agents.player"]
    assert [n for _, n in imports_of(fake)][1] == "inspect_ai._util.x"


def generate_calls(path: Path) -> list[int]:
    """Lines where the file calls some object's ``generate`` (a model call, in this project)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "generate"]


def test_every_model_call_goes_through_the_one_call_path() -> None:
    """A seat's decision, the Jester's lessons and the judge all ask through ``wolf_eval.agents.call.ask``,
    so a new call site cannot skip its seed rule, its failure naming or its fallback record."""
    one_path = ROOT / "wolf_eval" / "agents" / "call.py"
    sites = [f"{p.relative_to(ROOT)}:{line}" for p in sources("wolf_eval")
             for line in generate_calls(p)]
    assert sites == [f"{one_path.relative_to(ROOT)}:{line}" for line in generate_calls(one_path)]
    assert len(sites) == 1


def test_a_second_call_site_is_caught(tmp_path: Path) -> None:
    stray = tmp_path / "stray.py"
    stray.write_text("async def f(model):\n    return await model.generate([])\n")
    assert generate_calls(stray) == [2]


def test_the_vocabulary_is_the_bottom() -> None:
    """Roles, factions, winners, phases and actions import nothing of the project: every layer can speak them."""
    assert violations([ROOT / "wolf_eval" / "vocabulary.py"], forbidden=("wolf_eval",)) == []


def test_no_task_name_is_tested_outside_the_variants() -> None:
    """What differs by task is read from ``wolf_eval.engine.variants``, never from a comparison with its name."""
    pattern = ("variant ==", "variant !=", "variant in (", 'task == "', "task == '", '== "wolf"', '!= "wolf"')
    hits = [f"{p.relative_to(ROOT)}:{n}" for p in sources("wolf_eval")
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if any(x in line for x in pattern)]
    assert hits == []


def test_docstrings_cite_files_the_repository_ships() -> None:
    """A docstring that cites the design cites a section of ``docs/design.md`` that exists, never a spec the
    repository does not ship."""
    import re

    headings = {line[3:].strip() for line in (ROOT / "docs" / "design.md").read_text(encoding="utf-8").splitlines()
                if line.startswith("## ")}
    cited, unknown, unshipped = 0, [], []
    for p in sources("wolf_eval", "tests"):
        text = p.read_text(encoding="utf-8")
        for after in re.findall(r"docs/design\.md, § (.{1,40})", text):
            cited += 1
            if not any(after.startswith(h) for h in headings):
                unknown.append(f"{p.relative_to(ROOT)}: § {after}")
        if "SPEC section" in text and p.name != "test_layers.py":
            unshipped.append(str(p.relative_to(ROOT)))
    assert unshipped == [] and unknown == [] and cited > 10


def test_no_two_modules_share_a_file_name() -> None:
    """A name says what a module does only if no other module of the package is called the same."""
    seen: dict[str, list[str]] = {}
    for p in sources("wolf_eval"):
        if p.name != "__init__.py":
            seen.setdefault(p.name, []).append(str(p.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_no_production_function_is_longer_than_a_screen() -> None:
    """60 lines at most, from ``def`` to its last line: a longer one does more than one thing."""
    long = []
    for p in sources("wolf_eval"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno >= 60:
                long.append(f"{p.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1})")
    assert long == []
