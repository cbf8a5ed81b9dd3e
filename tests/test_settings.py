"""Task parameters: one validated Settings object; a bad ``-T`` value is refused before any game, in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

from wolf_eval.engine import Role
from wolf_eval.engine.config import GameConfig
from wolf_eval.settings import Settings, SettingsError, condition
from wolf_eval.tasks import dyadic, triadic, wolf

RELEASE_LOG = Path(__file__).parent / "data" / "release-0.1.0-triadic.eval"
SHORT = {"games": 1, "max_days": 1, "max_debate_turns": 1, "deception_analysis": False}
TRIADIC = {Role.VILLAGER: 6, Role.DOCTOR: 1, Role.WEREWOLF: 2, Role.JESTER: 1}

#: (task, -T values as Inspect hands them over, the one line the user reads)
BAD = [
    ("triadic", {"games": "abc"}, "games='abc' is not accepted: a whole number of games, 1 or more"),
    ("triadic", {"games": 1.5}, "games=1.5 is not accepted: a whole number of games, 1 or more"),
    ("triadic", {"games": 0}, "games=0 is not accepted: a whole number of games, 1 or more"),
    ("triadic", {"games": True}, "games=true is not accepted: a whole number of games, 1 or more"),
    ("triadic", {"temperature": -1}, "temperature=-1 is not accepted: a number 0 or more, or null"),
    ("triadic", {"temperature": "abc"}, "temperature='abc' is not accepted: a number 0 or more, or null"),
    ("triadic", {"seed": "abc"}, "seed='abc' is not accepted: a whole number"),
    ("triadic", {"max_days": 0}, "max_days=0 is not accepted: a whole number of days, 1 or more"),
    ("triadic", {"history": "bogus"}, "history='bogus' is not accepted: 'full' or 'compact'"),
    ("triadic", {"roles": None},  # `-T roles=`: YAML reads the empty value as null
     "roles='' is not accepted: a roster such as villager:6,doctor:1,werewolf:2,jester:1"),
    ("triadic", {"roles": ""}, "roles='' is not accepted: a roster such as villager:6,doctor:1,werewolf:2,jester:1"),
    ("triadic", {"roles": ["villager:6", "wizard:1", "werewolf:2"]},
     "roles='villager:6,wizard:1,werewolf:2' is not accepted: unknown role 'wizard'"),
    ("triadic", {"roles": ["villager:1", "werewolf:2", "jester:1"]},
     "roles='villager:1,werewolf:2,jester:1' is not accepted: 2 werewolves against 1 village seats: "
     "the wolves would win at once"),
    ("triadic", {"roles": {"villager": 1.5, "werewolf": 1}},
     "roles={'villager': 1.5, 'werewolf': 1} is not accepted: count for 'villager' is not an integer"),
    ("triadic", {"shuffle_roles": "yes"}, "shuffle_roles='yes' is not accepted: true or false"),
    ("triadic", {"deception_analysis": 1}, "deception_analysis=1 is not accepted: true or false"),
    ("triadic", {"lessons_dir": "/tmp/x"},
     "lessons_dir='/tmp/x' is not accepted: it is only read with jester_learning=true"),
    ("triadic", {"lessons_shown": 5}, "lessons_shown=5 is not accepted: it is only read with jester_learning=true"),
    ("triadic", {"jester_learning": True, "lessons_dir": "s3://"},
     "lessons_dir='s3://' is not accepted: an s3:// URL names its bucket"),
    ("triadic", {"game": 5}, "game=5 is not a wolf_eval/triadic parameter; did you mean games?"),
    ("dyadic", {"jester_learning": True}, "jester_learning=true is not accepted: it needs a Jester"),
    ("wolf", {"max_explanation_turns": 0},
     "max_explanation_turns=0 is not accepted: it does not apply to wolf_eval/wolf"),
    ("wolf", {"max_day": 2}, "max_day=2 is not a wolf_eval/wolf parameter; did you mean max_days?"),
    ("dyadic", {"deception": "optional"},
     "deception='optional' is not accepted: optional does not apply to wolf_eval/dyadic"),
    ("triadic", {"deception": "sometimes"}, "deception='sometimes' is not accepted: 'dealt' or 'optional'"),
]
IDS = [f"{task}-{next(iter(given))}={next(iter(given.values()))!r}" for task, given, _ in BAD]


@pytest.mark.parametrize("task,given,message", BAD, ids=IDS)
def test_a_bad_value_is_refused_in_one_line_naming_it(task, given, message) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_task_args(task, **given)
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


@pytest.mark.slow
def test_the_task_refuses_it_before_any_game(tmp_path) -> None:
    """Through Inspect's own entry: ``eval()`` raises the SettingsError itself (no log is written)."""
    for task, given, message in BAD:
        with pytest.raises(SettingsError) as refused:
            inspect_eval(f"wolf_eval/{task}", model="wolfbot/cue", task_args=given, log_dir=str(tmp_path),
                         display="none")
        assert str(refused.value).startswith(message)
    assert not list(tmp_path.iterdir()), "no log, no game"


