"""A seat's call: its decisions of one wave asked in one call (``-T calls=per_seat``, the default, in the seat's
one reply shape), or one decision a call in the decision's own layout (``per_decision``), through the one call
shape of ``wolf_eval.agents.seat_call``; and 0.4.x's nested replies, still read.

What a user would notice if it broke: a game that costs as many calls as before, a reply whose one bad part
sinks the others, or whose parts are read from each other's keys, a schema that admits an illegal reply or
changes from call to call (so a provider's cache serves nothing), a decision left unanswered that is never
asked again, or games that differ between the two settings on the same players.
"""

from __future__ import annotations

import json
import random

import pytest
from helpers import final_state, run
from strict_openai import random_instance, strict_violations

from wolf_eval.agents.blocks import CACHE_MARKS
from wolf_eval.agents.observation import observe
from wolf_eval.agents.parse import InvalidReply
from wolf_eval.agents.player import cache_key, keyed
from wolf_eval.agents.prompts import rules_text
from wolf_eval.agents.schemas import seat_fields
from wolf_eval.agents.seat_call import SeatCall, call_messages, layout_of, logged_parts, plan
from wolf_eval.engine import Action, Decision, Phase, Request, advance, new_game, pending
from wolf_eval.engine.game import fallback_decision
from wolf_eval.replay import reads_cut_replies
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


def analysis(kind: str = "none", suspicion: float = 0.3, **more: object) -> dict[str, object]:
    return {"deception_type": kind, "confidence": 0.8, "suspicion": suspicion, "reasoning": "ok", **more}


def seat_reply(analyses: list[dict[str, object]], decision: dict[str, object] | None = None) -> str:
    return json.dumps({"analyses": analyses, "decision": decision})


def seat(*requests: Request) -> SeatCall:
    return SeatCall.of(requests, "seat")


def first_analyses_wave(state=GAME):  # type: ignore[no-untyped-def]
    """The state at the first statement's analyses (night and bids on defaults, then a statement)."""
    while not state.analysis_queue:
        state = advance(state, [Decision(seat=r.seat, action=r.action, text="I trust Ben.")
                                if r.action is Action.STATEMENT else Decision(seat=r.seat, action=r.action, bid=5)
                                if r.action is Action.BID else fallback_decision(state, r, "test", "")
                                for r in pending(state)])
    return state


# ---------------------------------------------------------------------- which decisions share a call


def test_per_seat_asks_each_seat_once_a_wave_and_per_decision_once_a_decision() -> None:
    wave = [own(20, OTHER), peer(20, ME), peer(20, THIRD), bid(OTHER), bid(ME), bid(THIRD)]
    assert plan(wave, "per_seat") == [[0, 3], [1, 4], [2, 5]]
    assert plan(wave, "per_decision") == [[i] for i in range(6)]
    assert layout_of("per_seat", 1) == "seat" and layout_of("per_decision", 1) == "own"
    assert layout_of("per_decision", 3) == "nested", "a 0.4.x call of several, whose views recorded no calls"


def test_a_second_decision_that_is_not_an_analysis_gets_its_own_call() -> None:
    assert plan([peer(20), bid(), Request(seat=ME, action=Action.STATEMENT, day=1, phase=Phase.DEBATE, turn=3)],
                "per_seat") == [[0, 1], [2]]


def test_a_call_asks_its_analyses_in_record_order_then_its_decision() -> None:
    call = seat(bid(), peer(31), own(30))
    assert [r.subject for r in call.analyses] == [30, 31] and call.main == bid()
    assert call.decision == "2 analyses + bid" and call.fields == ("bid", "notes")
    with pytest.raises(ValueError, match="asks one decision"):
        SeatCall.of([peer(30), bid()], "own")


# ---------------------------------------------------------------------- reading a seat's reply


def test_every_part_of_a_good_reply_is_read_each_analysis_by_its_number() -> None:
    call = seat(peer(30), own(31), bid())
    labels = [analysis(suspicion=0.0, id=31), analysis("omission", 0.9, id="#30")]
    raw = seat_reply(labels, {"bid": 7, "notes": "watch"})
    first, second, third = call.read(raw, GAME)
    assert first.subject == 30 and first.analysis.deception_type == "omission" and first.analysis.suspicion == 0.9
    assert second.action is Action.SELF_ANALYSIS and second.analysis.suspicion is None  # one's own: not read
    assert third.bid == 7 and third.notes == "watch" and not any(d.fallback for d in (first, second, third))


