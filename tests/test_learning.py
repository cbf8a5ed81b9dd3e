"""The Jester learning loop: games in order, one lessons call each, lessons read by the next game."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from helpers import final_state, game_scores, learned, run, scripted_model, store_field
from inspect_ai.log import EvalLog, EvalSample, resolve_sample_attachments

from wolf_eval.agents.parse import InvalidReply
from wolf_eval.agents.prompts import METADATA_KEY
from wolf_eval.agents.seat_call import logged_parts
from wolf_eval.cli import main
from wolf_eval.lessons.asking import parse_lessons
from wolf_eval.lessons.book import latest, model_folder

ARGS = {"max_debate_turns": 3, "max_explanation_turns": 2, "max_days": 3, "deception_analysis": False}


def jester_calls(sample: EvalSample) -> list[tuple[str, str]]:
    """(action, system prompt) of every model call made for the sample's Jester seat."""
    calls = []
    for event in resolve_sample_attachments(sample).events:
        if event.event != "model":
            continue
        meta = next((m.metadata[METADATA_KEY] for m in event.input if m.metadata and METADATA_KEY in m.metadata), None)
        parts = logged_parts(meta) if meta else []
        if parts and parts[0]["role"] == "jester":
            calls.append((parts[-1]["action"], event.input[0].text))
    return calls


