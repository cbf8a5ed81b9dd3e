"""``benchmarks/harness.py`` reads ``-T`` as ``inspect eval`` does, so a benchmark plays what the command would."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from inspect_ai._util.config import parse_cli_args  # the parser behind inspect eval -T, to be matched

# loaded from its file: putting benchmarks/ on sys.path would let its scripts shadow other modules
_SPEC = importlib.util.spec_from_file_location(
    "harness", Path(__file__).resolve().parents[1] / "benchmarks" / "harness.py")
harness = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(harness)
task_args = harness.task_args


@pytest.mark.parametrize("pair", ["games=3", "max-days=2", "roles=villager:4,werewolf:2", "history=compact",
                                  "deception_analysis=false", "temperature=0.5", "lessons_dir=null",
                                  "roles=[villager:6, jester:1]", "roles='villager:6,jester:1'",
                                  "roles={villager: 6, jester: 1}", "note=a=b", "empty="])
def test_task_args_match_inspect_eval(pair: str) -> None:
    assert task_args([pair]) == parse_cli_args([pair])


def test_a_pair_without_a_value_is_refused_not_dropped() -> None:
    with pytest.raises(SystemExit, match="expected NAME=VALUE"):
        task_args(["games"])
