"""Stopping when decided: the betting test worked by hand, its error rate and its interval's coverage on simulated
comparisons with a known answer, and a comparison in rounds replayed from its games (which rounds, which
decisions, the caps, and no decision from a round still being played)."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pandas as pd
import pytest
from helpers import WINS_ONLY

from wolf_eval.analysis import rounds, sequential
from wolf_eval.analysis.compare import Pairing, pairings
from wolf_eval.analysis.plan import paired_outcomes
from wolf_eval.vocabulary import Faction


def test_the_wealth_is_the_mean_of_the_bets_worked_by_hand() -> None:
    # two deals, +1 then 0: each bet lam multiplies its wealth by (1 + lam) then by 1, so the wealth is the mean
    # of (1 + lam) over the 40 bets, the 20 for A (fractions k/21 of 0.98) and the 20 against (their negatives): 1
    assert sequential.log_wealth([1.0, 0.0])[-1] == pytest.approx(0.0, abs=1e-12)
    # three wins for A: mean over the bets of (1 + lam)^3; the negatives' and positives' odd powers cancel, so
    # it is 1 + 3 * mean(lam^2) over all 40
    lam = 0.98 * np.arange(1, 21) / 21
    expected = 1 + 3 * np.mean(lam ** 2)
    assert math.exp(sequential.log_wealth([1.0, 1.0, 1.0])[-1]) == pytest.approx(expected)
    # against a mean of m the stakes shrink so no deal can bankrupt a bet: d = -1 against m = 0.5 keeps every
    # bet's wealth positive
    assert np.isfinite(sequential.log_wealth([-1.0, -1.0], 0.5)).all()


def test_a_run_of_wins_decides_and_a_balanced_record_does_not() -> None:
    wins = sequential.decide([1.0] * 8, alpha=0.05)
    assert wins.state == sequential.FOR_A and wins.evidence >= 20 and wins.low > 0
    fewer = sequential.decide([1.0] * 3, alpha=0.05)
    assert fewer.state == sequential.UNDECIDED and fewer.low < 0 < fewer.high
    losses = sequential.decide([-1.0] * 8 + [0.0] * 4, alpha=0.05)
    assert losses.state == sequential.FOR_B and losses.deals == 12 and losses.high < 0
    # the test bets on who was ahead, not by how much: eight small leads decide as eight wins do
    small = sequential.decide([0.05] * 8, alpha=0.05)
    assert small.state == sequential.FOR_A and small.ahead == 1.0 and small.mean == pytest.approx(0.05)
    assert small.evidence == pytest.approx(wins.evidence)
    balanced = sequential.decide([1.0, -1.0] * 50, alpha=0.05)
    assert balanced.state == sequential.UNDECIDED and balanced.low < 0 < balanced.high
    empty = sequential.decide([], alpha=0.05)
    assert empty.state == sequential.UNDECIDED and empty.deals == 0 and math.isnan(empty.low)
    with pytest.raises(ValueError, match="in \\[-1, 1\\]"):
        sequential.decide([1.5])
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        sequential.decide([1.0], alpha=1.0)


def test_first_decision_looks_only_at_the_ends_of_rounds() -> None:
    d = [1.0] * 30
    every = sequential.first_decision(d, range(1, 31))
    assert every is not None and sequential.decide(d[:every]).decided and not sequential.decide(d[:every - 1]).decided
    assert sequential.first_decision(d, [10, 20, 30]) == 10
    assert sequential.first_decision([1.0, -1.0] * 15, [10, 20, 30]) is None


def test_false_decisions_stay_below_the_error_rate_on_simulated_identical_players() -> None:
    """300 simulated comparisons of two players that do not differ, 400 deals each looked at every 10: a win
    drawn at 0.3 for both with a same-deal correlation 0.2, and a game's AUROC drawn skewed around the same mean
    for both (a long tail on one side). Ville's inequality bounds the share decided at 0.05 (binomial sd 0.013)."""
    rng = np.random.default_rng(7)
    looks = list(range(10, 401, 10))
    wins = [sequential.first_decision(paired_outcomes(rng, 0.3, 0.3, 0.2, 400), looks) for _ in range(300)]
    auroc = [sequential.first_decision(rng.beta(2, 5, 400) - rng.beta(2, 5, 400), looks) for _ in range(300)]
    assert sum(x is not None for x in wins) / 300 <= 0.05
    assert sum(x is not None for x in auroc) / 300 <= 0.05


