"""Which model plays each seat, judges and tags in one eval: the ``Bindings`` table, and its checks.

Inspect hands every ``--model-role`` binding to the task whatever its name, and a seat whose role
has no binding plays the eval's ``--model``. So a misspelt role (``wolf=`` for ``werewolf=``), or one
the task does not seat (``seer=`` on triadic), would run a one-model eval that the log's bindings
file as a comparison; and an eval with no ``--model`` would start its first game before failing on
the ``none/none`` model. Both are refused (:meth:`Bindings.check`) while Inspect builds the task (the
solver's factory runs there, the eval's model and roles set, nothing played and no log written), and
again as each game starts, for bindings a ``Task`` carries itself (``task_with(..., model_roles=...)``)
and tasks built outside an eval.

Every reader reads the one table: the seats, the tagger and the learning run (built by the solver from the
running eval, :meth:`Bindings.running`, the one place Inspect's bindings are read), the judge (built so by
its scorer), the report's faction columns and ``wolf-eval learn``'s search for a game's finished log (built
from the eval's spec, :meth:`Bindings.from_spec`, the same spec the log keeps).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from inspect_ai.model import Model, get_model, model_roles

from wolf_eval.engine.config import GameConfig
from wolf_eval.engine.roles import FACTION_OF, role_named
from wolf_eval.measures.pooling import logged_name
from wolf_eval.refusal import ValueRefused
from wolf_eval.vocabulary import JUDGE_ROLE, MONITOR_ROLE, TAGGER_ROLE, Role

#: The roles a model can be bound to that seat no player, and what reads each.
NON_SEAT_ROLES: dict[str, str] = {JUDGE_ROLE: "the post-game judge",
                                  TAGGER_ROLE: "the model lesson tagger, with jester_learning",
                                  MONITOR_ROLE: "the monitor of the seats' texts, with -T monitor"}
#: Inspect's placeholder model when the eval names none.
NO_MODEL = "none/none"


class SeatingRefused(ValueRefused):
    """An eval whose seats cannot be played as asked; the message is the one line a user acts on.

    The ``inspect`` command prints it as ``Error: <message>`` and exits 1 instead of showing the
    traceback through Inspect's task loader (``wolf_eval.refusal``). Python callers of
    ``inspect_ai.eval`` get it as a ``ValueError``.
    """


class RoleUnbound(ValueRefused):
    """A model asked of a role that never falls back to the model under evaluation (the judge, the tagger)."""

    def __init__(self, role: str) -> None:
        super().__init__(f"no model is bound to the {role} role ({NON_SEAT_ROLES[role]}), and it never plays the "
                         f"model under evaluation: pass --model-role {role}=<model>")


def faction_column(faction: str) -> str:
    """The name a faction's models go under in an eval's metadata and ``evals_df`` (``villagers_model``)."""
    return logged_name(faction, "model")


@dataclass(frozen=True)
class Bindings:
    """One eval's models by role: its own ``--model`` and every ``--model-role`` binding, by name.

    A seat's role left unbound plays the eval's model, on purpose (:meth:`seat`): a comparison binds the
    roles of the faction it swaps and the eval's model plays the rest. The judge and the tagger never do
    (:meth:`required`).
    """

    model: str
    roles: Mapping[str, str] = field(default_factory=dict)
    #: The running eval's models by role, for whoever plays them (:meth:`running`); none for a table read from a
    #: log's spec, which names models and plays nothing.
    models: Mapping[str, Model] = field(default_factory=dict, compare=False, repr=False)
    #: The running eval's ``--model`` itself (its config carries the eval's seed).
    eval_model: Model | None = field(default=None, compare=False, repr=False)

    @classmethod
    def running(cls, rules: GameConfig | None = None) -> Bindings:
        """The running eval's table, read from Inspect here and nowhere else, with the models that play: each seat
        role of ``rules`` (an unbound one is the eval's model, tagged with its role in the log as Inspect tags
        it) and each non-seat role that is bound (the judge, the tagger). Outside an eval, Inspect's error."""
        eval_model = get_model()
        table = cls.of(eval_model, model_roles())
        seats = [r.value for r in rules.roles_dealt] if rules is not None else []
        models = {name: get_model(role=name, default=eval_model) for name in seats}
        models |= {name: get_model(role=name, required=True) for name in NON_SEAT_ROLES if name in table.roles}
        return replace(table, models=models, eval_model=eval_model)

    @property
    def eval_seed(self) -> int | None:
        """The running eval's ``--seed`` (its model's config), from which every call's seed derives."""
        return self.eval_model.config.seed if self.eval_model is not None else None

    def played_by(self, role: Role | str) -> Model:
        """The model that plays ``role`` in the running eval (a seat's role, or a bound judge or tagger)."""
        if str(role) not in self.models:
            raise RoleUnbound(str(role)) if str(role) in NON_SEAT_ROLES else KeyError(str(role))
        return self.models[str(role)]

    @classmethod
    def of(cls, model: Any, roles: Mapping[str, Any]) -> Bindings:
        """The running eval's table, from Inspect's ``get_model()`` and ``model_roles()`` (models or names; a role
        bound to a list of models is played by its first, as Inspect's ``get_model(role=...)`` plays it)."""
        return cls(str(model), _named(roles))

    @classmethod
    def from_spec(cls, spec: Any) -> Bindings:
        """The table an eval's spec names (``eval.model``, ``eval.model_roles``): a log's, or a starting eval's.

        A role some releases logged as a list of models is read as its first, as Inspect plays it.
        """
        return cls.of(spec.model, spec.model_roles or {})

    def seat(self, role: Role | str) -> str:
        """The model that plays ``role``'s seats: its binding, else the eval's model."""
        return self.roles.get(str(role), self.model)

    def required(self, role: str) -> str:
        """The model bound to ``role`` (the judge, the tagger); refused in one line when none is."""
        if role not in self.roles:
            raise RoleUnbound(role)
        return self.roles[role]

    @property
    def judge(self) -> str | None:
        return self.roles.get(JUDGE_ROLE)

    @property
    def tagger(self) -> str | None:
        return self.roles.get(TAGGER_ROLE)

    @property
    def monitor(self) -> str | None:
        return self.roles.get(MONITOR_ROLE)

    def faction_models(self, rules: GameConfig) -> dict[str, str]:
        """Each seated faction's models (``<faction>_model``, models joined by " + " if its seats differ)."""
        seated: dict[str, set[str]] = {}
        for role in rules.roles_dealt:
            seated.setdefault(FACTION_OF[role].value, set()).add(self.seat(role))
        return {faction_column(faction): " + ".join(sorted(models)) for faction, models in seated.items()}

    def check(self, rules: GameConfig, learning: bool = True, monitor: str = "off") -> Bindings:
        """Refuse a binding that neither a seat of this game nor a non-seat role takes, and an eval with no model
        for a seat whose role has none of its own; returns itself.

        The tagger reads only the lessons of ``jester_learning``: bound without it (``learning`` False) it
        would tag nothing, and the log would still name it, so it is refused too; so is a monitor bound with
        ``monitor`` off, and ``-T monitor`` with no monitor bound (it never reads as the model under evaluation).
        """
        if monitor != "off" and MONITOR_ROLE not in self.roles:
            raise SeatingRefused(f"-T monitor={monitor}: no model is bound to the monitor role, and it never reads as "
                                 f"the model under evaluation: pass --model-role {MONITOR_ROLE}=<model> (offline: "
                                 f"wolfbot/monitor)")
        if monitor == "off" and MONITOR_ROLE in self.roles:
            raise SeatingRefused(f"--model-role {MONITOR_ROLE}=...: the monitor reads the seats' texts only with "
                                 "-T monitor=reasoning, speech or both, and this eval runs with monitor=off, so it "
                                 "would read nothing (add -T monitor=..., or drop the binding)")
        if not learning and TAGGER_ROLE in self.roles:
            raise SeatingRefused(f"--model-role {TAGGER_ROLE}=...: the model tagger tags the lessons the Jester adds, "
                                 f"and wolf_eval/{rules.variant} runs without jester_learning=true here, so it would "
                                 "tag nothing (add -T jester_learning=true, or drop the binding)")
        takes = {r.value for r in rules.roles_dealt} | set(NON_SEAT_ROLES)
        unknown = [name for name in self.roles if name not in takes]
        if unknown:
            why = "; ".join(f"--model-role {name}=...: {_why_not(name, takes, rules.variant)}" for name in unknown)
            raise SeatingRefused(f"{why}. A model bound to a role no seat takes would play nothing. "
                                 f"Valid roles for wolf_eval/{rules.variant}: {valid_roles(rules)}")
        unbound = [r.value for r in rules.roles_dealt if r.value not in self.roles]
        if self.model == NO_MODEL and unbound:
            raise SeatingRefused(f"wolf_eval/{rules.variant}: no model to play the {', '.join(unbound)} seats: "
                                 "name one with --model (e.g. --model openai/gpt-4.1, or --model wolfbot/cue to "
                                 "play offline) or set INSPECT_EVAL_MODEL")
        return self


