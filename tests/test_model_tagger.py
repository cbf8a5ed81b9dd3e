"""The optional model tagger wired in: ``--model-role tagger=`` in a learning eval, ``lessons tag --model``,
and its order shares in the report, with a lost reading counted as lost, never replaced by the regex tags."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import learned, run, store_field
from inspect_ai.util import Store

from wolf_eval.bindings import Bindings, SeatingRefused
from wolf_eval.cli import main
from wolf_eval.lessons.book import Snapshot, model_folder, new_lessons, write_snapshot
from wolf_eval.measures import lessons as les
from wolf_eval.measures.tagger import tag
from wolf_eval.settings import Settings
from wolf_eval.store import GameRecord, TaggerReading

SHORT = {"max_days": 1, "max_debate_turns": 1, "max_explanation_turns": 1, "deception_analysis": False}
UNREADABLE = "I would rather not say."


def scripted_tagger(reply: Callable[[str], str], asked: list[str]) -> Any:
    """A mockllm model answering ``reply(lesson)`` for the lesson its prompt carries (usage set: no tokenizer)."""
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def answer(input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        lesson = input[-1].text.split("The lesson:\n", 1)[1].split("\n\nReply with", 1)[0]
        asked.append(lesson)
        out = ModelOutput.from_content(model="scripted", content=reply(lesson))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/model", custom_outputs=answer, memoize=False)


def by_length(lesson: str) -> str:
    """A reading that is not the regex tagger's: order by the lesson's length; every fourth one unreadable."""
    if len(lesson) % 4 == 0:
        return UNREADABLE
    return json.dumps({"order": len(lesson) % 3 + 1, "categories": ["meta_modeling"]})


def test_the_tagger_role_is_accepted_with_learning_and_a_misspelt_one_is_still_refused() -> None:
    triadic = Settings.from_task_args("triadic").rules
    Bindings.of("wolfbot/cue", dict.fromkeys(["jester", "judge", "tagger"], "wolfbot/tom")).check(triadic)
    with pytest.raises(SeatingRefused, match=r"--model-role taggr=\.\.\.: no such role \(did you mean tagger\?\)"):
        Bindings.of("wolfbot/cue", {"taggr": "wolfbot/tom"}).check(triadic)
    with pytest.raises(SeatingRefused, match="would tag nothing .*jester_learning=true"):
        Bindings.of("wolfbot/cue", {"tagger": "wolfbot/tom"}).check(triadic, learning=False)


def test_a_games_readings_are_counted_and_a_lost_one_is_no_order() -> None:
    readings = [TaggerReading(text="a", order=3, categories=[]), TaggerReading(text="b", order=1, categories=[]),
                TaggerReading(text="c", order=None, categories=[], problem="no JSON object")]
    record = GameRecord(store=Store(), lessons_file="f.json", tagger_model="m", lessons_added_tagger=readings)
    values = les.tagger_values(record)
    assert values == {"tagger_asked": 3.0, "tagger_lost": 1.0, "tagger_order_1": 1.0, "tagger_order_2": 0.0,
                      "tagger_order_3": 1.0}
    untagged = les.tagger_values(GameRecord(store=Store(), lessons_file="f.json"))
    assert all(math.isnan(v) for v in untagged.values())
    other = {"tagger_asked": 2.0, "tagger_lost": 0.0, "tagger_order_1": 0.0, "tagger_order_2": 0.0,
             "tagger_order_3": 2.0}
    pooled = les.tagger_shares([values, untagged, other])
    assert pooled["tagger_asked"] == 5 and pooled["tagger_lost"] == 1
    assert pooled["tagger_order_3"] == pytest.approx(3 / 4) and pooled["tagger_order_1"] == pytest.approx(1 / 4)


@pytest.fixture
def lessons_file(tmp_path: Path) -> Path:
    folder = Path(model_folder(tmp_path, "some/model"))
    lessons = new_lessons([("to_do", "Vote with the majority early so the wolves think you are one."),
                           ("to_not_do", "Talk a lot."), ("to_do", "Claim doctor on day two.")], [], 1)
    write_snapshot(folder, Snapshot(model="some/model", step=1, lessons=lessons))
    return folder / "000001.json"


def test_lessons_tag_with_a_model_prints_its_reading_beside_the_regex_one(
        lessons_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import inspect_ai.model

    asked: list[str] = []

    def reply(lesson: str) -> str:
        return UNREADABLE if lesson == "Talk a lot." else json.dumps({"order": 3, "categories": ["wolf_mimicry"]})

    tagger, mute = scripted_tagger(reply, asked), scripted_tagger(lambda _: UNREADABLE, [])
    monkeypatch.setattr(inspect_ai.model, "get_model", lambda name: tagger)
    assert main(["lessons", "tag", str(lessons_file), "--model", "scripted/tagger"]) == 0
    out = capsys.readouterr().out
    assert len(asked) == 3
    rows = [line for line in out.splitlines() if line.startswith("| ")][1:]
    regex = tag("Vote with the majority early so the wolves think you are one.")
    regex_cells = f"{regex.order} | {', '.join(regex.categories) or '–'}"
    assert rows[0].startswith(f"| 1 | to_do | {regex_cells} | 3 | wolf_mimicry |")
    assert rows[1].startswith(f"| 2 | to_not_do | {tag('Talk a lot.').order} |")
    assert "| lost | no JSON object" in rows[1]
    assert "2 of 3 lessons read (1 lost" in out

    monkeypatch.setattr(inspect_ai.model, "get_model", lambda name: mute)
    assert main(["lessons", "tag", str(lessons_file), "--model", "scripted/tagger"]) == 1
    assert "no reply could be read as tags" in capsys.readouterr().err


def test_lessons_tag_refuses_a_model_it_cannot_use(lessons_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lessons", "tag", str(lessons_file), "--model", "nosuchprovider/x"]) == 2
    assert "--model nosuchprovider/x: cannot be used" in capsys.readouterr().err


@pytest.mark.slow
def test_a_bound_tagger_reads_every_added_lesson_beside_the_regex_tags(tmp_path: Path) -> None:
    from wolf_eval.analysis import report

    asked: list[str] = []
    logs = learned("wolfbot/cue", tmp_path / "logs", 2, model_roles={"tagger": scripted_tagger(by_length, asked)},
                   task_args={"lessons_dir": str(tmp_path / "lessons"), **SHORT})
    assert [log.status for log in logs] == ["success"] * 2
    samples = [s for log in logs for s in log.samples or []]
    added = [x for s in samples for x in store_field(s, "lessons_added")]
    readings = [x for s in samples for x in store_field(s, "lessons_added_tagger")]
    assert added and sorted(asked) == sorted(x["text"] for x in added)
    assert all(store_field(s, "tagger_model") == "mockllm/model" for s in samples)
    for lesson, reading in zip(added, readings, strict=True):
        assert reading["text"] == lesson["text"]
        regex = tag(lesson["text"])
        assert (lesson["order"], lesson["categories"]) == (regex.order, list(regex.categories))
        if len(lesson["text"]) % 4 == 0:
            assert reading["order"] is None and reading["categories"] == [] and "no JSON object" in reading["problem"]
        else:
            assert reading["order"] == len(lesson["text"]) % 3 + 1 and reading["problem"] is None
    lost = sum(1 for x in readings if x["order"] is None)
    assert 0 < lost < len(readings), "the script should give both readings and lost ones"
    for log, sample in ((x, s) for x in logs for s in x.samples or []):  # each eval's metric: its one game's
        mine = store_field(sample, "lessons_added")
        headline = next(s for s in log.results.scores if s.name == "third_order_lessons").metrics  # type: ignore[union-attr]
        assert not mine or headline["third_order_lessons"].value == pytest.approx(
            sum(x["order"] == 3 for x in mine) / len(mine))

    [row] = report.build(report.load(tmp_path / "logs"))["lessons"].to_dict("records")
    assert row["order_3"] == pytest.approx(sum(x["order"] == 3 for x in added) / len(added))  # the regex's
    assert row["tagger_asked"] == len(added) and row["tagger_lost"] == lost and row["tagger_model"] == "mockllm/model"
    given = [x for x in readings if x["order"] is not None]
    if given:
        assert row["tagger_order_3"] == pytest.approx(sum(x["order"] == 3 for x in given) / len(given))
    report.write_report(tmp_path / "logs", tmp_path / "report")
    assert "| Tagger | Asked | Lost | Regex 1st | Model 1st |" in (tmp_path / "report" / "report.md").read_text()


@pytest.mark.slow
def test_a_tagger_bound_without_learning_is_refused_before_any_game(tmp_path: Path) -> None:
    with pytest.raises(SeatingRefused, match="would tag nothing"):
        run("triadic", "wolfbot/cue", tmp_path, model_roles={"tagger": "wolfbot/cue"}, task_args=SHORT)