def test_the_anytime_interval_covers_the_true_mean_wherever_the_comparison_stops() -> None:
    """The interval read at the first decision (or at the cap) covers the true mean difference at least 95% of
    the time: a fixed-sample interval read at the same stopping time would not promise that."""
    rng = np.random.default_rng(11)
    covered = 0
    for _ in range(200):
        d = paired_outcomes(rng, 0.45, 0.3, 0.1, 300)
        stop = sequential.first_decision(d, range(10, 301, 10)) or 300
        low, high = sequential.confidence_sequence(d[:stop])
        covered += low <= 0.15 <= high
    assert covered / 200 >= 0.95


# --------------------------------------------------------------------------- the group-sequential design


def test_one_look_at_the_cap_is_the_exact_sign_test() -> None:
    """One look at the cap spends the whole error there: the two-sided sign test. Of 10 deals with a winner,
    P(|walk| >= 10) = 2/1024, >= 8 (9 to 1) 22/1024 = 0.021, >= 6 (8 to 2) 112/1024 = 0.109: the bound is 8.
    Ties take no part: two more tied deals leave the bound where it was."""
    nine = [1.0] * 9 + [-1.0]
    decided = sequential.decide(nine, [10], 0.05, sequential.GROUP, cap=10)
    assert decided.state == sequential.FOR_A and decided.evidence == pytest.approx(8 / math.sqrt(10))
    assert decided.needed == pytest.approx(8 / math.sqrt(10))
    eight = sequential.decide([1.0] * 8 + [-1.0] * 2, [10], 0.05, sequential.GROUP, cap=10)
    assert eight.state == sequential.UNDECIDED and eight.ahead == pytest.approx(0.6)
    assert sequential.decide(nine + [0.0, 0.0], [12], 0.05, sequential.GROUP, cap=12).decided
    with pytest.raises(ValueError, match="planned cap"):
        sequential.decide(nine, [10], 0.05, sequential.GROUP)


def test_the_bounds_spend_the_error_exactly_worked_by_enumeration() -> None:
    """O'Brien-Fleming-like spending, looks after 4 and 8 deals of a cap of 8, every deal with a winner, error rate
    0.2. The first look may spend 2 - 2 Phi(z[0.9] / sqrt(1/2)) = 0.070, less than the 2/16 of a 4-0 record, so
    nothing decides there; the second may spend the rest of 0.2, and |walk| >= 6 (7 to 1 or 8 to 0) has chance
    18/256 = 0.070 where >= 4 has 0.289. Over all 256 equally likely records exactly those 18 decide."""
    obf = sequential.OBRIEN_FLEMING
    assert sequential.spent(0.5, 0.2, obf) == pytest.approx(0.0699, abs=1e-4)
    path = list(sequential.group_path(np.ones(8), [4, 8], 0.2, 8, obf))
    assert [(n, bound) for n, _, _, bound in path] == [(4, 5), (8, 6)]
    records = np.array(list(itertools.product([-1.0, 1.0], repeat=8)))
    decided = sum(sequential.first_decision(r, [4, 8], 0.2, sequential.GROUP, 8, obf) is not None for r in records)
    assert decided == 18


