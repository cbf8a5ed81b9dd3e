"""Day-1 wolf coordination on games built by hand: an abstention is not a vote."""

from __future__ import annotations

import math

import handmade as hm
import pytest

from wolf_eval.measures.features import coordination, day1_coordination


def day_one(votes: dict[str, str | None]):  # type: ignore[no-untyped-def]
    h = hm.Hand()
    h.night(1, victim="Cleo", protector="Dan", protected="Dan")
    h.ballot(1, votes, "first")
    h.ballot(1, votes, "final")
    return h.end("draw", 1, 1)


EVERYONE_ELSE = {"Dan": "Eve", "Eve": "Fay", "Fay": "Eve", "Ivo": "Dan"}


def test_wolves_who_both_abstain_did_not_vote_together() -> None:
    both_abstain = day1_coordination(day_one({"Ava": None, "Ben": None, **EVERYONE_ELSE}))
    assert both_abstain["d1_ballot"] == 0 and math.isnan(both_abstain["unanimous"])
    one_abstains = day1_coordination(day_one({"Ava": "Eve", "Ben": None, **EVERYONE_ELSE}))
    assert one_abstains["d1_ballot"] == 0, "one wolf's vote is no coordination to measure"
    together = day1_coordination(day_one({"Ava": "Ivo", "Ben": "Ivo", **EVERYONE_ELSE}))
    assert (together["d1_ballot"], together["unanimous"], together["voted_jester"]) == (1, 1, 1)
    apart = day1_coordination(day_one({"Ava": "Ivo", "Ben": "Eve", **EVERYONE_ELSE}))
    assert (apart["unanimous"], apart["voted_partner"]) == (0, 0)
    pooled = coordination([both_abstain, one_abstains, together, apart])
    assert (pooled["games"], pooled["unanimous"], pooled["voted_jester"]) == (2, 0.5, 1.0)


def test_a_jester_killed_on_night_one_is_left_out_not_counted_as_silent() -> None:
    from wolf_eval.measures.features import jester_features
    from wolf_eval.measures.quality import play_quality, quality_values

    killed = hm.t2_jester_killed()
    quality = quality_values(killed)
    assert math.isnan(quality["jester_spoke_d1"]) and math.isnan(quality["jester_first_bid"])
    features = jester_features(killed)
    assert features["jester_won"] == 0 and math.isnan(features["jester_statements"])
    spoke = hm.t1_jester_by_wolf_vote()
    assert quality_values(spoke)["jester_spoke_d1"] == 1 and jester_features(spoke)["jester_statements"] == 1
    assert play_quality([quality_values(killed), quality_values(spoke)])["jester_spoke_d1"] == 1.0  # not 0.5


def test_measures_of_a_role_that_never_had_its_chance_are_nan() -> None:
    from wolf_eval.measures.quality import play_quality, quality_values

    # T2's Jester was killed on night 1: the wolves could not vote for it, so "voted Jester" does not apply.
    killed = day1_coordination(hm.t2_jester_killed())
    assert killed["d1_ballot"] == 1 and killed["unanimous"] == 1 and math.isnan(killed["voted_jester"])
    pooled = coordination([killed, day1_coordination(hm.t1_jester_by_wolf_vote())])
    assert (pooled["games"], pooled["unanimous"], pooled["voted_jester"]) == (2, 0.5, 1.0)  # 1 of 1, not 1 of 2
    # No Doctor seated: no protection to count, not none made; the pooled rates are T1's alone (1 night, self).
    h = hm.Hand(seats={"Ava": "werewolf", "Ben": "villager", "Cleo": "villager", "Eve": "villager", "Ivo": "jester"})
    h.add("death", 1, "night", target="Cleo", text="Cleo was killed.", data={"cause": "night_kill"})
    doctorless = quality_values(h.end("draw", 10, 10))
    assert all(math.isnan(doctorless[k]) for k in ("doctor_protects", "doctor_self_protects", "doctor_saves"))
    q = play_quality([doctorless, quality_values(hm.t1_jester_by_wolf_vote())])
    assert (q["doctor_self_protect_rate"], q["doctor_save_rate"], q["doctor_protects_n"]) == (1.0, 0.0, 1)
    assert (q["jester_first_bid"], q["jester_first_bid_n"], q["jester_spoke_d1_n"]) == (9, 1, 2)


def test_predictors_stratified_by_cell_by_hand() -> None:
    from wolf_eval.measures.features import stratified_predictors

    def game(statements: float, won: float) -> dict[str, float]:
        return {"jester_won": won, "jester_statements": statements}

    # Cell 1: statements 0 2 (lost, won); cell 2: 10 12 14 (won, lost, won); cell 3 has no Jester game.
    # Centred within cells this is tests/test_stats.py's example: r = sqrt(3/35); only the permutation p is given.
    cells = [[game(0, 0), game(2, 1)], [game(10, 1), game(12, 0), game(14, 1)], [{"jester_won": math.nan}]]
    s = stratified_predictors(cells)["jester_statements"]
    assert (s["r"], s["n"], s["cells"]) == (pytest.approx(math.sqrt(3 / 35)), 5, 2) and "p" not in s
    assert 0 < s["p_perm"] <= 1
    assert stratified_predictors(cells)["voted_jester"]["n"] == 0  # never measured
