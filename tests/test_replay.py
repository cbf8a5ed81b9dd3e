"""``wolf-eval replay``: a logged game re-played from its recorded replies lands exactly where the log says."""

from __future__ import annotations

import json

import pytest
from helpers import final_state, run
from inspect_ai.log import read_eval_log, resolve_sample_attachments
from inspect_ai.model import ModelOutput

from wolf_eval.agents.seat_call import logged_layout, logged_parts
from wolf_eval.cli import main
from wolf_eval.records import Kind
from wolf_eval.replay import recorded_replies, replay_sample

ARGS = {"games": 2, "max_days": 3, "max_debate_turns": 2, "max_explanation_turns": 2, "seed": 3}


@pytest.fixture(scope="module", params=[("wolf", "wolfbot/chaos"), ("triadic", "wolfbot/chaos"),
                                        ("dyadic", "wolfbot/random"), ("triadic", "wolfbot/tom")])
def logged(request, tmp_path_factory):  # type: ignore[no-untyped-def]
    task, model = request.param
    log = run(task, model, tmp_path_factory.mktemp("replay"), task_args=ARGS)
    assert log.status == "success", log.error
    return log.location


def samples(path: str):  # type: ignore[no-untyped-def]
    return [resolve_sample_attachments(s) for s in read_eval_log(path).samples]


@pytest.mark.slow
def test_every_game_replays_to_the_same_records_state_and_scores(logged, capsys) -> None:  # type: ignore[no-untyped-def]
    fallbacks = 0
    for sample in samples(logged):
        game = final_state(sample)
        result = replay_sample(sample, game)
        assert result.ok, result.problems
        assert result.records == len(game.records) and result.waves == game.waves
        fallbacks += sum(r.kind is Kind.FALLBACK for r in game.records)
    if "chaos" in read_eval_log(logged, header_only=True).eval.model:
        assert fallbacks > 20, "the hostile games replay their fallbacks too"
    assert main(["replay", logged]) == 0
    assert capsys.readouterr().out.count("replays exactly") == ARGS["games"]


@pytest.mark.slow
def test_a_changed_reply_is_caught_at_the_first_record_it_changes(logged) -> None:  # type: ignore[no-untyped-def]
    sample = samples(logged)[0]
    game = final_state(sample)
    vote = next(e for e in sample.events if e.event == "model" and e.input[-1].metadata
                and [p["action"] for p in logged_parts(e.input[-1].metadata.get("wolf_eval", {}))] == ["vote"])
    [meta] = logged_parts(vote.input[-1].metadata["wolf_eval"])
    other = next(o for o in meta["options"] if f'"{o}"' not in vote.output.completion)
    changed = {"vote": other, "reason": "changed", "notes": None}
    if logged_layout(vote.input[-1].metadata["wolf_eval"]) == "seat":  # the call's own reply shape
        changed = {"analyses": [], "decision": changed}
    vote.output = ModelOutput.from_content(model=vote.output.model, content=json.dumps(changed))
    result = replay_sample(sample, game)
    first = next(r for r in game.records if r.kind is Kind.VOTE and r.actor == meta["seat"] and r.day == meta["day"])
    assert not result.ok and result.problems[0].startswith(f"record {first.index} differs"), result.problems


@pytest.mark.slow
def test_a_lost_reply_and_an_edited_final_state_are_caught(logged) -> None:  # type: ignore[no-untyped-def]
    sample = samples(logged)[0]
    game = final_state(sample)
    keys = list(recorded_replies(sample))
    dropped = next(i for i, e in enumerate(sample.events) if e.event == "model" and e.input[-1].metadata
                   and "wolf_eval" in e.input[-1].metadata)
    lost = sample.model_copy(update={"events": sample.events[:dropped] + sample.events[dropped + 1:]})
    result = replay_sample(lost, game)
    assert not result.ok and "missing a call" in result.problems[0] and keys
    edited = game.model_copy(update={"waves": game.waves + 1})
    result = replay_sample(sample, edited)
    assert not result.ok and any("final state differs in: waves" in p for p in result.problems)


@pytest.mark.slow
def test_a_score_redefined_after_the_logs_release_is_named_not_failed(logged) -> None:  # type: ignore[no-untyped-def]
    sample = samples(logged)[0]
    game = final_state(sample)
    scores = dict(sample.scores or {})
    scores["day1_self_sabotage"] = scores["day1_self_sabotage"].model_copy(update={"value": 0.5})
    old = sample.model_copy(update={"scores": scores})
    before = replay_sample(old, game, release="0.1.0")
    assert before.ok and len(before.notes) == 1, before.problems
    assert before.notes[0].startswith(
        "day1_self_sabotage not compared: redefined in 0.2.0, after the log's release 0.1.0")
    for release in ("0.2.0", "0.2.1", None):
        now = replay_sample(old, game, release=release)
        assert not now.ok and not now.notes
        assert now.problems[0].startswith("day1_self_sabotage differs") and now.problems[0].endswith("log 0.5")
    scores["day1_self_sabotage"] = scores["day1_self_sabotage"].model_copy(update={"value": "C"})
    lettered = replay_sample(sample.model_copy(update={"scores": scores}), game)
    assert lettered.problems == ["day1_self_sabotage: the log's score is not a number ('C')"], "a problem, not a crash"


def test_replay_refuses_what_is_not_a_log(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["replay", str(tmp_path / "missing.eval")]) == 2
    assert "missing.eval: no such log file" in capsys.readouterr().err


@pytest.mark.slow
def test_a_retired_score_is_named_and_an_unrounded_one_compared_at_the_logged_places(logged) -> None:  # type: ignore[no-untyped-def]
    """A release 0.2 log holds calibration_gap and detection_f1 (gone since 0.3.0) and unrounded values."""
    sample = samples(logged)[0]
    game = final_state(sample)
    scores = dict(sample.scores or {})
    scores["calibration_gap"] = scores["village_win"].model_copy(update={"value": -0.1181818})
    gap = scores["wolf_self_label_gap"]
    if gap.value == gap.value:  # a game with a wolf gap: log it as release 0.2 would have, unrounded
        scores["wolf_self_label_gap"] = gap.model_copy(update={"value": gap.value + 0.0004})
    result = replay_sample(sample.model_copy(update={"scores": scores}), game, release="0.2.0")
    assert result.ok, result.problems
    assert result.notes == ["calibration_gap not compared: retired in 0.3.0, replaced by wolf_self_label_gap, "
                            "the wolves' own gap"]
