"""Fair comparisons: which evals a comparison plays (against reference opponents, or cross-play), the statistics
it prints, what it says is missing, and the command end to end."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from helpers import WINS_ONLY
from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log

from wolf_eval._registry import TASKS
from wolf_eval.analysis.compare import (
    Gap,
    Pairing,
    PlannedEval,
    by_model,
    comparison_tasks,
    head_to_head,
    markdown,
    missing_games,
    newcombe_paired,
    pairings,
)
from wolf_eval.cli import main
from wolf_eval.vocabulary import Faction, Role

DATA = Path(__file__).parent / "data"

ARGS = ["-T", "games=2", "-T", "max_debate_turns=2", "-T", "seed=3", "--display", "none"]


def test_crossplay_plays_every_model_in_every_faction_against_every_other_once() -> None:
    triadic = pairings(["a", "b"], "triadic")
    assert {(p.model, p.opponent, p.faction) for p in triadic} == {
        (m, o, f) for m, o in (("a", "b"), ("b", "a")) for f in ("villagers", "werewolves", "jester")}
    # with two factions "a plays the village" and "b plays the wolves" are the same games: played once
    assert [(p.model, p.opponent, p.faction) for p in pairings(["a", "b"], "wolf")] == [
        ("a", "b", "villagers"), ("b", "a", "villagers")]
    assert len(pairings(["a", "b", "c"], "triadic")) == 18
    every_role = tuple(Role)
    assert pairings(["a", "b"], "wolf")[0].model_roles(every_role) == {"villager": "a", "seer": "a", "doctor": "a"}
    with pytest.raises(ValueError, match="at least two"):
        pairings(["a"], "wolf")
    with pytest.raises(ValueError, match="named twice"):
        pairings(["a", "b", "a"], "wolf")


def test_against_references_every_model_plays_every_faction_against_the_same_opponents() -> None:
    triadic = pairings(["a", "b"], "triadic", ["r", "s"])
    assert {(p.model, p.opponent, p.faction) for p in triadic} == {
        (m, r, f) for m in "ab" for r in "rs" for f in ("villagers", "werewolves", "jester")}
    # a reference that is also compared plays one game of its own seats, not one per faction
    own = pairings(["a", "b"], "triadic", ["a"])
    assert [p.describe() for p in own] == ["a in every seat", "b as village against a", "b as wolves against a",
                                          "b as Jester against a"]
    # two factions: a as village against r and a as wolves against r are different games, both played
    assert len(pairings(["a", "b"], "wolf", ["r"])) == 4
    with pytest.raises(ValueError, match="reference opponent is named twice"):
        pairings(["a", "b"], "wolf", ["r", "r"])


def test_a_comparison_binds_only_the_roles_its_task_deals() -> None:
    """Triadic deals no Seer and the dyadic control no Jester: a binding for either would seat no one."""
    for task, village in (("triadic", {"villager", "doctor"}), ("dyadic", {"villager", "doctor"}),
                          ("wolf", {"villager", "seer", "doctor"})):
        tasks = comparison_tasks(pairings(["wolfbot/cue", "wolfbot/tom"], task), TASKS[task], task, {"games": 1})
        bound = [set(t.model_roles or {}) for t in tasks]
        assert village in bound and ({"werewolf"} in bound) == (task == "triadic")  # else B's wolves = A's village
        assert all(b <= {"villager", "seer", "doctor", "werewolf", "jester"} for b in bound)
        assert ("seer" in set().union(*bound)) == (task == "wolf"), task
        assert ("jester" in set().union(*bound)) == (task == "triadic"), task
    with pytest.raises(ValueError, match="deals no seat of the jester faction"):
        comparison_tasks(pairings(["wolfbot/cue", "wolfbot/tom"], "triadic"), TASKS["triadic"], "triadic",
                         {"games": 1, "roles": "villager:6,doctor:1,werewolf:2"})


def test_newcombe_paired_interval_matches_the_formula_worked_by_hand() -> None:
    # (both, first only, second only, neither) = (5, 3, 1, 1): p1 = 0.8, p2 = 0.6. Wilson: p1 in
    # [0.4902, 0.9433], p2 in [0.3127, 0.8318]. ad - bc = 2 > 0 but below n/2, so phi = 0 and
    # lower = 0.2 - sqrt(0.3098^2 + 0.2318^2) = -0.1870, upper = 0.2 + sqrt(0.1433^2 + 0.2873^2) = 0.5211.
    d, low, high = newcombe_paired(5, 3, 1, 1)
    assert (round(d, 4), round(low, 4), round(high, 4)) == (0.2, -0.187, 0.5211)
    # (20, 2, 8, 10): p1 = 0.55, p2 = 0.70, phi = (200 - 16 - 20) / sqrt(22 * 18 * 28 * 12) = 0.4496;
    # Wilson p1 [0.3983, 0.6929], p2 [0.5457, 0.8193]; the correlation narrows the interval to
    # lower = -0.15 - sqrt(0.1517^2 - 2 * 0.4496 * 0.1517 * 0.1193 + 0.1193^2) = -0.2948, upper = +0.0062.
    d, low, high = newcombe_paired(20, 2, 8, 10)
    assert (round(d, 4), round(low, 4), round(high, 4)) == (-0.15, -0.2948, 0.0062)
    assert all(math.isnan(v) for v in newcombe_paired(0, 0, 0, 0))
    assert newcombe_paired(10, 0, 0, 0)[0] == 0.0
    # always A: Wilson gives p1 in [10 / (10 + z^2), 1] = [0.7225, 1] and p2 in [0, 0.2775], phi = 0, so
    # lower = 1 - sqrt(0.2775^2 + 0.2775^2) = 0.6075, and the upper limit stays at 1
    assert newcombe_paired(0, 10, 0, 0)[1:] == pytest.approx((0.6075, 1.0), abs=1e-4)


def _row(model: str, opponent: str, faction: str, sample: int, won: int, **counts: float) -> dict[str, object]:
    base = {"task": "triadic", "condition": "default", "seed": 0, "sample": str(sample), "epoch": 1,
            "log": "x", "model": model, "opponent": opponent, "faction": faction, "won": float(won), "played": 1.0,
            **WINS_ONLY, "deceptive": 0, "unflagged": 0, "paired": 0, "self_deceptive": 0, "flag_share": 0.0,
            "tp": 0, "fp": 0, "fn": 0, "tn": 0, "calls": 10.0, "decisions": 10.0, "fallbacks": 0, "game_usd": 0.0}
    return base | counts


def test_tables_count_each_faction_and_pair_seatings_by_hand() -> None:
    rows = pd.DataFrame([
        # the Jester seat: a wins seatings 1 and 2, b wins 2 and 3
        _row("a", "b", "jester", 1, 1, deceptive=4, unflagged=3, calls=20.0, decisions=20.0, fallbacks=1),
        _row("a", "b", "jester", 2, 1, deceptive=2, unflagged=0, calls=20.0, decisions=20.0),
        _row("a", "b", "jester", 3, 0, paired=2, self_deceptive=1, flag_share=1.5, tp=1, fp=1, fn=0, tn=2),
        _row("b", "a", "jester", 1, 0, paired=1, self_deceptive=0, flag_share=0.0),
        _row("b", "a", "jester", 2, 1),
        _row("b", "a", "jester", 3, 1),
    ])
    table = by_model(rows).set_index("model")
    a = table.loc["a"]
    assert a["games"] == 3 and a["win"] == pytest.approx(2 / 3)
    assert (a["win_low"], a["win_high"]) == pytest.approx((0.2077, 0.9385), abs=1e-4)  # Wilson 2 of 3
    assert a["deceptive"] == 6 and a["unflagged"] == pytest.approx(0.5)  # 3 of 6 went unflagged
    assert a["f1"] == pytest.approx(2 / 3)  # tp 1, fp 1, fn 0: precision 0.5, recall 1
    assert a["gap"] == pytest.approx((1.5 - 1) / 2)  # observers 0.75 against its own 0.5
    assert a["fallback_rate"] == pytest.approx(1 / 50)
    assert math.isnan(table.loc["b", "f1"])  # no flags seen as an observer: not applicable, not zero
    [pair] = head_to_head(rows).to_dict("records")
    assert (pair["a"], pair["b"], pair["held"], pair["deals"]) == ("a", "b", "crossplay", 3)
    assert (pair["win_a"], pair["win_b"]) == pytest.approx((2 / 3, 2 / 3))
    expected = newcombe_paired(1, 1, 1, 0)  # seating 2 both, 1 a only, 3 b only
    assert (pair["win_difference"], pair["win_low"], pair["win_high"]) == pytest.approx(expected)
    assert math.isnan(pair["unflagged_difference"])  # b never declared a deceptive statement: n/a, not 0


def test_statement_rates_resample_games_not_statements() -> None:
    """Model a's unflagged share pools 3 of 4 (game 1) and 0 of 2 (game 2); game 3 has none. Resampling games, a
    draw of game 1 without game 2 (chance 0.26) gives 0.75 and one of game 2 without game 1 gives 0, so the
    interval runs from 0 to 0.75, where Wilson's over the 6 statements as if independent gives [0.19, 0.81]."""
    rows = pd.DataFrame([_row("a", "b", "jester", 1, 1, deceptive=4, unflagged=3),
                         _row("a", "b", "jester", 2, 1, deceptive=2, unflagged=0),
                         _row("a", "b", "jester", 3, 0)])
    a = by_model(rows).iloc[0]
    assert a["unflagged"] == pytest.approx(0.5) and (a["unflagged_low"], a["unflagged_high"]) == (0.0, 0.75)
    one = by_model(rows.iloc[[0, 2]]).iloc[0]
    assert one["unflagged"] == 0.75 and math.isnan(one["unflagged_low"])  # one game defines it: no interval
    assert "0.75 (1 game: no interval)" in markdown(by_model(rows.iloc[[0, 2]]), pd.DataFrame())


