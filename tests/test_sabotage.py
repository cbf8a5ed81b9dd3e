"""Self-sabotage flags and wolf-side categories, on games whose every move is chosen by hand."""

from __future__ import annotations

import math

import pytest
from helpers import game_scores, run

from wolf_eval.engine import Action, Decision, Role, advance, new_game, pending
from wolf_eval.measures.sabotage import CATEGORIES, FLAGS, SelfSabotage, sabotage_rates, sabotage_values
from wolf_eval.settings import rules_for


def play(variant: str, kills: list[str], ballots, max_days: int = 10):
    """Drive a game: night N kills ``kills[N-1]`` (the doctor guards itself); every ballot asks
    ``ballots(state, voter)`` for a target; nobody bids, so days go straight to the vote."""
    state = new_game(rules_for(variant, shuffle_roles=False, max_explanation_turns=1,
                                         max_days=max_days, deception_analysis=False), 0)
    while not state.over:
        decisions = []
        for r in pending(state):
            if r.action is Action.NIGHT_KILL:
                decisions.append(Decision(seat=r.seat, action=r.action, target=kills[state.day - 1]))
            elif r.action in (Action.PROTECT, Action.INVESTIGATE):
                decisions.append(Decision(seat=r.seat, action=r.action,
                                          target=r.seat if r.seat in r.options else r.options[0]))
            elif r.action is Action.BID:
                decisions.append(Decision(seat=r.seat, action=r.action, bid=0))
            elif r.action is Action.VOTE:
                decisions.append(Decision(seat=r.seat, action=r.action, target=ballots(state, r.seat)))
            else:
                decisions.append(Decision(seat=r.seat, action=r.action))
        state = advance(state, decisions)
    return state


def cast(variant: str = "triadic"):
    g = new_game(rules_for(variant, shuffle_roles=False), 0)
    role = {p.name: p.role for p in g.players}
    wolves = [n for n, r in role.items() if r is Role.WEREWOLF]
    villagers = [n for n, r in role.items() if r is Role.VILLAGER]
    jester = next((n for n, r in role.items() if r is Role.JESTER), None)
    return wolves, villagers, jester


def test_a_wolves_help_exile_the_jester_on_day_1():
    wolves, villagers, jester = cast()
    game = play("triadic", [villagers[0]], lambda s, v: jester if v != jester else wolves[0])
    v = sabotage_values(game)
    assert game.outcome.winner == "jester"
    assert (v["wolf_voted_jester_d1_first"], v["wolf_voted_jester_d1_final"], v["jester_exiled_d1"]) == (1, 1, 1)
    assert v["wolves_killed_jester"] == 0 and v["A"] == 1 and sum(v[c] for c in CATEGORIES) == 1


def test_c_the_village_exiles_the_jester_without_the_wolves():
    wolves, villagers, jester = cast()
    target = villagers[1]
    game = play("triadic", [villagers[0]],
                lambda s, v: target if v in wolves else (wolves[0] if v == jester else jester))
    v = sabotage_values(game)
    assert game.outcome.winner == "jester"  # 6 of 9 living: a strict majority without a wolf vote
    assert (v["wolf_voted_jester_d1_first"], v["wolf_voted_jester_d1_final"]) == (0, 0)
    assert v["C"] == 1 and v["A"] == 0


def test_b_wolves_kill_the_jester_then_lose():
    wolves, villagers, jester = cast()

    def ballots(state, voter):
        alive = [w for w in wolves if state.player(w).alive]
        return next((x for x in alive if x != voter), villagers[2] if voter in wolves else alive[0])

    game = play("triadic", [jester, villagers[0], villagers[1]], ballots)
    v = sabotage_values(game)
    assert game.outcome.winner == "villagers"
    assert v["wolves_killed_jester"] == 1 and v["B"] == 1
    # killed on night 1, the Jester could be neither voted for nor exiled on day 1: not applicable, not a no
    day1 = ("wolf_voted_jester_d1_first", "wolf_voted_jester_d1_final", "jester_exiled_d1")
    assert all(math.isnan(v[k]) for k in day1)


def test_d_w_and_x():
    wolves, villagers, jester = cast()
    village_wins = play("triadic", [villagers[0], villagers[1], villagers[2]],
                        lambda s, v: next(w for w in wolves if s.player(w).alive and w != v)
                        if any(s.player(w).alive and w != v for w in wolves) else villagers[3])
    assert village_wins.outcome.winner == "villagers" and sabotage_values(village_wins)["D"] == 1
    draw = play("triadic", [villagers[0]], lambda s, v: None, max_days=1)  # everyone abstains until the cap
    assert draw.outcome.winner == "draw" and sabotage_values(draw)["X"] == 1
    prey = [p for p in villagers] + [jester]
    wolves_win = play("triadic", prey, lambda s, v: None)
    assert wolves_win.outcome.winner == "werewolves"
    values = sabotage_values(wolves_win)
    assert values["W"] == 1 and values["wolves_killed_jester"] == 0


def test_without_a_jester_only_w_d_x_apply():
    wolves, villagers, _ = cast("dyadic")
    game = play("dyadic", villagers, lambda s, v: None)
    v = sabotage_values(game)
    assert all(math.isnan(v[k]) for k in (*FLAGS, "A", "B", "C"))
    assert v["W"] == 1 and v["D"] == 0 and v["X"] == 0


def test_rates_pool_over_games_where_they_apply():
    def score(**kw):
        value = {k: math.nan for k in (*FLAGS, *CATEGORIES)}
        value.update(kw)
        return SelfSabotage.from_flat(value)

    scores = [
        score(wolf_voted_jester_d1_first=1.0, A=1.0, W=0.0, D=0.0, X=0.0, B=0.0, C=0.0),
        score(wolf_voted_jester_d1_first=0.0, A=0.0, W=0.0, D=1.0, X=0.0, B=0.0, C=0.0),
        score(W=1.0, D=0.0, X=0.0),  # a game without a Jester: only W, D, X apply
    ]
    rates = sabotage_rates(scores)
    assert rates["wolf_voted_jester_d1_first"] == pytest.approx(1 / 2)
    assert rates["A"] == pytest.approx(1 / 2) and rates["D"] == pytest.approx(1 / 3)
    assert rates["W"] == pytest.approx(1 / 3) and math.isnan(rates["jester_exiled_d1"])


@pytest.mark.slow
def test_the_tasks_report_self_sabotage(tmp_path):
    log = run("triadic", "wolfbot/cue", tmp_path, task_args={"games": 2, "max_debate_turns": 3,
                                                             "deception_analysis": False})
    for sample in log.samples:
        value = game_scores(sample)["self_sabotage"]
        assert set(value) == {*FLAGS, *CATEGORIES} and sum(value[c] for c in CATEGORIES) == 1
        assert sample.scores["day1_self_sabotage"].value == pytest.approx(value["wolf_voted_jester_d1_final"],
                                                                          nan_ok=True)
    pooled = next(s for s in log.results.scores if s.name == "day1_self_sabotage").metrics["day1_self_sabotage"].value
    flags = [game_scores(s)["self_sabotage"]["wolf_voted_jester_d1_final"] for s in log.samples]
    seen = [f for f in flags if not math.isnan(f)]  # a Jester killed on night 1 leaves its game out
    assert pooled == pytest.approx(sum(seen) / len(seen) if seen else math.nan, nan_ok=True)
