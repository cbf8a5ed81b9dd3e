"""Bias controls: names drawn per game, prompt lists rotated, and nothing else about a game changed.

With ``seating=shuffled`` (the default) a game seats names drawn from a pool and shows every list in a
seeded rotation; ``seating=fixed`` is the papers' layout. Either way the deal, the night's tie-breaks,
the floor's draws, a fallback's target and a call's seed are keyed by seat, so a player that decides
by seat plays the same game under both; and a game logged before the parameter reads as fixed.
"""

from __future__ import annotations

import json
import re
from importlib.resources import files
from random import Random

import pytest

from wolf_eval.agents.call import call_seed
from wolf_eval.agents.observation import observe
from wolf_eval.agents.seat_call import decisions_from_reply
from wolf_eval.baseline.bots import POLICIES
from wolf_eval.baseline.reading import JESTER_TELLS, WOLF_TELLS
from wolf_eval.engine import Action, GameConfig, GameState, Phase, Request, Role, advance, new_game, pending
from wolf_eval.engine.rng import derive_rng
from wolf_eval.engine.roles import NAMES, role_named
from wolf_eval.engine.seating import NAME_POOL, by_seat, fixed_key, rotated, seat_names
from wolf_eval.measures.ballot_order import ballots
from wolf_eval.settings import Settings, SettingsError, condition, rules_for

SHORT = {"max_debate_turns": 2, "max_explanation_turns": 1, "max_days": 3, "deception_analysis": False}


def rules(seating: str, variant: str = "triadic", **kw: object) -> GameConfig:
    return rules_for(variant, seating=seating, **{**SHORT, **kw})  # type: ignore[arg-type]


def play(config: GameConfig, seed: int, reply) -> tuple[GameState, list[tuple[Request, tuple[str, ...]]]]:  # type: ignore[no-untyped-def]
    """A whole game, every decision ``reply(state, request)`` read as the solver reads a reply; with the
    options each decision's observation listed."""
    state = new_game(config, seed)
    shown = []
    while not state.over:
        wave = pending(state)
        shown += [(r, observe(state, r).options) for r in wave]
        state = advance(state, [decisions_from_reply(state, [r], reply(state, r))[0] for r in wave])
    return state, shown


def by_seat_player(state: GameState, request: Request) -> str:
    """A player that sees only seats: its choices and its randomness never depend on a name."""
    rng = derive_rng(state.seed, "test player", fixed_key(state, request))
    others = by_seat(state, [n for n in state.living_names if n != request.seat])
    if request.action is Action.BID:
        return json.dumps({"bid": rng.randint(0, 10)})
    if request.action in (Action.STATEMENT, Action.DEFENCE):
        return json.dumps({"statement": f"I suspect {rng.choice(others)}."})
    target = rng.choice(by_seat(state, request.options))
    key = "vote" if request.action is Action.VOTE else "target"
    return json.dumps({key: target, "reason": f"{target} worries me."})


def cue_player(state: GameState, request: Request) -> str:
    """The ``cue`` baseline as the solver asks it: from the observation, with the call's seed."""
    obs = observe(state, request)
    return json.dumps(POLICIES["cue"](obs, Random(call_seed(state.seed, fixed_key(state, request), None))))


def seat_story(state: GameState) -> list[tuple[object, ...]]:
    """The game's records with every name replaced by its seat (what stays when only names change)."""
    seat = {p.name: p.seat for p in state.players}
    return [(r.kind, r.day, r.phase, seat.get(r.actor or ""), seat.get(r.target or "")) for r in state.records]


# --------------------------------------------------------------------------- the name pool