@pytest.fixture(scope="module")
def learning_run(tmp_path_factory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("learning")
    logs = learned("wolfbot/cue", folder / "logs", 4, task_args={"lessons_dir": str(folder / "lessons"), **ARGS})
    return logs, folder / "lessons"


def by_step(logs: list[EvalLog]) -> list[EvalSample]:
    return sorted((s for log in logs for s in log.samples or []), key=lambda s: store_field(s, "learning_step"))


@pytest.mark.slow
def test_games_run_in_order_and_each_reads_all_earlier_lessons(learning_run) -> None:  # type: ignore[no-untyped-def]
    logs, _ = learning_run
    assert [log.status for log in logs] == ["success"] * 4, "one eval per game"
    assert [[int(s.id) for s in log.samples] for log in logs] == [[1], [2], [3], [4]]
    samples = by_step(logs)
    assert [store_field(s, "learning_step") for s in samples] == [1, 2, 3, 4]
    added_so_far: list[str] = []
    for sample in samples:
        assert [x["text"] for x in store_field(sample, "lessons_read")] == added_so_far
        added_so_far += [x["text"] for x in store_field(sample, "lessons_added")]
    assert store_field(samples[0], "lessons_added"), "the first game taught something"


@pytest.mark.slow
def test_each_snapshot_holds_every_lesson_added_before_it_once(learning_run) -> None:  # type: ignore[no-untyped-def]
    from wolf_eval.lessons.book import read_snapshot, snapshot_path

    logs, folder = learning_run
    stored = latest(model_folder(folder, "wolfbot/cue"), "wolfbot/cue")
    assert stored is not None and stored.step == 4
    added = [x["text"] for s in by_step(logs) for x in store_field(s, "lessons_added")]
    assert [x.text for x in stored.lessons] == added
    assert len(set(added)) == len(added)
    assert stored.logs == [log.location for log in logs]
    for step, sample in enumerate(by_step(logs), start=1):  # snapshot k: game k's lessons on snapshot k-1's
        snapshot = read_snapshot(snapshot_path(model_folder(folder, "wolfbot/cue"), step), "wolfbot/cue")
        assert snapshot is not None and [x.text for x in snapshot.lessons if x.step == step] == \
            [x["text"] for x in store_field(sample, "lessons_added")]


@pytest.mark.slow
def test_one_lessons_call_per_game_and_the_jester_prompt_carries_the_lessons(learning_run) -> None:  # type: ignore[no-untyped-def]
    logs, _ = learning_run
    for sample in by_step(logs):
        calls = jester_calls(sample)
        assert [a for a, _ in calls].count("lessons") == 1
        assert calls[-1][0] == "lessons"
        read = [x["text"] for x in store_field(sample, "lessons_read")]
        for _, system in calls:
            if read:
                assert "Lessons you wrote after your earlier games as the Jester" in system
                assert all(json.dumps(text) in system for text in read)
            else:
                assert "Lessons you wrote" not in system


def equal(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


@pytest.mark.slow
def test_lesson_scores_count_what_was_added(learning_run) -> None:  # type: ignore[no-untyped-def]
    logs, _ = learning_run
    total = 0
    for sample in by_step(logs):
        value = game_scores(sample)["lessons"]
        added = store_field(sample, "lessons_added")
        assert value["lessons_added"] == len(added)
        assert value["lessons_read"] == len(store_field(sample, "lessons_read"))
        assert sum(value[f"order_{o}"] for o in (1, 2, 3)) == len(added)
        total += len(added)
        third = sum(1 for x in added if x["order"] == 3)
        assert equal(sample.scores["third_order_lessons"].value, round(third / len(added), 3) if added else math.nan)
    assert total
    for log in logs:  # each eval's metric is its one game's share
        [sample] = log.samples
        metric = next(s for s in log.results.scores if s.name == "third_order_lessons").metrics["third_order_lessons"]
        lessons = game_scores(sample)["lessons"]
        assert equal(metric.value, lessons["order_3"] / lessons["lessons_added"] if lessons["lessons_added"] else
                     math.nan)


@pytest.mark.slow
def test_without_learning_there_is_no_lessons_call_and_no_lessons_block(tmp_path) -> None:  # type: ignore[no-untyped-def]
    log = run("triadic", "wolfbot/cue", tmp_path, task_args={"games": 3, **ARGS})
    seen = 0
    for sample in log.samples:
        calls = jester_calls(sample)  # none when the Jester dies on night 1
        seen += len(calls)
        assert all(a != "lessons" and "Lessons you wrote" not in s for a, s in calls)
        assert all(math.isnan(v) for v in game_scores(sample)["lessons"].values())
        assert store_field(sample, "lessons_file") is None
    assert seen > 0
    metrics = next(s for s in log.results.scores if s.name == "third_order_lessons").metrics
    assert math.isnan(metrics["third_order_lessons"].value)
    assert log.results.early_stopping is None, "only a learning run brings its order of games"


@pytest.mark.slow
def test_a_learning_run_plays_every_game_and_leaves_the_scores_alone(learning_run) -> None:  # type: ignore[no-untyped-def]
    logs, _ = learning_run
    for log in logs:
        assert log.results.early_stopping is None, "no early-stopping hook watches a learning run"
        assert log.results.total_samples == log.results.completed_samples == 1
        [sample] = log.samples
        assert sample.error is None and "village_win" in (sample.scores or {})
        metrics = next(s for s in log.results.scores if s.name == "village_win").metrics
        assert metrics["village_win"].value == (final_state(sample).outcome.winner == "villagers")


@pytest.mark.slow
def test_an_unreadable_lessons_reply_adds_nothing_and_is_recorded(tmp_path) -> None:  # type: ignore[no-untyped-def]
    def garble(obs, content):  # type: ignore[no-untyped-def]
        return "I learned a lot, thanks!" if obs.action == "lessons" else content

    [log] = learned(scripted_model(garble), tmp_path / "logs", task_args={"lessons_dir": str(tmp_path / "lessons"),
                                                                          **ARGS})
    assert log.status == "success"
    [sample] = log.samples
    assert store_field(sample, "lessons_added") == []
    assert "unreadable lessons reply" in store_field(sample, "lessons_problem")
    assert store_field(sample, "lessons_reply") == "I learned a lot, thanks!"
    assert game_scores(sample)["lessons"]["lessons_added"] == 0


@pytest.mark.slow
@pytest.mark.parametrize(("task", "args", "message"), [
    ("wolf", {"jester_learning": True}, "needs a Jester"),
    ("dyadic", {"jester_learning": True}, "needs a Jester"),
    ("triadic", {"lessons_dir": "/tmp/x"}, "only read with jester_learning"),
    ("triadic", {"jester_learning": True}, "is not accepted alone: a learning run is one eval per game, played in "
                                          "order by `wolf-eval learn triadic"),
    ("triadic", {"jester_learning": True, "learning_step": 2, "games": 2}, "games must be 1"),
])
def test_learning_settings_that_cannot_work_are_refused(tmp_path, task, args, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(Exception, match=message):
        run(task, "wolfbot/cue", tmp_path, task_args={"games": 1, **args})


def test_lessons_replies_are_read_defensively() -> None:
    assert parse_lessons('{"to_do": ["Bid high."], "to_not_do": [], "winning_tactics": "Look wolf-like."}') == [
        ("to_do", "Bid high."), ("winning_tactics", "Look wolf-like.")]
    assert parse_lessons('```json\n{"To Do": ["  Speak   first. "], "notes": "x"}\n```') == [("to_do", "Speak first.")]
    assert parse_lessons('{"to_do": [], "to_not_do": [], "winning_tactics": []}') == []
    for bad in ("nothing new", '{"to_do": {"a": 1}}'):
        with pytest.raises(InvalidReply):
            parse_lessons(bad)


@pytest.mark.slow
def test_cli_tags_a_lessons_file(learning_run, capsys) -> None:  # type: ignore[no-untyped-def]
    _, folder = learning_run
    path = model_folder(folder, "wolfbot/cue")
    stored = latest(path, "wolfbot/cue")
    assert stored is not None
    for named in (path, path / "000004.json"):  # a model's folder reads as its latest snapshot
        assert main(["lessons", "tag", str(named)]) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"wolfbot/cue: {len(stored.lessons)} lessons")
        assert "| 1 | " in out and "| ToM order |" in out
    assert main(["lessons", "tag", str(folder / "missing.json")]) == 2


@pytest.mark.slow
def test_a_learning_run_exports_like_any_other(learning_run, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The lessons' own transcript notes are not game records: export writes every game, record for record."""
    logs, _ = learning_run
    for log in logs:
        assert main(["export", log.location, "--out", str(tmp_path / "export" / log.eval.eval_id)]) == 0
    for log, sample in ((x, s) for x in logs for s in x.samples or []):
        [stream] = (tmp_path / "export" / log.eval.eval_id).glob(f"game{sample.id}-*.ndjson")
        lines = [json.loads(x) for x in stream.read_text(encoding="utf-8").splitlines()]
        records = [x for x in lines if x["event"] not in ("model_call", "model_error")]
        assert len(records) == len(final_state(sample).records)


@pytest.mark.slow
def test_report_shows_the_lessons_and_the_learning_curve(learning_run, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from wolf_eval.analysis import report

    logs, _ = learning_run
    folder = str(Path(logs[0].location).parent)
    tables = report.build(report.load(folder))
    [row] = tables["lessons"].to_dict("records")
    added = [x for s in by_step(logs) for x in store_field(s, "lessons_added")]
    assert row["condition"] == ("deception_analysis=false, jester_learning=true, max_days=3, max_debate_turns=3, "
                                "max_explanation_turns=2")
    assert row["added"] == len(added) and row["games"] == 4
    for o in (1, 2, 3):
        assert row[f"order_{o}"] == pytest.approx(sum(x["order"] == o for x in added) / len(added))
    manipulation = sum("vote_manipulation" in x["categories"] for x in added)
    assert row["vote_manipulation"] == pytest.approx(manipulation / len(added))
    [curve] = tables["learning_curve"].to_dict("records")
    wins = [game_scores(s)["outcome"]["jester"] for s in by_step(logs)]  # play order is the learning order
    assert curve["cumulative"] == pytest.approx([sum(wins[: i + 1]) / (i + 1) for i in range(4)])
    assert curve["games 1–4"] == pytest.approx(sum(wins) / 4)
    report.write_report(folder, tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "## Jester lessons" in text and "No lessons in these logs" not in text
    assert (tmp_path / "learning_curve.png").exists()


@pytest.mark.slow
def test_a_lessons_write_that_fails_stops_the_run_loudly_and_the_rerun_keeps_the_game(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Disk full as game 2's snapshot is written: the run stops naming the file and the reason; the game's log
    holds what it added, and the same command keeps it from that log instead of playing it again."""
    import errno

    import wolf_eval.lessons.book as book
    from wolf_eval.lessons.run import LearningStopped

    created = book._create_local

    def disk_full_at_game_2(path, content):  # type: ignore[no-untyped-def]
        if path.name == "000002.json":
            raise OSError(errno.EFBIG, "File too large")
        return created(path, content)

    monkeypatch.setattr(book, "_create_local", disk_full_at_game_2)
    lessons, logs = tmp_path / "lessons", tmp_path / "logs"
    folder = model_folder(lessons, "wolfbot/cue")
    with pytest.raises(LearningStopped) as stopped:
        learned("wolfbot/cue", logs, 3, task_args={"lessons_dir": str(lessons), **ARGS})
    assert f"the lessons of game 2 could not be saved to {folder / '000002.json'}: File too large" in str(stopped.value)
    assert sorted(p.name for p in folder.iterdir()) == ["000001.json"]
    monkeypatch.setattr(book, "_create_local", created)
    again = learned("wolfbot/cue", logs, 3, task_args={"lessons_dir": str(lessons), **ARGS})
    assert len(list(logs.glob("*.eval"))) == 3, "game 2 was kept from its log, not played again"
    assert [store_field(log.samples[0], "learning_step") for log in again] == [2, 3]
    assert latest(folder, "wolfbot/cue").step == 3


@pytest.mark.slow
@pytest.mark.parametrize("content, says", [
    ({"model": "openai/gpt-4o", "lessons": [{"list": "to_do", "text": "GPT-4O PRIVATE LESSON"}]},
     "it holds the lessons of 'openai/gpt-4o', not of 'wolfbot/cue'"),
    ("a shopping list", "Invalid JSON"),
    (None, "it is a folder"),
])
def test_a_snapshot_that_is_not_this_models_stops_the_run_before_any_game(tmp_path, content, says) -> None:  # type: ignore[no-untyped-def]
    """Refused before any eval, so no game is played and no log written; the file is never overwritten."""
    from wolf_eval.lessons.book import NotALessonsFile

    lessons = tmp_path / "lessons"
    path = model_folder(lessons, "wolfbot/cue") / "000001.json"
    path.parent.mkdir(parents=True)
    if content is None:
        path.mkdir()
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(NotALessonsFile) as refused:
        learned("wolfbot/cue", tmp_path / "logs", 2, task_args={"lessons_dir": str(lessons), **ARGS})
    assert f"{path} is not a wolf-eval lessons file: {says}" in str(refused.value)
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").iterdir())
    assert content is None or path.read_text() == (content if isinstance(content, str) else json.dumps(content))


def jester_prompt():  # type: ignore[no-untyped-def]
    """``benchmarks/jester_prompt.py``, loaded from its file (benchmarks/ is not a package)."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "jester_prompt", Path(__file__).resolve().parents[1] / "benchmarks" / "jester_prompt.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_jesters_prompt_carries_the_most_recent_lessons_within_its_budget() -> None:
    """10,000 stored lessons: the prompt carries the last ``lessons_shown`` of them, in order, and stays small."""
    from wolf_eval.lessons.asking import most_recent
    from wolf_eval.settings import Settings

    bench = jester_prompt()
    stored_lessons, system_prompt_chars = bench.stored_lessons, bench.system_prompt_chars
    lessons = stored_lessons(10_000)
    budget = Settings.defaults("triadic").lessons_shown
    assert budget == 50
    shown = most_recent(lessons, budget)
    assert shown == lessons[-50:] and most_recent(lessons[:3], budget) == lessons[:3]
    empty, full, bounded = system_prompt_chars([]), system_prompt_chars(lessons), system_prompt_chars(shown)
    assert full > 700_000  # what every Jester call carried before the budget
    assert bounded - empty < 50 * 100  # 50 lessons of under 100 characters, with their list headings


@pytest.mark.slow
def test_a_game_reads_at_most_lessons_shown_and_the_snapshot_keeps_the_rest(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """10,000 lessons to start from (snapshot 0, as a lessons file of an earlier release reads)."""
    from wolf_eval.lessons.book import Snapshot

    lessons = tmp_path / "lessons"
    folder = model_folder(lessons, "wolfbot/cue")
    folder.mkdir(parents=True)
    stored = jester_prompt().stored_lessons(10_000)
    (folder / "000000.json").write_bytes(Snapshot(model="wolfbot/cue", lessons=stored).dump())
    [log] = learned("wolfbot/cue", tmp_path / "logs", 1,
                    task_args={"lessons_dir": str(lessons), "lessons_shown": 20, **ARGS})
    assert log.status == "success", log.error
    [sample] = log.samples
    assert [x["text"] for x in store_field(sample, "lessons_read")] == [x.text for x in stored[-20:]]
    after = latest(folder, "wolfbot/cue")
    assert after is not None and after.step == 1 and after.lessons[:10_000] == stored


def test_learn_refuses_the_parameters_it_sets_itself(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["learn", "triadic", "--model", "wolfbot/cue", "--games", "2", "-T", "games=3"]) == 2
    assert capsys.readouterr().err == ("wolf-eval: learn: -T games: set by wolf-eval learn (--games N plays until "
                                       "the lessons hold N games)\n")
    assert main(["learn", "triadic", "--model", "wolfbot/cue", "--games", "2", "--model-role", "jester"]) == 2
    assert capsys.readouterr().err == "wolf-eval: learn: --model-role jester: expected ROLE=MODEL\n"


@pytest.mark.slow
def test_learn_is_one_command_and_running_it_again_plays_nothing_more(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    command = ["learn", "triadic", "--model", "wolfbot/cue", "--games", "1", "--log-dir", str(tmp_path / "logs"),
               "--display", "none", "-T", f"lessons_dir={tmp_path / 'lessons'}",
               *(x for k, v in ARGS.items() for x in ("-T", f"{k}={json.dumps(v)}"))]
    assert main(command) == 0
    assert capsys.readouterr().out.endswith("games 1 to 1 kept, one log each; the Jester's lessons hold 1 game or more"
                                            "\n")
    assert main(command) == 0
    assert "nothing to play" in capsys.readouterr().out
    assert len(list((tmp_path / "logs").glob("*.eval"))) == 1


def test_learning_needs_no_inspect_hook_and_no_module_level_state() -> None:
    """A learning game reads its snapshot and asks once; wolf-eval learn orders the games: nothing hooks Inspect."""
    import ast

    root = Path(__file__).resolve().parents[1] / "wolf_eval"
    assert not [p for p in root.rglob("*.py") if "inspect_ai.hooks" in p.read_text(encoding="utf-8")]
    for path in (root / "lessons").glob("*.py"):  # no module-level container born empty, to be filled as games run
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            empty = (isinstance(value, ast.Dict) and not value.keys) or (isinstance(value, ast.List | ast.Set)
                                                                       and not value.elts) or (
                isinstance(value, ast.Call) and getattr(value.func, "id", "") in ("dict", "list", "set") and
                not value.args)
            assert not empty, f"{path.name}:{node.lineno}"