def test_each_spending_function_worked_by_hand() -> None:
    """At half the cap and an error rate of 0.05: Pocock-like 0.05 ln(1 + (e - 1) / 2) = 0.0310; Hwang-Shih-DeCani
    at gamma -2, 0.05 (1 - e) / (1 - e^2) = 0.0134, and at gamma 0 a straight line, 0.025; O'Brien-Fleming-like
    2 - 2 Phi(1.960 / 0.7071) = 0.0056. Every one spends nothing before the first deal and all of alpha at the cap."""
    half = {sequential.POCOCK: 0.0310, "hsd:-2": 0.01345, "hsd:0": 0.025, sequential.OBRIEN_FLEMING: 0.0056}
    for spending, value in half.items():
        assert sequential.spent(0.5, 0.05, spending) == pytest.approx(value, abs=1e-4)
        assert sequential.spent(0.0, 0.05, spending) == 0.0
        assert sequential.spent(1.0, 0.05, spending) == pytest.approx(0.05)
    for bad in ("pocok", "hsd", "hsd:x", "hsd:nan", "pocock:1"):
        with pytest.raises(ValueError, match="obrien-fleming, pocock or hsd:GAMMA"):
            sequential.spent(0.5, 0.05, bad)


@pytest.mark.parametrize("spending", [sequential.OBRIEN_FLEMING, sequential.POCOCK, "hsd:-2", "hsd:1"])
def test_every_spending_keeps_the_error_exactly_over_all_records(spending: str) -> None:
    """Looks after 4, 8 and 12 deals of a cap of 12, every deal with a winner, error rate 0.2: over all 4,096
    equally likely records, the share decided by each look is at most what the spending allows there."""
    records = np.array(list(itertools.product([-1.0, 1.0], repeat=12)))
    stops = [sequential.first_decision(r, [4, 8, 12], 0.2, sequential.GROUP, 12, spending) for r in records]
    for look in (4, 8, 12):
        by_then = sum(n is not None and n <= look for n in stops) / len(records)
        assert by_then <= sequential.spent(look / 12, 0.2, spending) + 1e-12
    assert sum(n is not None for n in stops) / len(records) > 0.1  # the last look spends most of what is left


def test_the_group_design_keeps_its_error_at_any_tie_rate_and_decides_a_tenth_sooner_than_a_fixed_design() -> None:
    """1,000 simulated null comparisons with 80% tied deals (at most 0.05 exactly; the bound allows two binomial
    sd, 0.007, for the simulation), and 300 of two win rates 0.55 and 0.45: a fixed design needs 389 deals at 80%
    power; the group design capped at 1.1 times that decides with power near 0.8 in fewer deals on average."""
    rng = np.random.default_rng(3)
    null = [sequential.first_decision(rng.choice([-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0], 200),
                                      range(10, 201, 10), 0.05, sequential.GROUP, 200) for _ in range(1000)]
    assert sum(n is not None for n in null) / 1000 <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 1000)
    fixed = 389
    stops = [sequential.first_decision(paired_outcomes(rng, 0.55, 0.45, 0.0, 430), range(10, 431, 10), 0.05,
                                       sequential.GROUP, 430) for _ in range(300)]
    assert sum(n is not None for n in stops) / 300 >= 0.74
    assert np.mean([430 if n is None else n for n in stops]) < 0.85 * fixed


