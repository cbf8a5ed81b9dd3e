"""What a person at a seat reads and answers: the seat's view rendered for reading, and each decision asked in
plain words, an answer that the rules cannot use asked again with the reason.

Everything shown is made from the seat's :class:`~wolf_eval.agents.observation.Observation`, the view a model in
that seat would be prompted from (its role, its pack, its own private results and notes, the public record),
so a person sees exactly that seat's information set. Each answer is read with the parser's own readers
(``wolf_eval.agents.parse``), and each decision's reply is checked as the call will read it, so the person's
reply never falls back unless they give up: a forfeit, recorded as ``{"forfeit": why}``, which the reader turns
into the rules' fallback with that reason (``wolf_eval.agents.parse.FORFEIT``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from wolf_eval.agents.observation import Observation
from wolf_eval.agents.parse import (
    FORFEIT,
    InvalidReply,
    interpret_object,
    match_name,
    parse_bid,
    parse_stance,
    parse_type,
    parse_unit,
)
from wolf_eval.agents.prompts import analysis_values, instruction, record_lines, role_text, rules_text, template
from wolf_eval.engine import Action, Request
from wolf_eval.engine.game import NOTE_WORDS
from wolf_eval.providers.human_input import Question, Screen
from wolf_eval.records import Kind

#: The commands a person can type at any question.
HELP = """Type your answer and press Enter. At any question:
  /record    show the whole record again
  /forfeit   give up this decision (the rules' fallback is played for you and recorded as your forfeit)
  /skip      (judging a statement) leave this statement unjudged, recorded as missing
  /skip all  leave every statement unjudged for the rest of the game
  /help      show this list"""
#: How an analysis is answered, in words.
ANALYSIS_FORM = ("Answer: the deception type ({types}; none if honest), how sure you are of it (0 to 1){suspicion}, "
                 "then any private reasoning. Example: {example}")
#: Why a decision fell back, as the log records it.
#: How an instruction opens that lists the living (``wolf_eval.agents.prompts.instruction``), which the page shows.
LIVING = "Alive now ("
GAVE_UP = "the person gave up this decision"
SKIPPED = "the person left this statement unjudged"
TIMED_OUT = "no answer within {seconds:g} s"


class GiveUp(Exception):  # noqa: N818 (a person's choice, not an error)
    """The person gave up the decision in hand; the reason is what the log records."""


@dataclass
class Person:
    """A person at one seat of one game: what they have been shown and whether they judge statements."""

    judging: bool = True
    shown_upto: int = -1  # the last record index shown
    seconds: list[float] = field(default_factory=list)
    reasks: int = 0
    forfeits: int = 0


def page(obs: Observation, person: Person) -> str:
    """The seat's view for reading: who the seat is (first page only), the record since the last page, the living."""
    parts = []
    if person.shown_upto < 0:
        rules = rules_text(obs.model_copy(update={"calls": "per_decision"}))  # the rules without the JSON reply shape
        parts += [rules, _role(obs), HELP]
    new = [r for r in obs.records if r.index > person.shown_upto and r.kind is not Kind.GAME_START]
    if new:
        parts.append("\n".join(record_lines(new, numbered=True)).strip("\n"))
        person.shown_upto = max(r.index for r in obs.records)
    parts.append(f"Alive ({len(obs.alive)}): {', '.join(obs.alive)}.")
    return "\n\n".join(parts)


def _role(obs: Observation) -> str:
    """Who the seat is, as its prompt says it, without the line that tells a model how to speak."""
    character = template("roles.character").substitute(seat=obs.seat).strip()
    return f"You are {obs.seat}.{role_text(obs).removeprefix(character)}"


def asked(obs: Observation) -> str:
    """The decision's instruction, as its prompt says it, without the list of the living the page shows."""
    text = instruction(obs)
    first, _, rest = text.partition("\n")
    return rest if first.startswith(LIVING) else text


def whole_record(obs: Observation) -> str:
    return "\n".join(record_lines([r for r in obs.records if r.kind is not Kind.GAME_START], numbered=True))


async def decide(screen: Screen, obs: Observation, request: Request, person: Person,
                 timeout: float | None) -> dict[str, Any]:
    """One decision's reply part, as the call's reader reads it: asked field by field until it is one the rules
    can use, or the person's forfeit (:data:`FORFEIT`). The seconds it took are kept on ``person``."""
    started = time.monotonic()
    deadline = None if timeout is None else started + timeout
    try:
        if obs.action in (Action.SELF_ANALYSIS, Action.PEER_ANALYSIS) and not person.judging:
            raise GiveUp(SKIPPED)
        while True:
            part = await _fields(screen, obs, person, deadline)
            if obs.action is Action.LESSONS:  # three lists, any of them empty: each read as given
                return part
            try:
                interpret_object(part, request, obs.players, obs.taxonomy)
                return part
            except InvalidReply as err:  # a check the fields' own readers did not make: ask the decision again
                person.reasks += 1
                screen.show(f"That cannot be played: {err}. Again:")
    except GiveUp as given_up:
        person.forfeits += 1
        return {FORFEIT: str(given_up)}
    except TimeoutError:
        person.forfeits += 1
        late = TIMED_OUT.format(seconds=timeout)
        screen.show(f"\nTime is up ({late}): the rules' fallback is played for you.")
        return {FORFEIT: late}
    finally:
        person.seconds.append(round(time.monotonic() - started, 3))


async def _fields(screen: Screen, obs: Observation, person: Person, deadline: float | None) -> dict[str, Any]:
    """The decision's fields, each asked until its answer reads."""
    action = obs.action
    ask = _Asker(screen, obs, person, deadline)
    if action is Action.BID:
        return {"bid": await ask.field(Question("bid", f"{asked(obs)}\nYour bid, 0 (stay silent) to 10 "
                                                       "(you must speak now):"), parse_bid), "notes": None}
    if action in (Action.STATEMENT, Action.DEFENCE):
        said = await ask.field(Question("statement", asked(obs)), lambda t: _words(t, obs.max_statement_words))
        return {"statement": said, "notes": None}
    if action is Action.LESSONS:
        return await _lessons(ask, obs)
    if action is Action.STANCE:  # deception=optional: a wolf's stance for the day
        stance = await ask.field(Question("stance", f"{asked(obs)}\nAnswer one of: {', '.join(obs.options)}",
                                          obs.options), lambda t: parse_stance(t, obs.options))
        return {"stance": stance, "notes": None}
    if action in (Action.SELF_ANALYSIS, Action.PEER_ANALYSIS):
        return await ask.field(Question("analysis", _analysis_question(obs)), lambda t: _analysis(t, obs))
    key = "vote" if action is Action.VOTE else "target"
    name = await ask.field(Question("name", f"{asked(obs)}\nName one of: {', '.join(obs.options)}",
                                    obs.options), lambda t: match_name(t, obs.options, obs.players))
    required = action is Action.VOTE
    why = "Your public reason, in one sentence:" if required else \
        "Your reason, in one sentence (Enter for none):"
    reason = await ask.field(Question("reason", why), lambda t: _words(t, obs.max_statement_words, required))
    return {key: name, "reason": reason, "notes": None}


@dataclass
class _Asker:
    screen: Screen
    obs: Observation
    person: Person
    deadline: float | None

    async def field(self, question: Question, read: Any) -> Any:
        """The value ``read`` makes of the person's answer, asking again with the reason until it reads."""
        while True:
            left = None if self.deadline is None else max(0.0, self.deadline - time.monotonic())
            answer = (await self.screen.ask(question, left)).strip()
            command = answer.lower()
            if command == "/help":
                self.screen.show(HELP)
            elif command == "/record":
                self.screen.show(whole_record(self.obs))
            elif command == "/forfeit":
                raise GiveUp(GAVE_UP)
            elif command in ("/skip", "/skip all") and question.kind == "analysis":
                self.person.judging = command == "/skip"
                raise GiveUp(SKIPPED)
            elif command.startswith("/"):
                self.screen.show(f"{answer!r} is not a command here. {HELP}")
            else:
                try:
                    return read(answer)
                except InvalidReply as err:
                    self.person.reasks += 1
                    self.screen.show(f"Not accepted: {err}. Please answer again.")


def _words(text: str, limit: int, required: bool = True) -> str | None:
    words = text.split()
    if not words:
        if required:
            raise InvalidReply("nothing was said")
        return None
    if len(words) > limit:
        raise InvalidReply(f"{len(words)} words; at most {limit} are allowed")
    return " ".join(words)


def _analysis_question(obs: Observation) -> str:
    said = analysis_values(obs)
    peer = obs.action is Action.PEER_ANALYSIS
    whose = f"{said['speaker']}'s" if peer else "your own"
    form = ANALYSIS_FORM.format(types=", ".join(obs.taxonomy),
                                suspicion=f", how much it makes you suspect {said['speaker']} (0 to 1)" if peer else "",
                                example="none 0.8 0.2 sounded sincere" if peer else "none 0.9")
    return (f"Judge privately {whose} {said['statement_kind']} on day {said['day']} (no one else sees this):\n"
            f"#{obs.subject} {said['statement']}\n{form}")


def _analysis(text: str, obs: Observation) -> dict[str, Any]:
    """``type confidence [suspicion] [reasoning...]``, read with the parser's readers."""
    peer = obs.action is Action.PEER_ANALYSIS
    words = text.split()
    needed = 3 if peer else 2
    if len(words) < needed:
        raise InvalidReply(f"give the type, how sure you are{' and your suspicion' if peer else ''} "
                           f"({needed} answers, got {len(words)})")
    kind = parse_type(words[0], obs.taxonomy, deceptive=False)
    out: dict[str, Any] = {"deception_type": kind, "confidence": parse_unit(words[1], "how sure you are")}
    if peer:
        out["suspicion"] = parse_unit(words[2], "suspicion")
    out["reasoning"] = " ".join(words[needed:][:NOTE_WORDS]) or None
    return out


async def _lessons(ask: _Asker, obs: Observation) -> dict[str, Any]:
    """The Jester's three lists of lessons, each a line of items separated by ``;`` (Enter for none)."""
    ask.screen.show(asked(obs))
    out: dict[str, Any] = {}
    for key, words in (("to_do", "to use"), ("to_not_do", "to avoid"), ("winning_tactics", "that won this game")):
        q = Question("lessons", f"Tactics {words}, separated by ';' (Enter for none):")
        out[key] = await ask.field(q, lambda t: [s.strip() for s in t.split(";") if s.strip()])
    return out
