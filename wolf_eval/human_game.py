"""``wolf-eval play``: one game with a person in a seat, the other seats scripted players, offline.

The game is the task's own eval (``inspect eval wolf_eval/triadic --model-role jester=human/<name> -T games=1``)
with friendly defaults: the person's role chosen or drawn among the roles one player holds (so they play one
seat; a role of several seats, such as the Werewolves, is played whole), the other seats ``wolfbot/cue``, a fresh
game seed each time, and Inspect's plain display (line by line: each page stays on the terminal, and Ctrl-C
stops the eval with its log written, where the full-screen display under ``inspect_ai.eval`` left it
unfinished). After the game it says who won and who everyone was.
"""

from __future__ import annotations

import random
from typing import Any, Final

from wolf_eval.engine.variants import VARIANTS
from wolf_eval.refusal import ValueRefused
from wolf_eval.vocabulary import Role

#: The display a person plays in (see the module's docstring).
DISPLAY: Final = "plain"
#: Who plays the other seats unless told: the baseline players that read cues, with no model or network.
OPPONENTS = "wolfbot/cue"


def single_seats(task: str) -> tuple[str, ...]:
    """The roles one player holds in ``task``'s game (the dyadic control deals its Jester's seat a Villager)."""
    v = VARIANTS[task]
    return tuple(r.value for r, n in v.roster.items()
                 if n == 1 and not (v.jester_as_villager and r is Role.JESTER))


def seat_role(task: str, role: str | None, rng: random.Random) -> str:
    """The person's role: the one asked for (any role the task seats), else one drawn among the single seats."""
    v = VARIANTS[task]
    seated = [r.value for r, n in v.roster.items() if n and not (v.jester_as_villager and r is Role.JESTER)]
    if role is None:
        return rng.choice(single_seats(task))
    if role not in seated:
        raise ValueRefused(f"--role {role}: {task} seats {', '.join(seated)}")
    return role


def play(task: str, person: Any, role: str | None, opponents: str, seed: int | None, log_dir: str,
         task_args: dict[str, Any]) -> tuple[Any, str, int]:
    """Play one game with ``person`` (their ``human/<name>`` model) in a seat; the log (or None when the person
    stopped it), the person's role and the game seed."""
    from inspect_ai import eval as inspect_eval

    given = sorted({"games", "seed"} & task_args.keys())
    if given:
        raise ValueRefused(f"-T {', '.join(given)}: play is one game; its seed is --seed")
    rng = random.Random(seed)
    game_seed = seed if seed is not None else rng.randrange(2**31)
    role = seat_role(task, role, rng)
    logs = inspect_eval(f"wolf_eval/{task}", model=opponents, model_roles={role: person},
                        task_args={**task_args, "games": 1, "seed": game_seed}, log_dir=log_dir, display=DISPLAY)
    return (logs[0] if logs else None), role, game_seed


def summary(log: Any, name: str) -> list[str]:
    """Who won, and who everyone was, from the game's log; the log's error when the game did not finish."""
    from wolf_eval.logfiles import sample_error
    from wolf_eval.ndjson import game_state
    from wolf_eval.store import logged_record

    if log is None:
        return ["The game was stopped before it ended; its log keeps it, marked cancelled."]
    [sample] = log.samples or [None]
    if sample is None or sample.error is not None:
        why = sample_error(sample.error.message) if sample is not None and sample.error else log.status
        return [f"The game did not finish: {why}"]
    game = game_state(sample)
    seats = logged_record(sample.store).seat_models
    lines = [f"{game.outcome.winner.value} won on day {game.outcome.day}: {game.outcome.reason}"
             if game.outcome else "The game ended without a winner."]
    lines += [f"  {p.name}: {p.role.value}" + (f" (you, {name})" if seats.get(p.name) == f"human/{name}" else "")
              for p in game.players]
    return lines
