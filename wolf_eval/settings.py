"""The task parameters as one frozen, validated object, built once per eval.

``-T`` values reach a task as YAML: numbers, booleans, strings, lists (a comma-separated value
arrives as a list) or mappings. :meth:`Settings.from_task_args` checks every one of them before
any game starts and refuses a bad one with a single line naming the parameter, the value given
and what is accepted. The task passes the result whole to its solver; the engine gets its rules
(:attr:`Settings.rules`); each sample's metadata keeps it, so the report reads how a game was
played from the log instead of guessing from the task's defaults.
"""

from __future__ import annotations

import difflib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from wolf_eval.engine.config import GameConfig, Variant
from wolf_eval.engine.roles import ROSTERS, Role, parse_roster, validate_roster

History = Literal["full", "compact"]

#: What each parameter accepts, as a refusal says it.
ACCEPTED: dict[str, str] = {
    "games": "a whole number of games, 1 or more",
    "seed": "a whole number",
    "shuffle_roles": "true or false",
    "roles": "a roster such as villager:6,doctor:1,werewolf:2,jester:1 (or a YAML mapping of role to count)",
    "max_debate_turns": "a whole number, 0 or more",
    "max_explanation_turns": "a whole number, 0 or more",
    "max_days": "a whole number of days, 1 or more",
    "max_statement_words": "a whole number of words, 1 or more",
    "temperature": "a number, 0 or more (or null to leave it to the model)",
    "reveal_roles": "true or false",
    "structured_output": "true or false",
    "jester_learning": "true or false",
    "lessons_dir": "a folder path",
    "history": "'full' or 'compact'",
    "deception_analysis": "true or false",
}

#: Parameters that say where things go or how many games to play, not how a game is played.
NOT_A_CONDITION = ("games", "seed", "lessons_dir")


class SettingsError(ValueError):
    """A task parameter that cannot be used; the message is one line a user can act on."""


