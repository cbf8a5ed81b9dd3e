"""The text of a seat's prompt, from an Observation and the template files in ``wolf_eval/prompts``: ``rules.txt``,
``roles.txt`` (the character and each role) and ``actions.txt`` (each decision's instruction).

Layout is stable-first for provider prompt caches: the system message (rules,
then character and role) never changes for a seat; the user message is the
seat's record, one block per wave in order, then the instruction of the call
(``wolf_eval.agents.seat_call`` puts them together). Only game facts and what a
decision needs are per call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cache, lru_cache
from importlib.resources import files
from string import Template

from inspect_ai.model import ContentText

from wolf_eval.agents.blocks import text_block
from wolf_eval.agents.observation import Observation
from wolf_eval.agents.schemas import REPLY_SCHEMAS
from wolf_eval.engine import VARIANTS, Action, Phase, Role
from wolf_eval.records import SPEECH_KINDS, GameStart, Kind, Tally, ViewRecord, Vote

METADATA_KEY = "wolf_eval"

_JESTER_WARNING = " Beware the Jester: a player who courts suspicion may be the Jester, not a Werewolf."
_JESTER_WARNING_WOLF = (" Beware the Jester: a loud suspect outside your pack may be the Jester,"
                        " whose exile is your loss too.")


_ROLE_NAMES = {
    Role.VILLAGER: ("Villager", "Villagers"), Role.WEREWOLF: ("Werewolf", "Werewolves"), Role.SEER: ("Seer", "Seers"),
    Role.DOCTOR: ("Doctor", "Doctors"), Role.JESTER: ("Jester", "Jesters"),
}


#: A section heading in a template file: ``## name`` on a line of its own.
_HEADING = re.compile(r"^## (\w+)\n", re.M)


def template(name: str) -> Template:
    """A prompt template by name: ``file`` for a file's text before its first section (all of it in a file of
    no sections), ``file.section`` for the section under ``## section`` in ``wolf_eval/prompts/file.txt``."""
    return library()[name]


@cache
def library() -> dict[str, Template]:
    """Every prompt template, by name (:func:`template`). A prompt is read from a few files, one for each of
    its parts (the rules, the seat's roles, the decisions), each part's variants as sections of its file, so
    that one seat's prompt reads as three files; a section's text ends at the blank line before the next."""
    out: dict[str, Template] = {}
    for f in sorted(files("wolf_eval.prompts").iterdir(), key=lambda f: f.name):
        if not f.name.endswith(".txt"):
            continue
        stem, text = f.name.removesuffix(".txt"), f.read_text(encoding="utf-8")
        cut = _HEADING.split(text)
        if len(cut) == 1:
            out[stem] = Template(text)
            continue
        if cut[0].strip():
            out[stem] = Template(cut[0].rstrip("\n"))
        out |= {f"{stem}.{n}": Template(body.rstrip("\n")) for n, body in zip(cut[1::2], cut[2::2], strict=True)}
    return out


def quote(text: str) -> str:
    """A player's words as one quoted line, so speech cannot pose as the moderator.

    All Unicode whitespace (including line and paragraph separators) folds to
    single spaces, and the speaker's own quotes are escaped.
    """
    return json.dumps(" ".join(text.split()), ensure_ascii=False)


def _roles_in_play(obs: Observation) -> dict[Role, int]:
    for r in obs.records:
        if isinstance(r.data, GameStart):
            return dict(r.data.roles_in_play)
    return {}


def system_prompt(obs: Observation) -> str:
    """What never changes for a seat: the rules, then who the seat is."""
    return f"{rules_text(obs)}\n\n{role_text(obs)}"