def test_the_futility_bound_worked_by_hand() -> None:
    """One look at the cap spends all of beta = 0.2 there: the bound is z[0.8] = 0.8416. Of 100 deals, 50 with a
    winner, a share ahead of 0.10 would put the walk near 10 with a spread of sqrt(50) = 7.07, so the look stops the
    question as smaller below a z of 10 / 7.07 - 0.8416 = 0.5726: a walk of 4 (27 deals to 23, z 0.566) is smaller
    than planned, one of 6 (28 to 22, z 0.849) is undecided, and neither reaches the sign test's 16 (33 to 17).
    Two looks at half the cap and the cap, Hwang-Shih-DeCani gamma -2: the first may spend 0.2 (1 - e) / (1 - e^2)
    = 0.05379, a bound of -z[0.05379] = 1.609; the second the rest, 0.14621, the chance that a standard bivariate
    normal pair with correlation sqrt(1/2) (the walk at half the cap and at the cap) stays above -1.609 at the first
    and falls below the second's bound, which solves to 0.8875 (scipy's bivariate normal, worked apart from the
    grid the bounds are computed on)."""
    from scipy.optimize import brentq
    from scipy.stats import multivariate_normal, norm

    futile = sequential.Futility(0.10, 0.20)
    assert sequential.futility_bounds((1.0,), 0.2) == pytest.approx((0.8416,), abs=1e-3)
    ties = [0.0] * 50
    smaller = sequential.decide([1.0] * 27 + [-1.0] * 23 + ties, [100], 0.05, sequential.GROUP, 100, futile=futile)
    assert smaller.state == sequential.SMALLER and not smaller.decided and smaller.stopped
    assert smaller.smaller_below == pytest.approx(0.5726, abs=1e-3)
    assert smaller.evidence == pytest.approx(0.566, abs=1e-3)
    assert smaller.needed == pytest.approx(16 / math.sqrt(50))
    open_ = sequential.decide([1.0] * 28 + [-1.0] * 22 + ties, [100], 0.05, sequential.GROUP, 100, futile=futile)
    assert open_.state == sequential.UNDECIDED and not open_.stopped
    assert sequential.first_stop([1.0] * 27 + [-1.0] * 23 + ties, [100], 0.05, sequential.GROUP, 100) == \
        (100, sequential.UNDECIDED)  # no futility bound: it plays on
    # four deals of 100 with a winner, all A's: a share ahead of 0.10 needs at least 10, so the spread is taken at
    # sqrt(10), not sqrt(4): smaller below a walk of 10 - 0.8416 sqrt(10) = 7.34, a z of 7.34 / 2 = 3.669 (the walk's
    # 4 is a z of 2; the sign test cannot decide 4 deals at 0.05)
    rare = sequential.decide([1.0] * 4 + [0.0] * 96, [100], 0.05, sequential.GROUP, 100, futile=futile)
    assert rare.state == sequential.SMALLER and rare.smaller_below == pytest.approx(3.669, abs=2e-3)

    first = 0.2 * math.expm1(2 * 0.5) / math.expm1(2.0)
    assert first == pytest.approx(0.05379, abs=1e-5)
    pair = multivariate_normal([0.0, 0.0], [[1.0, math.sqrt(0.5)], [math.sqrt(0.5), 1.0]])
    c1 = -float(norm.ppf(first))
    c2 = brentq(lambda c: norm.cdf(-c) - pair.cdf([-c1, -c]) - (0.2 - first), -3.0, 3.0)
    assert (c1, c2) == pytest.approx((1.609, 0.8875), abs=1e-3)
    assert sequential.futility_bounds((0.5, 1.0), 0.2, "hsd:-2") == pytest.approx((c1, c2), abs=3e-3)
    with pytest.raises(ValueError, match="futility 'hsd:x': one of"):
        sequential.Futility(0.10, 0.20, "hsd:x")
    assert sequential.futility(sequential.NO_FUTILITY, 0.10, 0.80) is None
    planned = sequential.futility("hsd:-2", 0.10, 0.80)
    assert planned is not None and planned.beta == pytest.approx(0.20) and planned.difference == 0.10


def test_the_futility_bound_is_non_binding_over_all_records() -> None:
    """Looks after 4, 8 and 12 deals of a cap of 12, every deal with a winner, error rate 0.2, a futility bound for a
    share ahead of 0.5 spending beta 0.3: over all 4,096 equally likely records, every record the design decides with
    the bound it decides without it, at the same look and for the same model, so the error spent by each look is still
    at most what the spending allows; and the bound does stop some records as smaller."""
    records = np.array(list(itertools.product([-1.0, 1.0], repeat=12)))
    futile = sequential.Futility(0.5, 0.3, "hsd:0")
    smaller = 0
    for r in records:
        with_ = sequential.first_stop(r, [4, 8, 12], 0.2, sequential.GROUP, 12, "hsd:-2", futile)
        without = sequential.first_stop(r, [4, 8, 12], 0.2, sequential.GROUP, 12, "hsd:-2")
        if with_[1] in (sequential.FOR_A, sequential.FOR_B):
            assert with_ == without
        smaller += with_[1] == sequential.SMALLER
    assert smaller > 0.3 * len(records)


