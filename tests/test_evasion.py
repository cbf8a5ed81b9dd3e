"""Deception against the truth: the wolves' evasion, the Jester's rank in suspicion and where the ballots fell,
worked by hand on hand-made games, and recovered by a simulation with a known answer.

In ``t1_jester_by_wolf_vote`` (tests/test_truth.py works its matrix out) both day-1 ballots see, after Ivo's
and Ava's statements: Dan: Ava 0.57, Ivo 0.43, the rest 0.5; Eve: Ava 0.36, Ivo 0.85; Fay: Ava 0.78,
Ivo 0.29; Ivo: every score 0.5; Ava: Ivo 0.78 (Ben 0.35); Ben: Ivo 0.71, Ava 0.71. Ava and Ben are the
wolves, Ivo the Jester; the living at both ballots are Ava, Ben, Dan, Eve, Fay and Ivo.
"""

from __future__ import annotations

import math

import handmade as hm
import numpy as np
import pytest
from scipy.stats import norm

from wolf_eval.analysis import tables
from wolf_eval.measures import deception as dec
from wolf_eval.measures import truth
from wolf_eval.measures.rates import Auroc
from wolf_eval.vocabulary import Role

W, J, V, D = Role.WEREWOLF, Role.JESTER, Role.VILLAGER, Role.DOCTOR
MODELS = {"Ava": "wolf-a", "Ben": "wolf-b", "Cleo": "town", "Dan": "town", "Eve": "town", "Fay": "town",
          "Ivo": "fool"}


def test_the_wolves_evasion_by_hand() -> None:
    g = dec.game_deception(hm.t1_jester_by_wolf_vote(), {})
    wolves = g.by_observer_role(W, truth.UNKNOWN_MODEL)
    assert list(wolves) == [V, D, J]  # every seat that is not a wolf observes them
    # Dan: Ava 0.57 beats Eve, Fay (0.5) and Ivo (0.43); Ben's 0.5 ties two and beats one: 4 + 2 ties of 6,
    # at each of the two ballots; AUROC 5/6, so the wolves evaded him 1/6 of the way
    assert (wolves[D].ballots, wolves[D].ranked) == (2, Auroc(8, 4, 12))
    assert wolves[D].evasion == pytest.approx(1 / 6)
    # against the village alone (Eve and Fay, Ivo left out): Ava beats both, Ben ties both, at each ballot
    assert wolves[D].village == Auroc(4, 4, 8) and wolves[D].aim(W, "village") == pytest.approx(0.25)
    # the villagers, Eve and Fay: 8 concordant, 8 tied of 24 (AUROC 0.5): evasion 0.5
    assert wolves[V].ranked == Auroc(8, 8, 24) and wolves[V].evasion == 0.5
    # the wolves' own figure: the village's roles weighted equally, (1/2 + 1/6) / 2 (the Jester hunts no wolf)
    assert dec.aim(W, wolves) == pytest.approx(1 / 3)
    # ballots: Eve votes Ivo twice, Fay Ava twice (2 of 4 on a wolf); Dan Ivo twice (0 of 2); chance 2 of 5 options
    assert (wolves[V].votes, wolves[V].on_deceivers, wolves[V].chance_share) == (4, 2, pytest.approx(0.4))
    assert wolves[D].vote_share == 0.0
    figures = dec.aim_figures(W)
    shares = dec.columns(W, wolves)
    assert (figures["vote_share"](shares), figures["chance_share"](shares)) == (pytest.approx(0.25),
                                                                                pytest.approx(0.4))


