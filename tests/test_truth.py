"""Detection against the truth: AUROC, vote shares and Brier scores worked out by hand on hand-made games.

Suspicion rows follow the engine's smoothing (0.7 new, 0.3 prior, from 0.5), so in
``t1_jester_by_wolf_vote`` the matrix both day-1 ballots see is, after Ivo's and Ava's statements:
Dan: Ava 0.57, Ivo 0.43, the rest 0.5; Eve: Ava 0.36, Ivo 0.85; Fay: Ava 0.78, Ivo 0.29;
Ivo: Ava 0.5 (rated 0.5), the rest 0.5. Ava and Ben are the wolves, Ivo the Jester, Cleo died on night 1.
"""

from __future__ import annotations

import math

import handmade as hm
import pandas as pd
import pytest

from wolf_eval.analysis import markdown, tables
from wolf_eval.measures import truth
from wolf_eval.measures.outcome import Outcome
from wolf_eval.measures.rates import Auroc, Brier
from wolf_eval.resample import UNIT, Scale
from wolf_eval.vocabulary import Role, Winner

#: A game of ten calls, each one decision, none fallen back (the tables here read only those).
TEN_CALLS = Outcome(Winner.VILLAGERS, jester_seated=True, days=1.0, calls=10.0, decisions=10.0, fallbacks=0.0,
                    reasks=0.0)


def test_auroc_counts_concordant_pairs_and_half_the_ties() -> None:
    a = Auroc.of([0.8, 0.5], [0.5, 0.2])  # 0.8 > both, 0.5 = 0.5 (a tie), 0.5 > 0.2
    assert (a.concordant, a.ties, a.pairs, a.value) == (3, 1, 4, 3.5 / 4)
    assert math.isnan(Auroc.of([0.9], []).value) and Auroc.of([0.9], []).pairs == 0
    assert Auroc.of([0.5, 0.5], [0.5]).value == 0.5  # all tied: chance
    b = Brier.of(0.7, True) + Brier.of(0.4, False)
    assert b.score == pytest.approx((0.3**2 + 0.4**2) / 2)


def test_ballot_rows_of_one_game_by_hand() -> None:
    d = truth.game_detection(hm.t1_jester_by_wolf_vote(), {})
    # wolves observe nothing: they know the answer; Cleo, dead before day 1, never voted
    assert list(d.roles) == [Role.VILLAGER, Role.DOCTOR, Role.JESTER]
    doctor = d.roles[Role.DOCTOR]
    # Dan: wolves (Ava 0.57, Ben 0.5) against Eve 0.5, Fay 0.5, Ivo 0.43: 0.57 beats all three,
    # 0.5 ties two and beats 0.43 -> 4 concordant, 2 ties of 6 pairs, at each of the two ballots
    assert (doctor.ballots, doctor.wolves.concordant, doctor.wolves.ties, doctor.wolves.pairs) == (2, 8, 4, 12)
    assert doctor.wolves.value == pytest.approx(5 / 6)
    assert doctor.jester.value == 1.0 and doctor.jester.pairs == 4  # both wolves above Ivo's 0.43
    # Brier per ballot: (0.57-1)² + (0.5-1)² + 0.5² + 0.5² + 0.43² = 1.1198 over 5 forecasts
    assert (doctor.brier.forecasts, doctor.brier.score) == (10, pytest.approx(1.1198 / 5))
    villager = d.roles[Role.VILLAGER]
    # Eve: [0.36, 0.5] vs [0.5, 0.5, 0.85] -> 0 + 2 ties; Fay: [0.78, 0.5] vs [0.5, 0.5, 0.29] -> 4 + 2 ties
    assert (villager.wolves.concordant, villager.wolves.ties, villager.wolves.pairs) == (8, 8, 24)
    assert villager.wolves.value == 0.5
    # wolves vs the Jester: Eve ranks Ivo above both wolves (0/2), Fay below both (2/2)
    assert (villager.jester.concordant, villager.jester.pairs, villager.jester.value) == (4, 8, 0.5)
    jester = d.roles[Role.JESTER]  # Ivo's row: every score tied at 0.5; it is itself no negative
    assert (jester.wolves.value, jester.wolves.ties, jester.jester.pairs) == (0.5, 12, 0)
    assert math.isnan(jester.jester.value) and jester.brier.score == 0.25


