"""The audit's defects mended (issue 26, point 4), each pinned on the case the issue describes.

a. Within-cell predictor tests take only the cells whose Jester outcome varies, with a stratified
   permutation p beside Pearson's.
b. A duplicate is the same game (its final state, seat models and judge), never matching settings.
c. A seat model's fallbacks are judged over its cell, never by a game's own fallback share.
d. The tables an abstention can shrink say how many games it removed.

The duplicate cases play small wolfbot evals (slow); the rest are built by hand.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import shutil
from pathlib import Path
from typing import Any

import handmade as hm
import pandas as pd
import pytest
from helpers import run
from scipy import stats as sps

from wolf_eval.analysis import markdown, tables
from wolf_eval.analysis.corpus import Corpus, load
from wolf_eval.measures.features import day1_coordination, game_features, stratified_predictors
from wolf_eval.measures.outcome import Outcome
from wolf_eval.stats import stratified_permutation_p
from wolf_eval.vocabulary import Winner

# --------------------------------------------------------------------------- a. predictors


def _games(pairs: list[tuple[float, float]]) -> list[dict[str, float]]:
    return [{"jester_won": y, "jester_suspicion": x} for x, y in pairs]


#: The issue's case: 17 games in four cells, the Jester's win varying in one cell only (its 4 games).
VARYING = [(0.30, 0.0), (0.45, 0.0), (0.50, 1.0), (0.80, 1.0)]
CONSTANT = [[(0.2, 0.0), (0.4, 0.0), (0.6, 0.0), (0.9, 0.0), (0.3, 0.0)],
            [(0.7, 1.0), (0.9, 1.0), (0.8, 1.0), (0.95, 1.0)],
            [(0.1, 0.0), (0.15, 0.0), (0.2, 0.0), (0.35, 0.0)]]


def test_the_stratified_test_uses_only_the_cells_whose_outcome_varies() -> None:
    cells = [_games(VARYING), *(_games(c) for c in CONSTANT)]
    s = stratified_predictors(cells)["jester_suspicion"]
    # One varying cell: centring within it is Pearson over its 4 games, on 4 - 1 - 1 = 2 df, as scipy gives.
    expected = sps.pearsonr([x for x, _ in VARYING], [y for _, y in VARYING])
    assert (s["n"], s["varying"], s["cells"]) == (17, 4, 1)
    assert s["r"] == pytest.approx(expected.statistic) and "p" not in s  # only the permutation p is given
    # The permutation p: the 4 outcomes shuffled within their cell; exactly, over all 24 orders.
    xs, ys = [x for x, _ in VARYING], [y for _, y in VARYING]
    mx, my = sum(xs) / 4, sum(ys) / 4
    def cross(order: tuple[float, ...]) -> float:
        return abs(sum((x - mx) * (y - my) for x, y in zip(xs, order, strict=True)))
    observed = cross(tuple(ys))
    exact = sum(cross(o) >= observed - 1e-12 for o in itertools.permutations(ys)) / 24
    assert s["p_perm"] == pytest.approx(exact, abs=0.015)
    assert s["p_perm"] > expected.pvalue  # 2 of 6 distinct orders are as extreme: 1/3, where t on 2 df says less
    # Counted the old way (every game, 17 - 4 - 1 df) the same r would read as far stronger evidence.
    t_old = s["r"] * math.sqrt(12 / (1 - s["r"] ** 2))
    assert 2 * sps.t.sf(abs(t_old), 12) < expected.pvalue / 10


def test_the_permutation_p_is_seeded_and_stratified() -> None:
    strata = [VARYING, [(1.0, 0.0), (2.0, 1.0), (3.0, 1.0)], [(5.0, 1.0), (6.0, 1.0)]]
    assert stratified_permutation_p(strata) == stratified_permutation_p(strata)
    assert 0 < stratified_permutation_p(strata) <= 1
    assert math.isnan(stratified_permutation_p([[(1.0, 1.0), (2.0, 1.0)]]))  # nothing varies


def test_per_cell_predictor_rows_carry_the_permutation_p() -> None:
    from wolf_eval.measures.features import jester_win_predictors

    one = jester_win_predictors(_games(VARYING))["jester_suspicion"]
    assert one["varying"] == 4 and 0 < one["p_perm"] <= 1
    flat = jester_win_predictors(_games(CONSTANT[0]))["jester_suspicion"]
    assert flat["varying"] == 0 and math.isnan(flat["r"]) and math.isnan(flat["p_perm"])


# --------------------------------------------------------------------------- c. fallback sensitivity

CELL = {"model": "m", "task": "triadic", "condition": "default"}


def _outcome(winner: Winner, days: float = 2.0, calls: float = 10.0, fallbacks: float = 0.0) -> Outcome:
    """A game's outcome with a Jester seated: its winner, days, calls (each one decision) and fallbacks."""
    return Outcome(winner, jester_seated=True, days=days, calls=calls, decisions=calls, fallbacks=fallbacks, reasks=0.0)