def test_the_head_to_head_difference_of_a_statement_rate_resamples_seatings() -> None:
    """Model a leaves 1 of 2 and 3 of 4 deceptive statements unflagged on seatings 1 and 2, b 0 of 2 on each:
    a − b is 4/6; drawing seating 1 twice gives 0.5, seating 2 twice 0.75, so those bound the interval."""
    rows = pd.DataFrame([_row("a", "b", "villagers", 1, 1, deceptive=2, unflagged=1),
                         _row("a", "b", "villagers", 2, 0, deceptive=4, unflagged=3),
                         _row("b", "a", "villagers", 1, 0, deceptive=2, unflagged=0),
                         _row("b", "a", "villagers", 2, 0, deceptive=2, unflagged=0)])
    [pair] = head_to_head(rows).to_dict("records")
    assert pair["unflagged_difference"] == pytest.approx(4 / 6)
    assert (pair["unflagged_low"], pair["unflagged_high"]) == pytest.approx((0.5, 0.75))
    text = markdown(by_model(rows), head_to_head(rows))
    assert "| +0.67 [+0.50, +0.75] |" in text and "| each other (cross-play) |" in text


def test_the_self_label_f1_is_named_agreement_with_the_speakers_label_not_detection() -> None:
    """Issue 26 point 1: a flag scored against the speaker's own label measures agreement with the speaker, so
    the comparison names it for that and never "detection" (the truth's figures are the report's and rate's)."""
    rows = pd.DataFrame([_row("a", "b", "villagers", 1, 1), _row("b", "a", "villagers", 1, 0)])
    text = markdown(by_model(rows), head_to_head(rows))
    assert "detection F1" not in text and "| self-label F1 |" in text and "| self-label F1 A − B |" in text
    assert "agreement with a label the speaker chose, not with the truth" in text