def test_a_bad_part_falls_back_alone_and_names_its_part() -> None:
    call = seat(peer(30), peer(31), bid())
    raw = seat_reply([analysis(id=30), {"id": 31, "confidence": 0.5}], {"bid": 99, "notes": None})
    first, second, third = call.read(raw, GAME)
    assert first.fallback is None and first.analysis is not None
    assert second.analysis is None and second.fallback.reason.startswith("#31: missing")
    assert third.bid == 0 and third.fallback.reason.startswith("bid:")
    assert second.fallback.raw == third.fallback.raw == raw  # the whole reply is kept with each part's fallback


def test_a_statement_judged_twice_falls_back_and_one_not_asked_is_read_into_none() -> None:
    call = seat(peer(30), peer(31), bid())
    raw = seat_reply([analysis("omission", id=30), analysis(id=31), analysis("fabrication", id=30),
                      analysis("distortion", id=310), analysis(id=None)], {"bid": 2, "notes": None})
    first, second, third = call.read(raw, GAME)
    assert first.analysis is None and "#30 judged twice" in first.fallback.reason
    assert second.fallback is None and second.analysis.deception_type == "none" and third.bid == 2


def test_a_part_left_unanswered_is_asked_again_then_falls_back() -> None:
    """A strict decoder may answer with another kind of decision than the one asked, or with none: that is no
    answer, so it is asked again; a reply without the decision field at all is malformed, and falls back at once."""
    call = seat(peer(30), peer(31), bid())
    raw = seat_reply([analysis(id=31)])
    first, second, third = call.read(raw, GAME, last=False)
    assert first is None and third is None and second.fallback is None
    first, _, third = call.read(raw, GAME, last=True)
    assert "no analysis of #30" in first.fallback.reason and first.fallback.reason.endswith("asked twice")
    assert third.bid == 0 and third.fallback.reason == "bid: 'decision' is null, 'bid' was asked, asked twice"
    [other] = seat(bid()).read(seat_reply([], {"statement": "Hello.", "notes": None}), GAME, last=False)
    assert other is None, "a statement where a bid was asked"
    [lenient] = seat(bid()).read(json.dumps({"bid": 3}), GAME, last=False)
    assert lenient is not None and lenient.fallback.reason.startswith("bid: no 'decision'")


def test_a_name_the_rules_do_not_allow_now_is_asked_again_in_a_seats_reply() -> None:
    """The seat's schema lists every player it could name on some day; a dead one is asked again, then falls back."""
    state = first_analyses_wave()
    dead = next(p.name for p in state.players if not p.alive)
    voter = next(n for n in state.living_names if n != dead)
    vote = Request(seat=voter, action=Action.VOTE, day=1, phase=Phase.VOTE, turn=0,
                   options=tuple(n for n in state.living_names if n != voter))
    raw = seat_reply([], {"vote": dead, "reason": "gone", "notes": None})
    assert seat(vote).read(raw, state, last=False) == [None]
    [fell] = seat(vote).read(raw, state, last=True)
    assert fell.target is None and fell.fallback.reason.startswith(f"vote: {dead} is not a legal choice now")
    assert fell.fallback.reason.endswith("asked twice")
    [own_layout] = SeatCall.of([vote]).read(json.dumps({"vote": dead, "reason": "gone", "notes": None}), state)
    assert own_layout.fallback.reason.startswith(f"{dead} is not a legal choice"), "its own schema never admits it"


def test_a_decision_field_given_twice_falls_back_that_decision_in_any_layout() -> None:
    """A decoder keeps the last of two values; which one was meant is unknown, so it is not read."""
    [alone] = SeatCall.of([bid()]).read('{"bid": 2, "notes": null, "bid": 9}', GAME)
    assert alone.bid == 0 and "'bid' given twice" in alone.fallback.reason
    [again] = seat(bid()).read('{"analyses": [], "decision": {"bid": 2, "notes": null, "bid": 9}}', GAME)
    assert again.fallback.reason == "bid: 'bid' given twice"
    [twice] = seat(bid()).read('{"analyses": [], "decision": {"bid": 2, "notes": null}, "decision": null}', GAME)
    assert twice.fallback.reason == "bid: 'decision' given twice"


