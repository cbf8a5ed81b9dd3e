"""Task parameters: one validated Settings object; a bad ``-T`` value is refused before any game, in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

from wolf_eval.engine import Role
from wolf_eval.settings import Settings, SettingsError, condition

RELEASE_LOG = Path(__file__).parent / "data" / "release-0.1.0-triadic.eval"
SHORT = {"games": 1, "max_days": 1, "max_debate_turns": 1, "deception_analysis": False}

BAD = [
    ({"games": "abc"}, "games='abc' is not accepted: a whole number of games, 1 or more"),
    ({"games": 1.5}, "games=1.5 is not accepted: a whole number of games"),
    ({"games": 0}, "games=0 is not accepted: a whole number of games, 1 or more"),
    ({"games": True}, "games=True is not accepted"),
    ({"temperature": -1}, "temperature=-1 is not accepted: a number, 0 or more"),
    ({"temperature": "abc"}, "temperature='abc' is not accepted: a number"),
    ({"seed": "abc"}, "seed='abc' is not accepted: a whole number"),
    ({"max_days": 0}, "max_days=0 is not accepted: a whole number of days, 1 or more"),
    ({"history": "bogus"}, "history='bogus' is not accepted: 'full' or 'compact'"),
    ({"roles": None}, "roles=null is not accepted: a roster such as villager:6,doctor:1,werewolf:2,jester:1"),
    ({"roles": "villager:6,wizard:1,werewolf:2"}, "roles='villager:6,wizard:1,werewolf:2' is not accepted: unknown role 'wizard'"),
    ({"roles": ["villager:1", "werewolf:2", "jester:1"]},
     "roles='villager:1,werewolf:2,jester:1' is not accepted: 2 werewolves against 1 village seats"),
    ({"shuffle_roles": "yes"}, "shuffle_roles='yes' is not accepted: true or false"),
    ({"lessons_dir": "/tmp/x"}, "lessons_dir='/tmp/x' is not accepted: it is only read with jester_learning=true"),
    ({"game": 5}, "game=5 is not a wolf_eval/triadic parameter; did you mean games?"),
]


@pytest.mark.parametrize("given,message", BAD, ids=[m.split(" ")[0] for _, m in BAD])
def test_a_bad_value_is_refused_in_one_line_naming_it(given, message) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_task_args("triadic", **given)
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


def test_the_task_refuses_it_before_any_game(tmp_path) -> None:
    with pytest.raises(SettingsError, match="games='abc' is not accepted"):
        inspect_eval("wolf_eval/triadic", model="wolfbot/cue", task_args={"games": "abc"}, log_dir=str(tmp_path),
                     display="none")
    with pytest.raises(SettingsError, match="did you mean max_days"):
        inspect_eval("wolf_eval/triadic", model="wolfbot/cue", task_args={"max_day": 2}, log_dir=str(tmp_path),
                     display="none")
    assert not list(tmp_path.glob("*.eval")), "no log, no game"


def test_the_command_line_ends_on_the_refusal_and_exits_non_zero(tmp_path) -> None:
    inspect = Path(sys.executable).with_name("inspect")
    done = subprocess.run([str(inspect), "eval", "wolf_eval/triadic", "--model", "wolfbot/cue", "-T", "max_days=0",
                           "--log-dir", str(tmp_path)], capture_output=True, text=True, timeout=300)
    last = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()][-1]
    assert done.returncode != 0
    assert last == "wolf_eval.settings.SettingsError: max_days=0 is not accepted: a whole number of days, 1 or more"


def test_the_readme_roster_forms_give_the_same_roster() -> None:
    as_typed = Settings.from_task_args("triadic", roles="villager:6,doctor:1,werewolf:2,jester:1")
    as_inspect_passes_it = Settings.from_task_args("triadic", roles=["villager:6", "doctor:1", "werewolf:2", "jester:1"])
    as_yaml_mapping = Settings.from_task_args("triadic", roles={"villager": 6, "doctor": 1, "werewolf": 2, "jester": 1})
    as_yaml_list = Settings.from_task_args("triadic", roles=[{"villager": 6}, {"doctor": 1}, {"werewolf": 2},
                                                             {"jester": 1}])
    rosters = {str(s.roster) for s in (as_typed, as_inspect_passes_it, as_yaml_mapping, as_yaml_list)}
    assert rosters == {str({Role.VILLAGER: 6, Role.DOCTOR: 1, Role.WEREWOLF: 2, Role.JESTER: 1})}


def test_settings_are_frozen_and_give_the_engine_its_rules() -> None:
    s = Settings.from_task_args("wolf", max_days=3, history="compact")
    with pytest.raises(ValueError):
        s.max_days = 4  # type: ignore[misc]
    assert s.rules.max_days == 3 and s.rules.max_statement_words == 20 and s.rules.max_explanation_turns == 0
    assert "history" not in type(s.rules).model_fields, "how prompts show the past is not a rule of the game"


def test_condition_names_what_differs_from_the_task_defaults() -> None:
    assert condition(Settings.defaults("triadic")) == "default"
    assert condition(Settings.from_task_args("triadic", games=3, seed=9)) == "default"
    s = Settings.from_task_args("triadic", max_days=2, history="compact", reveal_roles=True,
                                roles="villager:5,doctor:1,werewolf:2,jester:1")
    assert condition(s) == "history=compact, max_days=2, reveal_roles=true, roles=villager:5,doctor:1,werewolf:2,jester:1"
    assert condition(Settings.from_task_args("wolf", max_statement_words=50)) == "max_statement_words=50"


def test_a_log_says_how_its_games_were_played(tmp_path) -> None:
    old = read_eval_log(str(RELEASE_LOG))  # written before settings were recorded: rebuilt from its task args
    assert condition(Settings.from_log(old.eval.task, old.eval.task_args)) == \
        "max_days=2, max_debate_turns=2, max_explanation_turns=1"
    [log] = inspect_eval("wolf_eval/dyadic", model="wolfbot/cue", task_args={**SHORT, "history": "compact"},
                         log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    recorded = log.samples[0].metadata["settings"]
    assert Settings.model_validate(recorded) == Settings.from_task_args("dyadic", **SHORT, history="compact")
    assert condition(Settings.from_log(log.eval.task, log.eval.task_args, log.samples[0].metadata)) == \
        "deception_analysis=false, history=compact, max_days=1, max_debate_turns=1"
