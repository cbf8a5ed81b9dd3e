"""``decision_stages``: the public hook ``benchmarks/concurrency.py`` times a decision's stages with."""

from __future__ import annotations

import pytest
from helpers import final_state, run

from wolf_eval.agents.call import STAGES, decision_stages
from wolf_eval.store import logged_record


@pytest.mark.slow
def test_every_decision_tells_its_stages_in_order_and_only_while_watched(tmp_path) -> None:
    seen: list[str] = []
    with decision_stages(seen.append):
        log = run("wolf", log_dir=tmp_path / "watched", task_args={"games": 1, "max_days": 1, "max_debate_turns": 1})
    [sample] = log.samples
    calls = logged_record(sample.store).calls
    assert final_state(sample).waves > 1 and calls > 0
    assert {s: seen.count(s) for s in STAGES} == dict.fromkeys(STAGES, calls)
    # no await inside a stage but the model call's: the stages before it, and after it, come unbroken
    for i, stage in enumerate(seen):
        if stage == "observe":
            assert seen[i:i + 4] == ["observe", "config", "prompt", "model"]
        if stage == "reply":
            assert seen[i + 1] == "done"

    after: list[str] = []
    with decision_stages(after.append):
        pass
    run("wolf", log_dir=tmp_path / "unwatched", task_args={"games": 1, "max_days": 1, "max_debate_turns": 1})
    assert after == [] and len(seen) == len(STAGES) * calls
