"""The one table of an eval's models by role (``wolf_eval.bindings.Bindings``): a seat's role left unbound plays
the eval's model, the judge and the tagger never do, the log's spec reads as the live eval does, and Inspect's
bindings are read in one place (``Bindings.running``), called only inside a solver or a scorer, each role resolved
on purpose."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai.analysis import EvalInfo, EvalModel, evals_df
from inspect_ai.log import EvalLog, EvalSpec
from inspect_ai.model import ModelConfig

from wolf_eval.analysis.frames import FACTION_COLUMNS, faction_model
from wolf_eval.bindings import Bindings, RoleUnbound, SeatingRefused
from wolf_eval.settings import Settings
from wolf_eval.vocabulary import JUDGE_ROLE, TAGGER_ROLE, Faction, Role

ROOT = Path(__file__).resolve().parents[1]
RELEASE_LOG = ROOT / "tests" / "data" / "release-0.1.0-triadic.eval"


def rules(task: str):  # type: ignore[no-untyped-def]
    return Settings.from_task_args(task).rules


def spec(task: str, model: str, roles: dict[str, object] | None) -> EvalSpec:
    return EvalSpec.model_construct(task=task, task_args={}, metadata={}, model=model, model_roles=roles)


def test_a_seat_role_left_unbound_plays_the_eval_model_and_a_bound_one_its_binding() -> None:
    bound = Bindings.of("wolfbot/cue", {"werewolf": "wolfbot/tom", JUDGE_ROLE: "wolfbot/random"})
    assert [bound.seat(r) for r in rules("triadic").roles_dealt] == ["wolfbot/cue", "wolfbot/tom", "wolfbot/cue",
                                                                     "wolfbot/cue"]
    assert bound.judge == "wolfbot/random" and bound.tagger is None
    assert Bindings.of("m", {"jester": ["a", "b"]}).seat(Role.JESTER) == "a", "a list plays its first, as Inspect"


@pytest.mark.parametrize("role", [JUDGE_ROLE, TAGGER_ROLE])
def test_the_judge_and_the_tagger_unbound_are_refused_in_one_line_naming_the_binding(role: str) -> None:
    with pytest.raises(RoleUnbound) as refused:
        Bindings.of("wolfbot/cue", {"werewolf": "wolfbot/tom"}).required(role)
    message = str(refused.value)
    assert "\n" not in message and f"pass --model-role {role}=<model>" in message
    assert "never plays the model under evaluation" in message
    assert isinstance(refused.value, ValueError), "a Python caller catches it as a ValueError"
    assert Bindings.of("m", {role: "wolfbot/tom"}).required(role) == "wolfbot/tom"


def test_faction_models_name_each_seated_faction_once() -> None:
    bound = Bindings.of("a", {"werewolf": "b", "doctor": "c"})
    assert bound.faction_models(rules("triadic")) == {"villagers_model": "a + c", "werewolves_model": "b",
                                                      "jester_model": "a"}
    assert bound.faction_models(rules("dyadic")) == {"villagers_model": "a + c", "werewolves_model": "b"}


def test_the_check_refuses_what_no_seat_takes_and_returns_the_table() -> None:
    bound = Bindings.of("wolfbot/cue", {"werewolf": "wolfbot/tom"})
    assert bound.check(rules("triadic")) is bound
    with pytest.raises(SeatingRefused, match="deals no seer"):
        Bindings.of("wolfbot/cue", {"seer": "wolfbot/tom"}).check(rules("triadic"))
    with pytest.raises(SeatingRefused, match="no model to play the villager, werewolf, doctor seats"):
        Bindings.of("none/none", {"jester": "wolfbot/tom"}).check(rules("triadic"))
    with pytest.raises(SeatingRefused, match="would tag nothing"):
        Bindings.of("wolfbot/cue", {TAGGER_ROLE: "wolfbot/tom"}).check(rules("triadic"), learning=False)


def test_a_spec_reads_as_the_live_eval_reads() -> None:
    assert Bindings.from_spec(spec("wolf_eval/triadic", "m", None)) == Bindings("m", {})
    logged = spec("wolf_eval/triadic", "m", {"jester": ModelConfig(model="x"), "judge": [ModelConfig(model="j")]})
    assert Bindings.from_spec(logged) == Bindings.of("m", {"jester": "x", "judge": "j"})
    assert Bindings.from_spec(logged).seat(Role.JESTER) == "x"


def test_every_reader_of_a_logged_binding_reads_a_role_bound_to_a_list_by_its_first_model() -> None:
    """The report's model label (the samples' JSON) and compare's record of a played eval (the spec) read
    through the table's one reader, which some releases' list-valued roles do not trip."""
    from types import SimpleNamespace

    from wolf_eval.analysis.compare import _logged_eval
    from wolf_eval.analysis.corpus import model_label
    from wolf_eval.engine import new_game

    as_json = '{"jester": [{"model": "x", "config": {}}], "judge": {"model": "j", "config": {}}}'
    assert Bindings.of("m", __import__("json").loads(as_json)) == Bindings("m", {"jester": "x", "judge": "j"})
    game = new_game(rules("triadic"), 0)
    seat_models = {p.name: ("x" if p.role is Role.JESTER else "m") for p in game.players}
    assert model_label("m", as_json, game, seat_models) == "m (jester=x)"
    roles = {"jester": [ModelConfig(model="x")], "werewolf": ModelConfig(model="w")}
    header = SimpleNamespace(eval=spec("wolf_eval/triadic", "m", roles).model_copy(
        update={"dataset": SimpleNamespace(sample_ids=[1]), "config": SimpleNamespace(epochs=1)}))
    key, games, name = _logged_eval(header)
    assert key == ("m", (("jester", "x"), ("werewolf", "w")), "0") and games == [("1", 1)]
    assert name.startswith("w + x as ")


def test_the_faction_columns_read_the_logs_own_spec() -> None:
    assert [c.name for c in FACTION_COLUMNS] == [f"{f.value}_model" for f in Faction]
    dyadic = EvalLog.model_construct(eval=spec("wolf_eval/dyadic", "a", {"werewolf": ModelConfig(model="b")}))
    assert [faction_model(f)(dyadic) for f in Faction] == ["a", "b", None]
    other = EvalLog.model_construct(eval=spec("gpqa_diamond", "a", None))
    assert {faction_model(f)(other) for f in Faction} == {None}


def test_a_release_log_reads_its_faction_models_from_its_spec() -> None:
    """Release 0.1.0 wrote no faction models into its task metadata; its spec names the one model it played."""
    [row] = evals_df(str(RELEASE_LOG), quiet=True, columns=EvalInfo + EvalModel + FACTION_COLUMNS).to_dict("records")
    assert (row["model"], row["villagers_model"], row["werewolves_model"], row["jester_model"]) == (
        "wolfbot/cue", "wolfbot/cue", "wolfbot/cue", "wolfbot/cue")
    assert not pd.isna(row["jester_model"])


# --------------------------------------------------------------------------- where models are resolved

COMPONENTS = ("solver", "scorer", "agent")


def get_model_calls(path: Path, called: str = "get_model") -> list[tuple[int, bool, ast.Call]]:
    """Every call of ``called`` (``get_model(...)``, or ``running(...)``) in a file, with whether a
    ``@solver``/``@scorer``/``@agent`` function holds it."""
    found: list[tuple[int, bool, ast.Call]] = []

    def visit(node: ast.AST, inside: bool) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
            inside = inside or any(getattr(n, "id", getattr(n, "attr", None)) in COMPONENTS for n in names)
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == called:
            found.append((node.lineno, inside, node))
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


@functools.cache
def shipped_calls(called: str = "get_model") -> list[tuple[str, int, bool, ast.Call]]:
    """Every call of ``called`` in the shipped code (read once for the tests below): file, line, inside, call."""
    return [(str(p.relative_to(ROOT)), *found) for p in sorted((ROOT / "wolf_eval").rglob("*.py"))
            if called in p.read_text(encoding="utf-8") for found in get_model_calls(p, called)]


#: Where Inspect's bindings are read: the table's one builder, ``Bindings.running``, and ``wolf-eval lessons tag
#: FILE --model M``, which runs no eval and resolves the model its user names on the command line (``wolf-eval
#: play`` makes the person's model there too, before its eval).
READERS = {"wolf_eval/bindings.py", "wolf_eval/cli.py"}


def test_inspects_bindings_are_read_by_the_table_alone_and_it_is_built_inside_a_solver_or_a_scorer() -> None:
    readers = {path for path, *_ in shipped_calls()} | {str(p.relative_to(ROOT)) for p in (ROOT / "wolf_eval").rglob(
        "*.py") if "model_roles()" in p.read_text(encoding="utf-8")}
    assert readers == READERS
    builders = [(path, inside) for path, _, inside, _ in shipped_calls("running")]
    assert builders and all(inside for _, inside in builders), builders


def test_every_role_is_resolved_with_a_default_or_as_required() -> None:
    loose = []
    for path, line, _, call in shipped_calls():
        given = {k.arg: k.value for k in call.keywords}
        deliberate = ("default" in given and not (isinstance(given["default"], ast.Constant)
                                                   and given["default"].value is None)) or (
            isinstance(given.get("required"), ast.Constant) and given["required"].value is True)
        if "role" in given and not deliberate:
            loose.append(f"{path}:{line}")
    assert loose == []
    roles = [c for c in shipped_calls() if any(k.arg == "role" for k in c[3].keywords)]
    assert len(roles) == 2  # the seats, the non-seat roles (the judge, the tagger, the monitor)


def test_the_resolution_check_catches_a_loose_role(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from inspect_ai.model import get_model\n\ndef seat():\n    return get_model(role='werewolf')\n")
    [(line, inside, call)] = get_model_calls(bad)
    assert (line, inside, [k.arg for k in call.keywords]) == (4, False, ["role"])