def test_a_seats_reply_is_read_as_forgivingly_as_any_fenced_in_prose_with_near_miss_names() -> None:
    raw = "Here is my reply:\n```json\n" + seat_reply([analysis(id=30)], {"bid": "7", "notes": None}) + "\n```"
    first, second = seat(peer(30), bid()).read(raw, GAME)
    assert first.fallback is None and second.bid == 7 and second.fallback is None
    vote = Request(seat=ME, action=Action.VOTE, day=1, phase=Phase.VOTE, turn=0, options=(OTHER, THIRD))
    [named] = seat(vote).read(seat_reply([], {"vote": OTHER.lower() + "!", "reason": "x", "notes": None}), GAME)
    assert named.target == OTHER and named.fallback is None


def test_a_reply_with_no_json_at_all_is_refused_whole() -> None:
    for layout in ("own", "seat"):
        with pytest.raises(InvalidReply):
            SeatCall.of([bid()], layout).read("I would rather not say.", GAME)


def test_a_call_of_one_decision_in_its_own_layout_is_that_decisions_prompt_schema_and_reply() -> None:
    """``calls=per_decision`` asks calls of one, as the papers did: the action's own schema, the seed its own."""
    for request in (bid(), peer(30), own(30)):
        call = SeatCall.of([request])
        assert call.decision == request.action.value and call.seed(5, [123]) == 123
    [d] = SeatCall.of([peer(30)]).read(json.dumps(analysis("omission", 0.7)), GAME)
    assert d.analysis.suspicion == 0.7 and d.fallback is None
    [fell] = SeatCall.of([peer(30)]).read(json.dumps({"confidence": 0.5}), GAME)
    assert fell.fallback.reason.startswith("missing"), "a one-decision reply's reason names no part"
    assert SeatCall.of([bid()]).assemble(['{"bid": 4}']) == '{"bid": 4}'


# ---------------------------------------------------------------------- 0.4.x's nested replies, still read


def nested(*requests: Request) -> SeatCall:
    return SeatCall.of(requests, "nested")


def test_a_nested_part_is_read_only_from_its_own_key_never_from_a_longer_one() -> None:
    """A reply without ``statement_1`` but with ``statement_10``: the part falls back, naming the stray key,
    rather than being read from another statement's label."""
    call = nested(peer(30), peer(31), bid())
    for stray in ("statement_10", "stat", "statement"):
        raw = json.dumps({"analyses": {stray: analysis("fabrication"), "statement_2": analysis()}, "bid": 3})
        first, second, third = call.read(raw, GAME)
        assert first.analysis is None and "no 'statement_1' object" in first.fallback.reason, stray
        assert stray in first.fallback.reason, "the key that named no part is recorded"
        assert second.fallback is None and third.bid == 3


def test_a_nested_part_given_twice_falls_back_alone_and_a_case_variant_is_still_its_key() -> None:
    call = nested(peer(30), peer(31), bid())
    one, two, again = (json.dumps(analysis(kind)) for kind in ("omission", "none", "fabrication"))
    twice = f'{{"analyses": {{"statement_1": {one}, "statement_2": {two}, "statement_1": {again}}}, "bid": 5}}'
    first, second, third = call.read(twice, GAME)
    assert first.analysis is None and "'statement_1' given twice" in first.fallback.reason
    assert second.fallback is None and third.bid == 5
    variant = json.dumps({"Analyses": {"Statement 1": analysis("omission"), "STATEMENT-2": analysis()}})
    assert [d.fallback for d in nested(peer(30), peer(31)).read(variant, GAME)] == [None, None]


def test_a_nested_call_is_read_never_asked() -> None:
    with pytest.raises(ValueError, match="read, never asked"):
        nested(peer(30), bid()).schema(GAME, [observe(GAME, pending(GAME)[0])])


# ---------------------------------------------------------------------- the seat's one schema and its prompt