def _whole(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("not a whole number")
    return value


def _flag(value: Any) -> Any:
    if not isinstance(value, bool):
        raise ValueError("not true or false")
    return value


class Settings(BaseModel):
    """Every task parameter of one eval (SPEC section 2), checked together."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    variant: Variant
    games: int = Field(default=10, ge=1)
    seed: int = 0
    shuffle_roles: bool = True
    roles: dict[Role, int] = Field(default_factory=dict)  # empty: the task's own roster
    max_debate_turns: int = Field(default=12, ge=0)
    max_explanation_turns: int = Field(default=6, ge=0)
    max_days: int = Field(default=10, ge=1)
    max_statement_words: int = Field(default=50, ge=1)
    temperature: float | None = Field(default=1.0, ge=0)
    reveal_roles: bool = False
    structured_output: bool = True
    jester_learning: bool = False
    lessons_dir: str | None = None
    history: History = "full"
    deception_analysis: bool = True

    @field_validator("games", "seed", "max_debate_turns", "max_explanation_turns", "max_days", "max_statement_words",
                     mode="before")
    @classmethod
    def _whole_numbers(cls, value: Any) -> Any:
        return _whole(value)

    @field_validator("shuffle_roles", "reveal_roles", "structured_output", "jester_learning", "deception_analysis",
                     mode="before")
    @classmethod
    def _flags(cls, value: Any) -> Any:
        return _flag(value)

    @field_validator("temperature", mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ValueError("not a number")
        return value

    @field_validator("roles", mode="before")
    @classmethod
    def _roster(cls, value: Any) -> dict[Role, int]:
        if isinstance(value, dict) and all(isinstance(k, Role) for k in value):
            return value
        if isinstance(value, list) and all(isinstance(x, str) for x in value):
            value = ",".join(value)  # Inspect hands `-T roles=a:1,b:2` over as ["a:1", "b:2"]
        if isinstance(value, list) and all(isinstance(x, dict) for x in value):
            value = {k: v for x in value for k, v in x.items()}  # a YAML list of one-key mappings
        if not isinstance(value, str | dict) or not value:
            raise ValueError("no roster given")
        roster = parse_roster(value)
        if not roster:
            raise ValueError("no roster given")
        return roster

    @model_validator(mode="after")
    def _together(self) -> Settings:
        roster = self.roster
        try:
            validate_roster(roster)
        except ValueError as err:
            raise ValueError(f"roles: {str(err).removeprefix('roles: ')}") from None
        if self.variant == "wolf" and self.max_explanation_turns:
            raise ValueError("max_explanation_turns: does not apply to wolf_eval/wolf (one ballot, no defence)")
        if self.lessons_dir is not None and not self.jester_learning:
            raise ValueError("lessons_dir: it is only read with jester_learning=true")
        if self.jester_learning and (self.variant == "dyadic" or not roster.get(Role.JESTER)):
            raise ValueError(f"jester_learning: needs a Jester, and this wolf_eval/{self.variant} roster seats none")
        return self

    @property
    def roster(self) -> dict[Role, int]:
        """The roster played: the ``roles`` given, else the task's own."""
        return dict(self.roles) if self.roles else dict(ROSTERS[self.variant])

    @property
    def rules(self) -> GameConfig:
        """The engine's part: the rules a game is played under."""
        return GameConfig(variant=self.variant, roster=self.roster, shuffle_roles=self.shuffle_roles,
                          max_debate_turns=self.max_debate_turns, max_explanation_turns=self.max_explanation_turns,
                          max_days=self.max_days, max_statement_words=self.max_statement_words,
                          reveal_roles=self.reveal_roles, deception_analysis=self.deception_analysis)

    @classmethod
    def defaults(cls, variant: Variant) -> Settings:
        """The task's settings with no ``-T`` given."""
        if variant == "wolf":
            return cls(variant=variant, max_explanation_turns=0, max_statement_words=20)
        return cls(variant=variant)

    @classmethod
    def from_task_args(cls, variant: Variant, **params: Any) -> Settings:
        """Settings from ``-T`` values as Inspect passes them; raises SettingsError on the first bad one."""
        unknown = [k for k in params if k not in ACCEPTED]
        if unknown:
            name = unknown[0]
            close = difflib.get_close_matches(name, list(ACCEPTED), n=1)
            hint = f"; did you mean {close[0]}?" if close else f" (parameters: {', '.join(ACCEPTED)})"
            raise SettingsError(f"{name}={params[name]!r} is not a wolf_eval/{variant} parameter{hint}")
        # the signatures' own defaults for "not given": no explanation turns (wolf), no roster (the task's)
        given = {k: v for k, v in params.items()
                 if not (k == "max_explanation_turns" and v is None) and not (k == "roles" and v == "")}
        if variant == "wolf" and given.get("max_explanation_turns"):
            raise SettingsError(f"max_explanation_turns={given['max_explanation_turns']!r} is not accepted: "
                                "it does not apply to wolf_eval/wolf (one ballot, no defence)")
        base = cls.defaults(variant).model_dump(exclude={"roles"})
        try:
            return cls.model_validate({**base, **given})
        except ValidationError as err:
            raise SettingsError(_one_line(err, given)) from None

    @classmethod
    def from_log(cls, task: str, task_args: dict[str, Any] | None, metadata: dict[str, Any] | None = None) -> Settings:
        """The settings a logged eval played under: its samples' metadata, or (logs written before
        settings were recorded) the task arguments the log kept."""
        if metadata and isinstance(metadata.get("settings"), dict):
            return cls.model_validate(metadata["settings"])
        variant = task.split("/")[-1]
        args = {k: v for k, v in (task_args or {}).items()
                if k in ACCEPTED and not (k == "roles" and v is None)}  # release 0.1.0's "no roster given"
        return cls.from_task_args(variant, **args)  # type: ignore[arg-type]


def _one_line(err: ValidationError, given: dict[str, Any]) -> str:
    first = err.errors()[0]
    where = first["loc"][0] if first["loc"] else None
    message = first["msg"].removeprefix("Value error, ").removeprefix(f"{where}: " if where else "")
    if where is None:  # a check across parameters names its parameter first
        where, _, message = message.partition(": ")
    value = given.get(str(where), "")
    value = ",".join(value) if isinstance(value, list) and all(isinstance(x, str) for x in value) else value
    shown = "null" if value is None else repr(value)  # `-T roles=` reaches the task as YAML's null
    accepted = ACCEPTED.get(str(where), "")
    if first["type"] == "value_error" and not message.startswith("not ") and message != "no roster given":
        return f"{where}={shown} is not accepted: {message}"
    return f"{where}={shown} is not accepted: {accepted}"


def condition(settings: Settings) -> str:
    """How these settings differ from their task's defaults, as ``k=v`` pairs, or "default"."""
    defaults = Settings.defaults(settings.variant)
    changed = []
    for name in sorted(ACCEPTED):
        if name in NOT_A_CONDITION:
            continue
        mine, theirs = (settings.roster, defaults.roster) if name == "roles" else (
            getattr(settings, name), getattr(defaults, name))
        if mine != theirs:
            changed.append(f"{name}={_show(name, mine)}")
    return ", ".join(changed) or "default"


def _show(name: str, value: Any) -> str:
    if name == "roles":
        return ",".join(f"{role.value}:{n}" for role, n in value.items())
    return str(value).lower() if isinstance(value, bool) or value is None else str(value)
