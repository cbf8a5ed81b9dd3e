"""Imports point down the layers only (SPEC section 10), read from the source with ``ast``.

import-linter cannot check this: setuptools maps ``wolf_eval.tasks``, ``wolf_eval.scorers`` and
``wolf_eval.solvers`` from the top-level ``tasks/``, ``scorers/`` and ``solvers/`` folders, so the
files are mapped to their import names here. Every import counts, including ones inside functions.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Source folder -> the package it is installed as.
PACKAGES = {"wolf_eval": "wolf_eval", "tasks": "wolf_eval.tasks", "scorers": "wolf_eval.scorers",
            "solvers": "wolf_eval.solvers", "benchmarks": "benchmarks", "tests": "tests"}
INSPECT_LAYER = ("wolf_eval.tasks", "wolf_eval.scorers", "wolf_eval.solvers")


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    parts = [PACKAGES[rel.parts[0]], *rel.parts[1:-1]]
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


def sources(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py") if "egg-info" not in p.parts)


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


def test_module_names_follow_the_package_dir_mapping() -> None:
    assert module_name(ROOT / "scorers" / "outcome.py") == "wolf_eval.scorers.outcome"
    assert module_name(ROOT / "wolf_eval" / "measures" / "__init__.py") == "wolf_eval.measures"
    assert dict(imports_of(ROOT / "wolf_eval" / "measures" / "outcome.py")).values()


def test_only_the_registry_imports_the_inspect_layer() -> None:
    files = [p for p in sources("wolf_eval") if p != ROOT / "wolf_eval" / "_registry.py"]
    assert violations(files, forbidden=(*INSPECT_LAYER, "tasks", "scorers", "solvers")) == []


def test_the_engine_and_the_record_vocabulary_stand_alone() -> None:
    files = [*sources("wolf_eval/engine"), ROOT / "wolf_eval" / "records.py"]
    forbidden = ("inspect_ai", "wolf_eval.agents", "wolf_eval.solvers", "wolf_eval.measures", "wolf_eval.analysis",
                 "wolf_eval.scorers", "wolf_eval.tasks", "wolf_eval.providers", "wolf_eval.baseline", "wolf_eval.store")
    assert violations(files, forbidden=forbidden) == []


def test_measures_read_only_records_engine_store_stats_and_lessons() -> None:
    allowed = ("wolf_eval.measures", "wolf_eval.records", "wolf_eval.engine", "wolf_eval.store", "wolf_eval.stats",
               "wolf_eval.lessons")
    assert violations(sources("wolf_eval/measures"), allowed=allowed) == []


def test_the_baseline_players_read_only_the_observation() -> None:
    """The bots play a seat as a model would, from its observation: no Inspect, no provider, no stored game."""
    forbidden = ("inspect_ai", "wolf_eval.providers", "wolf_eval.store", "wolf_eval.measures", "wolf_eval.analysis",
                 *INSPECT_LAYER)
    assert violations(sources("wolf_eval/baseline"), forbidden=forbidden) == []


@pytest.mark.parametrize("folder,forbidden", [
    ("scorers", ("wolf_eval.solvers", "wolf_eval.tasks", "solvers", "tasks")),
    ("solvers", ("wolf_eval.scorers", "wolf_eval.tasks", "scorers", "tasks")),
    ("wolf_eval/analysis", ("wolf_eval.agents", "wolf_eval.providers", "wolf_eval.baseline", "wolf_eval.replay",
                           "wolf_eval.cli")),
])
def test_the_inspect_layer_and_analysis_point_down(folder: str, forbidden: tuple[str, ...]) -> None:
    assert violations(sources(folder), forbidden=forbidden) == []


def test_only_public_inspect_api() -> None:
    """The shipped code and the benchmarks (tests may check themselves against Inspect's internals)."""
    bad = [f"{p.relative_to(ROOT)}:{line} imports {name}"
           for p in sources("wolf_eval", "tasks", "scorers", "solvers", "benchmarks") for line, name in imports_of(p)
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