def a_peers_call(state):  # type: ignore[no-untyped-def]
    """The first seat asked to judge another's statement at ``state``: its call in the seat layout and its views."""
    wave = pending(state)
    who = next(r.seat for r in wave if r.action is Action.PEER_ANALYSIS)
    call = SeatCall.of([r for r in wave if r.seat == who], "seat")
    return who, call, [observe(state, r, calls="per_seat") for r in call.requests]


def test_a_seats_schema_is_strict_the_same_all_day_and_names_only_legal_players() -> None:
    state = first_analyses_wave()
    who, call, views = a_peers_call(state)
    schema = call.schema(state, views)
    dumped = schema.json_schema.model_dump(exclude_none=True)
    assert strict_violations({"name": schema.name, "schema": dumped, "description": None, "strict": True}) == []
    props = dumped["properties"]
    [voting] = [k["properties"] for k in props["decision"]["anyOf"] if "vote" in k.get("properties", {})]
    assert sorted(voting["vote"]["enum"]) == sorted(n for n in state.names if n != who), \
        "every player the seat could vote for on some day: the schema stays the same all game"
    assert list(props) == list(seat_fields(TAXONOMY)) == ["analyses", "decision"]
    kinds = [set(k.get("properties", {})) for k in props["decision"]["anyOf"]]
    assert {"bid", "notes"} in kinds and {"vote", "reason", "notes"} in kinds and set() in kinds  # and null
    later = SeatCall.of([bid(who)], "seat")
    assert later.schema(state, [observe(state, bid(who), calls="per_seat")]).json_schema is schema.json_schema, \
        "a seat's calls of one day share one schema object: OpenAI's cached prefix starts with it"
    assert "asked" not in schema.model_dump() and schema.asked is not None, "what a call asks is never sent"


def test_what_a_seats_call_asks_is_pinned_so_a_constrained_decoder_answers_only_that() -> None:
    """Every instance of a call's pinned schema answers exactly the call: read with no fallback and nothing
    left to ask again; another kind, a null decision, a statement left out or one not asked is not an instance."""
    from jsonschema import Draft202012Validator

    state = first_analyses_wave()
    for r in {r.seat: r for r in pending(state)}.values():
        call = SeatCall.of([x for x in pending(state) if x.seat == r.seat], "seat")
        views = [observe(state, x, calls="per_seat") for x in call.requests]
        asked = call.schema(state, views).asked
        assert asked is not None and call.main is not None and call.analyses
        valid = Draft202012Validator(asked)
        for k in range(20):
            instance = random_instance(asked, random.Random(k))
            assert valid.is_valid(instance)
            got = call.read(json.dumps(instance), state, last=False)
            assert all(d is not None and d.fallback is None for d in got), (r.seat, k, instance)
        one = random_instance(asked, random.Random(0))
        wrong = [{**one, "decision": None}, {**one, "decision": {"statement": "Hi.", "notes": None}},
                 {**one, "analyses": one["analyses"][1:]}, {**one, "analyses": one["analyses"] * 2},
                 {**one, "analyses": [{**one["analyses"][0], "id": 999}, *one["analyses"][1:]]}]
        assert not any(valid.is_valid(w) for w in wrong), r.seat
    analyses_only = SeatCall.of([x for x in pending(state) if x.action is Action.PEER_ANALYSIS][:1], "seat")
    views = [observe(state, x, calls="per_seat") for x in analyses_only.requests]
    assert analyses_only.schema(state, views).asked["properties"]["decision"] == {"type": "null"}


def test_any_instance_of_a_seats_schema_is_read_without_fallback() -> None:
    """A constrained decoder's every reply makes a legal decision or leaves it null to be asked again."""
    state = first_analyses_wave()
    for r in {r.seat: r for r in pending(state)}.values():
        call = SeatCall.of([x for x in pending(state) if x.seat == r.seat], "seat")
        views = [observe(state, x, calls="per_seat") for x in call.requests]
        dumped = call.schema(state, views).json_schema.model_dump(exclude_none=True)
        for k in range(20):
            instance = random_instance(dumped, random.Random(k))
            for item, request in zip(instance.get("analyses", []), call.analyses, strict=False):
                item["id"] = request.subject  # a reply that names the statement asked
            got = call.read(json.dumps(instance), state, last=False)
            assert all(d is None or d.fallback is None for d in got), (r.seat, k, instance)


