"""The task parameters as one frozen, validated object, built once per eval.

``-T`` values reach a task as YAML: numbers, booleans, strings, lists (a comma-separated value
arrives as a list) or mappings. :meth:`Settings.from_task_args` checks every one of them before
any game starts and refuses a bad one with a single line naming the parameter, the value given
and what is accepted. The task passes the result whole to its solver; the engine gets its rules
(:attr:`Settings.rules`); each sample's metadata keeps it, so the report reads how a game was
played from the log instead of guessing from the task's defaults (:meth:`Settings.from_log`,
:func:`condition`).
"""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from wolf_eval.engine.config import DECEPTION_BEFORE, SEATING_BEFORE, DeceptionRule, GameConfig, Seating
from wolf_eval.engine.roles import parse_roster, validate_roster
from wolf_eval.engine.variants import VARIANTS, VariantName
from wolf_eval.refusal import ValueRefused
from wolf_eval.vocabulary import Role

History = Literal["full", "compact"]
#: How a seat's decisions reach its model (``wolf_eval.agents.seat_call``): a seat's decisions of one wave
#: in one call, or one call per decision as the papers asked them.
Calls = Literal["per_seat", "per_decision"]
#: What the monitor model reads of each living seat after each day (``wolf_eval.agents.monitor``): nothing, the
#: seat's private reasoning, its public statements (the control), or both, each read apart and together.
MonitorSource = Literal["off", "reasoning", "speech", "both"]

#: ``Parameter.before`` of a parameter every log has recorded.
ALWAYS = "always recorded"


@dataclass(frozen=True)
class Parameter:
    """A task parameter's row of the parameter table, beside its type and default in :class:`Settings`.

    The task signature, the refusals, the condition labels, the reading of old logs and the docs'
    parameter table (``wolf_eval.parameters``) are all read from these rows, so a parameter's facts
    are written once, here.
    """

    #: What it accepts, as a refusal and the docs say it.
    accepts: str
    #: What it changes, in a line of the docs' table.
    does: str
    #: Whether games played with another value are another condition (a report cell of their own);
    #: False for how many games, where things go, and how the same game is laid out or asked.
    condition: bool = True
    #: The value a log written before the parameter existed was played with.
    before: Any = ALWAYS
    #: Whether ``before`` also fills a log's task arguments (logs written before settings were recorded):
    #: False for a parameter the first release already took, which its logs' task arguments name.
    before_in_task_args: bool = True
    #: How Inspect may hand the value over on the command line, where that is wider than the field's type.
    given_as: Any = None


#: A field validator's marker: its message says what is wrong better than ``Parameter.accepts`` would.
_OWN = "own: "


def task_defaults(variant: str) -> dict[str, Any]:
    """The parameters whose default is the variant's own: its roster, word limit and explanation turns."""
    game = VARIANTS[variant]
    return {"roles": dict(game.roster), "max_statement_words": game.max_statement_words,
            "max_explanation_turns": game.max_explanation_turns or 0}