def _fallback_game(flaky_calls: int, flaky_fallbacks: int, jester_won: bool, seated: bool = True) -> dict[str, Any]:
    """One game's row: 90 calls by ``good`` seats and, where ``flaky`` has a seat, its calls and fallbacks."""
    winner = Winner.JESTER if jester_won else Winner.VILLAGERS
    usage = {"good": {"calls": 90}} | ({"flaky": {"calls": flaky_calls}} if seated else {})
    return CELL | {"outcome": _outcome(winner, calls=90.0 + flaky_calls, fallbacks=float(flaky_fallbacks)),
                   "fallbacks": {("flaky", "vote"): flaky_fallbacks} if flaky_fallbacks else {},
                   "usage": usage, "seat_models": ("flaky", "good") if seated else ("good",)}


def test_a_failing_seat_model_is_judged_over_the_cell_never_by_a_games_own_fallback_share() -> None:
    # flaky (a wolf seat in every game) fell back on 8 of 10 calls in the 4 games it played; in 2 games it died
    # on night 1 and made no calls. Game by game, those 2 were at most 5%; over the cell flaky is at 0.80.
    played = [_fallback_game(10, 8, jester_won=False) for _ in range(4)]
    died = [_fallback_game(0, 0, jester_won=True) for _ in range(2)]
    games = pd.DataFrame(played + died)
    assert tables.over_limit(games) == {"flaky": pytest.approx(0.8)}  # 32 of 40 calls over the whole cell
    rates = tables.win_rates(games)
    assert len(rates) == 1 and rates["jester"].iloc[0] == pytest.approx(2 / 6)  # every game counted
    assert rates["fallback_over"].iloc[0] == "flaky 0.80"
    opening = "\n".join(markdown.opening(Corpus(games)))
    assert "- m · triadic · default: flaky 0.80" in opening
    assert "leaving out games by their own fallback share" in opening


def test_the_rates_are_each_seat_models_own_over_the_cell() -> None:
    with_flaky = [_fallback_game(10, 8, False), _fallback_game(10, 8, False), _fallback_game(0, 0, True),
                  _fallback_game(0, 0, True)]
    without = [_fallback_game(0, 0, False, seated=False), _fallback_game(0, 0, True, seated=False)]
    games = pd.DataFrame(with_flaky + without)
    assert tables.seat_fallback_rates(games) == {"flaky": pytest.approx(16 / 20), "good": 0.0}
    assert tables.fallback_flag(games) == "flaky 0.80"


# --------------------------------------------------------------------------- d. abstentions


def _abstaining_wolves() -> Any:
    """Day 1: one wolf votes for the Jester, its partner abstains, so day 1 has one wolf vote."""
    h = hm.Hand()
    h.night(1, victim="Cleo", protector="Dan", protected="Dan")
    h.bids(1, {"Ava": 0, "Ben": 0, "Dan": 0, "Eve": 0, "Fay": 0, "Ivo": 5})
    h.ballot(1, {"Ava": "Ivo", "Ben": None, "Dan": "Eve", "Eve": "Ava", "Fay": "Ivo", "Ivo": "Fay"}, "first")
    h.add("no_exile", 1, "vote", text="No strict majority.", data={"living": 6})
    h.night(2, victim="Eve", protector="Dan", protected="Dan")
    return h.end("werewolves", 2, 1, seed=5)


def test_an_abstention_that_removes_a_game_is_counted() -> None:
    assert day1_coordination(_abstaining_wolves())["d1_abstained"] == 1.0
    assert day1_coordination(hm.t4_wolves_win())["d1_abstained"] == 0.0  # both wolves voted
    rows = [CELL | {"features": game_features(g), "outcome": _outcome(Winner(g.outcome.winner))}
            for g in (_abstaining_wolves(), hm.t4_wolves_win(), hm.t1_jester_by_wolf_vote())]
    games = pd.DataFrame(rows)
    c = tables.coordination(games).iloc[0]
    assert (c["games"], c["abstained"], c["jester_games"]) == (2, 1, 2)
    p = tables.predictors(games).set_index("feature")
    assert p.loc[tables.PREDICTORS["voted_jester"], "n"] == 2  # the abstaining game lost from the n ...
    assert p.loc[tables.PREDICTORS["voted_jester"], "abstained"] == 1  # ... and said so
    assert math.isnan(p.loc[tables.PREDICTORS["jester_statements"], "abstained"])