def rules_text(obs: Observation) -> str:
    """The rules of this game's variant and roster, the same for every seat."""
    roles = _roles_in_play(obs)
    has_jester = roles.get(Role.JESTER, 0) > 0
    has_seer = roles.get(Role.SEER, 0) > 0
    win = ("the village, when no Werewolf lives; the Werewolves, when they equal or outnumber the living village"
           f" players{' (the Jester not counted)' if has_jester else ''}.")
    if has_jester:
        win += " The Jester wins alone if exiled by vote; killed at night or alive at the end, it loses."
    defence = ""
    if VARIANTS[obs.variant].two_ballots:
        defence = (" That first ballot is not binding: each player voted for defends once, most-voted first;"
                   f" up to {obs.max_explanation_turns} open turns follow, then a final revote decides.")
    rules = template("rules").substitute(
        n_players=len(obs.players), players=", ".join(obs.players),
        roles_in_play=", ".join(f"{n} {_ROLE_NAMES[role][n > 1]}" for role, n in roles.items()),
        seer_rule=" The Seer privately learns if one player is a Werewolf." if has_seer else "",
        dead_roles="revealed" if obs.reveal_roles else "kept secret",
        max_debate_turns=obs.max_debate_turns, defence_rule=defence, win_rules=win, max_days=obs.max_days,
    )
    watched = f"\n\n{template('watched').template.strip()}" if obs.watched else ""
    return f"{rules.strip()}{watched}{taxonomy_text(obs)}{replies_text(obs)}"


def replies_text(obs: Observation) -> str:
    """Under ``calls=per_seat``, the one reply shape every call of the seat answers in, each field's meaning
    said once here, in the rules a prompt cache serves, rather than in each call's response schema."""
    if obs.calls != "per_seat":
        return ""
    night = ("a Werewolf, the Doctor or the Seer" if _roles_in_play(obs).get(Role.SEER, 0)
             else "a Werewolf or the Doctor")
    return "\n" + template("rules.replies").substitute(night=f" as {night}").strip()


def taxonomy_text(obs: Observation) -> str:
    """The deception types a seat judges statements by, in the rules: the same text in every call of the
    game, so a prompt cache serves it, where the tail of each analysis call would resend it."""
    if not obs.taxonomy:
        return ""
    extra = template("rules.taxonomy_triadic").template if len(obs.taxonomy) > 5 else ""
    return f"\n{template('rules.taxonomy').template.strip()}{extra}; none if honest."


def role_text(obs: Observation) -> str:
    """Who the seat is: its character, its role and pack, and the Jester's lessons."""
    has_jester = _roles_in_play(obs).get(Role.JESTER, 0) > 0
    character = template("roles.character").substitute(seat=obs.seat).strip()
    pack = (f"Your fellow Werewolves: {', '.join(obs.fellow_wolves)}." if obs.fellow_wolves
            else "You are the only living Werewolf: you hunt alone.")
    role = template(f"roles.{obs.role.value}").substitute(
        pack=pack,
        jester_warning=_JESTER_WARNING if has_jester else "",
        jester_warning_wolf=_JESTER_WARNING_WOLF if has_jester else "",
    )
    return f"{character}\n{role.strip()}{_lessons_block(obs)}"


_LIST_TITLES = {"to_do": "To do", "to_not_do": "Not to do", "winning_tactics": "Tactics that won"}


def _lessons_block(obs: Observation) -> str:
    """The Jester's accumulated lessons (jester_learning): its own notes from earlier games."""
    if not obs.lessons:
        return ""
    parts = ["\n\nLessons you wrote after your earlier games as the Jester (your own notes; weigh them yourself):"]
    for name, items in obs.lessons.items():
        parts.append(f"{_LIST_TITLES.get(name, name)}:")
        parts += [f"- {quote(item)}" for item in items]
    return "\n".join(parts)


def render_record(r: ViewRecord) -> str:
    """The line a seat reads for one record."""
    return _line(r.kind, r.actor, r.target, r.text)