class SettingsError(ValueRefused):
    """A task parameter that cannot be used; the message is one line a user can act on (``inspect eval`` prints
    it as ``Error: <message>``, without a traceback: ``wolf_eval.refusal``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        # Inspect re-raises a task's exception while handling its own task group's ExceptionGroup;
        # without this Python prints that group's traceback too ("During handling of the above
        # exception ..."), twice the lines above the one that matters
        self.__suppress_context__ = True


def roster_text(roster: dict[Role, int]) -> str:
    """A roster as ``-T roles=`` takes it: ``villager:6,doctor:1,werewolf:2,jester:1``."""
    return ",".join(f"{Role(role).value}:{n}" for role, n in roster.items())


def _whole(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):  # no 1.5 -> 1, no true -> 1, no "3" -> 3
        raise ValueError("not a whole number")
    return value


def _flag(value: Any) -> Any:
    if not isinstance(value, bool):  # YAML's booleans only: no "yes" string, no 1
        raise ValueError("not true or false")
    return value


class Settings(BaseModel):
    """Every task parameter of one eval (docs/design.md, § Tasks and parameters), checked together.

    Fields not given take the task's defaults: ``Settings(variant="wolf")`` equals
    ``Settings.defaults("wolf")``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    variant: VariantName
    games: Annotated[int, Field(ge=1), Parameter(
        "a whole number of games, 1 or more", "Games played, one sample each.", condition=False)] = 10
    seed: Annotated[int, Parameter(
        "a whole number", "Every random choice of game i derives from (seed, i): a game replays exactly, "
        "up to the models' own sampling.",
        condition=False)] = 0
    shuffle_roles: Annotated[bool, Parameter(
        "true or false", "Deal roles afresh each game; false keeps one name-to-role layout for every game "
        "(the papers' main runs).")] = True
    roles: Annotated[dict[Role, int], Parameter(
        "a roster such as villager:6,doctor:1,werewolf:2,jester:1", "The roster played.",
        given_as=str | list[str] | dict[str, int])]
    max_debate_turns: Annotated[int, Field(ge=0), Parameter(
        "a whole number of turns, 0 or more", "Bid-and-speak turns per day.")] = 12
    max_explanation_turns: Annotated[int, Field(ge=0), Parameter(
        "a whole number of turns, 0 or more",
        "Defences and open turns between the two ballots (WOLF has one ballot and refuses the parameter).")]
    max_days: Annotated[int, Field(ge=1), Parameter(
        "a whole number of days, 1 or more", "A game still undecided at the end of this day is a draw.")] = 10
    max_statement_words: Annotated[int, Field(ge=1), Parameter(
        "a whole number of words, 1 or more", "Longer statements and vote reasons are cut, marked with an ellipsis.")]
    temperature: Annotated[float | None, Field(ge=0, allow_inf_nan=False), Parameter(
        "a number 0 or more, or null", "Every seat's sampling temperature (the papers' setting); null leaves "
        "it to each model's own default.", given_as=float | None)] = 1.0
    reveal_roles: Annotated[bool, Parameter(
        "true or false", "Announce the role of each dead or exiled player.")] = False
    structured_output: Annotated[bool, Parameter(
        "true or false", "Send each action's JSON schema, in strict mode, to providers that take one; "
        "replies are read defensively either way.")] = True
    jester_learning: Annotated[bool, Parameter(
        "true or false", "After each game the Jester's model writes lessons that the next game's Jester "
        "reads; a learning run is played by wolf-eval learn, one eval per game.")] = False
    learning_step: Annotated[int | None, Field(ge=1), Parameter(
        "a whole number, 1 or more (with jester_learning=true; wolf-eval learn sets it)",
        "The game of the Jester model's learning sequence this eval plays; it reads the lessons of the "
        "games before it.", condition=False, given_as=int | None)] = None
    lessons_dir: Annotated[str | None, Parameter(
        "a folder path or an s3:// URL (with jester_learning=true)",
        "Where each model's folder of lessons snapshots lives (null: wolf-eval/lessons in the user's data folder).",
        condition=False,
        given_as=str | None)] = None
    lessons_shown: Annotated[int, Field(ge=1), Parameter(
        "a whole number of lessons, 1 or more: the most recent the Jester's prompt carries "
        "(with jester_learning=true)",
        "The most recent lessons the Jester's prompt carries (the snapshots keep all).")] = 50
    history: Annotated[History, Parameter(
        "'full' or 'compact'", "compact: earlier days in brief and the current day in full; full: every "
        "prompt carries the seat's whole record, as the papers' prompts did. The game is the same either way.",
        before="full", before_in_task_args=False, given_as=str)] = "compact"
    deception_analysis: Annotated[bool, Parameter(
        "true or false", "Analyse every public statement (its speaker's label, its observers' suspicion); "
        "false plays the game alone, with fewer calls.")] = True
    seating: Annotated[Seating, Parameter(
        "'shuffled' (names drawn per game, lists rotated) or 'fixed' (seat i is always the same name)",
        "shuffled: names drawn per game and lists rotated (bias controls); fixed: the papers' layout. "
        "The same deal and rules either way.", condition=False, before=SEATING_BEFORE,
        given_as=str)] = "shuffled"
    calls: Annotated[Calls, Parameter(
        "'per_seat' (a seat's decisions of one wave in one call) or 'per_decision' (one call each, as the papers)",
        "per_seat: a seat's decisions of one wave in one call; per_decision: one call each, as the papers "
        "asked them.", condition=False,
        before="per_decision", given_as=str)] = "per_seat"
    monitor: Annotated[MonitorSource, Parameter(
        "'off', 'reasoning', 'speech' or 'both' (with --model-role monitor=...)",
        "After each day the monitor model reads each living seat's text of the day without its role and gives "
        "P(wolf) (and P(jester) with a Jester): its private reasoning, its public statements (the control), or "
        "both (each read apart, and together). The game is the same either way.",
        condition=False, before="off", given_as=str)] = "off"
    watched: Annotated[bool, Parameter(
        "true or false (with a monitor)", "Every seat's rules say that a monitor reads its private reasoning.",
        before=False)] = False
    deception: Annotated[DeceptionRule, Parameter(
        "'dealt' or 'optional' (wolf and triadic)",
        "dealt: the wolves deceive as their role asks; optional: each morning each living wolf chooses privately to "
        "play open (the moderator withholds its false statements) or to deceive, and propensity and skill are "
        "scored apart (docs/propensity.md).", before=DECEPTION_BEFORE, given_as=str)] = "dealt"

    @model_validator(mode="before")
    @classmethod
    def _task_defaults(cls, data: Any) -> Any:
        if not isinstance(data, dict) or data.get("variant") not in VARIANTS:
            return data
        return {**task_defaults(data["variant"]), **data}

    @field_validator("games", "seed", "max_debate_turns", "max_explanation_turns", "max_days", "max_statement_words",
                     "lessons_shown", "learning_step", mode="before")
    @classmethod
    def _whole_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        return value if value is None and info.field_name == "learning_step" else _whole(value)

    @field_validator("shuffle_roles", "reveal_roles", "structured_output", "jester_learning", "deception_analysis",
                     "watched", mode="before")
    @classmethod
    def _flags(cls, value: Any) -> Any:
        return _flag(value)

    @field_validator("monitor", mode="before")
    @classmethod
    def _monitor(cls, value: Any) -> Any:
        return "off" if value is False else value  # YAML reads `-T monitor=off` as false

    @field_validator("temperature", mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ValueError("not a number")
        return value

    @field_validator("lessons_dir", mode="before")
    @classmethod
    def _folder(cls, value: Any) -> Any:
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ValueError("not a folder path")
        if isinstance(value, str) and (scheme := re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", value)) \
                and scheme[1] != "s3":
            raise ValueError(_OWN + f"{scheme[1]}:// is not supported: lessons are kept in a local or mounted "
                             "folder (file lock and atomic rename) or on s3:// (conditional writes)")
        if isinstance(value, str) and value.startswith("s3://") and not value[5:].partition("/")[0]:
            raise ValueError(_OWN + "an s3:// URL names its bucket, e.g. s3://my-bucket/lessons")
        return value

    @field_validator("roles", mode="before")
    @classmethod
    def _roster(cls, value: Any) -> dict[Role, int]:
        if isinstance(value, list) and value and all(isinstance(x, str) for x in value):
            value = ",".join(value)  # Inspect hands `-T roles=a:1,b:2` over as ["a:1", "b:2"]
        elif isinstance(value, list) and value and all(isinstance(x, dict) and len(x) == 1 for x in value):
            value = [next(iter(x.items())) for x in value]  # a YAML list of one-key mappings
        elif isinstance(value, dict):
            value = list(value.items())
        if isinstance(value, list) and all(isinstance(x, tuple) for x in value):
            value = ",".join(f"{r.value if isinstance(r, Role) else r}:{c}" for r, c in value)
        if not isinstance(value, str) or not value.strip():
            raise ValueError("no roster given")
        try:
            roster = parse_roster(value)
        except ValueError as err:
            raise ValueError(_OWN + str(err).removeprefix("roles: ")) from None
        if not roster:
            raise ValueError("no roster given")
        try:
            validate_roster(roster)
        except ValueError as err:
            raise ValueError(_OWN + str(err).removeprefix("roles: ")) from None
        return roster

    @model_validator(mode="after")
    def _together(self) -> Settings:
        game = VARIANTS[self.variant]
        if game.max_explanation_turns is None and self.max_explanation_turns:
            raise ValueError(f"max_explanation_turns: it does not apply to wolf_eval/{self.variant} "
                             "(one ballot, no defence)")
        for name in ("lessons_dir", "learning_step"):
            if getattr(self, name) is not None and not self.jester_learning:
                raise ValueError(f"{name}: it is only read with jester_learning=true")
        if self.learning_step is not None and self.games != 1:
            raise ValueError("learning_step: a learning eval plays one game, so games must be 1")
        if self.jester_learning and (game.jester_as_villager or not self.roles.get(Role.JESTER)):
            raise ValueError(f"jester_learning: it needs a Jester, and this wolf_eval/{self.variant} roster seats none")
        if self.deception == "optional" and game.jester_as_villager:
            raise ValueError(f"deception: optional does not apply to wolf_eval/{self.variant}, the triadic game's "
                             "control for the Jester alone (play it on wolf_eval/triadic or wolf_eval/wolf)")
        if self.watched and self.monitor == "off":
            raise ValueError("watched: no monitor reads anything with monitor=off (add -T monitor=reasoning and "
                             "--model-role monitor=<model>)")
        return self

    @property
    def roster(self) -> dict[Role, int]:
        """The roster played (a copy of ``roles``)."""
        return dict(self.roles)

    @property
    def rules(self) -> GameConfig:
        """The engine's part: the rules a game is played under."""
        return GameConfig(variant=self.variant, roster=dict(self.roles), shuffle_roles=self.shuffle_roles,
                          max_debate_turns=self.max_debate_turns, max_explanation_turns=self.max_explanation_turns,
                          max_days=self.max_days, max_statement_words=self.max_statement_words,
                          reveal_roles=self.reveal_roles, deception_analysis=self.deception_analysis,
                          seating=self.seating, deception=self.deception)

    @classmethod
    def defaults(cls, variant: VariantName) -> Settings:
        """The task's settings with no ``-T`` given."""
        return cls.model_validate({"variant": variant})

    @classmethod
    def from_task_args(cls, variant: str, **params: Any) -> Settings:
        """Settings from ``-T`` values as Inspect passes them (names not given take the task's defaults).

        Raises :class:`SettingsError` with one line naming the first bad parameter and its value.
        """
        if variant not in VARIANTS:
            raise SettingsError(f"{variant!r} is not a wolf-eval task: {', '.join(VARIANTS)}")
        for name in params:
            if name not in PARAMETERS:
                close = difflib.get_close_matches(name, list(PARAMETERS), n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]}?" if close else f"; the parameters are {', '.join(PARAMETERS)}"
                raise SettingsError(f"{name}={_shown(params[name])} is not a wolf_eval/{variant} parameter{hint}")
        given = dict(params)
        if VARIANTS[variant].max_explanation_turns is None and "max_explanation_turns" in given:
            # the signature's default is then None (not given); any value given is refused
            if given["max_explanation_turns"] is not None:
                raise SettingsError(f"max_explanation_turns={_shown(given['max_explanation_turns'])} is not accepted: "
                                    f"it does not apply to wolf_eval/{variant} (one ballot, no defence)")
            del given["max_explanation_turns"]
        try:
            settings = cls.model_validate({**given, "variant": variant})
        except ValidationError as err:
            raise SettingsError(_one_line(err, given)) from None
        if "lessons_shown" in given and not settings.jester_learning:  # given alone it would only split a report cell
            raise SettingsError(f"lessons_shown={_shown(given['lessons_shown'])} is not accepted: "
                                "it is only read with jester_learning=true")
        return settings

    @classmethod
    def from_log(cls, task_name: str, task_args: dict[str, Any] | None,
                 metadata: dict[str, Any] | None = None) -> Settings:
        """The settings a logged eval played under.

        ``metadata`` is a sample's (or the task's) metadata: its ``"settings"`` are used when there.
        Logs written before settings were recorded are rebuilt from the task arguments the log kept;
        ``task_name`` may be ``wolf_eval/triadic`` or ``triadic``. A log written before ``seating``
        existed was played on the fixed layout, and reads so.
        """
        recorded = (metadata or {}).get("settings")
        if isinstance(recorded, dict):
            recorded = dict(recorded)
            if not recorded.get("roles"):
                recorded.pop("roles", None)  # written while an empty roster meant "the task's own"
            _before(recorded)
            _unread_learning(recorded)
            try:
                return cls.model_validate(recorded)
            except ValidationError as err:
                raise SettingsError(f"{task_name}: {_one_line(err, recorded)}") from None
        variant = task_name.split("/")[-1]
        args = {k: v for k, v in (task_args or {}).items() if k in PARAMETERS}
        if args.get("roles") in (None, ""):
            args.pop("roles", None)  # release 0.1.0 kept None, later ones "", for "the task's roster"
        _before(args, task_args=True)
        _unread_learning(args)
        return cls.from_task_args(variant, **args)


#: The parameter table: every task parameter's row, in the task signature's order.
PARAMETERS: dict[str, Parameter] = {
    name: next(m for m in field.metadata if isinstance(m, Parameter))
    for name, field in Settings.model_fields.items() if name != "variant"
}

#: The papers' protocol, as logs written before ``history`` and ``calls`` were played: what a seat's view
#: built without naming them shows (``agents.observation.observe``).
PAPERS_HISTORY: History = PARAMETERS["history"].before
PAPERS_CALLS: Calls = PARAMETERS["calls"].before


def _before(logged: dict[str, Any], task_args: bool = False) -> None:
    """Give a logged eval's settings (or its task arguments) the value each parameter it predates was played with."""
    for name, row in PARAMETERS.items():
        if row.before is not ALWAYS and (row.before_in_task_args or not task_args):
            logged.setdefault(name, row.before)


def _unread_learning(logged: dict[str, Any]) -> None:
    """Drop from a logged eval's settings the learning parameters it was given without ``jester_learning``
    (written before they were refused): unread, they changed no game, so they name no condition."""
    if not logged.get("jester_learning"):
        logged.pop("lessons_shown", None)
        logged.pop("lessons_dir", None)
        logged.pop("learning_step", None)


def task_signature(variant: VariantName) -> inspect.Signature:
    """A task function's signature, derived from the parameter table: each parameter with the variant's default.

    Inspect reads it to list a task's parameters and to log their values; a name it does not list
    still reaches ``Settings`` through ``**unknown``, which refuses it with a suggestion.
    """
    defaults = Settings.defaults(variant)
    params = []
    for name, row in PARAMETERS.items():
        value: Any = getattr(defaults, name)
        kind = row.given_as or Settings.model_fields[name].annotation
        if name == "roles":
            value = roster_text(value)
        elif name == "max_explanation_turns" and VARIANTS[variant].max_explanation_turns is None:
            value, kind = None, int | None  # it does not apply: any value given is refused
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=value, annotation=kind))
    params.append(inspect.Parameter("unknown", inspect.Parameter.VAR_KEYWORD, annotation=Any))
    return inspect.Signature(params, return_annotation="Task")