def _named(roles: Mapping[str, Any]) -> dict[str, str]:
    """Each bound role's model name: a role bound to a list of models is played by its first, as Inspect plays
    it; a model, a spec's model config (its ``model``), that config as a log's JSON keeps it, or a name alike."""
    out = {}
    for name, bound in roles.items():
        first = (bound[0] if bound else None) if isinstance(bound, list) else bound
        if isinstance(first, Mapping):
            first = first.get("model")
        if first:
            out[str(name)] = str(first.model if hasattr(first, "model") else first)
    return out


def valid_roles(rules: GameConfig) -> str:
    seats = ", ".join(r.value for r in rules.roles_dealt)
    others = ", ".join(f"{name} ({what})" for name, what in NON_SEAT_ROLES.items())
    return f"{seats} (the seats), {others}"


def _why_not(name: str, takes: set[str], variant: str) -> str:
    role = role_named(name)
    if role is not None and role.value in takes:
        return f"not a role's name (did you mean {role.value}?)"
    if role is not None:
        return f"wolf_eval/{variant} deals no {role.value}"
    close = difflib.get_close_matches(name.lower(), sorted(takes), n=1)
    return f"no such role (did you mean {close[0]}?)" if close else "no such role"


__all__ = ["NON_SEAT_ROLES", "Bindings", "RoleUnbound", "SeatingRefused"]
