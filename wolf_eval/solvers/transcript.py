"""What a person sees of a game in ``inspect view``: the outline's span names, one line per record
and the public record as a chat.

The game loop (``play.py``) opens the spans and ``outline.py`` puts each line under its own; the
words come from here. A
player's words are quoted as the prompts quote them (``agents/prompts.py``), so they read the same
in the viewer as at the table.
"""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser

from wolf_eval.agents.prompts import quote, render_record
from wolf_eval.engine import Action, GameState, Phase, Record, Request
from wolf_eval.records import (
    PUBLIC,
    SPEECH_KINDS,
    Bids,
    Deception,
    FallbackNote,
    Floor,
    Kind,
    NightResult,
    Speech,
    Vote,
    view,
)

#: The transcript's outline under each night and day: one span per phase, one per debate turn.
PHASE_SPANS = {Phase.DEBATE: "debate", Phase.VOTE: "ballot", Phase.DEFENCE: "defences",
               Phase.EXPLANATION: "discussion", Phase.REVOTE: "revote"}


def block_of(state: GameState, requests: list[Request]) -> str:
    """The span a wave belongs to, "night N" or "day N" (its phases are ``outline.py``'s)."""
    phase = requests[0].phase if requests else state.phase
    return f"{'night' if phase is Phase.NIGHT else 'day'} {state.day}"


def speech_span(request: Request) -> str:
    """The span of one speech: a debate turn by its number and speaker, a defence by its speaker.

    Args:
        request: the statement or defence that opens the span.
    """
    if request.action is Action.STATEMENT:
        return f"turn {request.turn + 1} ({request.seat})"
    return request.seat


#: An info event in the transcript is one line of at most this many characters.
LINE_CHARS = 300


def describe(r: Record, roles: dict[str, str]) -> str:
    """One readable markdown line per record, as an omniscient reader of the game wants it: who
    (with their role), what, and on which day."""
    who = r.actor or ""
    d = r.data
    role = f" ({roles[who].title()})" if who in roles else ""
    if r.kind in SPEECH_KINDS:
        label = {Kind.DEFENCE: ", in defence", Kind.STATEMENT: ""}.get(r.kind, "")
        return _line(f"Day {r.day} · **{who}**{role}{label}: {quote(r.text or '')}")
    if isinstance(d, Vote):
        ballot = {"first": "First ballot", "final": "Final ballot"}.get(d.ballot, "Ballot")
        choice = f"→ {r.target}" + (f": {quote(r.text)}" if r.text else "") if r.target else "abstains"
        return _line(f"{ballot} · **{who}**{role} {choice}")
    if isinstance(d, Bids):
        return _line("Bids: " + ", ".join(f"{n} {b}" for n, b in d.bids.items()))
    if isinstance(d, Floor):
        return _line(f"**{who}** takes the floor (bid {d.bid})")
    if isinstance(d, FallbackNote):
        return _line(f"⚠ fallback for **{who}**{role} ({d.action}): {r.text}")
    if isinstance(d, NightResult):
        return _line(f"Night {r.day}: the wolves attacked {d.victim or 'nobody'}; "
                     f"the Doctor protected {d.protected or 'nobody'}")
    if isinstance(d, Deception):
        return describe_analysis(r, d)
    if r.kind in _PRIVATE_LINES:
        return _line(f"[{who}{role}] {_PRIVATE_LINES[r.kind](r)}")
    return _line(render_record(view(r)))


def _line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS - 1] + "…"


_PRIVATE_LINES: dict[Kind, Callable[[Record], str | None]] = {
    Kind.PROTECT: lambda r: f"protects {r.target}",
    Kind.INVESTIGATE: lambda r: f"investigates: {r.text}",
    Kind.NOTE: lambda r: f"private note: {quote(r.text or '')}",
    Kind.ROLE: lambda r: r.text,
    Kind.STANCE: lambda r: f"stance for day {r.day}: {getattr(r.data, 'stance', '?')}",
    Kind.WITHHELD: lambda r: (f"withheld ({getattr(r.data, 'why', '?')}): {quote(getattr(r.data, 'said', ''))}"
                              + ("; asked again" if getattr(r.data, "asked_again", False) else "")),
}


