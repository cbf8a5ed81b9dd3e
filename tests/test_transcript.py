"""What a person sees of a game in ``inspect view``: an outline that is the game, each turn and
defence holding its own calls and lines, every call folded and named for its seat, role, action
and day, one-line events, the game as plain ``samples_df`` columns, and the public record as a chat."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pandas as pd
import pytest
from helpers import final_state, run
from inspect_ai.analysis import samples_df
from inspect_ai.event import SpanBeginEvent, SubtaskEvent
from inspect_ai.log import EvalSample, read_eval_log

from wolf_eval.agents.observation import Observation
from wolf_eval.agents.seat_call import call_of, logged_parts
from wolf_eval.engine import GameState, Phase
from wolf_eval.ndjson import event_stream
from wolf_eval.records import PUBLIC, SPEECH_KINDS, Deception, Kind, Speech


@pytest.fixture(scope="module")
def two_days_log(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A 2-day triadic game at model length (50-word speech), analysis on, as a user would run it; with
    room for open discussion turns after the defences, whose first bids run with the last defence's analyses."""
    log = run("triadic", "wolfbot/random", tmp_path_factory.mktemp("transcript"), model_args={"words": 50},
              task_args={"games": 1, "max_days": 2, "seed": 3, "seating": "fixed",  # seed 3 plays two days there
                         "max_explanation_turns": 12})
    assert log.status == "success"
    return log.location


@pytest.fixture(scope="module")
def two_days(two_days_log: str) -> EvalSample:
    [sample] = read_eval_log(two_days_log, resolve_attachments=True).samples or []
    assert final_state(sample).outcome.day == 2, "the fixture is meant to be a game of two days"
    return sample


def _asked(e: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A model call's first decision's view and all its decisions' (one, or a joint call's)."""
    meta = e.input[-1].metadata["wolf_eval"]
    parts = logged_parts(meta)
    return parts[0], parts


def _spans(sample: EvalSample) -> dict[str | None, SpanBeginEvent]:
    return {e.id: e for e in sample.events if isinstance(e, SpanBeginEvent)}


def _chain(spans: dict[str | None, SpanBeginEvent], span_id: str | None) -> list[str]:
    """The names of the spans an event sits in, innermost first."""
    names = []
    while span_id in spans:
        names.append(spans[span_id].name)
        span_id = spans[span_id].parent_id
    return names


@pytest.mark.slow
def test_the_outline_is_the_games_phases_and_turns(two_days: EvalSample) -> None:
    spans = _spans(two_days)
    assert not [e for e in spans.values() if e.type in ("task", "turn")], "no type the viewer folds into turns"
    names = {e.name for e in spans.values()}
    assert {"night 1", "day 1", "night 2", "day 2", "debate", "ballot", "defences", "revote"} <= names
    turn = next(e for e in spans.values() if e.name.startswith("turn 1 ("))
    assert _chain(spans, turn.id)[:3] == [turn.name, "debate", "day 1"]


@pytest.mark.slow
def test_every_model_call_is_a_subtask_named_for_its_seat_role_action_and_day(two_days: EvalSample) -> None:
    """What the viewer shows on a folded call: "Ivo (villager) · revote · day 2", the model call inside."""
    spans = _spans(two_days)
    roles = {p.name: p.role.value for p in final_state(two_days).players}
    subtasks = {e.name for e in two_days.events if isinstance(e, SubtaskEvent)}
    calls = [e for e in two_days.events if e.event == "model"]
    assert len(calls) > 300
    joint = 0
    for e in calls:
        meta, parts = _asked(e)
        action = "revote" if (meta["action"], meta["phase"]) == ("vote", "revote") else meta["action"].replace("_", " ")
        if len(parts) > 1:  # a joint call: what it asks, e.g. "analysis + bid" or "9 analyses"
            joint += 1
            action = call_of([Observation.model_validate({**p, "records": []}) for p in parts]).decision
        when = "night" if meta["phase"] == "night" else "day"
        label = f"{meta['seat']} ({roles[meta['seat']]}) · {action} · {when} {meta['day']}"
        assert spans[e.span_id].name == label and spans[e.span_id].type == "subtask" and label in subtasks
    assert joint > 100, "a seat's decisions of a wave are one call"


#: The span of each day phase's work (a night's is the night's own span).
PHASE_SPAN = {Phase.DEBATE: "debate", Phase.VOTE: "ballot", Phase.DEFENCE: "defences", Phase.EXPLANATION: "discussion",
              Phase.REVOTE: "revote"}


@pytest.mark.slow
def test_every_call_sits_in_its_own_night_or_day_and_phase(two_days: EvalSample) -> None:
    """A wave may belong to two phases (the last defence's analyses run with the discussion's first bids):
    each call goes under its own phase, and each line under its record's."""
    spans = _spans(two_days)
    game = final_state(two_days)
    seen: Counter[tuple[str, str]] = Counter()
    for e in (e for e in two_days.events if e.event == "model"):
        meta, parts = _asked(e)  # a joint call goes with its first decision
        chain = _chain(spans, e.span_id)
        block = f"{'night' if meta['phase'] == 'night' else 'day'} {meta['day']}"
        phase = PHASE_SPAN.get(Phase(meta["phase"]))
        assert block in chain and (phase is None or chain[chain.index(block) - 1] == phase), (meta, chain)
        seen.update((p["phase"], p["action"]) for p in parts)
    assert seen[("explanation", "bid")], "the fixture has discussion bids"
    lines = [e for e in two_days.events if e.event == "info" and (e.source or "").startswith("wolf_eval/")]
    for r, e in zip(game.records, lines, strict=True):
        if r.kind in (Kind.BIDS, Kind.FLOOR, Kind.VOTE, Kind.TALLY):
            chain = _chain(spans, e.span_id)
            assert chain[chain.index(f"day {r.day}") - 1] == PHASE_SPAN[r.phase], (r.kind, r.phase, chain)