def test_votes_split_on_wolves_jester_and_the_rest() -> None:
    d = truth.game_detection(hm.t1_jester_by_wolf_vote(), {})
    v = d.roles[Role.VILLAGER].votes  # Eve votes Ivo twice, Fay votes Ava twice
    assert (v.votes, v.on_wolves, v.on_jester, v.on_rest) == (4, 2, 2, 0)
    assert (v.wolf_share, v.jester_share, v.rest_share) == (0.5, 0.5, 0.0)
    assert d.roles[Role.DOCTOR].votes.jester_share == 1.0 and d.roles[Role.JESTER].votes.wolf_share == 1.0
    t4 = truth.game_detection(hm.t4_wolves_win(), {}).roles[Role.VILLAGER]
    # Eve: Ava, Ava; Fay: Ivo, then abstains (not a vote): 3 votes, 2 on a wolf, 1 on the Jester
    assert (t4.votes.votes, t4.votes.on_wolves, t4.votes.on_jester) == (3, 2, 1)


def test_statement_ratings_score_the_speaker_being_a_wolf() -> None:
    d = truth.game_detection(hm.t1_jester_by_wolf_vote(), {})
    # per observer: its rating of Ava (a wolf) against its rating of Ivo; Dan 0.6 > 0.4, Fay 0.9 > 0.2,
    # Eve 0.3 < 1.0; Ivo rated only Ava, so it has no pair
    assert (d.roles[Role.DOCTOR].statements.value, d.roles[Role.DOCTOR].ratings) == (1.0, 2)
    assert (d.roles[Role.VILLAGER].statements.concordant, d.roles[Role.VILLAGER].statements.pairs) == (1, 2)
    assert d.roles[Role.JESTER].statements.pairs == 0 and d.roles[Role.JESTER].ratings == 1


def test_the_matrix_is_the_one_the_ballot_saw() -> None:
    h = hm.Hand()
    h.night(1, victim="Cleo", protector="Dan", protected="Dan")
    s = h.say(1, "Ava")
    h.analyse(s, None, {"Dan": (True, 0.9, "misdirection", 1.0)})  # Dan -> Ava 0.85
    h.ballot(1, {"Dan": "Ava", "Eve": "Ivo", "Fay": "Ivo", "Ava": "Dan", "Ben": "Dan", "Ivo": "Ava"}, "first")
    s = h.say(1, "Ivo")
    h.analyse(s, None, {"Dan": (True, 0.9, "misdirection", 1.0)})  # Dan -> Ivo 0.85: the final ballot sees it
    h.ballot(1, {"Dan": "Ava", "Eve": "Ivo", "Fay": "Ivo", "Ava": "Dan", "Ben": "Dan", "Ivo": "Ava"}, "final")
    s = h.say(1, "Ben")
    h.analyse(s, None, {"Dan": (True, 0.9, "misdirection", 1.0)})  # after every ballot: seen by none
    game = h.end("draw", 10, 10)
    doctor = truth.game_detection(game, {}).roles[Role.DOCTOR]
    # first: [0.85, 0.5] vs Eve, Fay, Ivo at 0.5 -> 3 + 3 ties; final: Ivo's 0.85 ties Ava's -> 2 + 3 ties
    assert (doctor.wolves.concordant, doctor.wolves.ties) == (5, 6)
    # wolves vs Jester: first 0.85 > 0.5, 0.5 = 0.5; final 0.85 = 0.85, 0.5 < 0.85
    assert (doctor.jester.concordant, doctor.jester.ties, doctor.jester.pairs) == (1, 2, 4)
    assert [b.ballot for b in truth.ballots(game)] == ["first", "final"]


def test_no_jester_no_analysis_and_the_prior() -> None:
    wolf_game = truth.game_detection(hm.w1_village_wins(), {}).roles[Role.VILLAGER]
    # no Jester: no wolf-Jester pair; no statement analysed: every row is the 0.5 prior
    assert wolf_game.jester.pairs == 0 and math.isnan(wolf_game.jester.value)
    assert (wolf_game.wolves.value, wolf_game.brier.score) == (0.5, 0.25)
    h = hm.Hand(analysis=False)
    h.ballot(1, {"Ava": "Ivo", "Cleo": "Ava", "Ivo": "Ava"}, "first")
    silent = truth.game_detection(h.end("draw", 10, 10), {})
    cleo = silent.roles[Role.VILLAGER]  # no suspicion without analysis, but the votes count
    assert cleo.ballots == 0 and math.isnan(cleo.wolves.value) and math.isnan(cleo.brier.score)
    assert cleo.votes.wolf_share == 1.0
    assert math.isnan(truth.figures(cleo)["auroc_jester"]) and truth.figures(cleo)["votes"] == 1


