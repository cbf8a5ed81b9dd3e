"""End to end: the three tasks play complete games offline on wolfbot and log them readably."""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from helpers import final_state, game_scores, run, store_field
from inspect_ai.log import read_eval_log
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage, get_model

from wolf_eval.agents.seat_call import logged_parts
from wolf_eval.baseline.bots import POLICIES
from wolf_eval.engine import Role
from wolf_eval.measures.headline import HEADLINE
from wolf_eval.providers.wolfbot import answer as answer_with
from wolf_eval.providers.wolfbot import find_parts
from wolf_eval.scorers.game_scores import COST_FIGURES
from wolf_eval.settings import SettingsError

pytestmark = pytest.mark.slow  # every test here plays an Inspect eval


@pytest.mark.parametrize("task,seats", [("wolf", 8), ("triadic", 10), ("dyadic", 10)])
@pytest.mark.parametrize("policy", ["random", "cue", "tom"])
def test_each_task_plays_complete_games(tmp_path, fast_args, task, seats, policy):
    log = run(task, f"wolfbot/{policy}", tmp_path, task_args={"games": 2, **fast_args})
    assert log.status == "success"
    assert len(log.samples) == 2
    for sample in log.samples:
        game = final_state(sample)
        assert game.over and len(game.players) == seats
        value = game_scores(sample)["outcome"]
        winner = game.outcome.winner
        assert value[winner] == 1.0 and value["days"] == game.outcome.days
        assert value["fallbacks"] == 0, "wolfbot answers every action with valid JSON"
        assert sample.scores["village_win"].value == float(winner == "villagers")
        roles = Counter(p.role for p in game.players)
        if task == "triadic":
            assert roles[Role.JESTER] == 1 and roles[Role.VILLAGER] == 6
        else:
            assert roles[Role.JESTER] == 0
            assert math.isnan(value["jester"]) and math.isnan(sample.scores["jester_win"].value)
        if task == "wolf":
            assert roles[Role.SEER] == 1 and not any(r.kind == "defence" for r in game.records)


def test_eval_results_lead_with_a_few_headline_scores(tmp_path, fast_args):
    from inspect_ai.analysis import evals_df

    log = run("triadic", "wolfbot/cue", tmp_path, task_args={"games": 3, **fast_args})
    shown = [(s.name, name) for s in log.results.scores for name in s.metrics]
    # every score's metrics carry the score's own name, the figure and then its interval's ends, the headline first;
    # the cost score last, its four figures
    assert len(log.results.scores) <= 13 and shown[0] == ("village_win",) * 2
    assert shown == [*((n, m) for n in (*HEADLINE, "judge") for m in (n, f"{n}_low", f"{n}_high")),
                     *(("cost", f) for f in COST_FIGURES)]
    assert all(s.metadata and len(s.metadata["description"]) > 20 for s in log.results.scores)
    if hasattr(log.eval, "headline_metric"):  # Inspect releases that declare one
        assert (log.eval.headline_metric.scorer, log.eval.headline_metric.metric) == ("village_win", "village_win")
    columns = [c for c in evals_df(log.location, quiet=True).columns if c.startswith("score_") and "headline" not in c]
    assert sorted(columns) == sorted([*(f"score_{n}_{m}" for n in (*HEADLINE, "judge")
                                        for m in (n, f"{n}_low", f"{n}_high")),
                                      *(f"score_cost_{f}" for f in COST_FIGURES)])
    pooled = {s.name: s.metrics[s.name].value for s in log.results.scores if s.name != "cost"}
    winners = [final_state(s).outcome.winner for s in log.samples]
    for name, faction in (("village_win", "villagers"), ("wolves_win", "werewolves"), ("jester_win", "jester")):
        assert pooled[name] == pytest.approx(winners.count(faction) / 3)
    # the draws are what the three win shares leave of 1: no score of their own
    assert 1 - sum(pooled[n] for n in ("village_win", "wolves_win", "jester_win")) == \
        pytest.approx(winners.count("draw") / 3)
    calls = sum(game_scores(s)["outcome"]["calls"] for s in log.samples)
    assert pooled["fallback_rate"] == sum(game_scores(s)["outcome"]["fallbacks"] for s in log.samples) / calls


def test_wolf_task_reports_no_jester_rate(tmp_path, fast_args):
    log = run("wolf", "wolfbot/cue", tmp_path, task_args={"games": 1, **fast_args})
    pooled = {s.name: s.metrics[s.name].value for s in log.results.scores if s.name != "cost"}
    assert math.isnan(pooled["jester_win"]) and math.isnan(pooled["day1_self_sabotage"])
    assert log.samples[0].scores["jester_win"].explanation == "**jester_win**: not applicable: no Jester seated"