@lru_cache(maxsize=50_000)
def _line(kind: Kind, actor: str | None, target: str | None, text: str | None) -> str:
    """A record's line, from the four fields it is made of: kept for the records of the games in play, whose
    every line each seat's every later call sends again."""
    if kind in SPEECH_KINDS:
        verb = "said in their defence" if kind == Kind.DEFENCE else "said"
        return f"{actor} {verb}: {quote(text or '')}"
    if kind == Kind.VOTE:
        if target is None:
            return f"{actor} abstained."
        return f"{actor} voted for {target}" + (f": {quote(text)}" if text else ".")
    if kind == Kind.WOLF_PROPOSAL:
        return f"[Wolves' channel] {actor} proposed killing {target}" + (f": {quote(text)}" if text else ".")
    if kind == Kind.WOLF_CHOICE:
        return f"[Wolves' channel] Moderator: {text}"
    if kind == Kind.NOTE:
        return f"[Your private note] {quote(text or '')}"
    if kind == Kind.PROTECT:
        return f"[Private] Moderator: you protected {target} tonight."
    if kind == Kind.INVESTIGATE:
        return f"[Private] Moderator: your investigation shows that {text}"
    if kind == Kind.ROLE:
        return f"[Private] Moderator: {text}"
    return f"Moderator: {text}"


def record_text(obs: Observation) -> str:
    """The seat's record as one text (its blocks, one to a line)."""
    return "\n".join(record_blocks(obs))


def record_blocks(obs: Observation) -> list[str]:
    """The seat's record as prompt blocks: every record, or with ``history=compact`` a running summary.

    One block per wave of decisions (every record a wave made arrives at once), so that where a
    seat's previous call ended is a block boundary of its next call: a provider that caches at
    block boundaries (Anthropic) then serves the whole earlier record from its cache. Compact: the
    current day (by night, the day just ended, so the pack and the Doctor still read its words) and
    everything after it in full; before it, each earlier night and day's facts (:func:`day_facts`), then
    yesterday's talk in brief (:func:`day_talk`). A day's facts are written once, when the day ends, and
    never again: they are appended morning by morning and lead every later prompt of the seat unchanged
    (:func:`settled_blocks`), so what a new day rewrites (yesterday in full becomes yesterday's talk in
    brief) lies after them. Built only from the records the seat saw, so the information set is the same.
    """
    return _record(obs)[0]


def settled_blocks(obs: Observation) -> int:
    """How many of :func:`record_blocks` lead every later prompt of the seat unchanged: with
    ``history=compact`` the earlier days' facts (0 with ``full``, whose every block stays)."""
    return _record(obs)[1]


def _record(obs: Observation) -> tuple[list[str], int]:
    records = [r for r in obs.records if r.kind is not Kind.GAME_START]  # the rules state the players and roles
    numbered = obs.calls == "per_seat"
    if obs.history != "compact":
        return _by_wave(records, record_lines(records, numbered=numbered)), 0
    current = current_day(obs)
    earlier = sorted({r.day for r in records if r.day < current})
    of_day = {day: [r for r in records if r.day == day] for day in earlier}
    settled = [("\n" if i else "") + day_facts(day, of_day[day]) for i, day in enumerate(earlier)]
    talk = [f"\n{day_talk(current - 1, of_day[current - 1])}"] if current - 1 in of_day else []
    today = [r for r in records if r.day >= current]
    return settled + talk + _by_wave(today, record_lines(today, after=bool(settled), numbered=numbered)), len(settled)


def _by_wave(records: list[ViewRecord], lines: list[str]) -> list[str]:
    """The records' lines joined into one block per wave."""
    blocks: list[str] = []
    wave = None
    for r, line in zip(records, lines, strict=True):
        if r.wave == wave:
            blocks[-1] += "\n" + line
        else:
            blocks.append(line)
            wave = r.wave
    return blocks


def current_day(obs: Observation) -> int:
    """The day ``history=compact`` keeps in full: today, or by night the day just ended."""
    return obs.day - 1 if obs.phase is Phase.NIGHT else obs.day


#: What a day's facts leave out: words, notes, proposals, the floor's traffic and the ballots' voters (the talk's).
_NOT_FACTS = (*SPEECH_KINDS, Kind.PASS, Kind.NOTE, Kind.WOLF_PROPOSAL, Kind.GAME_START, Kind.BIDS, Kind.FLOOR,
              Kind.SILENCE)