def test_missing_games_names_each_unfinished_game_and_each_eval_never_started(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A two-game log of which one game finished, and a planned eval with no log at all."""
    import shutil

    log = tmp_path / "release.eval"
    shutil.copy(DATA / "release-0.1.0-triadic.eval", log)
    finished = pd.DataFrame([{"log": str(log), "sample": "1", "epoch": 1}])
    never = PlannedEval(Pairing("x", "y", Faction.JESTER), 7, (("jester", "x"),), 5)
    gaps = missing_games([str(log)], finished, [never])
    assert gaps == [Gap("wolfbot/cue in every seat (seed 1)", 1, 2, ("2",)),
                    Gap("x as Jester against y (seed 7)", 5, 5)]
    assert [str(g) for g in gaps] == ["wolfbot/cue in every seat (seed 1): 1 of 2 games not finished (game 2)",
                                      "x as Jester against y (seed 7): not started (5 games)"]
    both = pd.DataFrame([{"log": str(log), "sample": s, "epoch": 1} for s in ("1", "2")])
    assert missing_games([str(log)], both) == []


def _drop_game(log: str, sample: int) -> None:
    """Make a finished log look interrupted: one game gone, the eval cancelled (as Ctrl-C leaves it)."""
    whole = read_eval_log(log)
    whole.samples = [s for s in whole.samples or [] if s.id != sample]
    whole.status = "cancelled"
    write_eval_log(whole, log)


@pytest.mark.slow
def test_compare_against_a_reference_names_what_is_missing_exits_1_and_resumes(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The faction bot's wolves play tom's policy, so against the same opponents their games are tom's wolves' games
    and the difference is 0 with an interval about it. An interrupted comparison used to exit 0 with tables from the
    games it had; it exits 1, names each missing game and writes no tables, and the same command finishes it."""
    folder = tmp_path / "cmp"
    command = ["compare", "wolfbot/faction", "wolfbot/tom", "--against", "wolfbot/cue", "--task", "wolf",
               "--log-dir", str(folder), *ARGS, "-T", "deception_analysis=false"]
    assert main(command) == 0
    logs = [read_eval_log(i.name, header_only=True) for i in list_eval_logs(str(folder))]
    assert sorted((log.eval.model, tuple(sorted((r, m.model) for r, m in (log.eval.model_roles or {}).items())))
                  for log in logs) == sorted(
        ("wolfbot/cue", tuple((r, m) for r in roles)) for m in ("wolfbot/faction", "wolfbot/tom")
        for roles in (("doctor", "seer", "villager"), ("werewolf",)))
    text = (folder / "compare" / "compare.md").read_text()
    assert text in capsys.readouterr().out
    wolves = next(line for line in text.splitlines() if line.startswith("| wolf | wolves | wolfbot/faction |"))
    assert "| against wolfbot/cue | 2 |" in wolves and "| +0.00 [-" in wolves
    village = next(log for log in logs if log.eval.model_roles and "villager" in log.eval.model_roles
                   and log.eval.model_roles["villager"].model == "wolfbot/faction")
    _drop_game(village.location, 2)
    assert main(["compare", "--tables-only", "--log-dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "missing: wolfbot/faction as village against wolfbot/cue (seed 3): 1 of 2 games not finished (game 2)" in err
    assert "not complete: 1 game missing in 1 eval (listed above); no tables written" in err
    assert main(command) == 0  # the same command plays the missing game only, and the tables are as before
    assert (folder / "compare" / "compare.md").read_text() == text
    assert len(list_eval_logs(str(folder))) == 4


def test_compare_refuses_what_it_cannot_compare(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["compare", "wolfbot/cue", "--task", "wolf", "--log-dir", str(tmp_path / "one"), *ARGS]) == 2
    assert "at least two different models" in capsys.readouterr().err
    assert main(["compare", "wolfbot/cue", "wolfbot/tom", "--alpha", "0.01", "--log-dir", str(tmp_path / "x")]) == 2
    assert "--alpha only goes with --sequential" in capsys.readouterr().err
    assert main(["compare", "wolfbot/cue", "wolfbot/tom", "--sequential", "--max-usd", "5",
                 "--log-dir", str(tmp_path / "x")]) == 2
    assert "--max-usd: no model of the comparison has a known price" in capsys.readouterr().err
    assert main(["compare", "wolfbot/cue", "wolfbot/tom", "--sequential", "-T", "games=10", "--max-games", "5",
                 "--log-dir", str(tmp_path / "x")]) == 2
    assert "the cap of 5 games is below one round of 10" in capsys.readouterr().err
    assert main(["compare", "wolfbot/cue", "wolfbot/tom", "--per-question", "--difference", "0.2",
                 "--log-dir", str(tmp_path / "x")]) == 2
    assert "--difference, --per-question only go with --sequential" in capsys.readouterr().err
    assert main(["compare", "wolfbot/cue", "wolfbot/tom", "--sequential", "--design", "anytime", "--power", "0.9",
                 "--log-dir", str(tmp_path / "x")]) == 2
    assert "plan the group design's cap and bounds; the anytime design needs none" in capsys.readouterr().err
    assert main(["compare", "wolfbot/cue", "wolfbot/tom", "--sequential", "--power", "1.5",
                 "--log-dir", str(tmp_path / "x")]) == 2
    assert "--power 1.5: each lies strictly between 0 and 1" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    assert main(["compare", "--tables-only", "--log-dir", str(tmp_path / "none")]) == 2
    (tmp_path / "empty").mkdir()
    assert main(["compare", "--tables-only", "--log-dir", str(tmp_path / "empty")]) == 1
    assert "no finished game with one model per faction" in capsys.readouterr().err
    assert not (tmp_path / "empty" / "compare").exists()


def test_compare_in_rounds_shares_its_error_rate_and_plans_its_cap() -> None:
    """A pair on triadic asks six questions, each at 0.05 / 6; the cap is the group design's for 0.50 against 0.60
    at that level (594 games for the fixed design; the default spending, Hwang-Shih-DeCani's at gamma -2, with the
    default futility bound needs 1.20 times that in rounds of 10: 720; without the bound 1.10 times, 660; Pocock-like
    spending with the bound 800); three models ask 18."""
    from argparse import Namespace

    from wolf_eval.cli import _stopping

    args = Namespace(sequential=True, design=None, spending=None, futility=None, primary=None, alpha=None,
                     difference=None, power=None, max_games=None, max_usd=None, per_question=False, models=["a", "b"],
                     task="triadic")
    stopping = _stopping(args, {"games": 10}, ["wolfbot/tom"])
    assert (stopping.questions, stopping.max_games, stopping.design) == (6, 720, "group")
    assert stopping.futile is not None and stopping.futile.beta == pytest.approx(0.20)
    assert (stopping.futile.difference, stopping.futile.spending) == (0.10, "hsd:0")
    assert "stopping a question as smaller than planned" in stopping.procedure
    unbounded = _stopping(Namespace(**{**vars(args), "futility": "none"}), {"games": 10}, ["wolfbot/tom"])
    assert unbounded.futile is None and unbounded.max_games == 660
    with pytest.raises(ValueError, match="futility 'steep': one of"):
        _stopping(Namespace(**{**vars(args), "futility": "steep"}), {"games": 10}, ["r"])
    with pytest.raises(ValueError, match="the anytime design needs none"):
        _stopping(Namespace(**{**vars(args), "design": "anytime", "futility": "none"}), {"games": 10}, ["r"])
    assert stopping.question_alpha == pytest.approx(0.05 / 6)
    three = _stopping(Namespace(**{**vars(args), "models": ["a", "b", "c"], "difference": 0.2}), {"games": 10},
                      ["wolfbot/tom"])
    assert three.questions == 18 and three.max_games < 720  # a larger difference needs fewer games
    alone = _stopping(Namespace(**{**vars(args), "per_question": True}), {"games": 10}, ["wolfbot/tom"])
    assert alone.question_alpha == 0.05 and alone.max_games == 470
    pocock = _stopping(Namespace(**{**vars(args), "spending": "pocock"}), {"games": 10}, ["wolfbot/tom"])
    assert (pocock.spending, pocock.max_games) == ("pocock", 800) and "pocock error spending" in pocock.procedure
    with pytest.raises(ValueError, match="the anytime design needs none"):
        _stopping(Namespace(**{**vars(args), "design": "anytime", "spending": "pocock"}), {"games": 10}, ["r"])
    with pytest.raises(ValueError, match="only goes with --sequential"):
        _stopping(Namespace(**{**vars(args), "sequential": False, "spending": "pocock"}), {"games": 10}, ["r"])
    with pytest.raises(ValueError, match="hsd:GAMMA"):
        _stopping(Namespace(**{**vars(args), "spending": "hsd:steep"}), {"games": 10}, ["r"])
    # the wolves' evasion named primary: 0.025 for it, 0.005 for each other question, whose level plans the cap
    primary = _stopping(Namespace(**{**vars(args), "primary": "wolves:evasion"}), {"games": 10}, ["wolfbot/tom"])
    assert primary.level(*primary.primary) == pytest.approx(0.025) and primary.question_alpha == pytest.approx(0.005)
    assert primary.max_games > 720
    with pytest.raises(ValueError, match="--per-question tests each"):
        _stopping(Namespace(**{**vars(args), "primary": "evasion", "per_question": True}), {"games": 10}, ["r"])