def test_the_instruction_names_each_statement_by_its_number_and_the_record_numbers_it() -> None:
    state = first_analyses_wave()
    _, call, views = a_peers_call(state)
    prompt = call_messages(views, layout="seat")
    said = call.analyses[0].subject
    user = prompt[-1].text
    assert user.count("I trust Ben.") == 1, "quoted once, in the record, not again in the instruction"
    assert f"#{said} " in user and f"#{said}: " in user
    assert user.rstrip().endswith("Reply: analyses of these, decision {bid, notes}.")
    blocks = prompt[-1].content
    assert getattr(blocks[-2], "cache_breakpoint", None) is (True if CACHE_MARKS else None), \
        "the record's last block ends the stable prefix"
    assert not any(getattr(b, "cache_breakpoint", None) for b in blocks[:-2] + blocks[-1:])
    assert "Every reply is one JSON object" in rules_text(views[0])
    assert "Every reply is one JSON object" not in rules_text(observe(state, call.requests[0]))


def test_a_seat_is_keyed_by_its_game_and_seat_on_openai_only() -> None:
    from wolf_eval.agents.player import Seat

    s = Seat(name=ME, role=GAME.player(ME).role, model=None, temperature=None)  # type: ignore[arg-type]
    assert cache_key(GAME, s) == f"wolf-eval:{GAME.seed}:{GAME.player(ME).seat}"
    assert keyed("openai/gpt-4.1") and keyed("openai-api/local/x") and not keyed("anthropic/claude-sonnet-4-5")
    assert keyed("wolfbot/cue"), "the baseline players' logs show what a run on OpenAI sends"


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
def test_every_analysis_wave_is_one_call_per_living_seat_and_a_seat_keeps_its_schema(both) -> None:  # type: ignore[no-untyped-def]
    joint, _ = both
    sample = joint.samples[0]
    game = final_state(sample)
    calls = [e for e in sample.events if e.event == "model" and (e.input[-1].metadata or {}).get("wolf_eval")]
    asked = [e for e in calls if len(logged_parts(e.input[-1].metadata["wolf_eval"])) > 1]
    assert asked, "the game made calls of several decisions"
    by_wave: dict[tuple[int, str, int], set[str]] = {}
    for e in asked:
        parts = logged_parts(e.input[-1].metadata["wolf_eval"])
        seat_ = {p["seat"] for p in parts}
        assert len(seat_) == 1, "a call is one seat's"
        key = (parts[0]["day"], parts[0]["phase"], min(p["records"][-1] for p in parts))
        assert not (seat_ & by_wave.setdefault(key, set())), "a seat is asked once a wave"
        by_wave[key] |= seat_
    schemas: dict[str, set[str]] = {}
    for e in calls:
        parts = logged_parts(e.input[-1].metadata["wolf_eval"])
        if parts[0]["action"] != "lessons":
            shape = json.dumps(e.config.response_schema.json_schema.model_dump(exclude_none=True))
            schemas.setdefault(parts[0]["seat"], set()).add(shape)
    deaths = sum(1 for r in game.records if r.kind in ("death", "exile"))
    assert max(len(s) for s in schemas.values()) <= deaths + 1, "a seat's schema changes only when someone dies"
    assert game.outcome is not None


def test_a_reply_cut_off_at_max_tokens_keeps_the_analyses_it_finished_and_asks_the_rest_again() -> None:
    """A weak model judging many statements runs into max_tokens before the JSON closes: what it finished is read,
    the cut item is asked again. A log of a release before 0.8.0 read no item of such a reply (the first object
    that closed was its first item, with no 'analyses' in it), and replay reads it so."""
    call = seat(peer(30), peer(31), peer(32))
    raw = seat_reply([analysis("omission", id=30), analysis(id=31), analysis(id=32)])
    cut = raw[:raw.index('"id": 32') + 4]
    first, second, third = call.read(cut, GAME, last=False)
    assert first.analysis.deception_type == "omission" and second.fallback is None and third is None
    old = call.read(cut, GAME, last=False, close_cut=False)
    assert all(d.fallback and "no 'analyses' list (got NoneType)" in d.fallback.reason for d in old)
    assert reads_cut_replies(None) and reads_cut_replies("0.8.0") and not reads_cut_replies("0.7.0")
