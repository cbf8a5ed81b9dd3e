"""Which ``--model-role`` names a task takes, and the refusal of an eval that could not seat its players.

Inspect hands every ``--model-role`` binding to the task whatever its name, and a seat whose role
has no binding silently plays the eval's ``--model``. So a misspelt role (``wolf=`` for
``werewolf=``), or one the task does not seat (``seer=`` on triadic), would run a one-model eval
that the log's bindings file as a comparison; and an eval with no ``--model`` would start its
first game before failing on the ``none/none`` model. Both are refused here, while Inspect builds
the task (it sets the eval's model and roles before calling the task function, so nothing has
been played and no log written), and the solver checks again as each game starts, for bindings a
``Task`` carries itself (``task_with(..., model_roles=...)``) and tasks built outside an eval.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from inspect_ai.model import get_model, model_roles

from wolf_eval.agents.role_guesses import JUDGE_ROLE
from wolf_eval.engine.config import GameConfig
from wolf_eval.engine.roles import FACTION_OF, role_named
from wolf_eval.lessons.model_tagger import TAGGER_ROLE
from wolf_eval.refusal import ValueRefused

#: The roles a model can be bound to that seat no player, and what reads each.
NON_SEAT_ROLES: dict[str, str] = {JUDGE_ROLE: "the post-game judge",
                                  TAGGER_ROLE: "the model lesson tagger, with jester_learning"}
#: Inspect's placeholder model when the eval names none.
NO_MODEL = "none/none"


class SeatingRefused(ValueRefused):
    """An eval whose seats cannot be played as asked; the message is the one line a user acts on.

    The ``inspect`` command prints it as ``Error: <message>`` and exits 1 instead of showing the
    traceback through Inspect's task loader (``wolf_eval.refusal``). Python callers of
    ``inspect_ai.eval`` get it as a ``ValueError``.
    """


def valid_roles(rules: GameConfig) -> str:
    seats = ", ".join(r.value for r in rules.roles_dealt)
    others = ", ".join(f"{name} ({what})" for name, what in NON_SEAT_ROLES.items())
    return f"{seats} (the seats), {others}"


def check_roles(bound: Iterable[str], rules: GameConfig, learning: bool = True) -> None:
    """Refuse any bound role that neither a seat of this game nor a non-seat role (the judge, the tagger) takes.

    The tagger reads only the lessons of ``jester_learning``: bound without it (``learning`` False)
    it would tag nothing, and the log would still name it, so it is refused too.
    """
    bound = list(bound)
    if not learning and TAGGER_ROLE in bound:
        raise SeatingRefused(f"--model-role {TAGGER_ROLE}=...: the model tagger tags the lessons the Jester adds, "
                             f"and wolf_eval/{rules.variant} runs without jester_learning=true here, so it would "
                             "tag nothing (add -T jester_learning=true, or drop the binding)")
    takes = {r.value for r in rules.roles_dealt} | set(NON_SEAT_ROLES)
    unknown = [name for name in bound if name not in takes]
    if not unknown:
        return
    why = "; ".join(f"--model-role {name}=...: {_why_not(name, takes, rules.variant)}" for name in unknown)
    raise SeatingRefused(f"{why}. A model bound to a role no seat takes would play nothing. "
                         f"Valid roles for wolf_eval/{rules.variant}: {valid_roles(rules)}")


def _why_not(name: str, takes: set[str], variant: str) -> str:
    role = role_named(name)
    if role is not None and role.value in takes:
        return f"not a role's name (did you mean {role.value}?)"
    if role is not None:
        return f"wolf_eval/{variant} deals no {role.value}"
    close = difflib.get_close_matches(name.lower(), sorted(takes), n=1)
    return f"no such role (did you mean {close[0]}?)" if close else "no such role"


def check_model(eval_model: str, bound: Iterable[str], rules: GameConfig) -> None:
    """Refuse an eval with no model when a seated role has no model of its own to play it."""
    unbound = [r.value for r in rules.roles_dealt if r.value not in set(bound)]
    if eval_model == NO_MODEL and unbound:
        raise SeatingRefused(f"wolf_eval/{rules.variant}: no model to play the {', '.join(unbound)} seats: "
                             "name one with --model (e.g. --model openai/gpt-4.1, or --model wolfbot/cue to "
                             "play offline) or set INSPECT_EVAL_MODEL")


def check_eval_seating(rules: GameConfig, learning: bool = True) -> None:
    """The eval's model and ``--model-role`` bindings, checked while Inspect builds the task.

    Called outside an eval (a script building the task, ``wolf-eval compare`` building its
    pairings), where no model is active and none is set in the environment, it checks nothing:
    the model and roles given later are checked by the solver (:func:`check_sample_seating`).
    One case it cannot tell from an eval: ``eval_set`` called without an eval model leaves Inspect's
    ``none`` model set in the caller's context, so a task built there afterwards is refused; build
    it in a fresh ``contextvars.Context`` (as ``wolf-eval compare`` does) or run the eval set in a copy.
    """
    try:
        model = str(get_model())
    except Exception:  # no active eval and no INSPECT_EVAL_MODEL: nothing to check yet
        return
    bound = list(model_roles())
    check_roles(bound, rules, learning)
    check_model(model, bound, rules)


def eval_role_model(role: str) -> str | None:
    """The model an eval seats in ``role``: its ``--model-role`` binding, else ``--model``; None outside an eval."""
    try:
        model = str(get_model())
    except Exception:  # no active eval: the game checks as it starts
        return None
    bound = model_roles().get(role)
    return str(bound) if bound is not None else model


def faction_models(rules: GameConfig) -> dict[str, str]:
    """Each faction's models in an eval (``<faction>_model``, models joined by " + " if its seats differ),
    from the eval's model and its ``--model-role`` bindings, as the game will seat them; empty outside an
    eval. For the eval's metadata, so ``evals_df`` reads them as plain columns
    (:data:`wolf_eval.analysis.frames.FACTION_COLUMNS`)."""
    seated: dict[str, set[str]] = {}
    for role in rules.roles_dealt:
        model = eval_role_model(role.value)
        if model is None:  # no active eval: the samples' metadata will say it
            return {}
        seated.setdefault(FACTION_OF[role].value, set()).add(model)
    return {f"{faction}_model": " + ".join(sorted(models)) for faction, models in seated.items()}


def check_sample_seating(rules: GameConfig, learning: bool = True) -> None:
    """The same checks as a game starts, for what the task function could not see: bindings a ``Task``
    carries itself (``task_with(..., model_roles=...)``), or a task built outside an eval."""
    bound = list(model_roles())
    check_roles(bound, rules, learning)
    check_model(str(get_model()), bound, rules)