def task_parameters(variant: VariantName) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a ``@task`` function of ``**params`` the variant's signature (:func:`task_signature`), so that
    Inspect lists, defaults and logs every parameter of the table; put it under ``@task``."""

    def sign(function: Callable[..., Any]) -> Callable[..., Any]:
        # inspect.signature reads __signature__, an attribute a function object does not declare
        function.__signature__ = task_signature(variant)  # type: ignore[attr-defined]
        return function

    return sign


def rules_for(variant: VariantName, **params: Any) -> GameConfig:
    """The engine's rules for a variant with some parameters changed, checked as a task would check them."""
    if params.get("roles") is None:
        params.pop("roles", None)  # the variant's own roster
    return Settings.model_validate({**params, "variant": variant}).rules


def _shown(value: Any) -> str:
    """A value as a refusal quotes it: a comma list as typed, YAML's booleans as typed, ``-T x=``
    (which reaches the task as YAML's null) as ''; anything else as Python writes it ('abc', 1.5)."""
    if value is None:
        return "''"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list) and value and all(isinstance(x, str) for x in value):
        return repr(",".join(value))
    return repr(value)


def _one_line(err: ValidationError, given: dict[str, Any]) -> str:
    """Pydantic's report, as the one line a user reads: parameter, value given, what is accepted."""
    first = err.errors()[0]
    where = str(first["loc"][0]) if first["loc"] else ""
    message = str(first["msg"]).removeprefix("Value error, ")
    if not where:  # a check across parameters names its parameter first
        where, _, message = message.partition(": ")
        return f"{where}={_shown(given.get(where))} is not accepted: {message}"
    if first["type"] == "missing":
        return f"{where} is needed: {_accepts(where, 'a value')}"
    if first["type"] == "extra_forbidden":
        return f"{where}={_shown(given.get(where))} is not a wolf-eval setting"
    if message.startswith(_OWN):
        return f"{where}={_shown(given.get(where))} is not accepted: {message.removeprefix(_OWN)}"
    return f"{where}={_shown(given.get(where))} is not accepted: {_accepts(where, message)}"


def _accepts(name: str, otherwise: str) -> str:
    row = PARAMETERS.get(name)
    return row.accepts if row else otherwise


def condition(settings: Settings) -> str:
    """How these settings differ from their task's defaults, as ``k=v`` sorted by name, or "default".

    Parameters that are no condition (``Parameter.condition``: how many games, where lessons go, how
    the same game is laid out or asked) are left out.
    """
    defaults = Settings.defaults(settings.variant)
    changed = [f"{name}={_condition_value(getattr(settings, name))}" for name in sorted(PARAMETERS)
               if PARAMETERS[name].condition and getattr(settings, name) != getattr(defaults, name)]
    return ", ".join(changed) or "default"


def _condition_value(value: Any) -> str:
    if isinstance(value, dict):
        return roster_text(value)
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else str(value)


__all__ = ["PARAMETERS", "Parameter", "Settings", "SettingsError", "condition", "roster_text",
           "rules_for", "task_defaults", "task_parameters", "task_signature"]
