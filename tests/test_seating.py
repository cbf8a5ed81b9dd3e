"""Seat bindings and the eval's model: refused before any game when no seat would play them as asked,
and a report cell named only by the bindings that seated a player."""

from __future__ import annotations

import contextvars
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run
from inspect_ai import eval as inspect_eval
from inspect_ai import task_with
from inspect_ai.log import read_eval_log, write_eval_log

from wolf_eval.analysis.corpus import load
from wolf_eval.bindings import Bindings, SeatingRefused
from wolf_eval.engine import Role, new_game
from wolf_eval.settings import Settings
from wolf_eval.tasks import triadic

SHORT = {"games": 1, "max_days": 1, "max_debate_turns": 1, "max_explanation_turns": 1, "deception_analysis": False}
TRIADIC_ROLES = "Valid roles for wolf_eval/triadic: villager, werewolf, doctor, jester (the seats), judge"


def rules(task: str, **params: object):  # type: ignore[no-untyped-def]
    return Settings.from_task_args(task, **params).rules


def check_roles(bound: list[str], game_rules) -> None:  # type: ignore[no-untyped-def]
    """The eval's bindings of ``bound`` checked, each to one model, the eval's model set."""
    Bindings("wolfbot/cue", dict.fromkeys(bound, "wolfbot/tom")).check(game_rules)


def check_model(model: str, bound: list[str], game_rules) -> None:  # type: ignore[no-untyped-def]
    Bindings(model, dict.fromkeys(bound, "wolfbot/tom")).check(game_rules)


@pytest.mark.parametrize(("task", "params"), [("wolf", {}), ("triadic", {}), ("dyadic", {}),
                                              ("triadic", {"roles": "villager:7,werewolf:2,jester:1"})])
def test_the_roles_a_binding_may_name_are_the_roles_the_game_deals(task: str, params: dict[str, str]) -> None:
    game_rules = rules(task, **params)
    for seed in range(5):
        dealt = {p.role for p in new_game(game_rules, seed).players}
        assert tuple(r for r in Role if r in dealt) == game_rules.roles_dealt


def test_a_role_no_seat_takes_is_refused_naming_the_valid_roles() -> None:
    with pytest.raises(SeatingRefused) as wolf:
        check_roles(["werewolf", "wolf"], rules("triadic"))
    assert str(wolf.value).startswith("--model-role wolf=...: not a role's name (did you mean werewolf?).")
    assert TRIADIC_ROLES in str(wolf.value)
    with pytest.raises(SeatingRefused, match=r"--model-role seer=\.\.\.: wolf_eval/triadic deals no seer\."):
        check_roles(["seer"], rules("triadic"))
    with pytest.raises(SeatingRefused, match="wolf_eval/dyadic deals no jester.*Valid roles for wolf_eval/dyadic: "
                                             r"villager, werewolf, doctor \(the seats\), judge"):
        check_roles(["jester"], rules("dyadic"))
    with pytest.raises(SeatingRefused, match="wolf_eval/triadic deals no doctor"):
        check_roles(["doctor"], rules("triadic", roles="villager:7,werewolf:2,jester:1"))
    with pytest.raises(SeatingRefused, match=r"wolfs=\.\.\.: no such role \(did you mean werewolf\?\); "
                                             r"--model-role Jester=\.\.\.: not a role's name \(did you mean jester"):
        check_roles(["wolfs", "Jester"], rules("triadic"))
    check_roles(["villager", "werewolf", "doctor", "jester", "judge"], rules("triadic"))
    check_roles(["seer", "judge"], rules("wolf"))


def test_an_eval_with_no_model_is_refused_unless_every_seat_has_its_own() -> None:
    with pytest.raises(SeatingRefused, match="^wolf_eval/wolf: no model to play the villager, werewolf, seer, doctor "
                                             "seats: name one with --model"):
        check_model("none/none", [], rules("wolf"))
    with pytest.raises(SeatingRefused, match="no model to play the doctor seats"):
        check_model("none/none", ["villager", "werewolf", "seer", "judge"], rules("wolf"))
    check_model("none/none", ["villager", "werewolf", "seer", "doctor"], rules("wolf"))
    check_model("wolfbot/cue", [], rules("wolf"))


@pytest.mark.slow
def test_a_mistyped_binding_or_no_model_stops_the_eval_before_any_game(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="did you mean werewolf"):
        inspect_eval("wolf_eval/triadic", model="wolfbot/cue", model_roles={"wolf": "wolfbot/tom"},
                     task_args=SHORT, log_dir=str(tmp_path / "wolf"), display="none")
    with pytest.raises(ValueError, match="deals no seer"):
        inspect_eval("wolf_eval/triadic", model="wolfbot/cue", model_roles={"seer": "wolfbot/tom"},
                     task_args=SHORT, log_dir=str(tmp_path / "seer"), display="none")
    monkeypatch.delenv("INSPECT_EVAL_MODEL", raising=False)
    with pytest.raises(ValueError, match="no model to play"):  # in a copy: Inspect leaves its `none` model active
        contextvars.copy_context().run(inspect_eval, "wolf_eval/triadic", model=None, task_args=SHORT,
                                       log_dir=str(tmp_path / "none"), display="none")
    assert not any(tmp_path.iterdir()), "no log is written: nothing was played"


@pytest.mark.slow
def test_the_inspect_command_prints_one_line_and_exits_1(tmp_path: Path) -> None:
    """The refusal reaches the ``inspect`` command as one line, not a traceback (a mistyped binding's too:
    the same exception, checked in process above)."""
    env = {k: v for k, v in os.environ.items() if k != "INSPECT_EVAL_MODEL"}
    inspect = str(Path(sys.executable).parent / "inspect")
    done = subprocess.run([inspect, "eval", "wolf_eval/triadic", "-T", "games=1", "--log-dir", "logs"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done
    assert done.stderr == ("Error: wolf_eval/triadic: no model to play the villager, werewolf, doctor, jester seats: "
                           "name one with --model (e.g. --model openai/gpt-4.1, or --model wolfbot/cue to play "
                           "offline) or set INSPECT_EVAL_MODEL\n"), done.stderr
    assert "Traceback" not in done.stdout
    assert not (tmp_path / "logs").exists()


@pytest.mark.slow
def test_a_binding_the_task_carries_itself_fails_the_game_not_silently(tmp_path: Path) -> None:
    """``task_with(model_roles=...)`` reaches the solver only: it refuses there, before the game."""
    task = task_with(triadic(**SHORT), model_roles={"seer": "wolfbot/tom"})
    [log] = inspect_eval(task, model="wolfbot/cue", log_dir=str(tmp_path), display="none")
    assert log.status == "error"
    assert log.error is not None and "wolf_eval/triadic deals no seer" in log.error.message


@pytest.mark.slow
def test_a_report_cell_names_only_the_bindings_that_seated_a_player(tmp_path: Path) -> None:
    log = run("triadic", "wolfbot/cue", tmp_path, task_args=SHORT,
              model_roles={"werewolf": "wolfbot/tom", "judge": "wolfbot/tom"})
    assert log.status == "success"
    # a log of a release that took any binding: a misspelt role and one triadic does not deal, both ignored in play
    old = read_eval_log(log.location)
    assert old.eval.model_roles is not None
    werewolf = old.eval.model_roles["werewolf"]
    old.eval.model_roles |= {"wolf": werewolf, "seer": werewolf}
    write_eval_log(old, log.location)
    games = load(tmp_path).games
    assert list(games["model"]) == ["wolfbot/cue (werewolf=wolfbot/tom)"]