def test_a_comparison_shares_its_error_rate_among_every_question_of_every_pair() -> None:
    assert rounds.family("triadic", ["a", "b"], ["r"]) == 6  # village: win, detection; wolves: win, evasion; Jester
    assert rounds.family("triadic", ["a", "b", "c"], ["r"]) == 18  # three pairs
    assert rounds.family("wolf", ["a", "b"], ["r", "s"]) == 8  # two reference opponents, each its own block
    shared = rounds.Stopping(max_games=100, questions=6)
    assert shared.question_alpha == pytest.approx(0.05 / 6) and "Bonferroni over the comparison's 6" in shared.procedure
    alone = rounds.Stopping(max_games=100, questions=6, per_question=True)
    assert alone.question_alpha == 0.05 and "no family-wise control" in alone.procedure
    with pytest.raises(ValueError, match="design"):
        rounds.Stopping(max_games=100, design="pocock")
    assert "hsd:-2 error spending over the cap" in shared.procedure
    with pytest.raises(ValueError, match="spending"):
        rounds.Stopping(max_games=100, spending="pocock-like")


def test_a_primary_question_takes_half_the_error_and_the_levels_still_sum_to_it() -> None:
    """Weighted Bonferroni: a pair on triadic with the wolves' evasion named primary tests it at 0.05 / 2 and each of
    the other five at 0.025 / 5; three models ask it of three pairs (0.025 / 3 each) and the other 15 questions at
    0.025 / 15. Either way the levels sum to the comparison's 0.05, so the union bound still holds."""
    wolves = rounds.primary_question("triadic", "evasion")
    assert wolves == (Faction.WEREWOLVES, "evasion") and rounds.primary_question("triadic", "village:win")[1] == "win"
    for models, (primary, other) in ((["a", "b"], (0.025, 0.005)), (["a", "b", "c"], (0.025 / 3, 0.025 / 15))):
        k, m = rounds.family("triadic", models, ["r"]), rounds.pairs_asked(models, ["r"])
        stopping = rounds.Stopping(max_games=100, questions=k, primary=wolves, primaries=m)
        assert stopping.level(*wolves) == pytest.approx(primary)
        assert stopping.level(Faction.WEREWOLVES, "win") == stopping.question_alpha == pytest.approx(other)
        assert m * stopping.level(*wolves) + (k - m) * stopping.question_alpha == pytest.approx(0.05)
        assert f"(wolves evasion, {m} of them)" in stopping.procedure
    with pytest.raises(ValueError, match="village:win, village:detection"):
        rounds.primary_question("triadic", "win")  # three factions have one
    with pytest.raises(ValueError, match="not with each question at alpha alone"):
        rounds.Stopping(max_games=100, questions=6, per_question=True, primary=wolves, primaries=1)


@pytest.mark.slow
@pytest.mark.parametrize("futility", [sequential.NO_FUTILITY, sequential.FUTILITY])
def test_a_null_pair_asked_all_six_questions_is_falsely_decided_in_at_most_the_comparisons_error_rate(
        futility: str) -> None:
    """1,000 simulated comparisons of two models that do not differ, each asked the six questions of ``triadic``
    (three win rates at 0.45, 0.35 and 0.20 with a same-deal correlation 0.2, three truth figures drawn alike for
    both models), looked at every 10 deals up to a cap of 100, by the group design with the comparison's error
    0.05 shared among them, without and with the default futility bound (planned for 0.10 at 80% power). The share
    of comparisons with any decision must not exceed 0.05 beyond what 1,000 draws allow: the lower end of its 95%
    Clopper-Pearson interval stays at or below 0.05 (a true rate of 0.05 gives 50 of 1,000 with sd 6.9; the test
    fails from about 64)."""
    from scipy.stats import beta

    stopping = rounds.Stopping(max_games=100, questions=rounds.family("triadic", ["a", "b"], ["r"]),
                               futile=sequential.futility(futility, 0.10, 0.80))
    assert stopping.questions == 6
    rng = np.random.default_rng(2026)
    looks = range(10, 101, 10)
    wrong = 0
    for _ in range(1000):
        d = [paired_outcomes(rng, p, p, 0.2, 100) for p in (0.45, 0.35, 0.20)]
        d += [rng.beta(a, 3.0, 100) - rng.beta(a, 3.0, 100) for a in (2.0, 3.0, 4.0)]
        wrong += any(sequential.first_stop(x, looks, stopping.question_alpha, stopping.design, 100, stopping.spending,
                                           stopping.futile)[1] in (sequential.FOR_A, sequential.FOR_B) for x in d)
    assert beta.ppf(0.025, wrong, 1000 - wrong + 1) <= 0.05, wrong


