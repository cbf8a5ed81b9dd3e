"""Provider failures: transient errors are retried and change nothing; permanent ones fail the sample,
which is never scored; ``eval_set`` retries finish the run with every game exactly once."""

from __future__ import annotations

import json
import re

import flaky
import pytest
from helpers import final_state, game_scores, run
from inspect_ai import eval_set
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import get_model

from wolf_eval.ndjson import export

pytestmark = pytest.mark.slow  # every test here plays an Inspect eval

ARGS = {"max_days": 3, "max_debate_turns": 2, "deception_analysis": False}


def test_transient_errors_are_retried_and_the_game_is_the_same(tmp_path) -> None:  # type: ignore[no-untyped-def]
    flaky.ATTEMPTS.clear()
    model = get_model("wolfeval_flaky/cue", transient_every=3, memoize=False)
    log = run("wolf", model, tmp_path / "flaky", task_args={"games": 2, "seed": 5, **ARGS})
    assert log.status == "success", log.error
    retried = sum(1 for n in flaky.ATTEMPTS.values() if n == 2)
    assert retried > 10 and max(flaky.ATTEMPTS.values()) == 2
    clean = run("wolf", "wolfbot/cue", tmp_path / "clean", task_args={"games": 2, "seed": 5, **ARGS})
    for a, b in zip(log.samples, clean.samples, strict=True):
        assert final_state(a).records == final_state(b).records, "a retried call answers as the first would have"
        assert game_scores(a)["outcome"] == game_scores(b)["outcome"]
    exported = export(log.location, str(tmp_path / "export"))
    lines = [json.loads(x) for p in exported if p.suffix == ".ndjson" for x in p.read_text().splitlines()]
    errors = [x for x in lines if x["event"] == "model_error"]
    calls = [x for x in lines if x["event"] == "model_call"]
    assert len(errors) == retried, "each failed attempt is exported as a marked error"
    assert all("TransientError" in x["details"]["error"] for x in errors)
    assert all(x["details"]["raw_output"] for x in calls), "no failed attempt passes for an empty model call"


def test_a_permanent_error_fails_the_sample_with_its_message_and_nothing_is_scored(tmp_path) -> None:  # type: ignore[no-untyped-def]
    flaky.FAILED_ONCE.clear()
    model = get_model("wolfeval_flaky/cue", permanent_every=7, memoize=False)
    log = run("wolf", model, tmp_path, task_args={"games": 1, "seed": 1, **ARGS})
    assert flaky.FAILED_ONCE, "the scripted failure happened"
    assert log.status == "error"
    message = str(log.error.message if log.error else "")
    assert "400 invalid request (simulated)" in message
    # the failure names the model, the seat and its role, the decision and the day it was lost on
    assert re.search(r"wolfeval_flaky/cue failed in game 1 \(seed \d+, epoch 1\), "
                     r"[A-Z][a-z]+ \((villager|werewolf|seer|doctor)\), [a-z_]+ on day \d", message), message
    for sample in log.samples or []:
        if sample.error is not None:
            assert not sample.scores, "a game cut short is never scored"


def test_eval_set_retries_until_every_game_is_in_the_log_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    flaky.FAILED_ONCE.clear()
    model = get_model("wolfeval_flaky/cue", permanent_every=7, memoize=False)
    ok, logs = eval_set("wolf_eval/wolf", log_dir=str(tmp_path), model=model, retry_attempts=6, retry_wait=0.01,
                        task_args={"games": 4, "seed": 1, **ARGS}, display="none")
    assert flaky.FAILED_ONCE, "some games failed the first time"
    assert ok and [log.status for log in logs] == ["success"]
    [final] = logs
    final = read_eval_log(final.location)
    ids = [s.id for s in final.samples]
    assert sorted(ids) == [1, 2, 3, 4], "every game once"
    assert all(s.error is None and game_scores(s)["outcome"]["calls"] > 0 for s in final.samples)
    clean = run("wolf", "wolfbot/cue", tmp_path / "clean", task_args={"games": 4, "seed": 1, **ARGS})
    by_id = {s.id: s for s in clean.samples}
    for s in final.samples:
        assert final_state(s).records == final_state(by_id[s.id]).records
    assert len(list_eval_logs(str(tmp_path), recursive=False)) >= 1
