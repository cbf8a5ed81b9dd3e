"""What a person sees of a game in ``inspect view``: an outline that is the game, one-line events,
the seating and the outcome in the sample's metadata, and the public record as a chat."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from helpers import final_state, run
from inspect_ai.log import EvalSample, read_eval_log

from wolf_eval.ndjson import event_stream
from wolf_eval.records import PUBLIC, SPEECH_KINDS, Kind


@pytest.fixture(scope="module")
def two_days(tmp_path_factory: pytest.TempPathFactory) -> EvalSample:
    """A 2-day triadic game at model length (50-word speech), analysis on, as a user would run it."""
    log = run("triadic", "wolfbot/random", tmp_path_factory.mktemp("transcript"), model_args={"words": 50},
              task_args={"games": 1, "max_days": 2, "seed": 3, "seating": "fixed"})  # seed 3 plays two days there
    assert log.status == "success"
    [sample] = read_eval_log(log.location, resolve_attachments=True).samples or []
    assert final_state(sample).outcome.day == 2, "the fixture is meant to be a game of two days"
    return sample


@pytest.mark.slow
def test_the_outline_is_the_games_phases_and_turns(two_days: EvalSample) -> None:
    spans = [e for e in two_days.events if e.event == "span_begin"]
    assert len(spans) <= 100
    assert not [e for e in spans if e.type in ("task", "turn")], "no per-call wrappers; no type the viewer folds"
    names = [e.name for e in spans]
    assert {"night 1", "day 1", "night 2", "day 2", "debate", "ballot", "defences", "revote"} <= set(names)
    assert any(re.fullmatch(r"turn \d+ \([A-Z][a-z]+\)", n) for n in names)
    by_id = {e.id: e for e in spans}
    turn = next(e for e in spans if e.name.startswith("turn 1 ("))
    assert [by_id[turn.parent_id].name, by_id[by_id[turn.parent_id].parent_id].name] == ["debate", "day 1"]


@pytest.mark.slow
def test_every_model_call_sits_in_its_decisions_span(two_days: EvalSample) -> None:
    spans = {e.id: e for e in two_days.events if e.event == "span_begin"}
    calls = [e for e in two_days.events if e.event == "model"]
    assert len(calls) > 300
    for e in calls:
        meta = e.input[-1].metadata["wolf_eval"]
        inner = spans[e.span_id].name
        if meta["action"] == "statement":
            assert inner == f"turn {meta['turn'] + 1} ({meta['seat']})"
        elif meta["action"] == "vote":
            assert inner in ("ballot", "revote")
        elif meta["action"] in ("night_kill", "protect", "investigate"):
            assert inner == f"night {meta['day']}"


@pytest.mark.slow
def test_each_record_is_one_short_markdown_line(two_days: EvalSample) -> None:
    game = final_state(two_days)
    infos = [e for e in two_days.events if e.event == "info" and (e.source or "").startswith("wolf_eval/")]
    assert len(infos) == len(game.records)
    assert all(isinstance(e.data, str) and "\n" not in e.data and len(e.data) <= 300 for e in infos)
    lines = {r.kind: e.data for r, e in zip(game.records, infos, strict=True)}
    assert re.match(r'Day \d · \*\*[A-Z][a-z]+\*\* \((Villager|Werewolf|Seer|Doctor|Jester)\): "',
                    lines[Kind.STATEMENT])
    assert re.match(r"(First|Final) ballot · \*\*[A-Z][a-z]+\*\* \(\w+\) (→ [A-Z][a-z]+|abstains)", lines[Kind.VOTE])
    assert re.match(r"🔎 \*\*[A-Z][a-z]+\*\* \(\w+\) day-\d (statement|defence|vote reason) \d+: self ",
                    lines[Kind.DECEPTION])
    assert sum(1 for _ in event_stream(two_days)) > len(game.records), "export still pairs events with records"


@pytest.mark.slow
def test_metadata_says_who_sat_where_and_how_the_game_ended(two_days: EvalSample) -> None:
    game = final_state(two_days)
    meta = two_days.metadata
    assert [(s["name"], s["role"]) for s in meta["seats"]] == [(p.name, p.role.value) for p in game.players]
    assert {s["model"] for s in meta["seats"]} == {"wolfbot/random"}
    assert (meta["winner"], meta["days"], meta["ended"]) == (game.outcome.winner, 2, game.outcome.reason)


@pytest.mark.slow
def test_the_messages_tab_is_the_public_record_as_a_chat(two_days: EvalSample) -> None:
    game = final_state(two_days)
    chat = two_days.messages[1:]
    speeches = [r for r in game.records if r.kind in SPEECH_KINDS]
    said = [m for m in chat if m.role == "assistant"]
    assert len(said) == len(speeches)
    assert all(m.text.startswith(f"**{r.actor}** (") for m, r in zip(said, speeches, strict=True))
    moderator = [m.text for m in chat if m.role == "user"]
    assert any("→" in t for t in moderator), "each ballot is one moderator line"
    public = Counter(r.kind for r in game.records if r.visibility == PUBLIC)
    assert len(chat) < sum(public.values())


def test_an_analysis_line_averages_only_the_suspicion_peers_gave() -> None:
    from wolf_eval.records import Analysis, Deception, Phase, Record
    from wolf_eval.solvers.transcript import describe_analysis

    def peer(flag: bool, suspicion: float | None) -> Analysis:
        return Analysis(is_deceptive=flag, confidence=0.5, deception_type="none", suspicion=suspicion)

    data = Deception(statement=3, kind=Kind.STATEMENT, speaker_role="jester", statement_day=1,
                     statement_phase=Phase.DEBATE, turn=0, ballot=None, position=0, text="x",
                     self=peer(True, None), peers={"Ada": peer(True, 0.9), "Bram": peer(False, None),
                                                   "Cleo": peer(False, 0.3)}, missing=[], suspicion={})
    record = Record(index=4, day=1, phase=Phase.DEBATE, kind=Kind.DECEPTION, actor="Dana", visibility="moderator",
                    data=data)
    line = describe_analysis(record, data)
    assert "1/3 peers flag it · mean suspicion 0.60" in line, "Bram gave no suspicion: he is left out, not a zero"
    unrated = data.model_copy(update={"peers": {"Bram": peer(False, None)}})
    assert "mean suspicion n/a" in describe_analysis(record, unrated)