def day_facts(day: int, records: list[ViewRecord]) -> str:
    """One earlier night and day's facts: the moderator's lines and the seat's private results verbatim, with
    the final tally but not the first ballot's. The opening announcement (players, roles in play) is left to the
    system prompt, which states it; who spoke and who voted for whom are yesterday's talk (:func:`day_talk`), so
    a prompt late in a long game is not much longer than one on day 1 (docs/design.md, § Calls)."""
    lines = [f"--- Night {day} and day {day}, facts only ---"]
    for r in records:
        if r.kind in _NOT_FACTS or isinstance(r.data, Vote):
            continue
        if isinstance(r.data, Tally) and r.data.ballot == "first":
            continue
        lines.append(render_record(r))
    return "\n".join(lines)


def day_talk(day: int, records: list[ViewRecord]) -> str:
    """Yesterday in brief, beside its facts: who spoke and how often, each ballot as voter-to-target lists
    (the first ballot with its tally, which the facts leave out), and the seat's last private note that day."""
    speakers: dict[str, int] = {}
    ballots: dict[str, list[str]] = {}
    note = None
    lines = [f"--- Day {day}, in brief ---"]
    for r in records:
        if r.kind in SPEECH_KINDS:
            speakers[r.actor or "?"] = speakers.get(r.actor or "?", 0) + 1
        elif isinstance(r.data, Vote):
            ballots.setdefault(r.data.ballot, []).append(
                f"{r.actor}→{r.target}" if r.target else f"{r.actor} abstained")
        elif r.kind is Kind.NOTE:
            note = r.text
        elif isinstance(r.data, Tally) and r.data.ballot in ballots:
            label = {"first": "First ballot", "final": "Final ballot"}.get(r.data.ballot, "Ballot")
            # the day's facts give every tally but the first ballot's, so only that one is repeated here
            tally = f" {render_record(r)}" if r.data.ballot == "first" else ""
            lines.append(f"{label}: {', '.join(ballots.pop(r.data.ballot))}.{tally}")
    if speakers:
        lines.insert(1, _speakers_line(speakers))
    if note:
        lines.append(f"[Your last private note that day] {quote(note)}")
    return "\n".join(lines)


def _speakers_line(speakers: dict[str, int]) -> str:
    return "Spoke: " + ", ".join(f"{n}" + (f" ×{k}" if k > 1 else "") for n, k in speakers.items()) + "."


def render_records(records: Iterable[ViewRecord]) -> str:
    """Records in order under a heading per night and day."""
    return "\n".join(record_lines(records))


def record_lines(records: Iterable[ViewRecord], after: bool = False, numbered: bool = False) -> list[str]:
    """One line per record; the first record of each night and day carries its heading.

    ``after``: the lines follow other text, so even the first heading is set off by a blank line.
    ``numbered``: every statement, defence and vote reason opens with its number (``#57``), by which a
    call asks for its analysis instead of quoting it again.
    """
    lines: list[str] = []
    heading = None
    for r in records:
        h = f"Night {r.day}" if r.phase is Phase.NIGHT else f"Day {r.day}"
        line = f"{statement_id(r)} {render_record(r)}" if numbered and judged(r) else render_record(r)
        if h != heading:
            line = ("\n" if lines or after else "") + f"--- {h} ---\n{line}"
            heading = h
        lines.append(line)
    return lines


def judged(r: ViewRecord) -> bool:
    """Whether a record is a unit of analysis: a statement, a defence or a vote's reason."""
    return r.kind in SPEECH_KINDS or (r.kind is Kind.VOTE and bool(r.text))


def statement_id(r: ViewRecord) -> str:
    """How a numbered record names a statement: its index in the game's record."""
    return f"#{r.index}"


_PHASE_TURNS = {"debate": "debate", "explanation": "discussion"}
_BALLOT = {"vote": "the first ballot (not binding)", "revote": "the final revote, which decides the exile"}


#: Decisions that see the living listed: a speech may address anyone alive. A ballot or a night
#: action lists its options, and a bid or an analysis does not turn on who is alive.
_LISTS_THE_LIVING = (Action.STATEMENT, Action.DEFENCE)