# --------------------------------------------------------------------------- rounds replayed from games


TASK = "wolf"
PLAN = pairings(["a", "b"], TASK, ["r"])


def _rows(games: dict[tuple[str, str, int], list[float]], base: int = 100) -> pd.DataFrame:
    """Rows of the reference design on ``wolf``: ``games[(model, faction, round)]`` lists the outcomes of the
    model's faction over the round's deals (samples 1..n at seed base + round - 1) against r, whose other faction
    has the row of the same game."""
    out = []
    other = {"villagers": "werewolves", "werewolves": "villagers"}
    for (model, faction, k), won in games.items():
        for i, w in enumerate(won, start=1):
            for m, o, f, result in ((model, "r", faction, w), ("r", model, other[faction], 1 - w)):
                out.append({"task": TASK, "condition": "default", "seed": base + k - 1, "sample": str(i),
                            "epoch": 1, "log": f"{model}-{faction}-{k}", "model": m, "opponent": o,
                            "faction": f, "won": result, "played": 1.0, **WINS_ONLY, "game_usd": 0.5})
    return pd.DataFrame(out)


def _record(a: list[float], b: list[float], wolves: list[float],
            rounds_: range) -> dict[tuple[str, str, int], list[float]]:
    """The village outcomes of models a and b each round; both models' wolves the same outcomes (never decided)."""
    return ({("a", "villagers", k): a for k in rounds_} | {("b", "villagers", k): b for k in rounds_}
            | {(m, "werewolves", k): wolves for m in "ab" for k in rounds_})


def test_a_round_decides_stops_its_evals_and_a_partial_round_decides_nothing() -> None:
    stopping = rounds.Stopping(round_games=4, alpha=0.05, max_games=40, design=sequential.ANYTIME)
    start = rounds.standing(TASK, pd.DataFrame(), PLAN, ["a", "b"], ["r"], stopping, 100)
    assert start.rounds == [PLAN] and start.complete == 0 and not start.finished
    # a's village wins every deal, b's loses every deal: 4 discordant deals per round
    done = _record([1.0] * 4, [0.0] * 4, [0.0] * 4, range(1, 3))
    # round 2 half played: only its first two deals for b's village
    partial = _rows(done).query("not (log == 'b-villagers-2' and sample in ['3', '4'])")
    after_one = rounds.standing(TASK, partial, PLAN, ["a", "b"], ["r"], stopping, 100)
    assert after_one.complete == 1 and len(after_one.rounds) == 2 and not after_one.finished
    q = after_one.questions.set_index(["faction", "question"]).loc[("villagers", "win")]
    assert q["deals"] == 4 and q["state"] == rounds.PLAYING  # 4 deals: wealth below 20, and round 2 is not counted
    full = rounds.standing(TASK, _rows(done), PLAN, ["a", "b"], ["r"], stopping, 100)
    q = full.questions.set_index(["faction", "question"]).loc[("villagers", "win")]
    assert q["deals"] == 8 and q["state"] == rounds.DECIDED and q["decision"] == sequential.FOR_A
    assert len(full.rounds) == 3 and full.complete == 2 and not full.finished  # the wolves (all lost) play on
    assert {(p.model, p.faction) for p in full.rounds[2]} == {("a", "werewolves"), ("b", "werewolves")}
    assert full.games == 32 and full.spent == pytest.approx(16.0)