def test_the_pool_is_larger_distinct_short_single_names_no_role_or_prompt_word() -> None:
    assert len(NAME_POOL) >= 3 * len(NAMES) and len(set(NAME_POOL)) == len(NAME_POOL)
    assert NAME_POOL[: len(NAMES)] == NAMES
    words = set()
    for f in files("wolf_eval.prompts").iterdir():
        if f.name.endswith(".txt"):
            words |= set(re.findall(r"[a-z]+", f.read_text(encoding="utf-8").lower()))
    words |= {w for tell in (*JESTER_TELLS, *WOLF_TELLS) for w in re.findall(r"[a-z]+", tell)}
    words |= {"moderator", "nobody", "none", "zed", "night", "day", "dawn", "wolf", "wolves", "votes", "pack"}
    for name in NAME_POOL:
        assert re.fullmatch(r"[A-Z][a-z]{2,5}", name), name
        assert role_named(name) is None and name.lower() not in words, name
        assert not any(o != name and o.lower().startswith(name.lower()) for o in NAME_POOL), name


def test_fixed_seats_the_papers_names_and_shuffled_draws_them_per_game_without_replacement() -> None:
    assert seat_names("fixed", 3, 10) == NAMES[:10]
    draws = {seat_names("shuffled", seed, 10) for seed in range(40)}
    assert all(len(set(d)) == 10 and set(d) <= set(NAME_POOL) for d in draws)
    assert len(draws) == 40 and seat_names("shuffled", 7, 10) == seat_names("shuffled", 7, 10)
    assert len({n for d in draws for n in d}) > 50  # most of the pool is used, not the same sixteen
    assert new_game(rules("shuffled"), 7).names == seat_names("shuffled", 7, 10)


# --------------------------------------------------------------------------- nothing else changes


@pytest.mark.parametrize("variant", ["triadic", "wolf"])
def test_a_player_that_decides_by_seat_plays_the_same_game_under_either_layout(variant: str) -> None:
    """Deal, night tie-breaks, floor draws and defence order are the same draws; only the names differ."""
    kw = {"max_explanation_turns": 0} if variant == "wolf" else {}
    renamed = 0
    for seed in range(8):
        fixed, _ = play(rules("fixed", variant, **kw), seed, by_seat_player)
        shuffled, _ = play(rules("shuffled", variant, **kw), seed, by_seat_player)
        assert [p.role for p in fixed.players] == [p.role for p in shuffled.players]
        assert seat_story(fixed) == seat_story(shuffled), seed
        assert (fixed.outcome.winner, fixed.outcome.days) == (shuffled.outcome.winner, shuffled.outcome.days)
        renamed += fixed.names != shuffled.names
    assert renamed == 8


def test_night_ties_and_fallbacks_pick_the_same_seat_whatever_the_names() -> None:
    """The draws were over the names sorted alphabetically, which is seat order only for the fixed names."""
    for seed in range(20):
        games = [new_game(rules(s), seed) for s in ("fixed", "shuffled")]
        picks = []
        for g in games:
            wolves = [p.name for p in g.players if p.role is Role.WEREWOLF]
            prey = [p.name for p in g.players if p.role is not Role.WEREWOLF]
            # each wolf names a different villager: the later seat first, so the tie is not in seat order
            kills = {w: json.dumps({"target": t}) for w, t in zip(wolves, (prey[-1], prey[0]), strict=True)}
            wave = pending(g)
            after = advance(g, [decisions_from_reply(g, [r], kills.get(r.seat, "no json"))[0] for r in wave])
            victim = next(r.target for r in after.records if r.kind == "wolf_choice")
            fallback = next(r for r in wave if r.action is Action.PROTECT or r.action is Action.INVESTIGATE)
            chosen = next(r.target for r in after.records if r.actor == fallback.seat and r.target)
            picks.append((g.player(victim).seat, g.player(chosen).seat))
        assert picks[0] == picks[1], seed


def test_a_calls_seed_and_randomness_are_keyed_by_seat_not_name() -> None:
    fixed, shuffled = new_game(rules("fixed"), 5), new_game(rules("shuffled"), 5)
    for a, b in zip(pending(fixed), pending(shuffled), strict=True):
        assert fixed_key(fixed, a) == a.key == fixed_key(shuffled, b) != b.key


# --------------------------------------------------------------------------- rotated lists


