"""The optional post-game judge: it reads only the public record and is scored per true role."""

from __future__ import annotations

import json
import math
from random import Random

import handmade as hm
import pytest
from helpers import final_state, run
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from wolf_eval.agents.parse import InvalidReply
from wolf_eval.agents.role_guesses import judge_messages, judge_view, parse_guesses
from wolf_eval.baseline.judging import judge_policy
from wolf_eval.measures.identification import judge_accuracy
from wolf_eval.records import Kind, Phase, Record
from wolf_eval.store import logged_record

ROLES = ("villager", "werewolf", "doctor", "jester")


def replying(content: str):  # type: ignore[no-untyped-def]
    def answer(input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        out = ModelOutput.from_content(model="judge", content=content)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out
    return get_model("mockllm/model", custom_outputs=answer, memoize=False)


def test_the_judge_sees_the_public_record_and_nothing_else() -> None:
    game = hm.t1_jester_by_wolf_vote()
    jv = judge_view(game)
    assert {r.channel for r in jv.records} == {"public"}
    assert jv.roles_in_play == {"werewolf": 2, "villager": 3, "doctor": 1, "jester": 1}
    prompt = judge_messages(jv)[0].text
    assert "Vote me out, I dare you." in prompt and "Ivo voted for Ava." in prompt
    for private in ("protected", "strategic_deception", "by hand", "Ivo: jester"):  # Dan's night, analyses, outcome
        assert private not in prompt


def test_the_winner_announcement_is_left_out() -> None:
    game = hm.t1_jester_by_wolf_vote()
    over = game.records + (Record(index=len(game.records), day=1, phase=Phase.OVER, kind=Kind.GAME_OVER,
                                  text="The game is over: the Jester Ivo wins.",
                                  data={"winner": "jester", "day": 1, "days": 1, "reason": "Ivo was exiled."}),)
    prompt = judge_messages(judge_view(game.model_copy(update={"records": over})))[0].text
    assert "The game is over" not in prompt


def test_guesses_are_read_defensively() -> None:
    players = ("Ava", "Ben", "Ivo")
    roles = ("werewolf", "villager", "jester")
    raw = ('Here you go:\n```json\n{"roles": {"ava": "Wolf", "Ben": "seer", "Zed": "villager", "Ivo": "The Jester"}}'
           '\n```')
    guesses, problems = parse_guesses(raw, players, roles)
    assert guesses == {"Ava": "werewolf", "Ben": None, "Ivo": "jester"}
    assert any("Ben" in p and "seer" in p for p in problems) and any("Zed" in p for p in problems)
    flat, _ = parse_guesses('{"Ava": "villager", "Ben": "villager", "Ivo": "jester"}', players, roles)
    assert flat == {"Ava": "villager", "Ben": "villager", "Ivo": "jester"}
    for bad in ("no idea", '{"roles": "Ava is a wolf"}', '{"roles": {"Zed": "jester"}}'):
        with pytest.raises(InvalidReply):
            parse_guesses(bad, players, roles)


def test_wolfbot_judges_read_the_votes() -> None:
    jv = judge_view(hm.t1_jester_by_wolf_vote())  # votes received: Ivo 7, Ava 4, Dan 1
    for style in ("random", "cue", "tom"):
        guesses = judge_policy(style, jv, Random(1))["roles"]
        assert sorted(guesses) == sorted(jv.players)
        counted = {r: list(guesses.values()).count(r) for r in jv.roles_in_play}
        assert counted == jv.roles_in_play, style
    tom = judge_policy("tom", jv, Random(1))["roles"]
    assert tom["Ivo"] == "jester" and tom["Ava"] == tom["Dan"] == "werewolf"
    cue = judge_policy("cue", jv, Random(1))["roles"]
    assert cue["Ivo"] == cue["Ava"] == "werewolf" and cue["Dan"] == "jester"


def test_revealed_roles_are_taken_as_given() -> None:
    game = hm.t1_jester_by_wolf_vote()
    records = tuple(r.model_copy(update={"data": r.data.model_copy(update={"role": "jester"})})
                    if r.kind is Kind.EXILE else r for r in game.records)
    jv = judge_view(game.model_copy(update={"records": records}))
    assert judge_policy("cue", jv, Random(0))["roles"]["Ivo"] == "jester"


@pytest.fixture(scope="module")
def judged(tmp_path_factory):  # type: ignore[no-untyped-def]
    guess = {"Ava": "werewolf", "Ben": "werewolf", "Cleo": "villager", "Dev": "villager", "Eli": "villager",
             "Faye": "villager", "Gus": "villager", "Hana": "villager", "Ivo": "doctor", "Jude": "jester"}
    # the guess names the fixed layout's seats
    args = {"games": 2, "max_debate_turns": 3, "max_explanation_turns": 2, "max_days": 4, "deception_analysis": False,
            "seating": "fixed"}
    folder = tmp_path_factory.mktemp("judge")
    return {
        "fixed": (guess, run("triadic", "wolfbot/cue", folder, task_args=args,
                             model_roles={"judge": replying(json.dumps({"roles": guess}))})),
        "garbled": run("triadic", "wolfbot/cue", folder, task_args=args,
                       model_roles={"judge": replying("I cannot say.")}),
        "none": run("triadic", "wolfbot/cue", folder, task_args=args),
        "wolfbot": run("wolf", "wolfbot/cue", folder, task_args=args, model_roles={"judge": "wolfbot/tom"}),
    }


@pytest.mark.slow
def test_judge_scores_count_correct_names_per_true_role(judged) -> None:  # type: ignore[no-untyped-def]
    guess, log = judged["fixed"]
    assert log.status == "success"
    totals = dict.fromkeys(ROLES, 0)
    rights = dict.fromkeys(ROLES, 0)
    for sample in log.samples:
        game = final_state(sample)
        value = sample.scores["judge"].metadata["counts"]
        assert logged_record(sample.store).judge == value, "the game record keeps the counts for the report"
        for role in ROLES:
            seated = [p.name for p in game.players if p.role.value == role]
            right = sum(1 for n in seated if guess[n] == role)
            assert (value[f"{role}_n"], value[f"{role}_correct"]) == (len(seated), right)
            totals[role] += len(seated)
            rights[role] += right
        assert math.isnan(value["seer_n"]) and value["unreadable"] == 0
    pooled = judge_accuracy([s.scores["judge"].metadata["counts"] for s in log.samples])
    for role in ROLES:
        assert pooled[role] == pytest.approx(rights[role] / totals[role])
    metric = next(s for s in log.results.scores if s.name == "judge").metrics
    assert list(metric) == ["judge", "judge_low", "judge_high"]
    assert metric["judge_low"].value <= metric["judge"].value <= metric["judge_high"].value
    assert metric["judge"].value == pytest.approx(sum(rights.values()) / sum(totals.values()))


@pytest.mark.slow
def test_an_unreadable_judge_reply_scores_every_guess_wrong(judged) -> None:  # type: ignore[no-untyped-def]
    for sample in judged["garbled"].samples:
        value = sample.scores["judge"].metadata["counts"]
        assert value["unreadable"] == 1 and sample.scores["judge"].value == 0
        assert all(value[f"{r}_correct"] == 0 for r in ROLES) and value["villager_n"] > 0
        assert sample.scores["judge"].metadata["raw"] == "I cannot say."


@pytest.mark.slow
def test_without_a_judge_every_judge_score_is_nan(judged) -> None:  # type: ignore[no-untyped-def]
    for sample in judged["none"].samples:
        assert math.isnan(sample.scores["judge"].value)
        assert logged_record(sample.store).judge is None
    metric = next(s for s in judged["none"].results.scores if s.name == "judge").metrics
    assert math.isnan(metric["judge"].value)  # one NaN, not a screen of them


@pytest.mark.slow
def test_a_wolfbot_judge_answers_on_the_wolf_task(judged) -> None:  # type: ignore[no-untyped-def]
    log = judged["wolfbot"]
    assert log.status == "success"
    for sample in log.samples:
        value = sample.scores["judge"].metadata["counts"]
        assert value["unreadable"] == 0 and value["seer_n"] == 1 and math.isnan(value["jester_n"])
        guesses = sample.scores["judge"].metadata["guesses"]
        assert sorted(guesses.values()).count("werewolf") == 2