def test_pooling_adds_counts_not_aurocs() -> None:
    t1, t2 = hm.t1_jester_by_wolf_vote(), hm.t2_jester_killed()
    both = truth.pool([truth.game_detection(t1, {}), truth.game_detection(t2, {})])
    doctor = both.roles[Role.DOCTOR]
    # T1: 8 concordant, 4 ties of 12 pairs (5/6). T2: day 1's two ballots are all ties at the prior
    # (12 of 12), day 2's Dan rates Ben 0.71 over Eve and Fay at 0.5 (2 of 2): 8/14.
    assert (doctor.wolves.concordant, doctor.wolves.ties, doctor.wolves.pairs) == (10, 16, 26)
    assert doctor.wolves.value == pytest.approx(18 / 26)
    assert doctor.wolves.value != pytest.approx((5 / 6 + 8 / 14) / 2)  # not the mean of the games' AUROCs
    assert doctor.jester.pairs == 4  # T2's Jester died on night 1: no wolf-Jester pair there
    assert doctor.brier == truth.game_detection(t1, {}).roles[Role.DOCTOR].brier \
        + truth.game_detection(t2, {}).roles[Role.DOCTOR].brier


def test_counts_go_to_the_observers_seat_model() -> None:
    models = {"Dan": "m1", "Eve": "m1", "Fay": "m2", "Ivo": "m2", "Ava": "m3", "Ben": "m3"}
    d = truth.game_detection(hm.t1_jester_by_wolf_vote(), models)
    assert list(d.models) == ["m1", "m2"]  # the wolves' model observes nothing
    assert d.models["m1"].wolves.pairs == 24 and d.models["m1"].votes.jester_share == 1.0
    # m1: Dan 8 + 4 ties, Eve 0 + 4 ties of 24 pairs
    assert d.models["m1"].wolves.value == pytest.approx((8 + 8 / 2) / 24)
    village = d.village()
    assert village is not None and village.wolves.pairs == 36
    assert truth.game_detection(hm.t1_jester_by_wolf_vote(), {"Dan": "m1"}).models.keys() == {"m1", "?"}


def test_pooled_roles_keep_seat_role_order() -> None:
    jester_only = truth.GameDetection({Role.JESTER: truth.Detection(ballots=1.0)}, {})
    pooled = truth.pool([jester_only, truth.game_detection(hm.t1_jester_by_wolf_vote(), {})])
    assert list(pooled.roles) == [Role.VILLAGER, Role.DOCTOR, Role.JESTER]
    assert pooled.roles[Role.JESTER].ballots == 3


def test_the_report_table_pools_a_cells_games_and_says_what_it_scores() -> None:
    models = {n: "m" for n in hm.TRIADIC_SEATS}
    games = pd.DataFrame([{"model": "m", "task": "triadic", "condition": "default",
                           "outcome": TEN_CALLS, "truth": truth.game_detection(g, models)}
                          for g in (hm.t1_jester_by_wolf_vote(), hm.t2_jester_killed())])
    by_role, by_model = tables.detection_by_role(games), tables.detection_by_model(games)
    assert list(by_role["observer"]) == ["villager", "doctor", "jester", tables.VILLAGE]
    doctor = by_role[by_role["observer"] == "doctor"].iloc[0]
    assert (doctor["wolf_pairs"], doctor["auroc_wolves"]) == (26, pytest.approx(18 / 26))
    village = by_role[by_role["observer"] == tables.VILLAGE].iloc[0]
    assert village["ballots"] == by_role["ballots"][:2].sum()
    assert list(by_model["seat_model"]) == ["m"]
    text = "\n".join(markdown._truth_sections({"detection_by_role": by_role, "detection_by_model": by_model,
                                               "deception_by_role": tables.deception_by_role(games),
                                               "deception_by_model": tables.deception_by_model(games)}))
    assert "## Detection against the truth" in text and "agreement with the speaker's own label" in text
    # two games (10/12 and 8/14): the interval reaches the game further from 18/26, 10/12, and as far below on the
    # logit scale (tests/test_resample.py works the case by hand); the Jester pairs only game 1 defines get none
    scale = Scale.of(UNIT, 2)
    low = scale.back(2 * float(scale.to(18 / 26)) - float(scale.to(10 / 12)))
    assert (doctor["auroc_wolves_low"], doctor["auroc_wolves_high"]) == (pytest.approx(low), pytest.approx(10 / 12))
    assert low < 18 / 26 - (10 / 12 - 18 / 26)  # longer below, where there is room, than above
    assert "| doctor | 5 | 0.69 [0.52, 0.83] (n=26) | 1.00 (1 game: no interval) (n=4) |" in text
    assert "## Deception against the truth" in text
