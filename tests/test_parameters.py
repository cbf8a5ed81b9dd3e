"""The docs' parameter table is written from the parameter table in ``wolf_eval.settings`` and kept fresh.

Every Markdown file of the README and docs/ that carries the markers must hold the table as the code
writes it today (``python -m wolf_eval.parameters`` rewrites them; ``--check`` is what CI runs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wolf_eval.engine.variants import VARIANTS
from wolf_eval.parameters import BEGIN, END, main, marked, parameter_table, refreshed
from wolf_eval.settings import PARAMETERS, Settings, condition, task_signature

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("path", marked([ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_generated_parameter_block_is_up_to_date(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert refreshed(text, str(path)) == text, f"{path}: run python -m wolf_eval.parameters"


def test_the_generator_writes_between_the_markers_and_check_fails_on_a_stale_block(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.md"
    page.write_text(f"# Title\n\nBefore.\n\n{BEGIN}\n| stale |\n{END}\n\nAfter.\n", encoding="utf-8")
    assert main(["--check", str(page)]) == 1
    assert "page.md: parameter table out of date" in capsys.readouterr().out
    assert main([str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert text == f"# Title\n\nBefore.\n\n{BEGIN}\n{parameter_table()}\n{END}\n\nAfter.\n"
    assert main(["--check", str(page)]) == 0 and main([str(page)]) == 0
    assert page.read_text(encoding="utf-8") == text  # a second run changes nothing


def test_a_run_that_finds_no_block_or_a_lone_marker_exits_1(tmp_path: Path) -> None:
    plain = tmp_path / "plain.md"
    plain.write_text("# No table here\n", encoding="utf-8")
    assert main([str(plain)]) == 1 and main(["--check", str(plain)]) == 1
    lone = tmp_path / "lone.md"
    lone.write_text(f"{BEGIN}\n| half |\n", encoding="utf-8")
    assert main([str(lone)]) == 1 and lone.read_text(encoding="utf-8") == f"{BEGIN}\n| half |\n"
    with pytest.raises(ValueError, match="was expected"):
        refreshed(f"{END}\n")
    quoted = f"Quote `{BEGIN}` in a sentence.\n"
    assert refreshed(quoted) == quoted and marked([plain]) == []


def test_the_table_has_one_row_per_task_parameter_with_the_signatures_defaults() -> None:
    rows = parameter_table().splitlines()[2:]
    assert [row.split("|")[1].strip(" `") for row in rows] == list(PARAMETERS) == \
        [name for name in task_signature("triadic").parameters if name != "unknown"]
    by_name = {row.split("|")[1].strip(" `"): row.split("|")[2].strip() for row in rows}
    assert by_name["history"] == "`compact`" and by_name["temperature"] == "`1.0`"
    assert by_name["lessons_dir"] == "`null`"
    assert by_name["max_statement_words"] == "wolf: `20`; triadic, dyadic: `50`"
    assert by_name["max_explanation_turns"] == "wolf: does not apply; triadic, dyadic: `6`"


def test_each_default_is_the_settings_field_and_the_signature_reads_it() -> None:
    """One declaration per default: the signature of every task carries the Settings default, typed as given."""
    for variant in VARIANTS:
        defaults = Settings.defaults(variant)  # type: ignore[arg-type]
        signature = task_signature(variant).parameters
        for name in ("games", "seed", "max_days", "temperature", "history", "seating", "calls", "lessons_shown"):
            assert signature[name].default == getattr(defaults, name) == Settings.model_fields[name].default
    assert Settings.model_fields["history"].annotation is not str  # the Literal, not a bare string


def test_condition_labels_read_the_tables_condition_column() -> None:
    """A parameter marked as no condition never splits a report cell; every other one does."""
    other = {"games": 3, "seed": 9, "shuffle_roles": False, "max_debate_turns": 2, "max_explanation_turns": 1,
             "max_days": 2, "max_statement_words": 20, "temperature": 0.5, "reveal_roles": True,
             "structured_output": False, "history": "full", "deception_analysis": False, "seating": "fixed",
             "calls": "per_decision", "roles": "villager:5,doctor:1,werewolf:2,jester:1", "monitor": "speech",
             "deception": "optional"}
    learning = {"jester_learning": True, "temperature": None, "games": 1}
    for name, value in other.items():
        changed = Settings.from_task_args("triadic", **{name: value})
        assert (condition(changed) != "default") == PARAMETERS[name].condition, name
    base = condition(Settings.from_task_args("triadic", **learning))
    for name, value in {"lessons_dir": "/tmp/lessons", "lessons_shown": 5, "learning_step": 2}.items():
        changed = condition(Settings.from_task_args("triadic", **learning, **{name: value}))
        assert (changed != base) == PARAMETERS[name].condition, name
    monitored = condition(Settings.from_task_args("triadic", monitor="reasoning"))
    assert condition(Settings.from_task_args("triadic", monitor="reasoning", watched=True)) != monitored
    assert PARAMETERS["watched"].condition
    assert set(other) | set(learning) | {"lessons_dir", "lessons_shown", "learning_step", "watched"} == set(PARAMETERS)