def test_the_jesters_rank_in_suspicion_by_hand() -> None:
    g = dec.game_deception(hm.t1_jester_by_wolf_vote(), {})
    fool = g.by_observer_role(J, truth.UNKNOWN_MODEL)
    assert list(fool) == [V, W, D]  # every seat but the Jester's
    # the wolves rank Ivo against the village only (each knows its packmate): Ava 0.78 and Ben 0.71 over Dan,
    # Eve, Fay at 0.5, at two ballots each: 12 of 12
    assert fool[W].ranked == Auroc(12, 0, 12) and fool[W].suspicion_rank == 1.0
    # Dan ranks Ivo (0.43) below all four others; Eve above all four (0.85), Fay below all four (0.29)
    assert fool[D].ranked == Auroc(0, 0, 8) and fool[V].ranked == Auroc(8, 0, 16)
    # against the village alone: Dan's Ivo below Eve and Fay; a wolf's rows already rank it against the village
    assert fool[D].village == Auroc(0, 0, 4) and fool[W].village == fool[W].ranked
    assert dec.aim(J, fool) == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    # the wolves put 3 of their 4 ballots on Ivo (Ben votes Dan first); chance is 1 in 5
    assert (fool[W].vote_share, fool[W].chance_share) == (0.75, pytest.approx(0.2))


def test_evasion_is_detections_pairs_seen_from_the_wolves_side_split_by_their_seat_model() -> None:
    """Ava and Ben seated by two models: every observer's wolf-other pairs go to one of them, and the two
    together are the observer's detection pairs."""
    game = hm.t1_jester_by_wolf_vote()
    g, seen = dec.game_deception(game, MODELS), truth.game_detection(game, MODELS)
    assert [k for k in g.deceivers()] == [(W, "wolf-a"), (W, "wolf-b"), (J, "fool")]
    for role, d in seen.roles.items():
        a, b = (g.by_observer_role(W, m).get(role, dec.Deceit()).ranked for m in ("wolf-a", "wolf-b"))
        assert a + b == d.wolves, role
    # Dan: Ava's 0.57 beats the three others (3 of 3), Ben's 0.5 ties two and beats one (1 + 2 ties)
    dan = {m: g.by_observer_role(W, m)[D].ranked for m in ("wolf-a", "wolf-b")}
    assert dan == {"wolf-a": Auroc(6, 0, 6), "wolf-b": Auroc(2, 4, 6)}
    # one observer model ("town") saw both: the head-to-head holds it fixed
    assert set(g.by_observer_model(W, "wolf-a")) == {"town", "fool"}


def test_without_analysis_only_the_ballots_count() -> None:
    h = hm.Hand(analysis=False)
    h.ballot(1, {"Ava": "Ivo", "Cleo": "Ava", "Dan": "Ava", "Ivo": "Cleo"}, "first")
    g = dec.game_deception(h.end("draw", 10, 10), {})
    villagers = g.by_observer_role(W, truth.UNKNOWN_MODEL)[V]
    assert villagers.ballots == 0 and math.isnan(villagers.evasion)
    assert (villagers.votes, villagers.vote_share) == (1, 1.0)
    assert math.isnan(dec.aim(W, g.by_observer_role(W, truth.UNKNOWN_MODEL)))  # no pair: NaN, never 0


def test_pooling_adds_pairs_before_the_equal_weight_mean() -> None:
    both = dec.pool([dec.game_deception(hm.t1_jester_by_wolf_vote(), {}),
                     dec.game_deception(hm.t2_jester_killed(), {})])
    doctor = both.by_observer_role(W, truth.UNKNOWN_MODEL)[D]
    # t1: 8 + 4 ties of 12; t2: day 1's two ballots all tied at the prior (12 of 12), day 2's 2 of 2
    assert doctor.ranked == Auroc(10, 16, 26) and doctor.evasion == pytest.approx(1 - 18 / 26)


# --------------------------------------------------------------------------- a simulation with a known answer


def simulated_game(rng: np.random.Generator, pull: dict[str, float]) -> object:
    """One day: every player speaks once and every other living player rates it, its rating of a speaker drawn
    normal with mean ``pull[speaker]`` (0 for anyone not named) and sd 1, then squashed into (0, 1); then a
    ballot. The smoothed matrix keeps each observer's order of its ratings, so the AUROC of its row is that of
    its draws: for a wolf pulled by mu against everyone else at 0, P(N(mu, 1) > N(0, 1)) = Phi(mu / sqrt 2)."""
    h = hm.Hand()
    seats = list(hm.TRIADIC_SEATS)
    for speaker in seats:
        s = h.say(1, speaker)
        draws = rng.normal(pull.get(speaker, 0.0), 1.0, len(seats) - 1)
        peers = {o: (False, 0.5, "none", 1 / (1 + math.exp(-x)))
                 for o, x in zip([o for o in seats if o != speaker], draws, strict=True)}
        h.analyse(s, (False, 0.5, "none"), peers)
    h.ballot(1, {o: None for o in seats}, "final")
    return h.end("draw", 10, 10)


