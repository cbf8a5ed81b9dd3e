"""Ratings across models: the fit against a hand computation, identification, simulated tournaments with
known strengths (order and interval coverage), the leaderboard in the report, and the command's refusals."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from wolf_eval.analysis import rating as R
from wolf_eval.analysis import report as report_
from wolf_eval.analysis.report import write_report
from wolf_eval.cli import main

DATA = Path(__file__).parent / "data"
VILLAGE, WOLVES, JESTER = (str(f) for f in R.FACTIONS)


def _games(seating: dict[str, str], winner: str, n: int, setting: str = "wolf · default") -> list[R.GameRow]:
    return [(setting, {f: {m: 1} for f, m in seating.items()}, winner)] * n


def test_overall_rating_is_the_log_odds_computed_by_hand() -> None:
    # A's village beats B's wolves 300 of 400; B's village beats A's wolves 100 of 400. Village's
    # log-odds: a + (tA - tB) = logit(0.75) and a + (tB - tA) = logit(0.25), so tA - tB = logit(0.75)
    # and, anchored at the mean, A = +logit(0.75)/2 and B = -logit(0.75)/2 (the prior moves it < 0.005).
    rows = (_games({VILLAGE: "A", WOLVES: "B"}, VILLAGE, 300) + _games({VILLAGE: "A", WOLVES: "B"}, WOLVES, 100)
            + _games({VILLAGE: "B", WOLVES: "A"}, VILLAGE, 100) + _games({VILLAGE: "B", WOLVES: "A"}, WOLVES, 300)
            + _games({VILLAGE: "A", WOLVES: "B"}, "draw", 7))
    games, draws = R.games_of(rows)
    assert draws == 7 and len(games.winner) == 800
    overall = R.rating(games, None, draws=50, seed=0, anchor=None)
    half = math.log(3) / 2
    assert overall.value == pytest.approx([half, -half], abs=0.005)
    assert overall.low[0] < half < overall.high[0] and overall.high[1] < 0 < overall.low[0]
    anchored = R.rating(games, None, draws=50, seed=0, anchor=1)
    assert anchored.value == pytest.approx([2 * half, 0.0], abs=0.01)


def test_mixed_seats_give_a_faction_the_seat_weighted_mean_of_its_models() -> None:
    # Mixed seats (--model-role): B's village against A's wolves wins 100 of 400, so a + (tB - tA) = logit(0.25);
    # a village of 3 A and 3 B seats against B's wolves wins 300 of 400, its strength the seats' mean, so
    # a + (tA + tB) / 2 - tB = logit(0.75). Hence tA - tB = (2/3)(logit(0.75) - logit(0.25)) = (4/3) log 3.
    rows = (_games({VILLAGE: "B", WOLVES: "A"}, VILLAGE, 100) + _games({VILLAGE: "B", WOLVES: "A"}, WOLVES, 300)
            + [("wolf · default", {VILLAGE: {"A": 3, "B": 3}, WOLVES: {"B": 2}}, VILLAGE)] * 300
            + [("wolf · default", {VILLAGE: {"A": 3, "B": 3}, WOLVES: {"B": 2}}, WOLVES)] * 100)
    games, _ = R.games_of(rows)
    assert games.shares[-1].tolist() == [[0.5, 0.5], [0.0, 1.0], [0.0, 0.0]]  # village half A; wolves all B
    overall = R.rating(games, None, draws=20, seed=0, anchor=None)
    d = 4 / 3 * math.log(3)
    assert overall.value == pytest.approx([d / 2, -d / 2], abs=0.01)


def test_a_faction_rating_needs_games_that_tell_it_apart_from_the_other_faction() -> None:
    # A and B in each other's seats on wolf: A's village win and B's wolves loss are the same event,
    # so only the overall difference is identified; each model's self-play tells its factions apart.
    crossed = (_games({VILLAGE: "A", WOLVES: "B"}, VILLAGE, 6) + _games({VILLAGE: "A", WOLVES: "B"}, WOLVES, 4)
               + _games({VILLAGE: "B", WOLVES: "A"}, VILLAGE, 3) + _games({VILLAGE: "B", WOLVES: "A"}, WOLVES, 7))
    games, _ = R.games_of(crossed)
    for k in (0, 1):
        assert np.isnan(R.rating(games, k, draws=20, seed=0, anchor=None).value).all()
    assert not np.isnan(R.rating(games, None, draws=20, seed=0, anchor=None).value).any()
    selfplay = _games({VILLAGE: "A", WOLVES: "A"}, VILLAGE, 5) + _games({VILLAGE: "B", WOLVES: "B"}, WOLVES, 5)
    games, _ = R.games_of(crossed + selfplay + _games({VILLAGE: "A", WOLVES: "A"}, WOLVES, 5)
                          + _games({VILLAGE: "B", WOLVES: "B"}, VILLAGE, 5))
    for k in (0, 1):
        assert not np.isnan(R.rating(games, k, draws=20, seed=0, anchor=None).value).any()


def test_a_model_linked_to_no_other_in_a_faction_is_not_identified_there() -> None:
    # C plays the Jester only among its own seats (self-play): nothing sets its Jester against A's or B's
    rows = []
    for a, b in (("A", "B"), ("B", "A")):
        rows += _games({VILLAGE: a, WOLVES: b, JESTER: b}, VILLAGE, 3, "triadic · default")
        rows += _games({VILLAGE: b, WOLVES: b, JESTER: a}, JESTER, 1, "triadic · default")
        rows += _games({VILLAGE: b, WOLVES: b, JESTER: a}, WOLVES, 2, "triadic · default")
    rows += _games({VILLAGE: "C", WOLVES: "C", JESTER: "C"}, JESTER, 2, "triadic · default")
    rows += _games({VILLAGE: "C", WOLVES: "C", JESTER: "C"}, VILLAGE, 2, "triadic · default")
    games, _ = R.games_of(rows)
    jester = R.rating(games, 2, draws=20, seed=0, anchor=None)
    assert games.models == ("A", "B", "C")
    assert not np.isnan(jester.value[:2]).any() and np.isnan(jester.value[2])
    assert jester.value[0] == pytest.approx(-jester.value[1])


def _tournament_ratings(seed: int, models: int, games: int, spread: float, draws: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    truth = rng.normal(0.0, spread, size=(models, 3))
    played, _ = R.games_of(R.simulated_games(rng, truth, (0.0, -0.3, -1.0), games))
    return [(R.rating(played, k, draws, seed, None), truth[:, k] - truth[:, k].mean()) for k in range(3)]


def test_a_large_simulated_tournament_recovers_every_faction_order() -> None:
    for rated, true in _tournament_ratings(seed=5, models=4, games=150, spread=0.8, draws=1):
        assert list(np.argsort(rated.value)) == list(np.argsort(true))
        assert rated.value == pytest.approx(true, abs=0.25)


def test_printed_intervals_cover_the_truth_and_prior_held_ratings_print_none() -> None:
    """At one game a seating many ratings rest on the prior alone (a village that lost all its games): they print
    no interval, and the intervals printed cover the true strengths near their nominal rate (the benchmark's
    larger run, at 1, 5 and 10 games a seating, is in the docs)."""
    covered: list[bool] = []
    held = 0
    for seed in range(10):
        for games in (1, 4):
            for rated, true in _tournament_ratings(seed, models=3, games=games, spread=0.7, draws=100):
                shown = ~np.isnan(rated.value)
                covered += list(((rated.low <= true) & (true <= rated.high))[shown])
                held += int(rated.same_result.sum())
                assert (np.isnan(rated.low) == ~shown).all()
    assert held >= 10 and len(covered) >= 100
    assert float(np.mean(covered)) >= 0.87, np.mean(covered)  # nominal 0.95


def test_a_model_that_won_every_game_is_bounded_from_below_only_and_not_rated() -> None:
    # A's village beat B's wolves 6 of 6 and A's wolves beat B's village 6 of 6: raising A over B never lowers
    # the likelihood, so the games bound A's overall rating from below only, and B's from above only
    rows = _games({VILLAGE: "A", WOLVES: "B"}, VILLAGE, 6) + _games({VILLAGE: "B", WOLVES: "A"}, WOLVES, 6)
    games, _ = R.games_of(rows)
    d = R.design(games, by_faction=False)
    a_over_b = np.zeros(d.x.shape[2])
    a_over_b[R.strength(d, 0, 0, 2)], a_over_b[R.strength(d, 1, 0, 2)] = 1.0, -1.0
    assert R.unbounded(R._winner_margins(d), a_over_b) == (True, False)
    overall = R.rating(games, None, draws=20, seed=0, anchor=None)
    assert np.isnan(overall.value).all() and list(overall.open_above) == [True, False]
    assert list(overall.open_below) == [False, True]
    # a game the other way in one seating is not enough (the village's advantage takes it up: lower it and raise
    # A and that seating keeps its odds while the other's only improve); one in each bounds it on both sides
    games, _ = R.games_of(rows + _games({VILLAGE: "A", WOLVES: "B"}, WOLVES, 1))
    assert np.isnan(R.rating(games, None, draws=20, seed=0, anchor=None).value).all()
    games, _ = R.games_of(rows + _games({VILLAGE: "A", WOLVES: "B"}, WOLVES, 1)
                          + _games({VILLAGE: "B", WOLVES: "A"}, VILLAGE, 1))
    assert not np.isnan(R.rating(games, None, draws=20, seed=0, anchor=None).value).any()


def test_an_unrated_model_gets_a_line_saying_which_games_would_rate_it() -> None:
    """The games above: A's seats won all 12 (its rating is bounded from below only, B's from above only), so a
    line asks for A against opponents stronger than B, and B against weaker ones; C, seen only in self-play,
    is linked to no one, so its line asks for the games a rated model played."""
    import pandas as pd

    rows = _games({VILLAGE: "A", WOLVES: "B"}, VILLAGE, 6) + _games({VILLAGE: "B", WOLVES: "A"}, WOLVES, 6)
    rows += _games({VILLAGE: "C", WOLVES: "C"}, VILLAGE, 2) + _games({VILLAGE: "C", WOLVES: "C"}, WOLVES, 2)
    games, _ = R.games_of(rows)
    assert R.opponents(games, "A", 0) == ["B"] and R.opponents(games, "C", None) == []
    overall = R.rating(games, None, draws=20, seed=0, anchor=None)
    board = pd.DataFrame({"model": games.models})
    for label in R.RATINGS[:-1]:
        board[label], board[f"{label}_games"], board[f"{label}_same"] = math.nan, 0, False
        board[f"{label}_open_above"] = board[f"{label}_open_below"] = False
    board["overall"], board["overall_games"], board["overall_same"] = overall.value, overall.seated, \
        overall.same_result
    board["overall_open_above"], board["overall_open_below"] = overall.open_above, overall.open_below
    board.loc[board["model"] == "B", "overall"] = 0.0  # as if B were rated, to link C to B's games
    notes = R._unrated(board, games)
    assert notes == [
        "overall: not identified for C (no games link its seats there to the rated models): play C in any faction "
        "against A, as B played",
        "overall: not identified for A: its games bound the rating from below only (higher values fit its games as "
        "well), so only the prior would give it a value: play A in any faction against opponents that beat its "
        "seats some of the time (stronger than B)"], notes


def test_a_rejected_fit_names_the_seatings_it_misses_most() -> None:
    """The cycle below is symmetric, so the fit gives every seating the village at 1/2 and each seating's share of
    G² is 2 (90 ln(90/50) + 10 ln(10/50)) = 73.6, a sixth of the whole; three are named."""
    cycle = []
    for (v, w), rate in {("A", "B"): 90, ("B", "C"): 90, ("C", "A"): 90, ("B", "A"): 10, ("C", "B"): 10,
                         ("A", "C"): 10}.items():
        cycle += _games({VILLAGE: v, WOLVES: w}, VILLAGE, rate) + _games({VILLAGE: v, WOLVES: w}, WOLVES, 100 - rate)
    bad = R.column_fit(R.games_of(cycle)[0], by_faction=False, simulations=50)
    part = 2 * (90 * math.log(90 / 50) + 10 * math.log(10 / 50))
    assert bad.g2 == pytest.approx(6 * part, rel=1e-3) and len(bad.misfits) == 3
    rates = {("A", "B"): 90, ("B", "C"): 90, ("C", "A"): 90, ("B", "A"): 10, ("C", "B"): 10, ("A", "C"): 10}
    shown = {f"village {v} · wolves {w} at wolf · default: won village {r} (fit 50.0), wolves {100 - r} (fit 50.0) "
             f"of 100, G² {part:.1f}" for (v, w), r in rates.items()}
    assert len(set(bad.misfits)) == 3 and set(bad.misfits) <= shown, bad.misfits
    assert sum("misses most: village " in n for n in R._fit_notes({"overall": bad})) == 3


def test_the_fit_of_a_cycle_no_strength_explains_is_rejected_and_its_intervals_widened() -> None:
    """Rock, paper, scissors: A's village beats B's wolves, B's beats C's and C's beats A's (90 of 100 each), and
    each reversed seating goes the other way (10 of 100). One strength per model and faction cannot put A over B
    over C over A, so G² is large; the same 600 games drawn from the fit itself fit."""
    cycle = []
    for (v, w), rate in {("A", "B"): 90, ("B", "C"): 90, ("C", "A"): 90, ("B", "A"): 10, ("C", "B"): 10,
                         ("A", "C"): 10}.items():
        cycle += _games({VILLAGE: v, WOLVES: w}, VILLAGE, rate) + _games({VILLAGE: v, WOLVES: w}, WOLVES, 100 - rate)
    games, _ = R.games_of(cycle)
    bad = R.column_fit(games, by_faction=False, simulations=50)
    assert bad.seatings == 6 and bad.df == 6 - 3 and bad.g2 > 100  # 6 seatings; an advantage and 2 differences
    assert not bad.fits and bad.p == pytest.approx(1 / 51) and bad.scale > 10
    plain = R.rating(games, None, draws=20, seed=0, anchor=None)
    widened = R.rating(games, None, draws=20, seed=0, anchor=None, checked=bad)
    assert (widened.high - widened.low) == pytest.approx(math.sqrt(bad.scale) * (plain.high - plain.low))
    rng = np.random.default_rng(3)
    d = R.design(games, by_faction=False)
    p = R._probabilities(d, R.fit(d))
    drawn = (rng.random(len(p))[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    honest = R.games_of([(s, seats, str(R.FACTIONS[k])) for (s, seats, _), k in zip(cycle, drawn, strict=True)])[0]
    assert R.column_fit(honest, by_faction=False, simulations=50).fits


def test_one_model_or_no_games_is_nothing_to_rate() -> None:
    import pandas as pd

    with pytest.raises(R.NothingToRate, match="seat 0 models"):
        R.leaderboard(pd.DataFrame())
    frame = pd.DataFrame([{"task": "wolf", "condition": "default", "outcome": {VILLAGE: 1.0},
                           "factions": {VILLAGE: {"m": 4}, WOLVES: {"m": 2}}}])
    with pytest.raises(R.NothingToRate, match=r"seat 1 model \(m\): a rating compares models"):
        R.leaderboard(frame)


def test_rate_refuses_with_one_line_and_exit_1(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["rate"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no logs named" in err
    (tmp_path / "empty").mkdir()
    assert main(["rate", str(tmp_path / "empty")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing to rate (no Inspect logs found" in err
    assert main(["rate", str(DATA / "release-0.1.0-triadic.eval")]) == 1
    assert capsys.readouterr().err == ("wolf-eval: rate: 2 games with a winner seat 1 model (wolfbot/cue): a rating "
                                       "compares models, so there is nothing to rate\n")


@pytest.mark.slow
def test_rate_and_report_on_a_crossplay_of_two_baselines(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "cmp"
    assert main(["compare", "wolfbot/cue", "wolfbot/tom", "--crossplay", "--task", "wolf", "--log-dir", str(folder),
                 "-T", "games=3", "-T", "max_debate_turns=2", "-T", "deception_analysis=false",
                 "-T", "seed=3", "--display", "none"]) == 0
    capsys.readouterr()
    assert main(["rate", str(folder), "--draws", "50", "--out", str(tmp_path / "rated")]) == 0
    out = capsys.readouterr().out
    # two models in each other's seats on wolf: only the overall difference is identified
    rows = [line for line in out.splitlines() if line.startswith("| wolfbot/")]
    assert len(rows) == 2 and all(row.count("not identified (n=3)") == 2 for row in rows)
    assert "2 models rated from" in out and (tmp_path / "rated" / "leaderboard.md").is_file()
    assert main(["rate", str(folder), "--draws", "50"]) == 0  # seeded: the same intervals again
    assert capsys.readouterr().out.splitlines()[:-1] == out.splitlines()[:-1]
    _, _, report = write_report(folder, tmp_path / "report", rating_draws=50)
    text = report.read_text()
    assert "## Ratings across models" in text and "| wolfbot/cue | 6 |" in text
    assert "No cost-against-rating figure" in text  # wolfbot has no price: its cost is unknown, not free
    assert "## The comparison" not in text  # each cell seats both models: no two differ in one faction alone
    assert "## Learning curve" not in text and "## Judge" not in text  # no learning, no judge: no section
    assert not list((tmp_path / "report").glob("cell-*.md")) and text.count("\n") <= report_.REPORT_LINES


@pytest.mark.slow
def test_a_report_past_its_line_limit_puts_each_cells_detail_in_a_linked_file(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "cmp"
    assert main(["compare", "wolfbot/cue", "wolfbot/tom", "--task", "wolf", "--against", "wolfbot/random",
                 "--log-dir", str(folder), "-T", "games=2", "-T", "max_debate_turns=1",
                 "-T", "deception_analysis=false", "--display", "none"]) == 0
    monkeypatch.setattr(report_, "REPORT_LINES", 40)
    _, _, report = write_report(folder, tmp_path / "report", rating_draws=10)
    text = report.read_text()
    files = sorted((tmp_path / "report").glob("cell-*.md"))
    assert len(files) == text.count("](cell-") >= 2, text
    assert "## Win rates" not in text and "## The answer" in text and "## Ratings across models" in text
    for f in files:
        cell = f.read_text().splitlines()[0].removeprefix("# ")
        rows = [line for line in f.read_text().splitlines() if line.startswith("| wolfbot/")]
        assert rows and all(line.startswith(f"| {cell.split(' · ')[0]} |") for line in rows), f.name


def test_the_leaderboard_shows_what_is_rated_not_identified_or_never_seated(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    from wolf_eval.analysis.figures import cost_rating
    from wolf_eval.analysis.markdown import ratings_markdown

    row = {"model": "a", "games": 5}
    for label, (value, seated, same) in zip(R.RATINGS, ((0.5, 5, False), (math.nan, 3, False), (math.nan, 0, False),
                                                        (-1.25, 5, True)), strict=True):
        row |= {label: value, f"{label}_low": value - 1, f"{label}_high": value + 1, f"{label}_games": seated,
                f"{label}_same": same}
    row |= dict.fromkeys(R.TRUTH_FIGURES, 0.75) | {f"{k}_low": 0.5 for k in R.TRUTH_FIGURES} \
        | {f"{k}_high": 0.9 for k in R.TRUTH_FIGURES} | {"usd_per_game": 0.0123} \
        | {"evasion": 0.4, "evasion_low": 0.3, "evasion_high": 0.55, "suspicion_rank": 0.6,
           "suspicion_rank_low": math.nan, "suspicion_rank_high": math.nan}
    board = pd.DataFrame([row, row | {"model": "b", "usd_per_game": math.nan}])
    text = "\n".join(ratings_markdown(R.Leaderboard(board, 9, 1, 0, None, 100), figure=cost_rating(board, tmp_path)))
    assert ("| a | 5 | +0.50 [-0.50, +1.50] (n=5) | not identified (n=3) | – | -1.25 [-2.25, -0.25]† (n=5) "
            "| 0.75 [0.50, 0.90] | 0.75 [0.50, 0.90] | 0.75 [0.50, 0.90] | 0.75 [0.50, 0.90] "
            "| 0.40 [0.30, 0.55] | 0.60 (1 game: no interval) | 0.0123 |") in text
    assert "| b | 5 |" in text and text.count("n/a |") == 1  # b's price is unknown, not free
    assert "9 games with a winner are fitted; 1 draw (no faction won) left out" in text
    assert (tmp_path / "cost_rating.png").stat().st_size > 0 and "![cost against overall rating]" in text


def test_the_leaderboards_detection_figures_resample_the_games_a_model_observed_in() -> None:
    """Issue 26 point 3: a's ballots fell on wolves 2 of 2 in one game and 0 of 2 in the other. Resampling games,
    a draw of the first twice gives 1 and of the second twice 0, so the interval runs from 0 to 1, where Wilson's
    over the 4 votes as if independent gives [0.15, 0.85]; b observed in one game only, so it has no interval."""
    import pandas as pd

    from wolf_eval.analysis.markdown import _truth_cell
    from wolf_eval.measures import truth
    from wolf_eval.measures.deception import GameDeception

    def seen(**models: tuple[float, float]) -> truth.GameDetection:
        return truth.GameDetection({}, {m: truth.Detection(votes=truth.VoteCounts(v, w, 0.0, v - w))
                                        for m, (v, w) in models.items()})

    frame = pd.DataFrame({"truth": [seen(a=(2, 2), b=(1, 1)), seen(a=(2, 0))], "usage": [{}, {}],
                          "deception": [GameDeception(), GameDeception()]})
    board = R._per_model(frame, ["a", "b"])
    a, b = board.loc["a"], board.loc["b"]
    assert (a["vote_wolves"], a["vote_wolves_low"], a["vote_wolves_high"]) == (0.5, 0.0, 1.0)
    assert b["vote_wolves"] == 1.0 and math.isnan(b["vote_wolves_low"])
    assert math.isnan(a["auroc_wolves"]) and math.isnan(a["auroc_wolves_low"])  # no suspicion rows: none
    assert _truth_cell(a.to_dict(), "vote_wolves") == "0.50 [0.00, 1.00]"
    assert _truth_cell(b.to_dict(), "vote_wolves") == "1.00 (1 game: no interval)"
    assert _truth_cell(a.to_dict(), "auroc_wolves") == "–"


def test_the_leaderboard_shows_each_models_deception_against_the_truth() -> None:
    """Model a's wolves (Ava, Ben) in t1 and t4, fool's Jester (Ivo) in both, everyone else town. a's evasion pools
    each observer role's pairs over both games (tests/test_questions.py works them): villagers 1/2, doctor 1/3,
    equal weight 5/12. fool's rank: t1's villagers 1/2, wolves 1, doctor 0 (tests/test_evasion.py), t4's every
    row a tie, so pooled the villagers (8, 16, 32) 1/2, the wolves (12, 12, 24) 3/4, the doctor (0, 8, 16) 1/4:
    the mean 1/2. town never played a wolf nor the Jester."""
    import handmade as hm

    from wolf_eval.measures import deception as dec

    models = {"Ava": "a", "Ben": "a", "Cleo": "town", "Dan": "town", "Eve": "town", "Fay": "town", "Ivo": "fool"}
    games = [dec.game_deception(g, models) for g in (hm.t1_jester_by_wolf_vote(), hm.t4_wolves_win())]
    a, fool, town = (R.deceived(games, m) for m in ("a", "fool", "town"))
    assert a["evasion"] == pytest.approx(5 / 12) and a["evasion_low"] <= 5 / 12 <= a["evasion_high"]
    assert math.isnan(a["suspicion_rank"]) and fool["suspicion_rank"] == pytest.approx(0.5)
    assert all(math.isnan(v) for v in town.values())
    one = R.deceived(games[:1], "a")  # one game: its figure, no interval
    assert one["evasion"] == pytest.approx(1 / 3) and math.isnan(one["evasion_low"])