def _speech_spans(game: GameState) -> dict[int, str]:
    """Each statement's and defence's record index -> the name of the span it belongs in."""
    return {r.index: f"turn {r.data.turn + 1} ({r.actor})" if r.kind is Kind.STATEMENT else str(r.actor)
            for r in game.records if r.kind in SPEECH_KINDS and isinstance(r.data, Speech)}


@pytest.mark.slow
def test_each_turn_and_defence_holds_its_own_calls(two_days: EvalSample) -> None:
    """A speech's span holds its call and its analyses' (folded in one group); a turn's bids go before
    it in the debate or discussion, never inside the turn before."""
    spans = _spans(two_days)
    speech_span = _speech_spans(final_state(two_days))
    seen: Counter[str] = Counter()
    for e in (e for e in two_days.events if e.event == "model"):
        meta, _ = _asked(e)  # a joint call goes where its first decision, an analysis, goes
        chain = _chain(spans, e.span_id)  # [the call's own subtask, ...]
        if meta["action"] == "statement":
            assert chain[1] == f"turn {meta['turn'] + 1} ({meta['seat']})", chain
        elif meta["action"] == "defence":
            assert chain[1:3] == [meta["seat"], "defences"], chain
        elif meta["action"] in ("self_analysis", "peer_analysis") and meta["subject"] in speech_span:
            assert chain[1].startswith("analyses of ") and chain[2] == speech_span[meta["subject"]], chain
        elif meta["action"] == "bid":
            assert chain[1].startswith(f"bids for turn {meta['turn'] + 1} · ") and \
                chain[2] == PHASE_SPAN[Phase(meta["phase"])], chain
        else:
            continue
        seen[meta["action"]] += 1
    assert set(seen) == {"statement", "defence", "self_analysis", "peer_analysis", "bid"}, seen