def test_every_score_column_is_numeric_and_every_explanation_short(tmp_path, fast_args):
    from inspect_ai.analysis import samples_df

    log = run("triadic", "wolfbot/cue", tmp_path, task_args={"games": 2, **fast_args})
    df = samples_df(log.location, quiet=True)
    scores = [c for c in df.columns if c.startswith("score_") and c != "score_cost"]  # cost: a dict (test_money)
    assert sorted(scores) == sorted(f"score_{n}" for n in (*HEADLINE, "judge")) and "score_cost" in df.columns
    assert all(pd.api.types.is_float_dtype(df[c]) for c in scores), df[scores].dtypes
    for sample in log.samples:
        game = final_state(sample)
        for name in HEADLINE:  # the samples list's ANSWER is the winner, its values a few places long
            score = sample.scores[name]
            assert score.answer == game.outcome.winner and score.explanation.startswith(f"**{name}**")
            assert math.isnan(score.value) or score.value == round(score.value, 3)
            assert "nan" not in score.explanation and len(score.explanation.splitlines()) <= 40
        text = sample.scores["village_win"].explanation
        tallies = [r for r in game.records if r.kind == "tally"]
        assert [line.split(" ballot")[0] for line in text.splitlines() if line.startswith("- Day ")] == \
            [f"- Day {r.day}, {r.data.ballot}" for r in tallies], "every ballot of every day, in order"
        exiles = [r for r in game.records if r.kind == "exile"]
        assert text.count(" exiled**") == len(exiles) and all(f"{r.target} (" in text for r in exiles)
        deaths = [r.target for r in game.records if r.kind == "death"]
        assert sum(f"{d} (" in line and "killed" in line for d in deaths for line in text.splitlines()) == len(deaths)


def test_same_seed_replays_the_same_game(tmp_path, fast_args):
    a = run("triadic", "wolfbot/cue", tmp_path / "a", task_args={"games": 1, "seed": 7, **fast_args})
    b = run("triadic", "wolfbot/cue", tmp_path / "b", task_args={"games": 1, "seed": 7, **fast_args})
    c = run("triadic", "wolfbot/cue", tmp_path / "c", task_args={"games": 1, "seed": 8, **fast_args})
    ga, gb, gc = (final_state(x.samples[0]) for x in (a, b, c))
    assert ga.model_dump() == gb.model_dump()
    assert ga.model_dump() != gc.model_dump()


def test_seats_are_played_by_their_roles_models(tmp_path, fast_args):
    log = run("triadic", "wolfbot/cue", tmp_path, task_args={"games": 1, **fast_args},
              model_roles={"werewolf": "wolfbot/random", "jester": "wolfbot/tom"})
    sample = log.samples[0]
    game = final_state(sample)
    seat_models = store_field(sample, "seat_models")
    for p in game.players:
        expected = {"werewolf": "wolfbot/random", "jester": "wolfbot/tom"}.get(p.role.value, "wolfbot/cue")
        assert seat_models[p.name] == expected
    by_seat = {}
    for e in sample.events:
        if e.event == "model" and e.input[-1].metadata:
            by_seat.setdefault(logged_parts(e.input[-1].metadata["wolf_eval"])[0]["seat"], set()).add(e.model)
    assert set(by_seat) >= {p.name for p in game.players if p.role in (Role.WEREWOLF, Role.JESTER)}
    for name, models in by_seat.items():
        assert models == {seat_models[name]}


def test_temperature_resolution(tmp_path, fast_args):
    cold = get_model("wolfbot/random", config=GenerateConfig(temperature=0.1))
    log = run("triadic", "wolfbot/cue", tmp_path, task_args={"games": 1, "temperature": 0.4, **fast_args},
              model_roles={"werewolf": cold})
    sample = log.samples[0]
    game = final_state(sample)
    temps = store_field(sample, "seat_temperatures")
    for p in game.players:
        assert temps[p.name] == (0.1 if p.role is Role.WEREWOLF else 0.4)
    seen = {(logged_parts(e.input[-1].metadata["wolf_eval"])[0]["seat"], e.config.temperature)
            for e in sample.events if e.event == "model" and e.input[-1].metadata}
    assert seen and all(t == temps[name] for name, t in seen)


def _in_flight_probe():
    """A wolfbot-backed mock model that records how many calls of each action overlap."""
    state = {"now": Counter(), "peak": Counter()}

    async def answer(input, tools, tool_choice, config):
        views = [v for v, _ in find_parts(input)]
        keys = {(o.day, o.phase, o.turn, o.action if o.action not in ("night_kill", "protect", "investigate")
                 else "night") for o in views}
        for key in keys:
            state["now"][key] += 1
            state["peak"][key] = max(state["peak"][key], state["now"][key])
        await asyncio.sleep(0.01)
        for key in keys:
            state["now"][key] -= 1
        content = answer_with(lambda obs, seed: json.dumps(POLICIES["cue"](obs, random.Random(seed))), input,
                              config.seed)
        out = ModelOutput.from_content(model="probe", content=content)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/model", custom_outputs=answer), state["peak"]