def test_a_question_stays_decided_at_the_round_that_decided_it() -> None:
    """Model a's village wins every deal of rounds 1 and 2 (decided at 8 deals, wealth above 20) and b's every deal of
    rounds 3 and 4, while both wolves' games (all lost) keep the evals playing. Over all 16 deals a and b are
    ahead equally often, which decides nothing; the village's question was decided at round 2 and stays so."""
    a, b = [1.0] * 4, [0.0] * 4
    played = ({("a", "villagers", k): a if k < 3 else b for k in range(1, 5)}
              | {("b", "villagers", k): b if k < 3 else a for k in range(1, 5)}
              | {(m, "werewolves", k): [0.0] * 4 for m in "ab" for k in range(1, 5)})
    rows = _rows(played)
    assert rounds.looks(np.array([100] * 4 + [101] * 4 + [102] * 4 + [103] * 4)) == [4, 8, 12, 16]
    anytime = rounds.Stopping(round_games=4, max_games=16, design=sequential.ANYTIME)
    done = rounds.standing(TASK, rows, PLAN, ["a", "b"], ["r"], anytime, 100)
    q = done.questions.set_index(["faction", "question"]).loc[("villagers", "win")]
    assert (q["state"], q["decision"], q["deals"], q["ahead"]) == (rounds.DECIDED, sequential.FOR_A, 8, 1.0)
    assert sequential.decide([1.0] * 8 + [-1.0] * 8).state == sequential.UNDECIDED  # what all 16 deals say


def test_an_undecided_question_stops_at_the_games_cap_and_the_dollar_cap() -> None:
    even = _record([1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.0] * 4, range(1, 4))
    capped = rounds.standing(TASK, _rows(even), PLAN, ["a", "b"], ["r"],
                             rounds.Stopping(round_games=4, max_games=8), 100)
    assert capped.finished and capped.complete == 2
    wins = capped.questions[capped.questions["question"] == "win"]
    assert set(wins["state"]) == {rounds.GAMES_CAP} and set(wins["deals"]) == {8}
    assert set(capped.questions[capped.questions["question"] == "detection"]["state"]) == {rounds.UNDEFINED}
    # a round is 4 games of each of 4 evals at $0.50 a game, $8: after round 1 ($8) the next would reach $16
    priced = rounds.standing(TASK, _rows(even), PLAN, ["a", "b"], ["r"],
                             rounds.Stopping(round_games=4, max_games=40, max_usd=10.0), 100)
    assert priced.finished and priced.complete == 1
    assert set(priced.questions[priced.questions["question"] == "win"]["state"]) == {rounds.DOLLAR_CAP}
    assert priced.spent == pytest.approx(8.0)
    with pytest.raises(ValueError, match="below one round"):
        rounds.Stopping(round_games=10, max_games=5)


def test_a_question_stopped_as_smaller_than_planned_stops_its_evals_and_says_so() -> None:
    """Each round a and b win two deals apart (+1, -1) and tie two, so the walk stays at 0. With a futility bound for
    a share ahead of 0.5 (beta 0.3 spent evenly over a cap of 8 deals) the first look, at 4 deals with 2 winners,
    stops below a z of 0.5 * 4 / sqrt(2) - (-z[0.15]) = 1.414 - 1.036 = 0.378, and the walk's z is 0: no difference
    as large as planned after one round, every eval stopped. Without the bound the same record plays to the cap."""
    even = _record([1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.0] * 4, range(1, 4))
    futile = sequential.Futility(0.5, 0.3, "hsd:0")
    stopping = rounds.Stopping(round_games=4, max_games=8, futile=futile)
    now = rounds.standing(TASK, _rows(even), PLAN, ["a", "b"], ["r"], stopping, 100)
    assert now.finished and now.complete == 1
    wins = now.questions[now.questions["question"] == "win"]
    assert set(wins["state"]) == {rounds.SMALLER} and set(wins["deals"]) == {4}
    village = wins[wins["faction"] == Faction.VILLAGERS]
    assert len(village) == 1 and village["smaller_below"].iloc[0] == pytest.approx(0.378, abs=1e-3)
    text = rounds.decisions_markdown(now.questions, now, stopping)
    assert "| no difference as large as planned (0.5 ahead) | 4 | +0.00 | +0.00 [" in text
    assert "| 0 (smaller below 0.37" in text  # 0.378 by hand, to the grid's 1e-3
    assert "stopping a question as smaller than planned when it falls short of a share ahead of 0.5 (hsd:0 " \
           "spending of 0.3, non-binding" in stopping.procedure
    plain = rounds.standing(TASK, _rows(even), PLAN, ["a", "b"], ["r"], rounds.Stopping(round_games=4, max_games=8),
                            100)
    assert plain.complete == 2 and set(plain.questions[plain.questions["question"] == "win"]["state"]) == {
        rounds.GAMES_CAP}
    with pytest.raises(ValueError, match="the anytime design has none"):
        rounds.Stopping(round_games=4, max_games=8, design=sequential.ANYTIME, futile=futile)


