"""``benchmarks/harness.py`` reads ``-T`` as ``inspect eval`` does, so a benchmark plays what the command would.

The expected values are what ``inspect eval -T`` gave for each pair on inspect-ai 0.3.285 (YAML values; a
comma-separated value becomes a list; ``-`` in a name becomes ``_``). They are written out rather than read
from Inspect's parser, which is private and not in every release the project supports.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

# loaded from its file: putting benchmarks/ on sys.path would let its scripts shadow other modules
_SPEC = importlib.util.spec_from_file_location(
    "harness", Path(__file__).resolve().parents[1] / "benchmarks" / "harness.py")
harness = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(harness)
task_args = harness.task_args

AS_INSPECT_READS: dict[str, dict[str, Any]] = {
    "games=3": {"games": 3},
    "max-days=2": {"max_days": 2},
    "roles=villager:4,werewolf:2": {"roles": ["villager:4", "werewolf:2"]},
    "history=compact": {"history": "compact"},
    "deception_analysis=false": {"deception_analysis": False},
    "temperature=0.5": {"temperature": 0.5},
    "lessons_dir=null": {"lessons_dir": None},
    "roles=[villager:6, jester:1]": {"roles": ["villager:6", "jester:1"]},
    "roles='villager:6,jester:1'": {"roles": ["villager:6", "jester:1"]},
    "roles={villager: 6, jester: 1}": {"roles": {"villager": 6, "jester": 1}},
    "note=a=b": {"note": "a=b"},
    "empty=": {"empty": None},
}


@pytest.mark.parametrize("pair", list(AS_INSPECT_READS))
def test_task_args_match_inspect_eval(pair: str) -> None:
    assert task_args([pair]) == AS_INSPECT_READS[pair]


def test_a_pair_without_a_value_is_refused_not_dropped() -> None:
    with pytest.raises(SystemExit, match="expected NAME=VALUE"):
        task_args(["games"])