@pytest.mark.slow
def test_each_line_sits_in_the_span_of_its_turn_or_defence(two_days: EvalSample) -> None:
    """A speaker's floor, words and the line of their analyses sit in the speaker's own span."""
    spans = _spans(two_days)
    game = final_state(two_days)
    speech_span = _speech_spans(game)
    lines = [e for e in two_days.events if e.event == "info" and (e.source or "").startswith("wolf_eval/")]
    seen: Counter[Kind] = Counter()
    for r, e in zip(game.records, lines, strict=True):
        inner = _chain(spans, e.span_id)[0]
        if r.kind is Kind.FLOOR:
            said = next(x for x in game.records[r.index:] if x.kind is Kind.STATEMENT and x.actor == r.actor)
            assert inner == speech_span[said.index], (r, inner)
        elif r.index in speech_span:
            assert inner == speech_span[r.index], (r, inner)
        elif isinstance(r.data, Deception) and r.data.statement in speech_span:
            assert inner == speech_span[r.data.statement], (r, inner)
        else:
            continue
        seen[r.kind] += 1
    assert set(seen) == {Kind.FLOOR, Kind.STATEMENT, Kind.DEFENCE, Kind.DECEPTION}, seen


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
def test_samples_df_groups_games_by_faction_model_without_full(two_days: EvalSample, two_days_log: str) -> None:
    """The seating stays whole in the metadata; each faction's model, the seats of each role, the
    winner, the days and the cost reach ``samples_df`` as plain columns."""
    game = final_state(two_days)
    meta = two_days.metadata
    assert [(s["name"], s["role"]) for s in meta["seats"]] == [(p.name, p.role.value) for p in game.players]
    assert {s["model"] for s in meta["seats"]} == {"wolfbot/random"}
    [row] = samples_df(two_days_log).to_dict("records")
    assert {k: row[f"metadata_{k}"] for k in ("model", "villagers_model", "werewolves_model", "jester_model",
                                                "winner", "days", "ended")} == {
        "model": "wolfbot/random", "villagers_model": "wolfbot/random", "werewolves_model": "wolfbot/random",
        "jester_model": "wolfbot/random", "winner": game.outcome.winner, "days": 2, "ended": game.outcome.reason}
    for role in {p.role for p in game.players}:
        assert row[f"metadata_{role.value}_seats"] == ", ".join(p.name for p in game.players if p.role is role)
    assert pd.isna(row["metadata_cost_usd"]), "the bots have no price: the cost is unknown, not zero"
    by_faction = samples_df(two_days_log).groupby("metadata_werewolves_model")["score_wolves_win"].mean()
    assert list(by_faction.index) == ["wolfbot/random"]


@pytest.mark.slow
def test_evals_df_reads_each_factions_model_as_a_plain_column(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The eval's metadata names each faction's models as bound; ``FACTION_COLUMNS`` reads them."""
    from inspect_ai.analysis import EvalInfo, EvalModel, evals_df

    from wolf_eval.analysis.frames import FACTION_COLUMNS

    log = run("dyadic", "wolfbot/cue", tmp_path, task_args={"games": 1, "max_days": 1, "deception_analysis": False},
              model_roles={"werewolf": "wolfbot/tom"})
    assert log.status == "success"
    [row] = evals_df(str(tmp_path), columns=EvalInfo + EvalModel + FACTION_COLUMNS).to_dict("records")
    assert (row["model"], row["villagers_model"], row["werewolves_model"]) == ("wolfbot/cue", "wolfbot/cue",
                                                                             "wolfbot/tom")
    assert pd.isna(row["jester_model"]), "the dyadic game seats no Jester"


@pytest.mark.slow
def test_the_messages_tab_names_every_public_statement_and_its_kind(two_days: EvalSample) -> None:
    game = final_state(two_days)
    chat = two_days.messages[1:]
    said = [r for r in game.records if r.kind in (*SPEECH_KINDS, Kind.VOTE)]
    players = [m for m in chat if m.role == "assistant"]
    assert len(players) == len(said)
    kinds = {Phase.DEBATE: "debate, turn ", Phase.EXPLANATION: "discussion, turn ", Phase.DEFENCE: "defence: ",
             Phase.VOTE: "vote reason, first ballot, ", Phase.REVOTE: "vote reason, final ballot, "}
    for m, r in zip(players, said, strict=True):
        role = next(p.role.value for p in game.players if p.name == r.actor).title()
        assert m.text.startswith(f"**{r.actor}** ({role}) · day {r.day} · {kinds[r.phase]}"), m.text
    assert sum(r.phase is Phase.DEFENCE for r in said) and sum(r.kind is Kind.VOTE for r in said)
    moderator = [m.text for m in chat if m.role == "user"]
    assert all(t.startswith("**Moderator** · ") for t in moderator)
    assert len(moderator) == sum(r.visibility == PUBLIC and r.kind not in (*SPEECH_KINDS, Kind.VOTE, Kind.BIDS,
                                 Kind.FLOOR, Kind.PASS) for r in game.records)


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