def test_a_simulation_recovers_each_wolf_models_known_evasion_and_the_jesters_rank() -> None:
    """Ava's model pulls suspicion 1.2 sd onto its wolf, Ben's none; Ivo's 0.8. A village observer ranks each
    wolf against the four other living non-wolves, three village seats (no pull) and Ivo: Ava's evasion is
    1 − (3 Phi(1.2 / sqrt 2) + Phi(0.4 / sqrt 2)) / 4 = 0.26, Ben's 1 − (3 / 2 + Phi(−0.8 / sqrt 2)) / 4 = 0.55.
    Ivo, against the five others in a village row (Ava among them), ranks (4 Phi(0.8 / sqrt 2) +
    Phi(−0.4 / sqrt 2)) / 5 = 0.66; a wolf ranks it against the four village seats only: Phi(0.8 / sqrt 2)."""
    rng = np.random.default_rng(35)
    pull = {"Ava": 1.2, "Ivo": 0.8}
    games = [dec.game_deception(simulated_game(rng, pull), MODELS) for _ in range(400)]
    pooled = dec.pool(games)
    expected_a = 1 - (3 * norm.cdf(1.2 / math.sqrt(2)) + norm.cdf(0.4 / math.sqrt(2))) / 4
    for role in (V, D):
        seen = pooled.by_observer_role(W, "wolf-a")[role]
        assert seen.evasion == pytest.approx(expected_a, abs=0.03), role
    expected_b = 1 - (3 * 0.5 + norm.cdf(-0.8 / math.sqrt(2))) / 4
    assert dec.aim(W, pooled.by_observer_role(W, "wolf-b")) == pytest.approx(expected_b, abs=0.03)
    village = (4 * norm.cdf(0.8 / math.sqrt(2)) + norm.cdf(-0.4 / math.sqrt(2))) / 5
    rank = pooled.by_observer_role(J, "fool")
    assert rank[V].suspicion_rank == pytest.approx(village, abs=0.03)
    assert rank[W].suspicion_rank == pytest.approx(norm.cdf(0.8 / math.sqrt(2)), abs=0.03)


def test_a_head_to_head_of_two_wolf_models_seen_by_the_same_observers() -> None:
    """Per game, Ava's model and Ben's seen by the village's model ("town"): a paired difference. Pulled
    1.2 and 0, its known value is the difference of the two evasions above (0.246 − 0.554); pulled alike, 0,
    and its interval holds 0."""
    rng = np.random.default_rng(7)
    apart = (3 * 0.5 + norm.cdf(-0.8 / math.sqrt(2))) / 4 - (3 * norm.cdf(1.2 / math.sqrt(2))
                                                             + norm.cdf(0.4 / math.sqrt(2))) / 4
    for pull, expected in (({"Ava": 1.2, "Ivo": 0.8}, apart), ({"Ava": 0.5, "Ben": 0.5}, 0.0)):
        games = [dec.game_deception(simulated_game(rng, pull), MODELS) for _ in range(150)]
        a, b = ([dec.seen_by(g, W, m, "town") for g in games] for m in ("wolf-a", "wolf-b"))
        diff = tables.aimed_difference(W, a, b, seed=3)
        assert diff["difference"] == pytest.approx(diff["first"] - diff["second"])
        assert diff["difference"] == pytest.approx(expected, abs=0.05) and diff["pairs"] == 150
        assert (diff["difference_high"] < 0) if expected else (diff["difference_low"] <= 0 <= diff["difference_high"])
