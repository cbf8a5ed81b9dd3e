"""Reading a game's state out of a log without decoding its events must match Inspect's own reader."""

from __future__ import annotations

import json

import pytest
from helpers import run
from inspect_ai.log import read_eval_log, write_eval_log

from wolf_eval.analysis.logread import _store_of, sample_stores, top_level_value
from wolf_eval.store import logged_record


def test_only_the_top_level_key_counts() -> None:
    text = json.dumps({"id": 1, "scores": {"store": "decoy", "x": float("nan")}, "store": {"a": [1, 2]}, "events": []})
    assert top_level_value(text, "store") == {"a": [1, 2]}
    assert top_level_value(' {"store" : 3}', "store") == 3
    with pytest.raises(KeyError):
        top_level_value('{"id": 1, "events": [{"store": 1}]}', "store")


def test_a_value_split_across_chunks_is_read_whole() -> None:
    text = json.dumps({"id": "é" * 3, "store": {"GameRecord:state": {"name": "Zoë"}}, "events": [1] * 100}).encode()
    chunks = iter(text[i:i + 7] for i in range(0, len(text), 7))  # splits the two-byte é and ë too
    assert _store_of(chunks) == {"GameRecord:state": {"name": "Zoë"}}


@pytest.fixture(scope="module")
def played(tmp_path_factory):  # type: ignore[no-untyped-def]
    return run("triadic", "wolfbot/cue", tmp_path_factory.mktemp("logread"),
               task_args={"games": 2, "max_debate_turns": 2, "max_explanation_turns": 1, "max_days": 2})


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_stores_match_inspects_reader(played, tmp_path, fmt) -> None:  # type: ignore[no-untyped-def]
    path = played.location
    if fmt == "json":
        path = str(tmp_path / "copy.json")
        write_eval_log(read_eval_log(played.location), path, format="json")
    stores = sample_stores(path)
    full = read_eval_log(played.location)
    assert stores == {(str(s.id), s.epoch): dict(s.store) for s in full.samples}
    assert all(logged_record(s).game().over for s in stores.values())