def test_waves_run_concurrently(tmp_path, fast_args):
    model, peak = _in_flight_probe()
    log = run("wolf", model, tmp_path, task_args={"games": 1, **fast_args})
    assert log.status == "success"
    game = final_state(log.samples[0])
    living_at_day_1 = len(game.players) - sum(1 for r in game.records if r.kind == "death" and r.day == 1)
    assert peak[(1, "debate", 0, "bid")] == living_at_day_1
    assert peak[(1, "vote", 0, "vote")] == living_at_day_1
    assert peak[(1, "night", 0, "night")] == 4  # two wolves, the doctor and the seer together


def test_cli_runs_offline_and_writes_a_successful_log(tmp_path):
    inspect = Path(sys.executable).with_name("inspect")
    cmd = [str(inspect), "eval", "wolf_eval/dyadic", "--model", "wolfbot/cue", "-T", "games=1",
           "-T", "max_debate_turns=2", "--log-dir", str(tmp_path)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    [path] = list(tmp_path.glob("*.eval"))
    log = read_eval_log(str(path))
    assert log.status == "success" and len(log.samples) == 1
    printed = [line for line in (done.stdout + done.stderr).splitlines()  # not the log's path nor Inspect's hint
               if str(tmp_path) not in line and "inspect ctl" not in line]
    assert any("village_win" in line for line in printed), "the results table is printed"
    widest = max(printed, key=lambda line: len(line.rstrip()))
    assert len(widest.rstrip()) <= 100, f"the results table fits 100 columns: {widest!r}"


def test_bad_task_parameters_fail_before_any_game(tmp_path):
    with pytest.raises(SettingsError, match="^roles='villager:6,vampire:2' is not accepted: unknown role 'vampire'"):
        run("triadic", "wolfbot/cue", tmp_path, task_args={"roles": "villager:6,vampire:2"})
    with pytest.raises(Exception, match="wolfbot has no policy"):
        run("triadic", "wolfbot/nosuch", tmp_path, task_args={"games": 1})
    assert not list(tmp_path.rglob("*.eval"))


@pytest.mark.parametrize("structured", [True, False])
def test_structured_output_can_be_switched_off(tmp_path, structured):
    log = run("wolf", "wolfbot/cue", tmp_path,
              task_args={"games": 1, "max_debate_turns": 1, "structured_output": structured})
    schemas = {e.config.response_schema is not None for e in log.samples[0].events if e.event == "model"}
    assert schemas == {structured}
    if structured:
        names = {e.config.response_schema.name for e in log.samples[0].events if e.event == "model"}
        assert names == {"wolf_seat"}, "a seat's one reply shape (calls=per_seat, the default)"


def test_epochs_are_different_games(tmp_path, fast_args):
    log = run("triadic", "wolfbot/cue", tmp_path, task_args={"games": 1, **fast_args}, epochs=2)
    assert log.status == "success" and len(log.samples) == 2
    first, second = (final_state(s) for s in log.samples)
    assert first.seed != second.seed and first.records != second.records


def test_provider_overflow_fails_the_game_instead_of_scoring_it(tmp_path, fast_args):
    def overflow(input, tools, tool_choice, config):
        out = ModelOutput.from_content(model="tiny", content="prompt is too long", stop_reason="model_length")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    log = run("wolf", get_model("mockllm/model", custom_outputs=overflow), tmp_path,
              task_args={"games": 1, **fast_args})
    assert log.status == "error"
    assert "could not answer" in str(log.samples[0].error.message if log.samples else log.error)
    assert not any(s.scores for s in log.samples or [])


@pytest.mark.parametrize("task,args,message", [
    ("wolf", {"jester_learning": True}, "jester_learning=true is not accepted: it needs a Jester, and this "
                                        "wolf_eval/wolf roster seats none"),
    ("dyadic", {"jester_learning": True}, "jester_learning=true is not accepted: it needs a Jester"),
    ("triadic", {"history": "summary"}, "history='summary' is not accepted: 'full' or 'compact'"),
    ("wolf", {"max_explanation_turns": 3}, "max_explanation_turns=3 is not accepted: it does not apply to wolf_eval"),
    ("wolf", {"max_explanation_turns": 0}, "max_explanation_turns=0 is not accepted: it does not apply to wolf_eval"),
    ("triadic", {"lessons_dir": "/tmp/lessons"}, "lessons_dir='/tmp/lessons' is not accepted: it is only read with "
                                                 "jester_learning=true"),
    ("dyadic", {"shufle_roles": False}, "shufle_roles=false is not a wolf_eval/dyadic parameter; did you mean "
                                        "shuffle_roles?"),
])
def test_parameters_not_applicable_or_unknown_are_refused(tmp_path, task, args, message):
    from inspect_ai import eval as inspect_eval

    with pytest.raises(SettingsError) as refused:
        inspect_eval(f"wolf_eval/{task}", model="wolfbot/cue", task_args={"games": 1, **args},
                     log_dir=str(tmp_path), display="none")
    assert str(refused.value).startswith(message)
    assert not list(tmp_path.glob("*.eval"))
