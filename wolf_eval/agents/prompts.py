"""Turn an Observation into chat messages, from the template files in ``wolf_eval/prompts``.

Layout is stable-first for provider prompt caches: the system message (rules,
character, role) never changes for a seat; the user message is the seat's
record in order, then the instruction for this one decision.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from importlib.resources import files
from string import Template

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

from wolf_eval.agents.observation import Observation, metadata_view
from wolf_eval.engine import Action, Phase
from wolf_eval.records import SPEECH_KINDS, GameStart, Kind, Tally, ViewRecord, Vote

METADATA_KEY = "wolf_eval"

_JESTER_WARNING = (
    " Beware the Jester: a player who seems to court suspicion may be the Jester, who wins alone if exiled."
    " Exiling the Jester ends the game with a loss for you, so do not vote someone out just because they look suspicious."
)
_JESTER_WARNING_WOLF = (
    " Beware the Jester: if the village exiles the Jester, the Jester wins and you lose."
    " A loud, suspicious player outside your pack may be the Jester; think twice before helping to exile them."
)


_ROLE_NAMES = {
    "villager": ("Villager", "Villagers"), "werewolf": ("Werewolf", "Werewolves"), "seer": ("Seer", "Seers"),
    "doctor": ("Doctor", "Doctors"), "jester": ("Jester", "Jesters"),
}


@cache
def template(name: str) -> Template:
    return Template(files("wolf_eval.prompts").joinpath(f"{name}.txt").read_text(encoding="utf-8"))


def quote(text: str) -> str:
    """A player's words as one quoted line, so speech cannot pose as the moderator.

    All Unicode whitespace (including line and paragraph separators) folds to
    single spaces, and the speaker's own quotes are escaped.
    """
    return json.dumps(" ".join(text.split()), ensure_ascii=False)


def _roles_in_play(obs: Observation) -> dict[str, int]:
    for r in obs.records:
        if isinstance(r.data, GameStart):
            return dict(r.data.roles_in_play)
    return {}


def system_prompt(obs: Observation) -> str:
    roles = _roles_in_play(obs)
    has_jester = roles.get("jester", 0) > 0
    has_seer = roles.get("seer", 0) > 0
    village = "Villagers, Doctor" + (", Seer" if has_seer else "")
    win = (f"the village ({village}) wins when no Werewolf is alive. The Werewolves win when the living Werewolves"
           f" are at least as many as the living village players{' (the Jester does not count)' if has_jester else ''}.")
    if has_jester:
        win += (" The Jester wins alone, at once, if exiled by vote, and both other sides then lose;"
                " a Jester killed at night or alive at the end loses.")
    defence = ""
    if obs.variant in ("triadic", "dyadic"):
        defence = (f"\n- Defence: every player who received a vote defends themselves once, most-voted first;"
                   f" the discussion continues with open bid-and-speak turns, up to {obs.max_explanation_turns}"
                   f" turns in all; then a final revote. Only the final vote decides the exile.")
    rules = template("rules").substitute(
        n_players=len(obs.players), players=", ".join(obs.players),
        roles_in_play=", ".join(f"{n} {_ROLE_NAMES[role][n > 1]}" for role, n in roles.items()),
        seer_rule=" The Seer secretly investigates one player and learns whether they are a Werewolf." if has_seer else "",
        dead_roles="announced" if obs.reveal_roles else "kept secret",
        max_debate_turns=obs.max_debate_turns, defence_rule=defence, win_rules=win, max_days=obs.max_days,
    )
    character = template("character").substitute(seat=obs.seat).strip()
    pack = (f"Your fellow Werewolves: {', '.join(obs.fellow_wolves)}." if obs.fellow_wolves
            else "You are the only Werewolf left (or the only one dealt): you hunt alone.")
    role = template(f"role_{obs.role.value}").substitute(
        pack=pack,
        jester_warning=_JESTER_WARNING if has_jester else "",
        jester_warning_wolf=_JESTER_WARNING_WOLF if has_jester else "",
    )
    return f"{rules.strip()}\n\n{character}\n\nYou are {obs.seat}. {role.strip()}{_lessons_block(obs)}"


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
    if r.kind in SPEECH_KINDS:
        verb = "said in their defence" if r.kind is Kind.DEFENCE else "said"
        return f"{r.actor} {verb}: {quote(r.text or '')}"
    if r.kind is Kind.VOTE:
        if r.target is None:
            return f"{r.actor} abstained."
        return f"{r.actor} voted for {r.target}" + (f": {quote(r.text)}" if r.text else ".")
    if r.kind is Kind.WOLF_PROPOSAL:
        return f"[Wolves' channel] {r.actor} proposed killing {r.target}" + (f": {quote(r.text)}" if r.text else ".")
    if r.kind is Kind.WOLF_CHOICE:
        return f"[Wolves' channel] Moderator: {r.text}"
    if r.kind is Kind.NOTE:
        return f"[Your private note] {quote(r.text or '')}"
    if r.kind is Kind.PROTECT:
        return f"[Private] Moderator: you protected {r.target} tonight."
    if r.kind is Kind.INVESTIGATE:
        return f"[Private] Moderator: your investigation shows that {r.text}"
    if r.kind is Kind.ROLE:
        return f"[Private] Moderator: {r.text}"
    return f"Moderator: {r.text}"


def record_text(obs: Observation) -> str:
    """The seat's record: every record in full, or with ``history=compact`` a running summary.

    Compact: the current day (by night, the day just ended, so the pack and the Doctor still
    read its words) and everything after it in full; each earlier night and day as a short
    paragraph. Built only from the records the seat saw, so the information set is the same; a
    seat's prompts keep one stable prefix for a whole day.
    """
    if obs.history != "compact":
        return render_records(obs.records)
    current = current_day(obs)
    earlier = sorted({r.day for r in obs.records if r.day < current})
    parts = [day_summary(obs, day, [r for r in obs.records if r.day == day]) for day in earlier]
    parts.append(render_records([r for r in obs.records if r.day >= current]))
    return "\n\n".join(p for p in parts if p)


def current_day(obs: Observation) -> int:
    """The day ``history=compact`` keeps in full: today, or by night the day just ended."""
    return obs.day - 1 if obs.phase is Phase.NIGHT else obs.day


def day_summary(obs: Observation, day: int, records: list[ViewRecord]) -> str:
    """One earlier night and day: moderator lines and the seat's private results verbatim, who spoke
    and how often, the ballots as voter-to-target lists, and the seat's last private note. The
    opening announcement (players, roles in play) is left to the system prompt, which states it."""
    lines = [f"--- Night {day} and day {day}, in brief ---"]
    speakers: dict[str, int] = {}
    ballots: dict[str, list[str]] = {}
    note = None
    for r in records:
        if r.kind in SPEECH_KINDS:
            speakers[r.actor or "?"] = speakers.get(r.actor or "?", 0) + 1
        elif isinstance(r.data, Vote):
            ballots.setdefault(r.data.ballot, []).append(
                f"{r.actor}→{r.target}" if r.target else f"{r.actor} abstained")
        elif r.kind is Kind.NOTE:
            note = r.text
        elif r.kind not in (Kind.WOLF_PROPOSAL, Kind.GAME_START):
            if speakers:
                lines.append(_speakers_line(speakers))
                speakers = {}
            if isinstance(r.data, Tally) and r.data.ballot in ballots:
                label = {"first": "First ballot", "final": "Final ballot"}.get(r.data.ballot, "Ballot")
                lines.append(f"{label}: {', '.join(ballots.pop(r.data.ballot))}. {render_record(r)}")
            else:
                lines.append(render_record(r))
    if speakers:
        lines.append(_speakers_line(speakers))
    if note:
        lines.append(f"[Your last private note that day] {quote(note)}")
    return "\n".join(lines)


def _speakers_line(speakers: dict[str, int]) -> str:
    return "Spoke: " + ", ".join(f"{n}" + (f" ×{k}" if k > 1 else "") for n, k in speakers.items()) + "."


def render_records(records: Iterable[ViewRecord]) -> str:
    """Records in order under a heading per night and day."""
    lines: list[str] = []
    heading = None
    for r in records:
        h = f"Night {r.day}" if r.phase is Phase.NIGHT else f"Day {r.day}"
        if h != heading:
            lines.append(f"\n--- {h} ---")
            heading = h
        lines.append(render_record(r))
    return "\n".join(lines).strip()


_PHASE_TURNS = {"debate": "debate", "explanation": "discussion"}
_BALLOT = {
    "vote": "the first vote. It is not binding: everyone who gets a vote then defends themselves,"
            " and a final revote decides the exile",
    "revote": "the final revote, which decides the exile",
}


def instruction(obs: Observation) -> str:
    action = obs.action
    values: dict[str, object] = {
        "day": obs.day, "options": ", ".join(obs.options), "max_words": obs.max_statement_words,
        "phase": _PHASE_TURNS.get(obs.phase, obs.phase), "turn_number": obs.turn + 1,
        "max_turns": obs.phase_turns,
        "ballot": _BALLOT.get(obs.phase, "the vote") if obs.variant != "wolf" else "the vote, which decides the exile",
        "suspicion": _suspicion_line(obs),
    }
    if action in ("self_analysis", "peer_analysis"):
        values.update(_analysis_values(obs))
    if action is Action.LESSONS:
        return template("action_lessons").template.strip()
    alive = f"Alive now ({len(obs.alive)}): {', '.join(obs.alive)}."
    if obs.phase != "night":
        alive += f" An exile needs {len(obs.alive) // 2 + 1} votes."
    return alive + "\n" + template(f"action_{action}").substitute(values)


def _suspicion_line(obs: Observation) -> str:
    if not obs.suspicion:
        return ""
    scores = ", ".join(f"{n} {s:.2f}" for n, s in obs.suspicion.items())
    return ("\nYour suspicion of each player, smoothed over your own private ratings of their statements"
            f" (0 = you trust them, 1 = certainly deceiving the village; 0.50 = not rated yet or undecided): {scores}.")


def _analysis_values(obs: Observation) -> dict[str, object]:
    said = next(r for r in obs.records if r.index == obs.subject)
    kind = {Kind.STATEMENT: "a debate statement", Kind.DEFENCE: "a defence", Kind.VOTE: "a vote reason"}[said.kind]
    if said.kind is Kind.STATEMENT and said.phase is Phase.EXPLANATION:
        kind = "a statement in the discussion before the revote"
    extra = template("taxonomy_triadic").template if len(obs.taxonomy) > 5 else ""
    return {
        "statement": render_record(said), "statement_kind": kind, "speaker": said.actor,
        "day": said.day, "taxonomy": template("taxonomy").template + extra, "types": ", ".join(obs.taxonomy),
    }


def build_messages(obs: Observation, ref: str | None = None) -> list[ChatMessage]:
    """System prompt, then the record and the instruction; ``ref`` is the in-flight id of ``obs``."""
    record = record_text(obs)
    user = f"The game so far, as you have seen it:\n{record}\n\n{instruction(obs)}"
    return [
        ChatMessageSystem(content=system_prompt(obs)),
        ChatMessageUser(content=user, metadata={METADATA_KEY: metadata_view(obs, ref)}),
    ]
