"""A finished game in a few markdown lines: the explanation ``inspect view`` shows beside a sample's scores."""

from __future__ import annotations

import math
from collections import defaultdict

from wolf_eval.engine import GameState
from wolf_eval.measures import calibration as cal
from wolf_eval.measures.headline import GameValues
from wolf_eval.measures.rates import Confusion, LabelRates
from wolf_eval.records import Death, Exile, Kind, Vote
from wolf_eval.vocabulary import Winner

_WINNERS = {Winner.VILLAGERS: "The village wins", Winner.WEREWOLVES: "The wolves win",
            Winner.JESTER: "The Jester wins", Winner.DRAW: "A draw"}


def game_summary(game: GameState, values: GameValues) -> str:
    """Winner and how; day 1's ballots; exiles and deaths; one line per seat that spoke or judged."""
    assert game.outcome is not None
    roles = {p.name: p.role.value.title() for p in game.players}
    lines = [f"**{_WINNERS.get(game.outcome.winner, game.outcome.winner)}** on day {game.outcome.day}: "
             f"{game.outcome.reason}."]
    ballots: dict[str, list[str]] = defaultdict(list)
    for r in game.records:
        if r.day == 1 and isinstance(r.data, Vote):
            ballots[r.data.ballot].append(f"{r.actor}→{r.target}" if r.target else f"{r.actor} abstains")
    for ballot, votes in ballots.items():
        lines.append(f"- Day 1, {ballot} ballot: {', '.join(votes)}")
    fates = [f"{'night' if isinstance(r.data, Death) else 'day'} {r.day} {r.target} ({roles.get(r.target or '', '?')})"
             + (" killed" if isinstance(r.data, Death) else " exiled")
             for r in game.records if (isinstance(r.data, Death) and r.kind is Kind.DEATH) or isinstance(r.data, Exile)]
    lines.append(f"- Exiles and deaths: {'; '.join(fates) if fates else 'none'}")
    lines += [f"- {line}" for line in _seat_lines(game, roles)]
    fallbacks = values.outcome["fallbacks"]
    if fallbacks:
        lines.append(f"- {int(fallbacks)} of {int(values.outcome['calls'])} calls fell back")
    return "\n".join(lines)


def _seat_lines(game: GameState, roles: dict[str, str]) -> list[str]:
    """Per seat: how often it called its own statements deceptive and peers flagged them; how well it detected."""
    said: dict[str, LabelRates] = defaultdict(LabelRates)
    judged: dict[str, Confusion] = defaultdict(Confusion)  # its flags as an observer, against the speakers' labels
    for row in cal.statement_rows(game):
        said[row.speaker] = said[row.speaker] + row.labels
        for peer in row.peers:
            judged[peer.observer] = judged[peer.observer] + row.confusion([peer])
    lines = []
    for p in game.players:
        parts = []
        mine = said.get(p.name, LabelRates())
        if mine.labelled:
            parts.append(f"{int(mine.labelled)} statements, {int(mine.self_deceptive)} self-labelled deceptive")
        if mine.observed:
            parts.append(f"peers flagged {mine.observer_rate:.2f} of the time")
        f1 = judged.get(p.name, Confusion()).f1
        if not math.isnan(f1):
            parts.append(f"detection F1 {f1:.2f}")
        if parts:
            lines.append(f"**{p.name}** ({roles[p.name]}): " + " · ".join(parts))
    return lines
