"""A seat's call: its decisions of one wave asked in one call (``-T calls=per_seat``, the default), or one
decision a call (``per_decision``), through the one call shape of ``wolf_eval.agents.seat_call``.

What a user would notice if it broke: a game that costs as many calls as before, a nested reply whose
one bad part sinks the others, or whose parts are read from each other's keys, a schema that admits an
illegal reply, or games that differ between the two settings on the same players.
"""

from __future__ import annotations

import json

import pytest
from helpers import final_state, run

from wolf_eval.agents.parse import InvalidReply
from wolf_eval.agents.schemas import response_schema
from wolf_eval.agents.seat_call import SeatCall, logged_parts, nested_schema, plan
from wolf_eval.engine import Action, Phase, Request, new_game
from wolf_eval.settings import rules_for

GAME = new_game(rules_for("triadic"), 5)
ME, OTHER, THIRD = GAME.names[0], GAME.names[1], GAME.names[2]
TAXONOMY = GAME.config.taxonomy


def peer(subject: int, seat: str = ME) -> Request:
    return Request(seat=seat, action=Action.PEER_ANALYSIS, day=1, phase=Phase.DEBATE, turn=2, subject=subject)


def own(subject: int, seat: str = ME) -> Request:
    return Request(seat=seat, action=Action.SELF_ANALYSIS, day=1, phase=Phase.DEBATE, turn=2, subject=subject)


def bid(seat: str = ME) -> Request:
    return Request(seat=seat, action=Action.BID, day=1, phase=Phase.DEBATE, turn=3)


def analysis(kind: str = "none", suspicion: float = 0.3) -> dict[str, object]:
    return {"deception_type": kind, "confidence": 0.8, "suspicion": suspicion, "reasoning": "ok"}


# ---------------------------------------------------------------------- which decisions share a call


def test_per_seat_asks_each_seat_once_a_wave_and_per_decision_once_a_decision() -> None:
    wave = [own(20, OTHER), peer(20, ME), peer(20, THIRD), bid(OTHER), bid(ME), bid(THIRD)]
    assert plan(wave, "per_seat") == [[0, 3], [1, 4], [2, 5]]
    assert plan(wave, "per_decision") == [[i] for i in range(6)]


def test_a_second_decision_that_is_not_an_analysis_gets_its_own_call() -> None:
    assert plan([peer(20), bid(), Request(seat=ME, action=Action.STATEMENT, day=1, phase=Phase.DEBATE, turn=3)],
                "per_seat") == [[0, 1], [2]]


def test_a_call_asks_its_analyses_in_record_order_then_its_decision() -> None:
    call = SeatCall.of([bid(), peer(31), own(30)])
    assert [r.subject for r in call.analyses] == [30, 31] and call.main == bid()
    assert call.keys == ("statement_1", "statement_2") and call.decision == "2 analyses + bid"


# ---------------------------------------------------------------------- reading a nested reply


def test_every_part_of_a_good_reply_is_read() -> None:
    call = SeatCall.of([peer(30), own(31), bid()])
    raw = json.dumps({"analyses": {"statement_1": analysis("omission", 0.9), "statement_2": analysis(suspicion=0.0)},
                      "bid": 7, "notes": "watch"})
    first, second, third = call.read(raw, GAME)
    assert first.analysis.deception_type == "omission" and first.analysis.suspicion == 0.9
    assert second.action is Action.SELF_ANALYSIS and second.analysis.suspicion is None  # one's own: not read
    assert third.bid == 7 and third.notes == "watch" and not any(d.fallback for d in (first, second, third))


def test_a_bad_part_falls_back_alone_and_names_its_part() -> None:
    call = SeatCall.of([peer(30), peer(31), bid()])
    raw = json.dumps({"analyses": {"statement_1": analysis(), "statement_2": {"confidence": 0.5}}, "bid": 99})
    first, second, third = call.read(raw, GAME)
    assert first.fallback is None and first.analysis is not None
    assert second.analysis is None and second.fallback.reason.startswith("statement_2: missing")
    assert third.bid == 0 and third.fallback.reason.startswith("bid:")
    assert second.fallback.raw == third.fallback.raw == raw  # the whole reply is kept with each part's fallback


def test_a_missing_analyses_object_falls_back_every_analysis_but_not_the_bid() -> None:
    call = SeatCall.of([peer(30), bid()])
    first, second = call.read(json.dumps({"bid": 4, "notes": None}), GAME)
    assert "no 'statement_1' object" in first.fallback.reason and second.bid == 4 and second.fallback is None


def test_a_reply_with_no_json_at_all_is_refused_whole() -> None:
    with pytest.raises(InvalidReply):
        SeatCall.of([peer(30), bid()]).read("I would rather not say.", GAME)