def describe_analysis(r: Record, d: Deception) -> str:
    """One line per analysed statement: the speaker's own label and what the others made of it."""
    own = d.self
    label = "missing" if own is None else (
        f"{'deceptive, ' + own.deception_type if own.is_deceptive else 'honest'} {own.confidence:.2f}")
    peers = [a for a in d.peers.values() if a is not None]
    if peers:
        rated = [a.suspicion for a in peers if a.suspicion is not None]
        mean = f"{sum(rated) / len(rated):.2f}" if rated else "n/a"
        others = f"{sum(a.is_deceptive for a in peers)}/{len(peers)} peers flag it · mean suspicion {mean}"
    else:
        others = "no peer analysis"
    missing = f" · {len(d.missing)} missing" if d.missing else ""
    kind = {Kind.STATEMENT: "statement", Kind.DEFENCE: "defence", Kind.VOTE: "vote reason"}.get(d.kind, d.kind.value)
    return _line(f"🔎 **{r.actor}** ({d.speaker_role.title()}) day-{d.statement_day} {kind} {d.position + 1}:"
                 f" self {label} · {others}{missing}")


#: What the Messages tab calls each phase's public statements.
SPEECH_LABELS = {Phase.DEBATE: "debate", Phase.EXPLANATION: "discussion", Phase.DEFENCE: "defence"}
BALLOT_LABELS = {"first": "first ballot", "final": "final ballot", "only": "ballot"}


def public_chat(game: GameState, roles: dict[str, str]) -> list[ChatMessage]:
    """The game's public record as a chat for the viewer's Messages tab.

    Every public statement is its speaker's message, headed by the speaker's name and role, the day
    and its kind (debate turn, discussion turn, defence or vote reason, with the vote); the
    moderator's announcements (deaths, tallies, exiles) are the moderator's. The viewer heads each
    message by its chat role (ASSISTANT, USER), which Inspect does not let a message rename, so the
    name leads the text.
    """
    chat: list[ChatMessage] = []
    for r in game.records:
        if r.visibility != PUBLIC or r.kind in (Kind.BIDS, Kind.FLOOR, Kind.PASS, Kind.DECEPTION, Kind.FALLBACK):
            continue
        said = public_statement(r, roles)
        if said is not None:
            chat.append(ChatMessageAssistant(content=said))
        else:
            when = f"night {r.day}" if r.phase is Phase.NIGHT else f"day {r.day}"
            chat.append(ChatMessageUser(content=f"**Moderator** · {when}: {r.text}"))
    return chat


def public_statement(r: Record, roles: dict[str, str]) -> str | None:
    """A player's public words, headed by who said them, on which day, and in what kind of statement."""
    who = f"**{r.actor}** ({roles.get(r.actor or '', '?').title()}) · day {r.day}"
    d = r.data
    if r.kind in SPEECH_KINDS:
        label = SPEECH_LABELS.get(r.phase, r.phase.value)
        if isinstance(d, Speech) and r.kind is Kind.STATEMENT:
            label += f", turn {d.turn + 1}"
        return f"{who} · {label}: {quote(r.text or '')}"
    if isinstance(d, Vote):
        choice = f"votes for {r.target}" if r.target else "abstains"
        reason = f": {quote(r.text)}" if r.text else ""
        return f"{who} · vote reason, {BALLOT_LABELS.get(d.ballot, d.ballot)}, {choice}{reason}"
    return None


def emit(records: tuple[Record, ...], roles: dict[str, str]) -> None:
    """One one-line markdown transcript event per record, in record order (``wolf-eval export`` pairs them)."""
    for r in records:
        transcript().info(describe(r, roles), source=f"wolf_eval/{r.kind.value}")