def test_the_markdown_shows_the_abstained_columns() -> None:
    games = pd.DataFrame([CELL | {"features": game_features(_abstaining_wolves()),
                                  "outcome": _outcome(Winner.VILLAGERS)}])
    coordination = markdown._outcome_sections({"win_rates": pd.DataFrame(), "wolf_loss": pd.DataFrame(),
                                               "coordination": tables.coordination(games)}, [])
    text = "\n".join(coordination)
    assert "| Games | Abstained |" in text and "Abstained: games left out because a wolf's abstention" in text
    assert "| m | triadic | default | 0.0000 | 0 | 1 |" in text
    section = "\n".join(markdown._game_sections({"predictors": tables.predictors(games), "halves": pd.DataFrame(),
                                                  "play_quality": pd.DataFrame()}))
    assert "| Perm. p | n | Varying | Cells | Abstained |" in section


# --------------------------------------------------------------------------- b. duplicates

SHORT = {"games": 2, "max_debate_turns": 1, "max_explanation_turns": 1, "max_days": 2, "deception_analysis": False}


def _drifting_model(salt: int) -> Any:
    """A mockllm provider playing the random policy from a seed it mixes with ``salt``: the same command gives
    other replies on another run, as a real provider's sampling does."""
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from wolf_eval.baseline.bots import POLICIES
    from wolf_eval.providers.wolfbot import answer as wolfbot_answer

    def answer(input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        content = wolfbot_answer(lambda obs, seed: json.dumps(POLICIES["random"](obs, random.Random(f"{seed}:{salt}"))),
                                 input, config.seed)
        out = ModelOutput.from_content(model="drift", content=content)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/model", custom_outputs=answer, memoize=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One folder per case, each of two runs of two games."""
    base = tmp_path_factory.mktemp("same_game")
    folders = {k: base / k for k in ("seeds", "judged", "provider", "repeated", "read_twice")}
    for s in (1, 2):
        assert run("triadic", "wolfbot/cue", folders["seeds"], task_args=SHORT, seed=s).status == "success"
    assert run("triadic", "wolfbot/cue", folders["judged"], task_args=SHORT).status == "success"
    assert run("triadic", "wolfbot/cue", folders["judged"], task_args=SHORT,
               model_roles={"judge": "wolfbot/cue"}).status == "success"
    for salt in (1, 2):
        assert run("triadic", _drifting_model(salt), folders["provider"], task_args=SHORT).status == "success"
    for _ in range(2):
        assert run("triadic", "wolfbot/cue", folders["repeated"], task_args=SHORT).status == "success"
    [log] = list(folders["seeds"].glob("*.eval"))[:1]
    (folders["read_twice"] / "copy").mkdir(parents=True)
    shutil.copy(log, folders["read_twice"] / log.name)
    shutil.copy(log, folders["read_twice"] / "copy" / log.name)
    return folders


@pytest.mark.slow
def test_runs_with_another_eval_seed_are_different_games(runs: dict[str, Path]) -> None:
    corpus = load(runs["seeds"])
    assert (len(corpus.games), corpus.duplicates) == (4, [])
    assert corpus.games["repeat"].nunique() == 4


@pytest.mark.slow
def test_a_judged_rerun_of_an_unjudged_run_is_counted(runs: dict[str, Path]) -> None:
    corpus = load(runs["judged"])
    assert (len(corpus.games), corpus.duplicates) == (4, [])
    assert not tables.judge(corpus.games).empty  # the judged games are there to be read


@pytest.mark.slow
def test_a_provider_that_replies_otherwise_plays_other_games(runs: dict[str, Path]) -> None:
    corpus = load(runs["provider"])
    assert (len(corpus.games), corpus.duplicates) == (4, [])


@pytest.mark.slow
def test_an_identical_wolfbot_rerun_and_a_log_read_twice_are_set_aside(runs: dict[str, Path]) -> None:
    repeated = load(runs["repeated"])
    assert len(repeated.games) == 2 and len(repeated.duplicates) == 2
    assert all(" repeats " in d for d in repeated.duplicates)
    twice = load(runs["read_twice"])  # Inspect's readers already take one log's copies (one eval id) once
    assert len(twice.games) == 2 and twice.games["repeat"].nunique() == 2
    assert len(load(runs["repeated"], keep_duplicates=True).games) == 4
