"""The ``faction`` village: legal on every decision it meets, and the village that beats the Jester.

Games here are driven straight through the engine with the per-call seeds the solver uses, so they
are the games ``inspect eval`` plays, at a fraction of the cost; one game goes through Inspect to
show the ``wolfbot/faction`` model and the role bindings work end to end.
"""

from __future__ import annotations

import json
from collections import Counter
from random import Random

import pytest
from helpers import run

from wolf_eval.agents.call import call_seed
from wolf_eval.agents.observation import RecordViews, observe
from wolf_eval.agents.seat_call import decisions_from_reply
from wolf_eval.baseline.bots import POLICIES
from wolf_eval.engine import Action, GameState, Role, advance, new_game, pending
from wolf_eval.engine.roles import FACTION_OF, Faction
from wolf_eval.settings import Settings
from wolf_eval.solvers.play import game_seed

VILLAGE = (Role.VILLAGER, Role.DOCTOR, Role.SEER)


def play(variant: str, game: int, village: str, others: str = "tom", **task_args: object
         ) -> tuple[GameState, list[tuple[Role, Action, bool]]]:
    """One game as the solver plays it: village seats on ``village``, the Jester and wolves on ``others``.

    Returns the final state and, per decision, (seat role, action, whether it fell back).
    """
    settings = Settings.from_task_args(variant, games=game, seed=0, **task_args)
    state = new_game(settings.rules, game_seed(settings.seed, game))
    views = RecordViews()
    decisions_made = []
    while not state.over:
        decisions = []
        for request in pending(state):
            role = state.player(request.seat).role
            obs = observe(state, request, "full", views)
            policy = POLICIES[village if role in VILLAGE else others]
            reply = policy(obs, Random(call_seed(state.seed, request.key, None)))
            [decision] = decisions_from_reply(state, [request], json.dumps(reply))
            decisions_made.append((role, request.action, decision.fallback is not None))
            decisions.append(decision)
        state = advance(state, decisions)
    return state, decisions_made


@pytest.mark.parametrize("variant,games", [("triadic", 2), ("dyadic", 1), ("wolf", 2)])
def test_every_village_decision_is_legal(variant, games):
    short = {"max_debate_turns": 4, "max_days": 4, **({"max_explanation_turns": 2} if variant != "wolf" else {})}
    seen: Counter[Action] = Counter()
    for game in range(1, games + 1):
        _, made = play(variant, game, "faction", **short)
        village = [(action, fell) for role, action, fell in made if role in VILLAGE]
        assert not [a for a, fell in village if fell], "a faction reply fell back"
        seen.update(a for a, _ in village)
    expected = {Action.BID, Action.STATEMENT, Action.VOTE, Action.PROTECT, Action.SELF_ANALYSIS, Action.PEER_ANALYSIS}
    expected |= {Action.INVESTIGATE} if variant == "wolf" else {Action.DEFENCE}
    assert expected <= set(seen), f"not met: {expected - set(seen)}"


def winners(village: str, others: str, seeds: range) -> Counter[str]:
    return Counter(play("triadic", g, village, others, deception_analysis=False)[0].outcome.winner for g in seeds)


def test_the_faction_village_beats_the_jester_where_the_cue_village_loses():
    seeds = range(1, 21)
    cue = winners("cue", "cue", seeds)  # every seat cue: the suspicion-following game the paper predicts
    faction = winners("faction", "tom", seeds)
    assert cue["jester"] > cue["villagers"], cue
    assert faction["villagers"] > faction["jester"], faction
    assert faction["villagers"] > cue["villagers"], (faction, cue)
    assert faction["villagers"] >= 15, faction


def test_the_village_never_exiles_a_seat_that_would_not_deny_on_the_ballot():
    """A Jester on the ballot does not argue its way off it; the faction village hears that and spares it."""
    spared = 0
    for g in range(1, 9):
        state, _ = play("triadic", g, "faction", deception_analysis=False)
        for r in state.records:
            if r.kind.value == "defence" and "not a werewolf" not in (r.text or "").lower():
                exiled = [e.target for e in state.records if e.kind.value == "exile"]
                assert r.actor not in exiled
                spared += 1
    assert spared > 0


@pytest.mark.slow
def test_wolfbot_faction_plays_the_village_seats_through_inspect(tmp_path):
    roles = {"jester": "wolfbot/tom", "werewolf": "wolfbot/tom", "judge": "wolfbot/faction"}
    log = run("triadic", "wolfbot/faction", tmp_path, model_roles=roles,
              task_args={"games": 1, "seed": 0, "max_debate_turns": 4, "max_explanation_turns": 2,
                         "deception_analysis": False})
    assert log.status == "success"
    seats = log.samples[0].metadata["seats"]
    for seat in seats:
        faction = FACTION_OF[Role(seat["role"])]
        assert seat["model"] == ("wolfbot/faction" if faction is Faction.VILLAGERS else "wolfbot/tom")
    assert log.samples[0].scores["village_win"].metadata["values"]["outcome"]["fallbacks"] == 0
    assert 0.0 <= log.samples[0].scores["judge"].value <= 1.0  # the faction model judges too (as tom does)
