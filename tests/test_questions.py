"""What two models are compared on: each question's counts for one faction's seats, worked by hand; the wolves'
evasion against the truth compared head to head, decided, planned and rated with values worked by hand; and a new
question taken up by the tables, the stopping rule and the planner with no other change."""

from __future__ import annotations

import math

import handmade as hm
import numpy as np
import pytest
from inspect_ai.util import Store

from wolf_eval.analysis import compare, plan, questions, rounds
from wolf_eval.analysis.questions import DETECTION, EVASION, QUESTIONS, SUSPICION_RANK, Question, game_counts
from wolf_eval.engine import GameState
from wolf_eval.measures import truth
from wolf_eval.store import GameRecord
from wolf_eval.vocabulary import Faction, Role


def test_each_question_counts_one_factions_seats() -> None:
    game = hm.t1_jester_by_wolf_vote()  # the Jester won; Ava and Ben are the wolves
    village = frozenset({"Cleo", "Dan", "Eve", "Fay"})
    counts = game_counts(game, Faction.VILLAGERS, village)
    # Dan's ballot rows give 8 concordant, 4 tied of 12 pairs; Eve's and Fay's 8 and 8 of 24 (test_truth's hand count)
    assert (counts["won"], counts["played"]) == (0.0, 1.0)
    assert (counts["detect_concordant"], counts["detect_ties"], counts["detect_pairs"]) == (16.0, 12.0, 36.0)
    assert DETECTION.per_game(np.array([[16.0, 12.0, 36.0]]))[0] == pytest.approx(22 / 36)
    jester = game_counts(game, Faction.JESTER, frozenset({"Ivo"}))
    assert jester["won"] == 1.0 and math.isnan(jester["detect_pairs"])  # detection is asked of the village only
    assert [q.name for q in QUESTIONS] == ["win", "detection", "evasion", "suspicion_rank"]


def _dodged(game: GameState, faction: Faction, seats: frozenset[str]) -> tuple[float, float]:
    """Ballots the non-wolves cast, and those that missed the faction's seats."""
    roles = {p.name: p.role for p in game.players}
    cast = [t for b in truth.ballots(game) for v, t in b.votes.items() if t and roles[v] is not Role.WEREWOLF]
    return (float(sum(t not in seats for t in cast)), float(len(cast)))


DODGED = Question("dodged", "ballots that missed the wolves", frozenset({Faction.WEREWOLVES}),
                  ("dodged", "ballots"), _dodged, lambda s: s[0] / s[1])


def _row_games(seat_models: dict[str, str], sample: int) -> list[dict[str, object]]:
    game = hm.t1_jester_by_wolf_vote() if sample == 1 else hm.t4_wolves_win()
    where = {"task": "triadic", "condition": "default", "seed": 0, "sample": str(sample), "epoch": 1,
             "log": f"{seat_models['Ava']}.eval"}
    return compare.game_rows(game, GameRecord(store=Store(), state=game.model_dump(mode="json"),
                                              seat_models=seat_models), where)


