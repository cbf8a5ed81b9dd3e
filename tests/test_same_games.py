"""The same seed plays the same games as the first release, on the wolfbot players.

``tests/data/same_games.json`` was recorded from release 0.1.0 for a fixed set of tasks, players
and seeds: each game's roles, speaking order, ballots, exiles, deaths and winner. A refactor that
changes any of them changes the games a published table was computed from.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import final_state, run

from wolf_eval.records import Kind

pytestmark = pytest.mark.slow  # every test here plays an Inspect eval

RECORDED = json.loads((Path(__file__).parent / "data" / "same_games.json").read_text(encoding="utf-8"))


def summary(sample) -> dict:  # type: ignore[no-untyped-def]
    game = final_state(sample)
    speakers, ballots, exiles, deaths = [], [], [], []
    for r in game.records:
        if r.kind in (Kind.STATEMENT, Kind.DEFENCE, Kind.PASS):
            speakers.append([r.day, r.kind.value, r.actor])
        elif r.kind is Kind.VOTE:
            ballots.append([r.day, r.data.ballot, r.actor, r.target])
        elif r.kind is Kind.EXILE:
            exiles.append([r.day, r.target])
        elif r.kind is Kind.DEATH:
            deaths.append([r.day, r.target])
    assert game.outcome is not None
    return {"seed": game.seed, "roles": {p.name: p.role.value for p in game.players},
            "winner": game.outcome.winner, "days": game.outcome.days,
            "speakers": speakers, "ballots": ballots, "exiles": exiles, "deaths": deaths}


@pytest.mark.parametrize("recorded", RECORDED, ids=[f"{r['task']}-{r['model']}" for r in RECORDED])
def test_the_same_seed_plays_the_same_games_as_release_0_1_0(recorded, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # recorded on the fixed layout (seat i always the same name, lists in seat order), played on it again
    log = run(recorded["task"], recorded["model"], tmp_path, task_args={**recorded["task_args"], "seating": "fixed"})
    assert log.status == "success", log.error
    played = [summary(s) for s in sorted(log.samples, key=lambda s: int(s.id))]
    for game, (now, then) in enumerate(zip(played, recorded["games"], strict=True), start=1):
        for key in then:
            assert now[key] == then[key], f"game {game}: {key} differs from release 0.1.0"
