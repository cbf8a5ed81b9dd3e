"""Property tests of the rules: any mix of legal and illegal moves, in any game the parameters allow.

Hypothesis draws the rules (task, turn caps, day cap, analysis on or off, seed) and, wave by wave,
each seat's answer: any legal move, a fallback, or now and then an illegal wave that the engine must
refuse with a reason and without changing the game. Whatever is drawn, the game ends by its day cap
with exactly one outcome, the dead never act, every tally is the count of its ballots, and the dealt
roles never change.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wolf_eval.engine import (
    Action,
    Analysis,
    Decision,
    GameState,
    IllegalAction,
    Request,
    advance,
    fallback_decision,
    new_game,
    pending,
)
from wolf_eval.engine.state import ANALYSIS_ACTIONS, NIGHT_ACTIONS
from wolf_eval.settings import rules_for

SPEECH = st.one_of(st.none(), st.just(""), st.text(max_size=120), st.just("Ava is a werewolf, vote Ava!"))


def legal(data: st.DataObject, state: GameState, r: Request) -> Decision:
    """Any answer the rules accept, a recorded fallback included."""
    if data.draw(st.integers(0, 9), label="fallback?") == 0:
        return fallback_decision(state, r, "drawn fallback", "garbled")
    base = {"seat": r.seat, "action": r.action, "subject": r.subject,
            "notes": data.draw(st.one_of(st.none(), st.text(max_size=40)), label="notes")}
    if r.action is Action.BID:
        return Decision(bid=data.draw(st.integers(0, 10), label="bid"), **base)
    if r.action in (Action.STATEMENT, Action.DEFENCE):
        return Decision(text=data.draw(SPEECH, label="speech"), **base)
    if r.action is Action.VOTE:
        target = data.draw(st.one_of(st.none(), st.sampled_from(r.options)), label="vote")
        return Decision(target=target, reason=data.draw(SPEECH, label="reason"), **base)
    if r.action in NIGHT_ACTIONS:
        return Decision(target=data.draw(st.sampled_from(r.options), label="target"), **base)
    assert r.action in ANALYSIS_ACTIONS
    taxonomy = state.config.taxonomy
    kind = data.draw(st.sampled_from(taxonomy), label="type")
    unit = st.floats(0, 1, allow_nan=False)
    analysis = Analysis(is_deceptive=kind != "none", confidence=data.draw(unit, label="confidence"),
                        deception_type=kind,
                        suspicion=data.draw(unit, label="suspicion") if r.action is Action.PEER_ANALYSIS else None)
    return Decision(analysis=analysis, **base)


def illegal(data: st.DataObject, state: GameState, reqs: list[Request],
            good: list[Decision]) -> tuple[list[Decision], str]:
    """A wave the rules refuse, and the words its refusal must contain."""
    dead = [p.name for p in state.players if not p.alive]
    outsider = next((p.name for p in state.players if p.name not in {r.seat for r in reqs}), None)
    kinds = ["missing", "twice"] + (["outsider"] if outsider else [])
    picks = {i: r for i, r in enumerate(reqs)}
    votes = [i for i, r in picks.items() if r.action is Action.VOTE]
    night = [i for i, r in picks.items() if r.action in NIGHT_ACTIONS]
    bids = [i for i, r in picks.items() if r.action is Action.BID]
    peers = [i for i, r in picks.items() if r.action is Action.PEER_ANALYSIS]
    kinds += ["self_vote"] * bool(votes) + ["dead_vote"] * bool(votes and dead) + ["night"] * bool(night)
    kinds += ["bid"] * bool(bids) + ["type"] * bool(peers)
    kind = data.draw(st.sampled_from(kinds), label="illegal")
    wave = list(good)
    if kind == "missing":
        return wave[1:], "waiting for"
    if kind == "twice":
        return wave + [wave[0]], "twice"
    if kind == "outsider":
        return wave + [Decision(seat=outsider, action=reqs[0].action, subject=reqs[0].subject)], "not pending"
    if kind in ("self_vote", "dead_vote"):
        i = data.draw(st.sampled_from(votes))
        target = reqs[i].seat if kind == "self_vote" else data.draw(st.sampled_from(dead))
        wave[i] = Decision(seat=reqs[i].seat, action=Action.VOTE, target=target, reason="x")
        return wave, "not one of"
    if kind == "night":
        i = data.draw(st.sampled_from(night))
        wave[i] = Decision(seat=reqs[i].seat, action=reqs[i].action, target="Nobody")
        return wave, "not one of"
    if kind == "bid":
        i = data.draw(st.sampled_from(bids))
        wave[i] = Decision(seat=reqs[i].seat, action=Action.BID, bid=data.draw(st.sampled_from([-1, 11, 10**6])))
        return wave, "bid must be"
    i = data.draw(st.sampled_from(peers))
    wave[i] = Decision(seat=reqs[i].seat, action=Action.PEER_ANALYSIS, subject=reqs[i].subject,
                       analysis=Analysis(is_deceptive=True, confidence=0.5, deception_type="astrology", suspicion=0.5))
    return wave, "not one of"


def roles_dealt(state: GameState) -> Counter:  # type: ignore[type-arg]
    return Counter(p.role for p in state.players)


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    variant=st.sampled_from(["wolf", "triadic", "dyadic"]),
    debate=st.integers(0, 3), explanation=st.integers(0, 2), days=st.integers(1, 4),
    analysis=st.booleans(), seed=st.integers(0, 2**31 - 1), data=st.data(),
)
def test_any_sequence_of_moves_ends_in_one_outcome_within_the_rules(
    variant: str, debate: int, explanation: int, days: int, analysis: bool, seed: int, data: st.DataObject,
) -> None:
    extra = {} if variant == "wolf" else {"max_explanation_turns": explanation}
    config = rules_for(variant, max_debate_turns=debate, max_days=days, deception_analysis=analysis, **extra)
    state = new_game(config, seed)
    dealt = roles_dealt(state)
    waves = 0
    while not state.over:
        reqs = pending(state)
        assert reqs, "a game that is not over always waits for someone"
        living = set(state.living_names)
        assert all(r.seat in living for r in reqs), "the dead never act"
        good = [legal(data, state, r) for r in reqs]
        if data.draw(st.integers(0, 5), label="try illegal?") == 0:
            bad, words = illegal(data, state, reqs, good)
            before = state.model_dump()
            with pytest.raises(IllegalAction, match=words):
                advance(state, bad)
            assert state.model_dump() == before, "a refused wave leaves the game as it was"
        state = advance(state, good)
        waves += 1
        assert roles_dealt(state) == dealt, "roles are conserved"
        assert waves < 2000

    assert state.outcome is not None and state.outcome.day <= days
    assert [r.index for r in state.records] == list(range(len(state.records))), "records are numbered in order"
    assert all(a.wave <= b.wave for a, b in pairwise(state.records)) and state.records[-1].wave == waves
    kinds = [r.kind for r in state.records]
    assert kinds.count("game_over") == 1
    assert set(kinds[kinds.index("game_over") + 1:]) <= {"note"}, "only the last wave's private notes follow the end"
    assert pending(state) == []
    with pytest.raises(IllegalAction, match="over"):
        advance(state, [])
    if state.outcome.winner == "draw":
        assert state.outcome.day == days
    # every tally is the count of its own ballot's votes
    ballot: list = []
    for r in state.records:
        if r.kind == "vote":
            ballot.append(r)
        elif r.kind == "tally":
            assert dict(Counter(v.target for v in ballot if v.target)) == r.data.tally
            assert r.data.abstained == [v.actor for v in ballot if not v.target]
            assert len(ballot) == r.data.living
            ballot = []
    # nobody acts after dying: every record a player authored comes before their death
    died = {}
    for r in state.records:
        if r.kind in ("death", "exile") and r.target:
            died.setdefault(r.target, r.index)
    for r in state.records:
        if r.actor in died and r.kind in ("statement", "defence", "vote", "wolf_proposal", "protect", "investigate"):
            assert r.index < died[r.actor], f"{r.actor} acted ({r.kind}) after dying"