def test_a_part_is_read_only_from_its_own_key_never_from_a_longer_one() -> None:
    """A reply without ``statement_1`` but with ``statement_10``: the part falls back, naming the stray key,
    rather than being read from another statement's label."""
    call = SeatCall.of([peer(30), peer(31), bid()])
    for stray in ("statement_10", "stat", "statement"):
        raw = json.dumps({"analyses": {stray: analysis("fabrication"), "statement_2": analysis()}, "bid": 3})
        first, second, third = call.read(raw, GAME)
        assert first.analysis is None and "no 'statement_1' object" in first.fallback.reason, stray
        assert stray in first.fallback.reason, "the key that named no part is recorded"
        assert second.fallback is None and third.bid == 3


def test_a_key_that_names_no_part_asked_is_read_into_none() -> None:
    call = SeatCall.of([peer(30), bid()])
    raw = json.dumps({"analyses": {"statement_1": analysis("omission"), "statement_2": analysis("fabrication")},
                      "bid": 2})
    first, second = call.read(raw, GAME)
    assert first.analysis.deception_type == "omission" and first.fallback is None and second.bid == 2


def test_a_part_given_twice_falls_back_alone_and_says_so() -> None:
    call = SeatCall.of([peer(30), peer(31), bid()])
    one, two, again = (json.dumps(analysis(kind)) for kind in ("omission", "none", "fabrication"))
    twice = f'{{"analyses": {{"statement_1": {one}, "statement_2": {two}, "statement_1": {again}}}, "bid": 5}}'
    first, second, third = call.read(twice, GAME)
    assert first.analysis is None and "'statement_1' given twice" in first.fallback.reason
    assert second.fallback is None and third.bid == 5
    folded = json.dumps({"analyses": {"statement_1": analysis(), "Statement 1": analysis("omission"),
                                      "statement_2": analysis()}, "bid": 5})
    assert "given twice" in call.read(folded, GAME)[0].fallback.reason, "two keys that name the same part"


def test_a_case_or_separator_variant_of_the_key_is_still_its_own_key() -> None:
    call = SeatCall.of([peer(30), peer(31)])
    raw = json.dumps({"Analyses": {"Statement 1": analysis("omission"), "STATEMENT-2": analysis()}})
    assert [d.fallback for d in call.read(raw, GAME)] == [None, None]


def test_a_decision_field_given_twice_falls_back_that_decision_in_any_call() -> None:
    """A decoder keeps the last of two values; which one was meant is unknown, so it is not read."""
    twice = '{"bid": 2, "notes": null, "bid": 9}'
    [alone] = SeatCall.of([bid()]).read(twice, GAME)
    assert alone.bid == 0 and "'bid' given twice" in alone.fallback.reason
    nested = f'{{"analyses": {{"statement_1": {json.dumps(analysis())}}}, "bid": 2, "bid": 9}}'
    first, second = SeatCall.of([peer(30), bid()]).read(nested, GAME)
    assert first.fallback is None and second.fallback.reason == "bid: 'bid' given twice"


def test_a_call_of_one_decision_is_that_decisions_own_prompt_schema_and_reply() -> None:
    """``calls=per_decision`` asks calls of one: no nesting, the action's own schema, the seed its own."""
    for request in (bid(), peer(30), own(30)):
        call = SeatCall.of([request])
        assert not call.nested and call.decision == request.action.value and call.seed(5, [123]) == 123
        assert call.schema(TAXONOMY) == response_schema(request.action, TAXONOMY)
    [d] = SeatCall.of([peer(30)]).read(json.dumps(analysis("omission", 0.7)), GAME)
    assert d.analysis.suspicion == 0.7 and d.fallback is None
    [fell] = SeatCall.of([peer(30)]).read(json.dumps({"confidence": 0.5}), GAME)
    assert fell.fallback.reason.startswith("missing"), "a one-decision reply's reason names no part"
    assert SeatCall.of([bid()]).assemble(['{"bid": 4}']) == '{"bid": 4}'


# ---------------------------------------------------------------------- the schema and the prompt


def test_the_schema_is_strict_and_asks_every_part() -> None:
    schema = nested_schema(3, Action.BID, TAXONOMY).json_schema
    assert schema.additionalProperties is False and schema.required == ["analyses", "bid", "notes"]
    parts = schema.properties["analyses"]
    assert parts.required == ["statement_1", "statement_2", "statement_3"] and parts.additionalProperties is False
    part = parts.properties["statement_2"]
    assert part.properties["deception_type"].enum == list(TAXONOMY) and part.additionalProperties is False
    assert schema.properties["bid"].enum == list(range(11))
    first, later = parts.properties["statement_1"], parts.properties["statement_3"]
    assert first.properties["suspicion"].description and later.properties["suspicion"].description is None
    described = {k: v.model_copy(update={"description": first.properties[k].description})
                 for k, v in later.properties.items()}
    assert later.model_copy(update={"properties": described}) == first, "the same shape, described once"