def test_fixed_lists_are_in_seat_order_and_shuffled_lists_are_seeded_rotations() -> None:
    starts = {"players": set(), "alive": set(), "options": set()}
    for seed in range(8):
        for seating in ("fixed", "shuffled"):
            state, shown = play(rules(seating), seed, by_seat_player)
            for request, options in shown:
                assert sorted(options) == sorted(request.options)
                if seating == "fixed":
                    assert options == request.options
                elif options:
                    assert options in {rotated(request.options, i) for i in range(len(options))}
                    starts["options"].add(request.options.index(options[0]))
            game = new_game(rules(seating), seed)
            obs = observe(game, pending(game)[0])
            assert obs == observe(game, pending(game)[0])  # seeded: the same decision shows the same order
            if seating == "fixed":
                assert obs.players == game.names
            else:
                starts["players"].add(game.names.index(obs.players[0]))
                starts["alive"].add(game.living_names.index(obs.alive[0]))
    assert all(len(s) >= 4 for s in starts.values()), starts  # the first listed is not always seat 0


def test_a_ballots_suspicion_rows_follow_its_options_order() -> None:
    state = new_game(rules("shuffled", deception_analysis=True), 3)
    state = state.model_copy(update={"phase": Phase.VOTE, "suspicion": {
        o: {t: 0.1 * i for i, t in enumerate(state.names) if t != o} for o in state.names}})
    orders = set()
    for request in pending(state):
        obs = observe(state, request)
        assert list(obs.suspicion) == list(obs.options)
        assert obs.suspicion == {n: state.suspicion[request.seat][n] for n in obs.options}
        orders.add(request.options.index(obs.options[0]))
    assert len(orders) > 1


def test_the_ballot_orders_the_report_rebuilds_are_the_ones_the_voters_saw() -> None:
    for seed in range(6):
        for seating in ("fixed", "shuffled"):
            state, shown = play(rules(seating), seed, cue_player)
            seen = [(r.seat, options) for r, options in shown if r.action is Action.VOTE]
            rebuilt = [(voter, options) for voter, options, _ in ballots(state)]
            assert rebuilt == seen and seen


# --------------------------------------------------------------------------- the parameter


def test_shuffled_is_the_default_fixed_is_accepted_and_a_bad_value_refused() -> None:
    assert Settings.defaults("triadic").seating == "shuffled"
    assert Settings.from_task_args("wolf", seating="fixed").rules.seating == "fixed"
    with pytest.raises(SettingsError, match=r"^seating='random' is not accepted: 'shuffled' .* or 'fixed'"):
        Settings.from_task_args("triadic", seating="random")
    assert condition(Settings.from_task_args("triadic", seating="fixed")) == "default"  # not a condition


def test_a_game_or_settings_logged_before_seating_existed_read_as_fixed() -> None:
    old = new_game(rules("fixed"), 9).model_dump(mode="json")
    del old["config"]["seating"]
    assert GameState.model_validate(old).config.seating == "fixed"
    recorded = Settings.defaults("triadic").model_dump(mode="json")
    del recorded["seating"]
    assert Settings.from_log("wolf_eval/triadic", {}, {"settings": recorded}).seating == "fixed"
    assert Settings.from_log("wolf_eval/triadic", {"games": 2}).seating == "fixed"
    assert Settings.from_log("wolf_eval/triadic", {}, {"settings": {**recorded, "seating": "shuffled"}}).seating \
        == "shuffled"


@pytest.mark.slow
def test_the_report_splits_a_played_runs_votes_by_position_and_name(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from helpers import final_state, run

    from wolf_eval.analysis.report import write_report

    log = run("triadic", "wolfbot/cue", tmp_path / "logs", task_args={**SHORT, "games": 2, "max_days": 2})
    assert log.status == "success", log.error
    cast = sum(1 for s in log.samples for r in final_state(s).records if r.kind == "vote" and r.target)
    corpus, _, path = write_report(tmp_path / "logs", tmp_path / "report")
    text = path.read_text(encoding="utf-8")
    assert "## Names and list positions on the ballot" in text
    first = next(line for line in text.splitlines() if "| shuffled | position | 1 |" in line)
    assert first.split(" | ")[7] == str(cast)  # every cast vote listed a first name
