"""The monitor's turn in the transcript: after the game is played, one span per day, ``monitor · day 2``, with
the day's readings (each call folded under its seat and source) and one line per verdict, so that a day's
verdicts are the game's outline, then that span (``wolf_eval.agents.monitor`` says what the monitor reads).

The monitor speaks to no seat and changes nothing in the game, so it reads each day once the game is over,
exactly what it would have read at that day's end.
"""

from __future__ import annotations

from inspect_ai.log import transcript
from inspect_ai.model import Model
from inspect_ai.util import span

from wolf_eval.agents.monitor import day_views, monitored_days, read_seat
from wolf_eval.agents.player import Agent
from wolf_eval.engine import GameState
from wolf_eval.solvers.outline import PHASE_SPAN, together
from wolf_eval.store import VerdictRow, current_record

#: The span of one day's verdicts in the transcript.
MONITOR_SPAN = "monitor · day {day}"


async def watch(game: GameState, agent: Agent, model: Model, source: str) -> None:
    """Have the monitor ``model`` read every living seat of every day from ``source``; its verdicts and its model go
    to the game's record, its calls and tokens to the game's, as every other call's."""
    record = current_record()
    record.monitor_model = str(model)
    roles = {p.name: p.role.value for p in game.players}
    for day in monitored_days(game):
        async with span(MONITOR_SPAN.format(day=day), type=PHASE_SPAN):
            views = day_views(game, agent.thoughts, day, source)
            verdicts = await together([read_seat(model, game, v, agent.game, agent.eval_seed, agent.usage)
                                       for v in views])
            for verdict in verdicts:
                transcript().info(verdict_line(verdict, roles[verdict.seat]), source="wolf_eval/monitor")
        record.monitor = [*record.monitor, *verdicts]
        record.calls += sum(1 for v in views if v.text.strip())
    record.usage = agent.usage


def verdict_line(verdict: VerdictRow, role: str) -> str:
    """One verdict as the transcript shows it, the seat's true role beside it (the monitor was not told it)."""
    head = f"**{verdict.seat}** ({role}) · {verdict.source}:"
    if verdict.wolf is None:
        return f"{head} no verdict ({verdict.problem})"
    jester = f", P(jester) {verdict.jester:.2f}" if verdict.jester is not None else ""
    return f"{head} P(wolf) {verdict.wolf:.2f}{jester}"