def test_a_seats_joint_calls_of_one_kind_share_one_schema() -> None:
    """OpenAI caches the schema as the prompt's first part: a new schema each turn would cache nothing."""
    assert nested_schema(1, Action.BID, TAXONOMY) is nested_schema(1, Action.BID, TAXONOMY)
    assert nested_schema(1, Action.BID, TAXONOMY).name == "wolf_joint"


def test_the_reply_in_words_names_every_part_without_a_schema() -> None:
    words = SeatCall.of([peer(30), peer(31), bid()]).reply_format()
    assert '"analyses": {"statement_1": {' in words and '"statement_2"' in words and '"bid"' in words


# ---------------------------------------------------------------------- whole games


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    args = {"games": 2, "max_debate_turns": 4, "max_explanation_turns": 2, "seed": 9}
    joint = run("triadic", "wolfbot/tom", tmp_path_factory.mktemp("joint"), task_args=args)
    apart = run("triadic", "wolfbot/tom", tmp_path_factory.mktemp("apart"), task_args={**args, "calls": "per_decision"})
    assert joint.status == apart.status == "success"
    return joint, apart


@pytest.mark.slow
def test_the_baseline_players_play_the_same_games_in_far_fewer_calls(both) -> None:  # type: ignore[no-untyped-def]
    joint, apart = both
    for a, b in zip(joint.samples, apart.samples, strict=True):
        assert final_state(a) == final_state(b), "each part is answered with its own decision's seed"
        assert a.scores["village_win"].value == b.scores["village_win"].value
    calls = [sum(len([e for e in s.events if e.event == "model"]) for s in log.samples) for log in both]
    assert calls[0] < 0.6 * calls[1], calls


@pytest.mark.slow
def test_every_analysis_wave_is_one_call_per_living_seat(both) -> None:  # type: ignore[no-untyped-def]
    joint, _ = both
    sample = joint.samples[0]
    game = final_state(sample)
    asked = [e for e in sample.events
             if e.event == "model" and len(logged_parts((e.input[-1].metadata or {}).get("wolf_eval", {}))) > 1]
    assert asked, "the game made calls of several decisions"
    by_wave: dict[tuple[int, str, int], set[str]] = {}
    for e in asked:
        parts = logged_parts(e.input[-1].metadata["wolf_eval"])
        seat = {p["seat"] for p in parts}
        assert len(seat) == 1, "a joint call is one seat's"
        key = (parts[0]["day"], parts[0]["phase"], min(p["records"][-1] for p in parts))
        assert not (seat & by_wave.setdefault(key, set())), "a seat is asked once a wave"
        by_wave[key] |= seat
    assert game.outcome is not None


def test_the_instruction_quotes_each_statement_once_under_its_key() -> None:
    from wolf_eval.agents.observation import observe
    from wolf_eval.engine import Decision, advance, pending
    from wolf_eval.engine.game import fallback_decision

    state = GAME
    while not state.analysis_queue:  # night and bids on defaults, then the first statement, to its analyses
        state = advance(state, [Decision(seat=r.seat, action=r.action, text="I trust Ben.")
                                if r.action is Action.STATEMENT else Decision(seat=r.seat, action=r.action, bid=5)
                                if r.action is Action.BID else fallback_decision(state, r, "test", "")
                                for r in pending(state)])
    wave = pending(state)
    seat = next(r.seat for r in wave if r.action is Action.PEER_ANALYSIS)
    call = SeatCall.of([r for r in wave if r.seat == seat])
    views = [observe(state, r) for r in call.requests]
    text = call.instruction(views)
    assert text.count("I trust Ben.") == 1 and "statement_1, " in text and "Then: " in text


@pytest.mark.parametrize("n,main", [(1, Action.BID), (9, None), (10, None), (1, Action.DEFENCE), (2, Action.BID)])
def test_the_schema_is_strict_and_any_instance_of_it_is_read_whole(n: int, main: Action | None) -> None:
    """OpenAI's strict rules hold, and a constrained decoder's every reply makes every decision."""
    import random

    from strict_openai import random_instance, strict_violations

    schema = nested_schema(n, main, TAXONOMY)
    dumped = schema.json_schema.model_dump(exclude_none=True)
    assert strict_violations({"name": schema.name, "schema": dumped, "description": None, "strict": True}) == []
    requests = [peer(30 + k) for k in range(n - 1)] + [own(29)]
    if main is not None:
        requests.append(bid() if main is Action.BID
                        else Request(seat=ME, action=Action.DEFENCE, day=1, phase=Phase.DEFENCE, turn=0))
    call = SeatCall.of(requests)
    for seed in range(25):
        decided = call.read(json.dumps(random_instance(dumped, random.Random(seed))), GAME)
        assert [d.fallback for d in decided] == [None] * len(decided), seed
