"""Play-quality counts on a hand-scripted game, and their pooling."""

from __future__ import annotations

import math

import pytest
from helpers import game_scores, run

from wolf_eval.engine import Action, Decision, Role, advance, new_game, pending
from wolf_eval.measures.quality import KEYS, PlayCounts, play_quality, quality_values
from wolf_eval.settings import rules_for


def scripted_game():
    """Night 1: the wolves go for the Doctor, who guards itself (a save). Day 1: the Jester bids 7
    and speaks; nobody else bids or votes. Night 2: the wolves kill a villager the Doctor did not
    guard. Day 2: silence, then the day cap ends it in a draw."""
    state = new_game(rules_for("triadic", shuffle_roles=False, max_days=2, max_explanation_turns=1,
                                         deception_analysis=False), 0)
    roles = {p.name: p.role for p in state.players}
    doctor = next(n for n, r in roles.items() if r is Role.DOCTOR)
    jester = next(n for n, r in roles.items() if r is Role.JESTER)
    villagers = [n for n, r in roles.items() if r is Role.VILLAGER]
    jester_bids = iter([7])
    while not state.over:
        decisions = []
        for r in pending(state):
            if r.action is Action.NIGHT_KILL:
                decisions.append(Decision(seat=r.seat, action=r.action,
                                          target=doctor if state.day == 1 else villagers[0]))
            elif r.action is Action.PROTECT:
                decisions.append(Decision(seat=r.seat, action=r.action,
                                          target=doctor if state.day == 1 else villagers[1]))
            elif r.action is Action.BID:
                decisions.append(Decision(seat=r.seat, action=r.action,
                                          bid=next(jester_bids, 0) if r.seat == jester else 0))
            elif r.action is Action.STATEMENT:
                decisions.append(Decision(seat=r.seat, action=r.action, text="Hello, everyone."))
            else:
                decisions.append(Decision(seat=r.seat, action=r.action))
        state = advance(state, decisions)
    return state


def test_counts_of_a_scripted_game():
    game = scripted_game()
    assert game.outcome.winner == "draw"
    v = quality_values(game)
    assert (v["doctor_protects"], v["doctor_self_protects"], v["doctor_saves"]) == (2, 1, 1)
    assert v["jester_first_bid"] == 7 and v["jester_spoke_d1"] == 1


def test_rates_pool_counts_not_per_game_rates():
    def score(**kw):
        return PlayCounts.from_flat({k: kw.get(k, math.nan) for k in KEYS})

    scores = [
        score(doctor_protects=4, doctor_self_protects=4, doctor_saves=1, jester_first_bid=9, jester_spoke_d1=1),
        score(doctor_protects=1, doctor_self_protects=0, doctor_saves=0, jester_first_bid=3, jester_spoke_d1=0),
        score(doctor_protects=0, doctor_self_protects=0, doctor_saves=0),  # no Jester; the Doctor died night 1
    ]
    m = play_quality(scores)
    assert m["doctor_self_protect_rate"] == pytest.approx(4 / 5)  # not the mean of 1.0 and 0.0
    assert m["doctor_save_rate"] == pytest.approx(1 / 5)
    assert m["jester_first_bid"] == pytest.approx(6.0) and m["jester_spoke_d1"] == pytest.approx(0.5)


@pytest.mark.slow
def test_without_a_jester_its_keys_are_nan(tmp_path):
    log = run("dyadic", "wolfbot/cue", tmp_path, task_args={"games": 1, "max_debate_turns": 2,
                                                            "deception_analysis": False})
    value = game_scores(log.samples[0])["quality"]
    assert set(value) == set(KEYS)
    assert math.isnan(value["jester_first_bid"]) and math.isnan(value["jester_spoke_d1"])
    assert value["doctor_protects"] >= 1
