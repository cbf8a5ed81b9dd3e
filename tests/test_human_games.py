"""Whole games with a person's seat, played from scripted answers as evals: logged, scored, rated and reported as
a model's seat; Ctrl-C leaves a readable log with the game in hand marked cancelled and the finished game kept."""

from __future__ import annotations

import json

import pytest
from helpers import final_state, game_scores
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

from wolf_eval.agents.parse import FORFEIT
from wolf_eval.bindings import Bindings
from wolf_eval.cli import main
from wolf_eval.providers.human import METADATA
from wolf_eval.providers.human_asking import GAVE_UP, HELP
from wolf_eval.providers.human_input import CTRL_C, Question, Scripted, answers_from
from wolf_eval.records import Kind

pytestmark = pytest.mark.slow  # every test here plays an Inspect eval

SMALL = {"max_debate_turns": 2, "max_explanation_turns": 1}


def sensible(question: Question) -> str:
    """A valid answer to any question: what a patient person who says little would type."""
    if question.kind == "name":
        return question.options[-1]
    return {"bid": "4", "statement": "I am listening closely to everyone.", "reason": "They said too little.",
            "analysis": "none 0.7 0.4" if "suspect" in question.text else "none 0.9"}.get(question.kind, "")


def play(tmp_path, source: Scripted, games: int, **kwargs):
    with answers_from(source):
        logs = inspect_eval("wolf_eval/triadic", model="wolfbot/cue", model_roles={"jester": "human/ann"},
                            task_args={"games": games, "seed": 5, **SMALL}, log_dir=str(tmp_path), display="none",
                            **kwargs)
    return logs


def test_a_persons_seat_is_logged_scored_rated_and_reported_as_a_models(tmp_path, capsys):
    source = Scripted(["eleven", "/forfeit"], rest=sensible)  # the first bid asked again, the second given up
    [log] = play(tmp_path, source, games=2)
    assert log.status == "success"
    assert Bindings.from_spec(log.eval).seat("jester") == "human/ann"
    forfeits = 0
    for sample in log.samples:
        game = final_state(sample)
        [seat] = [p.name for p in game.players if p.role.value == "jester"]
        assert sample.store["GameRecord:seat_models"][seat] == "human/ann"
        usage = sample.store["GameRecord:usage"]["human/ann"]
        assert usage["input"] == usage["output"] == 0 and usage["decisions"] > 0
        calls = [e for e in sample.events if e.event == "model" and e.model == "human/ann"]
        assert len(calls) == usage["calls"]
        for e in calls:  # each reply is the seat's, in the seat's one reply shape, with the seconds it took
            assert set(json.loads(e.output.completion)) == {"analyses", "decision"}
        assert sum(len(e.output.metadata[METADATA]["seconds"]) for e in calls) == usage["decisions"]
        mine = [r for r in game.records if r.kind is Kind.FALLBACK and r.actor == seat]
        assert all(f"{FORFEIT}: {GAVE_UP}" in (r.text or "") for r in mine)
        forfeits += len(mine)
        assert game_scores(sample)["outcome"]["fallbacks"] == len(mine)
        assert set(sample.scores) >= {"village_win", "jester_win", "cost"}
    assert forfeits == 1
    assert sum(HELP in t for t in source.shown) == 2  # each game opens on the rules, the role and the commands
    assert any("bid is not an integer: 'eleven'" in t for t in source.shown)

    assert main(["rate", str(tmp_path)]) == 0
    rated = capsys.readouterr().out
    assert "human/ann" in rated and "wolfbot/cue" in rated
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "report")]) == 0
    assert "human/ann" in (tmp_path / "report" / "report.md").read_text()


def test_ctrl_c_mid_game_writes_the_log_with_the_game_cancelled_and_the_finished_game_kept(tmp_path):
    second_game_from: list[int] = []

    def answer(question: Question) -> str:
        """Ctrl-C at the third question of the second game (the second page that opens on the commands)."""
        if not second_game_from and sum(HELP in t for t in source.shown) == 2:
            second_game_from.append(len(source.asked))
        if second_game_from and len(source.asked) - second_game_from[0] >= 3:
            return CTRL_C
        return sensible(question)

    source = Scripted(rest=answer)
    logs = play(tmp_path, source, games=2, max_samples=1)
    assert logs == []  # Inspect returns no log from an eval cancelled by Ctrl-C ...
    [path] = tmp_path.glob("*.eval")
    log = read_eval_log(str(path))  # ... but writes it
    assert log.status == "cancelled"
    done = [s for s in log.samples if s.error is None]
    cut = [s for s in log.samples if s.error is not None]
    assert len(done) == 1 and len(cut) == 1
    assert "Cancelled" in cut[0].error.message
    assert final_state(done[0]).outcome is not None and "village_win" in done[0].scores