def instruction(obs: Observation, structured: bool = True) -> str:
    """What to decide now, with the facts this decision needs that the record does not state.

    With ``structured`` (a response schema goes with the call) the reply's shape and the meaning
    of its fields are the schema's, so the prompt does not say them again; without it, the
    instruction ends with the JSON reply spelled out from the same field descriptions.
    """
    action = obs.action
    if action is Action.LESSONS:
        text = template("actions.lessons").template.strip()
    else:
        values: dict[str, object] = {
            "day": obs.day, "options": ", ".join(obs.options), "max_words": obs.max_statement_words,
            "phase": _PHASE_TURNS.get(obs.phase, obs.phase), "turn_number": obs.turn + 1,
            "max_turns": obs.phase_turns,
            "ballot": (_BALLOT.get(obs.phase, "the vote") if VARIANTS[obs.variant].two_ballots
                       else "the vote, which decides the exile"),
            "suspicion": _suspicion_line(obs),
        }
        if action in (Action.SELF_ANALYSIS, Action.PEER_ANALYSIS):
            values.update(analysis_values(obs))
        text = template(f"actions.{action}").substitute(values).strip()
        if action in _LISTS_THE_LIVING:
            text = f"Alive now ({len(obs.alive)}): {', '.join(obs.alive)}.\n{text}"
        elif action is Action.VOTE:
            text = f"{len(obs.alive)} players are alive; an exile needs {len(obs.alive) // 2 + 1} votes.\n{text}"
    return text if structured else f"{text}\n{reply_format(action)}"


def reply_format(action: Action) -> str:
    """The JSON reply in words, for a call that goes without a response schema."""
    fields = REPLY_SCHEMAS[action].model_fields
    return "Reply with only a JSON object: {" + ", ".join(
        f'"{name}": <{field.description}>' for name, field in fields.items()) + "}"


def _suspicion_line(obs: Observation) -> str:
    if not obs.suspicion:
        return ""
    scores = ", ".join(f"{n} {s:.2f}" for n, s in obs.suspicion.items())
    return ("\nYour suspicion of each, smoothed over your private ratings of their statements"
            f" (0 trusted, 1 surely deceiving the village, 0.50 unrated or undecided): {scores}.")


def analysis_values(obs: Observation) -> dict[str, object]:
    said = next(r for r in obs.records if r.index == obs.subject)
    kind = {Kind.STATEMENT: "debate statement", Kind.DEFENCE: "defence", Kind.VOTE: "vote reason"}[said.kind]
    if said.kind is Kind.STATEMENT and said.phase is Phase.EXPLANATION:
        kind = "statement in the discussion before the revote"
    return {"statement": render_record(said), "statement_kind": kind, "speaker": said.actor, "day": said.day}


def sections(obs: Observation) -> dict[str, str]:
    """What a seat's prompt says before its call's instruction, by section, for measuring it: the
    rules, the role and the record (a call's whole prompt: ``wolf_eval.agents.seat_call.call_sections``)."""
    return {"rules": rules_text(obs), "role": role_text(obs), "record": f"{RECORD_HEADING}\n{record_text(obs)}"}


RECORD_HEADING = "The game so far, as you have seen it:"


def record_prompt(obs: Observation, cache_mark: bool = False) -> list[ContentText]:
    """The record heading and the record's blocks, each ending its own line, as shared prompt blocks.

    ``cache_mark``: two blocks are marked as the end of a prefix for a provider to cache (Anthropic's
    ``cache_control``): the last, the prefix the seat's next call repeats, and the last of the record's
    settled blocks (:func:`settled_blocks`), if any, the prefix the seat's every later call repeats, its
    first call of the next day too.
    """
    blocks, settled = _record(obs)
    texts = [f"{b}\n" for b in (RECORD_HEADING, *blocks)]
    marks = {len(texts) - 1, settled} - {0} if cache_mark else set()
    return [text_block(t, i in marks) for i, t in enumerate(texts)]