def test_only_the_evals_of_open_questions_play_the_next_round() -> None:
    triadic = pairings(["a", "b"], "triadic", ["r"])
    needed = rounds._needed("triadic", triadic, pd.DataFrame([{"a": "a", "b": "b", "held": "r",
                                                                "faction": Pairing("a", "r", "werewolves").faction}]))
    assert {(p.model, p.faction) for p in needed} == {("a", "werewolves"), ("b", "werewolves")}


@pytest.mark.slow
def test_compare_in_rounds_plays_until_each_question_stops_and_resumes_a_round_cut_short(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The faction bot and tom play the same wolves, so against cue nothing separates their wolves and each question
    runs to the cap of 2 games, one round at seed 3 and one at seed 4. A round cut short decides nothing: with a game
    of round 2 gone the tables are refused, and the same command plays that game and gives the same decisions."""
    from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log

    from wolf_eval.cli import main

    folder = tmp_path / "rounds"
    command = ["compare", "wolfbot/faction", "wolfbot/tom", "--against", "wolfbot/cue", "--sequential", "--task",
               "wolf", "-T", "games=1", "-T", "max_debate_turns=1", "-T", "deception_analysis=false", "-T", "seed=3",
               "--max-games", "2", "--log-dir", str(folder), "--display", "none"]
    assert main(command) == 0
    logs = [read_eval_log(i.name, header_only=True) for i in list_eval_logs(str(folder))]
    assert sorted(log.eval.task_args["seed"] for log in logs) == [3] * 4 + [4] * 4
    text = (folder / "compare" / "compare.md").read_text()
    assert "2 complete rounds, 8 games" in text
    assert "| wolf | wolves | wolfbot/faction | wolfbot/tom | against wolfbot/cue | win | undecided at the games cap " \
           "| 2 | +0.00 | +0.00 [" in text  # the mean difference, then the share ahead with its interval
    assert "| evasion | not defined in these games | 0 |" in text  # no deception analysis: no suspicion rows
    assert "group-sequential, hsd:-2 error spending over the cap, stopping a question as smaller than planned when " \
           "it falls short of a share ahead of 0.1 (hsd:0 spending of 0.2, non-binding" in text  # the procedure named
    progress = [line for line in capsys.readouterr().err.splitlines() if line.startswith("wolf-eval: round ")]
    assert len(progress) == 2 and progress[0].startswith("wolf-eval: round 1 of at most 2: playing 4 games in 4 evals "
                                                         "(wolfbot/faction as village against wolfbot/cue; ")
    assert progress[0].endswith("; time left known once this run has played a round")
    assert re.fullmatch(r"wolf-eval: round 2 of at most 2: playing 4 games in 4 evals \(.*\); about \d+ s left in "
                        r"this round, at most \d+ s to the games cap, at this run's pace of [\d.]+ s a game",
                        progress[1]), progress[1]
    cut = next(log for log in logs if log.eval.task_args["seed"] == 4)
    whole = read_eval_log(cut.location)
    whole.samples, whole.status = [], "cancelled"
    write_eval_log(whole, cut.location)
    assert main([*command, "--tables-only"]) == 1
    assert "round 2 is not complete" in capsys.readouterr().err
    assert main(command) == 0
    assert (folder / "compare" / "compare.md").read_text() == text
