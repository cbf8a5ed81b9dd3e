"""Shared fixtures, and the guard that keeps the quick lane (``pytest -m "not slow"``) free of evals.

Games are played offline on wolfbot with short days to keep the suite fast.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import inspect_ai
import pytest

# Game mechanics are tested without the analysis waves (they triple the calls); tests/test_deception.py
# and the information-set test play with them on.
FAST = {"max_debate_turns": 3, "max_explanation_turns": 2, "max_days": 4, "deception_analysis": False}

#: Inspect's public entry points that play an eval, as they were before any test could patch them.
EVAL_ENTRY_POINTS = {name: getattr(inspect_ai, name)
                     for name in ("eval", "eval_async", "eval_set", "eval_retry", "eval_retry_async")}
#: The project's own folders: a module loaded from one of them may hold an entry point under its own name.
PROJECT_PREFIXES = tuple(str(Path(__file__).resolve().parents[1] / folder) + os.sep
                         for folder in ("tests", "wolf_eval", "tasks", "scorers", "solvers", "benchmarks"))
#: Module name -> the (attribute, entry point) pairs it binds; every module seen so far is a key.
_SEEN: dict[str, list[tuple[str, str]]] = {}


@pytest.fixture
def fast_args() -> dict[str, int]:
    return dict(FAST)


def _refusal(item: pytest.Item, what: str) -> str:
    return (f"{item.nodeid} plays an Inspect eval ({what}) but is not marked slow: mark it "
            "@pytest.mark.slow (or `pytestmark = pytest.mark.slow` in a module of evals) so that "
            "`pytest -m \"not slow\"` stays the quick lane")


def _command_plays_an_eval(args: Any) -> bool:
    """Whether a subprocess's command line runs ``inspect eval*``, ``wolf-eval compare`` or imports ``eval``."""
    words = shlex.split(args) if isinstance(args, str) else [str(word) for word in args]
    program, command = (Path(words[0]).name if words else ""), (words[1] if len(words) > 1 else "")
    if program == "inspect":
        return command in {"eval", "eval-set", "eval-retry"}
    if program == "wolf-eval":
        return command == "compare" and "--tables-only" not in words
    return any("inspect_ai import eval" in word for word in words)


def _entry_point(value: Any) -> str | None:
    """The eval entry point ``value`` is, or stands in for while a quick test runs."""
    for entry, function in EVAL_ENTRY_POINTS.items():
        if value is function:
            return entry
    return getattr(value, "refused_entry_point", None)


def _bindings() -> list[tuple[Any, str, str]]:
    """Every (module, attribute, entry point) where a project module holds an eval entry point.

    A module's globals are bound when it is imported, so each module is read once, when first seen.
    """
    for name in sys.modules.keys() - _SEEN.keys():
        module = sys.modules[name]
        _SEEN[name] = []
        if str(getattr(module, "__file__", None) or "").startswith(PROJECT_PREFIXES):
            _SEEN[name] = [(attribute, entry) for attribute, value in list(vars(module).items())
                           if (entry := _entry_point(value)) is not None]
    return [(sys.modules[name], attribute, entry)
            for name, found in _SEEN.items() if found and name in sys.modules for attribute, entry in found]


def _restore_imported_during_a_quick_test() -> None:
    """A module first imported while the entry points were refused bound a refusal: give it the original."""
    for module, attribute, entry in _bindings():
        if getattr(vars(module).get(attribute), "refused_entry_point", None) is not None:
            setattr(module, attribute, EVAL_ENTRY_POINTS[entry])


def _forbid_evals(item: pytest.Item, patch: pytest.MonkeyPatch, refused: list[str]) -> None:
    """Replace every binding of an eval entry point (``inspect_ai``'s and the project's) with a refusal."""
    def blocker(entry: str) -> Any:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            refused.append(f"inspect_ai.{entry}")
            pytest.fail(_refusal(item, f"inspect_ai.{entry}"), pytrace=False)
        refuse.refused_entry_point = entry  # type: ignore[attr-defined]
        return refuse

    for entry in EVAL_ENTRY_POINTS:
        patch.setattr(inspect_ai, entry, blocker(entry))
    for module, attribute, entry in _bindings():
        patch.setattr(module, attribute, blocker(entry))

    popen_init = subprocess.Popen.__init__

    def guarded_init(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        if _command_plays_an_eval(args):
            refused.append(f"subprocess {args!r}")
            pytest.fail(_refusal(item, f"subprocess {args!r}"), pytrace=False)
        popen_init(self, args, *rest, **kwargs)

    patch.setattr(subprocess.Popen, "__init__", guarded_init)


def _guarded(item: pytest.Item) -> Iterator[None]:
    """Run one phase of a test not marked slow with the eval entry points refused.

    The refusal is raised where the eval is called; should the code under test swallow it, the phase
    still fails here. Setup and teardown are guarded too, so a module-scoped fixture that plays an
    eval for a quick test is caught.
    """
    if item.get_closest_marker("slow") is not None:
        return (yield)
    refused: list[str] = []
    try:
        with pytest.MonkeyPatch.context() as patch:
            _forbid_evals(item, patch, refused)
            result = yield
    finally:
        _restore_imported_during_a_quick_test()
    if refused:
        pytest.fail(_refusal(item, refused[0]), pytrace=False)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    return (yield from _guarded(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    return (yield from _guarded(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    return (yield from _guarded(item))
