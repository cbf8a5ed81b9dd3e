"""What two models are compared on: each question's counts for one faction's seats, worked by hand, and a new
question (as the wolves' evasion will be) taken up by the tables, the stopping rule and the planner with no other
change."""

from __future__ import annotations

import math

import handmade as hm
import numpy as np
import pytest
from inspect_ai.util import Store

from wolf_eval.analysis import compare, plan, questions, rounds
from wolf_eval.analysis.questions import DETECTION, QUESTIONS, Question, game_counts
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
    assert [q.name for q in QUESTIONS] == ["win", "detection"]


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
    assert set(decided["question"]) == {"win", "dodged"}  # the wolves' questions: a and b played no village
    planned = plan.plan(rows, difference=0.1)
    assert "wolves ballots that missed the wolves" in set(planned["figure"])