@pytest.mark.slow
@pytest.mark.parametrize("arg,last", [
    ("games=abc", "Error: games='abc' is not accepted: a whole number of games, 1 or more"),
    ("game=5", "Error: game=5 is not a wolf_eval/triadic parameter; did you mean games?"),
])
def test_the_command_line_ends_on_the_refusal_and_exits_non_zero(tmp_path, arg, last) -> None:
    """The one line and no traceback above it (``--traceback-locals`` would show one: tests/test_one_line_errors.py)."""
    inspect = Path(sys.executable).with_name("inspect")
    done = subprocess.run([str(inspect), "eval", "wolf_eval/triadic", "--model", "wolfbot/cue", "-T", arg,
                           "--log-dir", str(tmp_path)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode == 1
    assert lines[-1] == last
    assert not any("Traceback" in line for line in lines), "\n".join(lines)
    assert not list(tmp_path.glob("*.eval"))


def test_the_roster_forms_give_the_same_roster() -> None:
    forms = [
        "villager:6,doctor:1,werewolf:2,jester:1",  # as typed in Python
        ["villager:6", "doctor:1", "werewolf:2", "jester:1"],  # `-T roles=villager:6,...` as Inspect passes it
        {"villager": 6, "doctor": 1, "werewolf": 2, "jester": 1},  # `-T 'roles={villager: 6, ...}'`
        [{"villager": 6}, {"doctor": 1}, {"werewolf": 2}, {"jester": 1}],  # a YAML list of one-key mappings
        {"Villagers": 6, "doctor": 1, "wolves": 2, "jester": 1},  # the roster parser's aliases
    ]
    for form in forms:
        s = Settings.from_task_args("triadic", roles=form)
        assert s.roles == TRIADIC and s == Settings.defaults("triadic"), form
    smaller = Settings.from_task_args("triadic", roles=["villager:5", "doctor:1", "werewolf:2", "jester:1"])
    assert smaller.roles == {**TRIADIC, Role.VILLAGER: 5} and smaller.rules.seats == 9


def test_the_task_signatures_default_to_the_settings_defaults() -> None:
    for variant, make in (("wolf", wolf), ("triadic", triadic), ("dyadic", dyadic)):
        made = make()
        assert made.metadata["settings"] == Settings.defaults(variant).model_dump(mode="json")
        assert Settings(variant=variant) == Settings.defaults(variant)
    assert Settings.defaults("wolf").max_statement_words == 20 and Settings.defaults("wolf").max_explanation_turns == 0
    assert Settings.defaults("dyadic").max_statement_words == 50
    assert Settings.defaults("dyadic").max_explanation_turns == 6
    assert Settings.defaults("wolf").roles == {Role.VILLAGER: 4, Role.WEREWOLF: 2, Role.SEER: 1, Role.DOCTOR: 1}
    with pytest.raises(SettingsError, match="^roles='' is not accepted"):
        triadic(roles="")


def test_settings_are_frozen_strict_and_give_the_engine_its_rules() -> None:
    s = Settings.from_task_args("wolf", max_days=3, history="compact", temperature=0)
    with pytest.raises(ValueError):
        s.max_days = 4  # type: ignore[misc]
    with pytest.raises(ValueError):
        Settings(variant="triadic", gamez=3)  # type: ignore[call-arg]
    assert s.temperature == 0.0 and s.history == "compact"
    rules = s.rules
    assert isinstance(rules, GameConfig) and rules.max_days == 3 and rules.max_statement_words == 20
    assert rules.max_explanation_turns == 0 and rules.roster == Settings.defaults("wolf").roles
    assert "history" not in GameConfig.model_fields, "how prompts show the past is not a rule of the game"
    assert Settings.from_task_args("triadic", temperature=None).temperature is None


def test_condition_names_what_differs_from_the_task_defaults() -> None:
    assert condition(Settings.defaults("triadic")) == "default"
    assert condition(Settings.from_task_args("triadic", games=3, seed=9)) == "default"
    assert condition(Settings.from_task_args("triadic", roles="villager:6,doctor:1,werewolf:2,jester:1")) == "default"
    s = Settings.from_task_args("triadic", max_days=2, history="full", reveal_roles=True,
                                roles="villager:5,doctor:1,werewolf:2,jester:1")
    assert condition(s) == \
        "history=full, max_days=2, reveal_roles=true, roles=villager:5,doctor:1,werewolf:2,jester:1"
    assert condition(Settings.from_task_args("triadic", history="compact", calls="per_decision")) == "default"
    assert condition(Settings.from_task_args("wolf", max_statement_words=50)) == "max_statement_words=50"
    assert condition(Settings.from_task_args("triadic", max_statement_words=20)) == "max_statement_words=20"
    learning = Settings.from_task_args("triadic", jester_learning=True, lessons_dir="/tmp/l", temperature=None)
    assert condition(learning) == "jester_learning=true, temperature=null"


@pytest.mark.slow
def test_a_log_says_how_its_games_were_played(tmp_path) -> None:
    old = read_eval_log(str(RELEASE_LOG))  # written before settings were recorded: rebuilt from its task args
    assert "settings" not in (old.samples[0].metadata or {})
    for name in (old.eval.task, old.eval.task.split("/")[-1]):
        assert condition(Settings.from_log(name, old.eval.task_args, old.samples[0].metadata)) == \
            "history=full, max_days=2, max_debate_turns=2, max_explanation_turns=1"  # full was the default then
    # the roster in the comma form, as Inspect hands it over, through the real task
    given = {**SHORT, "history": "full", "roles": ["villager:6", "doctor:1", "werewolf:2", "jester:1"]}
    [log] = inspect_eval("wolf_eval/triadic", model="wolfbot/cue", task_args=given, log_dir=str(tmp_path),
                         display="none")
    assert log.status == "success"
    expected = Settings.from_task_args("triadic", **given)
    assert log.eval.task_args["roles"] == given["roles"] and log.eval.task_args["games"] == 1
    assert log.eval.metadata["settings"] == expected.model_dump(mode="json")
    [sample] = log.samples
    assert sample.metadata["variant"] == "triadic" and sample.metadata["game"] == 1 and sample.metadata["seed"] == 0
    assert Settings.model_validate(sample.metadata["settings"]) == expected
    label = "deception_analysis=false, history=full, max_days=1, max_debate_turns=1"
    assert condition(Settings.from_log(log.eval.task, log.eval.task_args, sample.metadata)) == label
    assert condition(Settings.from_log(log.eval.task, log.eval.task_args)) == label  # from the task args alone
    # written while an empty roster stood for the task's own
    earlier = {**sample.metadata["settings"], "roles": {}}
    assert Settings.from_log("triadic", {**log.eval.task_args, "roles": ""}, {"settings": earlier}) == expected
    assert Settings.from_log("triadic", {**log.eval.task_args, "roles": ""}) == expected


def test_a_lessons_dir_on_a_store_without_conditional_writes_is_refused_naming_what_is_supported() -> None:
    """Lessons rely on a file lock or S3's conditional writes: another fsspec URL is refused, not written unsafely."""
    with pytest.raises(SettingsError) as refused:
        Settings.from_task_args("triadic", jester_learning=True, lessons_dir="gs://bucket/lessons")
    assert str(refused.value) == (
        "lessons_dir='gs://bucket/lessons' is not accepted: gs:// is not supported: lessons are kept in a local or "
        "mounted folder (file lock and atomic rename) or on s3:// (conditional writes)")
    for supported in ("/mnt/shared/lessons", "s3://bucket/lessons"):
        assert Settings.from_task_args("triadic", jester_learning=True, lessons_dir=supported).lessons_dir == supported


def test_lessons_shown_bounds_the_jesters_prompt_and_takes_whole_numbers_only() -> None:
    assert Settings.defaults("triadic").lessons_shown == 50
    assert Settings.from_task_args("triadic", jester_learning=True, lessons_shown=5).lessons_shown == 5
    for bad in (0, 2.5, "many"):
        with pytest.raises(SettingsError, match="lessons_shown="):
            Settings.from_task_args("triadic", jester_learning=True, lessons_shown=bad)