def test_a_new_question_is_compared_stopped_on_and_planned_with_no_other_change(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Two wolf models (a and b) against the same reference r on two deals: a question added to the registry gets
    its counts in every row, a column in the head to head, a decision in the rounds and a row in the plan."""
    everyone = (*QUESTIONS, DODGED)
    for module in (questions, compare, plan):
        monkeypatch.setattr(module, "QUESTIONS", everyone)
    seats = {"Cleo": "r", "Dan": "r", "Eve": "r", "Fay": "r", "Ivo": "r"}
    rows = compare.pd.DataFrame([row for sample in (1, 2) for wolves in ("a", "b")
                                 for row in _row_games(seats | {"Ava": wolves, "Ben": wolves}, sample)])
    mine = rows[(rows["model"] == "a") & (rows["faction"] == Faction.WEREWOLVES)]
    # t1: Dan, Eve, Fay and Ivo cast 4 ballots twice, 2 on Ava each time; t4: 4 then 3 (Fay abstains), 1 on Ava each
    assert list(mine["dodged"]) == [4.0, 5.0] and list(mine["ballots"]) == [8.0, 7.0]
    [pair] = compare.head_to_head(rows[rows["faction"] == Faction.WEREWOLVES]).to_dict("records")
    assert pair["held"] == "r" and pair["dodged_a"] == pytest.approx(9 / 15) and pair["dodged_difference"] == 0.0
    assert "| dodged A − B |" in compare.pairs_markdown(compare.head_to_head(rows))
    decided = rounds.decisions(rows, ["a", "b"], ["r"], rounds.Stopping(round_games=2, max_games=4))
    assert set(decided["question"]) == {"win", "evasion", "dodged"}  # the wolves': a and b played no village
    planned = plan.plan(rows, difference=0.1)
    assert "wolves ballots that missed the wolves" in set(planned["figure"])


# The wolves' evasion by hand. t1 (tests/test_evasion.py works it out): the villagers Eve and Fay rank the wolves
# against the others in 8 concordant, 8 tied of 24 pairs (evasion 1/2), the doctor Dan in 8 and 4 of 12 (1/6): the
# equal-weight mean is 1/3. t4 has no statement, so no suspicion beyond the 0.5 prior: at each of its two ballots
# Eve, Fay and Dan each tie both wolves with Dan, Eve, Fay and Ivo less the observer (6 ties of 6): evasion 1/2.
T1_VILLAGER, T1_DOCTOR = (8.0, 8.0, 24.0), (8.0, 4.0, 12.0)
T4_VILLAGER, T4_DOCTOR = (0.0, 24.0, 24.0), (0.0, 12.0, 12.0)


def _evasion_rows() -> compare.pd.DataFrame:
    """Wolf models a and b against the same reference r (every other seat) on two deals: a's wolves play t1 on
    deal 1 and t4 on deal 2, b's play t4 on both."""
    seats = {"Cleo": "r", "Dan": "r", "Eve": "r", "Fay": "r", "Ivo": "r"}
    played = {("a", 1): 1, ("a", 2): 4, ("b", 1): 4, ("b", 2): 4}
    rows = []
    for (wolves, deal), which in played.items():
        game = hm.t1_jester_by_wolf_vote() if which == 1 else hm.t4_wolves_win()
        where = {"task": "triadic", "condition": "default", "seed": 0, "sample": str(deal), "epoch": 1,
                 "log": f"{wolves}.eval"}
        record = GameRecord(store=Store(), state=game.model_dump(mode="json"),
                            seat_models=seats | {"Ava": wolves, "Ben": wolves})
        rows += compare.game_rows(game, record, where)
    return compare.pd.DataFrame(rows)


def test_the_wolves_evasion_counts_by_hand() -> None:
    wolves = frozenset({"Ava", "Ben"})
    for game, villager, doctor, figure in ((hm.t1_jester_by_wolf_vote(), T1_VILLAGER, T1_DOCTOR, 1 / 3),
                                           (hm.t4_wolves_win(), T4_VILLAGER, T4_DOCTOR, 1 / 2)):
        counts = game_counts(game, Faction.WEREWOLVES, wolves)
        assert tuple(counts[f"evasion_villager_{c}"] for c in ("concordant", "ties", "pairs")) == villager
        assert tuple(counts[f"evasion_doctor_{c}"] for c in ("concordant", "ties", "pairs")) == doctor
        assert counts["evasion_seer_pairs"] == 0.0  # no seer is dealt: the mean is over the roles that saw them
        row = np.array([[counts[c] for c in EVASION.columns]])
        assert EVASION.per_game(row)[0] == pytest.approx(figure)
    # the village's seats are not asked it, and the Jester's own question is its rank (t1: 1/2, tests/test_evasion)
    assert math.isnan(game_counts(hm.t1_jester_by_wolf_vote(), Faction.VILLAGERS,
                                  frozenset({"Cleo", "Dan", "Eve", "Fay"}))["evasion_villager_pairs"])
    jester = game_counts(hm.t1_jester_by_wolf_vote(), Faction.JESTER, frozenset({"Ivo"}))
    assert SUSPICION_RANK.per_game(np.array([[jester[c] for c in SUSPICION_RANK.columns]]))[0] == pytest.approx(0.5)


def test_two_wolf_models_evasion_head_to_head_decided_and_planned_by_hand() -> None:
    rows = _evasion_rows()
    [pair] = compare.head_to_head(rows[rows["faction"] == Faction.WEREWOLVES]).to_dict("records")
    # a pools t1 and t4: villagers (8, 32, 48) -> AUROC 1/2, doctor (8, 16, 24) -> 2/3; evasion (1/2 + 1/3) / 2
    assert pair["held"] == "r" and pair["evasion_a"] == pytest.approx(5 / 12) and pair["evasion_b"] == 0.5
    assert pair["evasion_difference"] == pytest.approx(-1 / 12)
    assert pair["evasion_low"] <= -1 / 12 <= pair["evasion_high"]
    assert "| evasion A − B |" in compare.pairs_markdown(compare.head_to_head(rows))
    # the stopping rule: deal 1 a's 1/3 against b's 1/2 (b ahead), deal 2 a tie; two deals decide nothing
    decided = rounds.decisions(rows, ["a", "b"], ["r"], rounds.Stopping(round_games=2, max_games=4))
    [ev] = decided[decided["question"] == "evasion"].to_dict("records")
    assert (ev["deals"], ev["mean"], ev["ahead"], ev["state"]) == (2, pytest.approx(-1 / 12), -0.5, rounds.PLAYING)
    # the wolves' evasion named primary of six questions: tested at 0.025, the wolves' win rate at 0.005
    primary = rounds.Stopping(round_games=2, max_games=4, questions=6, primary=(Faction.WEREWOLVES, "evasion"),
                              primaries=1)
    levels = rounds.decisions(rows, ["a", "b"], ["r"], primary).set_index("question")["alpha"]
    assert levels["evasion"] == pytest.approx(0.025) and levels["win"] == pytest.approx(0.005)
    # the plan: a's pseudo-values 2 (5/12) - 1/2 = 1/3 and 2 (5/12) - 1/3 = 1/2, b's 1/2 and 1/2: pooled sd
    # sqrt((2 / 144) / 2) = 1/12; two separate runs need (1.96 + 0.84)^2 * 2 / 144 / 0.1^2 = 10.9 -> 11 a side
    planned = plan.plan(rows, difference=0.1)
    ours = planned[planned["question"] == "evasion"].set_index("design")
    assert ours.loc[plan.SEPARATE, "sd"] == pytest.approx(1 / 12)
    assert ours.loc[plan.SEPARATE, "games_per_model"] == 11
    # the pilot's value: every game pooled, villagers (8, 80, 96) -> 1/2, doctor (8, 40, 48) -> 7/12: (1/2 + 5/12) / 2
    assert ours.loc[plan.SEPARATE, "value"] == pytest.approx(11 / 24)
