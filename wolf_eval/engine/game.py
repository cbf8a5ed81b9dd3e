"""The rules (docs/design.md, § Rules) as a pure state machine.

``pending(state)`` lists the decisions the game waits for (one concurrent wave);
``advance(state, decisions)`` checks them against the rules and returns the next
state. No model calls, no Inspect: a test, a replay or a property test drives
the game by feeding decisions.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from wolf_eval.engine.config import GameConfig
from wolf_eval.engine.rng import derive_rng
from wolf_eval.engine.seating import by_seat, fixed_key, seat_names
from wolf_eval.engine.state import (
    ANALYSIS_ACTIONS,
    NEW_WEIGHT,
    NIGHT_ACTIONS,
    PRIOR_SUSPICION,
    Action,
    Decision,
    Fallback,
    GameState,
    Outcome,
    Phase,
    Player,
    Record,
    Request,
)
from wolf_eval.records import (
    AnyPayload,
    Ballot,
    Bids,
    Death,
    Deception,
    Empty,
    Exile,
    FallbackNote,
    Floor,
    GameOver,
    GameStart,
    Investigate,
    Kind,
    NightResult,
    NoExile,
    Pass,
    Protect,
    RoleDealt,
    Speech,
    Stance,
    Tally,
    Vote,
    Withheld,
    WolfChoice,
)
from wolf_eval.vocabulary import FACTION_OF, STANCES, Faction, Role, Winner

#: Seed of the fixed name-to-role mapping used when ``shuffle_roles`` is false.
FIXED_LAYOUT_SEED = 0


class IllegalAction(ValueError):
    """A decision the rules do not allow; the message says which rule."""


# --------------------------------------------------------------------------- setup


def new_game(config: GameConfig, seed: int) -> GameState:
    """Seat the players and deal the roles; the game opens on night 1."""
    roles: list[Role] = [role for role, n in config.roster.items() for _ in range(n)]
    roles.sort(key=lambda r: list(Role).index(r))
    layout_seed = seed if config.shuffle_roles else FIXED_LAYOUT_SEED
    derive_rng(layout_seed, "roles").shuffle(roles)
    if config.jester_as_villager:
        roles = [Role.VILLAGER if r is Role.JESTER else r for r in roles]
    drawn = seat_names(config.seating, seed, len(roles))
    players = tuple(Player(name=drawn[i], seat=i, role=r) for i, r in enumerate(roles))
    names = [p.name for p in players]
    suspicion = {o: {t: PRIOR_SUSPICION for t in names if t != o} for o in names} if config.deception_analysis else {}
    state = GameState(config=config, seed=seed, players=players, suspicion=suspicion)

    counts = Counter(roles)
    in_play = ", ".join(
        f"{counts[role]} {_plural(role) if counts[role] > 1 else role.value}" for role in Role if counts[role]
    )
    records: list[Record] = []
    state = _add(state, records, Kind.GAME_START,
                 text=f"The game begins with {len(players)} players: {', '.join(state.names)}. "
                      f"Roles in play: {in_play}.",
                 data=GameStart(players=list(state.names),
                                roles_in_play={r: counts[r] for r in Role if counts[r]}))
    wolves = state.wolves()
    for p in players:
        dealt = RoleDealt(role=p.role)
        text = f"Your role is {p.role.value}."
        if p.role is Role.WEREWOLF:
            mates = [w for w in wolves if w != p.name]
            dealt = RoleDealt(role=p.role, fellow_wolves=mates)
            text += f" Your fellow werewolves: {', '.join(mates) if mates else 'none'}."
        state = _add(state, records, Kind.ROLE, actor=p.name, text=text, data=dealt)
    return _commit(state, records, phase=Phase.NIGHT, day=1, turn=0)


def _plural(role: Role) -> str:
    return "werewolves" if role is Role.WEREWOLF else role.value + "s"


# --------------------------------------------------------------------------- pending


def pending(state: GameState) -> list[Request]:
    """The decisions the game waits for now, all answerable concurrently."""
    if state.over:
        return []
    day, phase, turn = state.day, state.phase, state.turn
    living = state.living_names

    def req(seat: str, action: Action, options: Iterable[str] = (), subject: int | None = None,
            withheld: bool = False) -> Request:
        return Request(seat=seat, action=action, day=day, phase=phase, turn=turn, options=tuple(options),
                       subject=subject, withheld=withheld)

    if state.analysis_queue:
        out = []
        for idx in state.analysis_queue:
            said = state.records[idx]
            speaker = said.actor
            assert speaker is not None
            turn_said = said.data.turn if isinstance(said.data, Speech) else 0
            seats = [speaker] + [o for o in living if o != speaker]
            out += [Request(seat=o, action=Action.SELF_ANALYSIS if o == speaker else Action.PEER_ANALYSIS,
                            day=said.day, phase=said.phase, turn=turn_said, subject=idx) for o in seats]
        if overlaps_analysis(state):
            out += _speaking(state, req)
        return out

    if state.stance_waiting:
        return [req(p.name, Action.STANCE, STANCES) for p in state.living_with(Role.WEREWOLF)]
    if phase is Phase.NIGHT:
        return [req(p.name, NIGHT_ACTION[p.role], legal_names(state, p.name, NIGHT_ACTION[p.role]))
                for role in NIGHT_ACTION for p in state.living_with(role)]
    if phase in SPEAKING_PHASES:
        return _speaking(state, req)
    if phase in (Phase.VOTE, Phase.REVOTE):
        return [req(n, Action.VOTE, legal_names(state, n, Action.VOTE)) for n in living]
    return []


#: The night action of each role that has one, in the order the night asks them.
NIGHT_ACTION = {Role.WEREWOLF: Action.NIGHT_KILL, Role.DOCTOR: Action.PROTECT, Role.SEER: Action.INVESTIGATE}


def legal_names(state: GameState, seat: str, action: Action, among: Sequence[str] | None = None) -> tuple[str, ...]:
    """Whom ``seat`` may name now in ``action``, in the order of ``among`` (the living, in seat order, if not
    given; every player: whom it could name on some day): the Werewolves' prey is every non-wolf; the Doctor
    protects anyone, itself too; the Seer investigates, and every voter votes for, another player."""
    names = state.living_names if among is None else tuple(among)
    if action is Action.NIGHT_KILL:
        wolves = {p.name for p in state.players if p.role is Role.WEREWOLF}
        return tuple(n for n in names if n not in wolves)
    if action is Action.PROTECT:
        return names
    if action in (Action.INVESTIGATE, Action.VOTE):
        return tuple(n for n in names if n != seat)
    return ()


SPEAKING_PHASES = (Phase.DEBATE, Phase.EXPLANATION, Phase.DEFENCE)


def overlaps_analysis(state: GameState) -> bool:
    """Whether the next speaking wave runs alongside the analyses of the statement before it.

    Bids, statements and defences see only the public record and the seat's own notes, never
    an analysis (those go to the moderator's record), so they need not wait for one. A ballot
    shows each voter its suspicion scores, which the analyses update, so it waits.
    """
    return bool(state.analysis_queue) and not state.ballot_waiting and state.phase in SPEAKING_PHASES


def _speaking(state: GameState, req: Callable[..., Request]) -> list[Request]:
    if state.floor is None and state.phase is not Phase.DEFENCE:
        return [req(n, Action.BID) for n in state.living_names]
    assert state.floor is not None
    action = Action.DEFENCE if state.phase is Phase.DEFENCE else Action.STATEMENT
    return [req(state.floor, action, withheld=_asked_again(state, state.floor))]


def fallback_decision(state: GameState, request: Request, reason: str, raw: str) -> Decision:
    """The conservative default of docs/design.md, § Agents and actions for a reply that could not be used.

    Bid 0, pass the turn, abstain; night targets drawn by the seeded RNG among
    legal targets so a broken model cannot steer the night; an analysis is
    recorded as missing (never as "honest").
    """
    bid = 0 if request.action is Action.BID else None
    target = None
    if request.action in NIGHT_ACTIONS:
        rng = derive_rng(state.seed, "fallback", fixed_key(state, request))
        target = rng.choice(by_seat(state, request.options))
    return Decision(seat=request.seat, action=request.action, target=target, bid=bid, subject=request.subject,
                    fallback=Fallback(reason=reason, raw=raw))


# --------------------------------------------------------------------------- advance


def advance(state: GameState, decisions: Sequence[Decision]) -> GameState:
    """Apply one wave of decisions; raises IllegalAction if any breaks a rule."""
    if state.over:
        raise IllegalAction("the game is over")
    requests = pending(state)
    matched = _match(requests, decisions)
    by_seat = {seat: d for (seat, action, _), d in matched.items() if action not in ANALYSIS_ACTIONS}
    records: list[Record] = []
    before = state
    for d in decisions:
        if d.fallback is not None:
            state = _add(state, records, Kind.FALLBACK, actor=d.seat, text=d.fallback.reason,
                         data=FallbackNote(action=d.action, raw=d.fallback.raw, subject=d.subject))

    if state.analysis_queue:
        state = _analyses(state, records, {k: d for k, d in matched.items() if k[1] in ANALYSIS_ACTIONS})
        records = []
    phase = state.phase
    if not by_seat:
        nxt = state
    elif state.stance_waiting:
        nxt = _stances(state, records, by_seat)  # by_seat: the decisions, by seat
    elif phase is Phase.NIGHT:
        nxt = _night(state, records, by_seat)
    elif phase in (Phase.DEBATE, Phase.EXPLANATION) and state.floor is None:
        nxt = _bids(state, records, by_seat)
    elif phase in (Phase.DEBATE, Phase.EXPLANATION, Phase.DEFENCE):
        assert state.floor is not None
        nxt = _speech(state, records, by_seat[state.floor])
    else:
        nxt = _ballot(state, records, by_seat)
    nxt = _with_notes(nxt, before, decisions)
    wave = before.waves + 1
    stamped = tuple(r.model_copy(update={"wave": wave}) for r in nxt.records[len(before.records):])
    return nxt.model_copy(update={"records": before.records + stamped, "waves": wave})


def _with_notes(nxt: GameState, before: GameState, decisions: Sequence[Decision]) -> GameState:
    """Private notes follow the public consequences of the decisions they came with."""
    base = len(nxt.records)
    noted = [(d.seat, d.notes) for d in decisions if d.notes and d.notes.strip()]
    notes = tuple(Record(index=base + i, day=before.day, phase=before.phase, kind=Kind.NOTE,
                         actor=seat, text=bound_words(text, NOTE_WORDS)[0])
                  for i, (seat, text) in enumerate(noted))
    return nxt.model_copy(update={"records": nxt.records + notes}) if notes else nxt


Slot = tuple[str, Action, int | None]


def _match(requests: list[Request], decisions: Sequence[Decision]) -> dict[Slot, Decision]:
    """Pair each decision with its request: (seat, action, subject) identifies a slot."""
    wanted: dict[Slot, Request] = {(r.seat, r.action, r.subject): r for r in requests}
    matched: dict[Slot, Decision] = {}
    for d in decisions:
        slot = (d.seat, d.action, d.subject)
        r = wanted.get(slot)
        if r is None:
            about = f" about record {d.subject}" if d.subject is not None else ""
            raise IllegalAction(f"{d.seat} may not {d.action.value}{about} now (not pending)")
        if slot in matched:
            raise IllegalAction(f"{d.seat} decided twice")
        _check(r, d)
        matched[slot] = d
    missing = [r.seat for r in requests if (r.seat, r.action, r.subject) not in matched]
    if missing:
        raise IllegalAction(f"waiting for {', '.join(missing)}")
    return matched


def _check(r: Request, d: Decision) -> None:
    if r.action is Action.BID:
        if d.bid is None or not 0 <= d.bid <= 10:
            raise IllegalAction(f"{d.seat}: bid must be an integer 0-10, got {d.bid!r}")
    elif r.action in NIGHT_ACTIONS:
        if d.target not in r.options:
            raise IllegalAction(f"{d.seat}: {r.action.value} target {d.target!r} is not one of {list(r.options)}")
    elif r.action is Action.STANCE:
        if d.fallback is None and d.target not in r.options:
            raise IllegalAction(f"{d.seat}: stance {d.target!r} is not one of {list(r.options)}")
    elif r.action is Action.VOTE:
        if d.target is not None and d.target not in r.options:
            raise IllegalAction(f"{d.seat}: vote for {d.target!r} is not one of {list(r.options)}")
    elif r.action in ANALYSIS_ACTIONS and d.analysis is None and d.fallback is None:
        raise IllegalAction(f"{d.seat}: an analysis may be missing only as a recorded fallback")
    elif r.action in ANALYSIS_ACTIONS and d.analysis is not None:
        peer = r.action is Action.PEER_ANALYSIS
        if peer and d.analysis.suspicion is None:
            raise IllegalAction(f"{d.seat}: a peer analysis needs a suspicion score")
        if not peer and d.analysis.suspicion is not None:
            raise IllegalAction(f"{d.seat}: a self-analysis has no suspicion score")


# --------------------------------------------------------------------------- night


def _night(state: GameState, records: list[Record], by_seat: dict[str, Decision]) -> GameState:
    day = state.day
    proposals = [(s, d) for s, d in by_seat.items() if d.action is Action.NIGHT_KILL]
    for seat, d in proposals:
        reason = bound_words(d.reason, state.config.max_statement_words)[0] if d.reason else None
        state = _add(state, records, Kind.WOLF_PROPOSAL, actor=seat, target=d.target, text=reason)
    victim = _plurality(state, [d.target for _, d in proposals if d.target],
                        derive_rng(state.seed, "night", day, "victim"))
    if victim is not None:
        unanimous = len({d.target for _, d in proposals}) == 1
        state = _add(state, records, Kind.WOLF_CHOICE, target=victim,
                     text=f"The werewolves' victim tonight: {victim}.", data=WolfChoice(unanimous=unanimous))

    protected = None
    for seat, d in by_seat.items():
        if d.action is Action.PROTECT:
            protected = d.target
            state = _add(state, records, Kind.PROTECT, actor=seat, target=d.target, text=d.reason,
                         data=Protect(self=d.target == seat))
        elif d.action is Action.INVESTIGATE:
            assert d.target is not None
            is_wolf = state.player(d.target).role is Role.WEREWOLF
            state = _add(state, records, Kind.INVESTIGATE, actor=seat, target=d.target,
                         text=f"{d.target} is {'a Werewolf' if is_wolf else 'not a Werewolf'}.",
                         data=Investigate(is_werewolf=is_wolf))

    saved = victim is not None and victim == protected
    state = _add(state, records, Kind.NIGHT_RESULT, target=victim,
                 data=NightResult(victim=victim, protected=protected, saved=saved))
    if victim is not None and not saved:
        state = _kill(state, victim)
        state = _add(state, records, Kind.DEATH, target=victim,
                     text=f"Dawn of day {day}: {victim} was killed during the night.{_revealed(state, victim)}",
                     data=Death(cause="night_kill", role=_role_if_revealed(state, victim)))
    else:
        state = _add(state, records, Kind.DAWN, text=f"Dawn of day {day}: nobody died during the night.")

    outcome = _win_check(state)
    if outcome:
        return _commit(state, records, outcome=outcome)
    first = Phase.DEBATE if state.config.max_debate_turns > 0 else Phase.VOTE
    return _commit(state, records, phase=first, turn=0, floor=None, stance_waiting=state.config.optional)


# --------------------------------------------------------------------------- stances (deception=optional)


#: What a wolf's private record says of its stance for the day.
_STANCE_TEXT = {
    "open": "Day {day}: you play open today: you may keep your role to yourself, but the moderator withholds any "
            "public words of yours that state something false.",
    "deceive": "Day {day}: you play to deceive today: you may say anything.",
}


def _stances(state: GameState, records: list[Record], decided: dict[str, Decision]) -> GameState:
    """Each living wolf's stance for the day, private to it; a reply that could not be used plays the day as dealt."""
    for seat in by_seat(state, decided):
        d = decided[seat]
        chosen = d.fallback is None and d.target in STANCES
        stance = d.target if chosen and d.target is not None else "deceive"
        state = _add(state, records, Kind.STANCE, actor=seat, text=_STANCE_TEXT[stance].format(day=state.day),
                     data=Stance(stance="open" if stance == "open" else "deceive", chosen=chosen))
    return _commit(state, records, stance_waiting=False)


def _withheld(state: GameState, d: Decision) -> bool:
    """Whether the moderator withholds these words: the speaker plays open today and they state something false."""
    return d.false is not None and state.stance(d.seat) == "open"


def _asked_again(state: GameState, seat: str) -> bool:
    """Whether ``seat``'s words at this turn were withheld once already, in the wave just played (the second time,
    silence stands instead). Only that wave's records, the record's last, are read."""
    if not state.config.optional:
        return False
    for r in reversed(state.records):
        if r.wave < state.waves:
            return False
        if r.kind is Kind.WITHHELD and r.actor == seat and isinstance(r.data, Withheld) and r.data.asked_again:
            return True
    return False


def _revealed(state: GameState, name: str) -> str:
    return f" {name} was a {state.player(name).role.value}." if state.config.reveal_roles else ""


def _role_if_revealed(state: GameState, name: str) -> Role | None:
    return state.player(name).role if state.config.reveal_roles else None


def _plurality(state: GameState, targets: list[str], rng: random.Random) -> str | None:
    """Most-named target; ties broken by the seeded RNG over the tie in seat order (so a drawn name
    never changes which seat a draw picks)."""
    if not targets:
        return None
    counts = Counter(targets)
    top = max(counts.values())
    tied = by_seat(state, (t for t, c in counts.items() if c == top))
    return tied[0] if len(tied) == 1 else rng.choice(tied)


# --------------------------------------------------------------------------- debate


def _bids(state: GameState, records: list[Record], by_seat: dict[str, Decision]) -> GameState:
    bids = {s: d.bid or 0 for s, d in by_seat.items()}
    state = _add(state, records, Kind.BIDS, data=Bids(bids=bids))
    top = max(bids.values())
    if top == 0:
        state = _add(state, records, Kind.SILENCE,
                     text=f"Nobody asks for the floor; the {state.phase.value} ends.")
        return _end_speaking_phase(state, records)
    tied = sorted((s for s, b in bids.items() if b == top), key=lambda n: state.player(n).seat)
    if len(tied) == 1:
        speaker = tied[0]
    else:
        mentioned = set(_last_mentions(state))
        weights = [2 if s in mentioned else 1 for s in tied]
        rng = derive_rng(state.seed, "floor", state.day, state.phase.value, state.turn)
        speaker = rng.choices(tied, weights=weights, k=1)[0]
    state = _add(state, records, Kind.FLOOR, actor=speaker, data=Floor(bid=top, tied=tied))
    return _commit(state, records, floor=speaker)


def _last_mentions(state: GameState) -> list[str]:
    """Names in the day's previous public statement (debate, defence or vote reason)."""
    for r in reversed(state.records):
        if r.day != state.day:
            break
        if isinstance(r.data, (Speech, Vote)):
            return list(r.data.mentions)
    return []


def mentions(text: str, names: Iterable[str]) -> list[str]:
    """Player names a text names, as whole words, case-insensitive."""
    low = text.lower()
    return [n for n in names if re.search(rf"\b{re.escape(n.lower())}\b", low)]


MAX_WORD_CHARS = 40
#: A private note is bounded like speech, so no reply can grow every later prompt of its seat without limit.
NOTE_WORDS = 80


def bound_words(text: str, limit: int) -> tuple[str, bool]:
    """At most ``limit`` words of at most MAX_WORD_CHARS characters each; True if anything was cut."""
    words = text.split()
    cut = len(words) > limit or any(len(w) > MAX_WORD_CHARS for w in words)
    words = [w if len(w) <= MAX_WORD_CHARS else w[:MAX_WORD_CHARS] + "…" for w in words[:limit]]
    return " ".join(words) + (" …" if len(text.split()) > limit else ""), cut


def _speech(state: GameState, records: list[Record], d: Decision) -> GameState:
    speaker = d.seat
    kind = Kind.DEFENCE if d.action is Action.DEFENCE else Kind.STATEMENT
    said: int | None = None
    if d.text and d.text.strip() and _withheld(state, d):
        assert d.false is not None
        again = not _asked_again(state, speaker)
        words = bound_words(d.text.strip(), state.config.max_statement_words)[0]
        text = (f"The moderator withheld your words, which state something false ({d.false}), and you play open "
                + ("today: speak again, with nothing false, or say nothing." if again else "today: you say nothing."))
        state = _add(state, records, Kind.WITHHELD, actor=speaker, text=text,
                     data=Withheld(action=d.action, said=words, why=d.false, asked_again=again))
        if again:
            return _commit(state, records)  # the floor stays: the same seat is asked again
        d = d.model_copy(update={"text": None})
    if d.text and d.text.strip():
        text, cut = bound_words(d.text.strip(), state.config.max_statement_words)
        state = _add(state, records, kind, actor=speaker, text=text,
                     data=Speech(mentions=mentions(text, [n for n in state.names if n != speaker]),
                                 truncated=cut, turn=state.turn))
        said = records[-1].index
    else:
        state = _add(state, records, Kind.PASS, actor=speaker,
                     text=f"{speaker} says nothing.", data=Pass(turn=state.turn))
    nxt = _after_speech(state, records)
    if said is not None and state.config.deception_analysis:
        return nxt.model_copy(update={"analysis_queue": (said,)})
    return nxt


def _after_speech(state: GameState, records: list[Record]) -> GameState:
    if state.phase is Phase.DEFENCE:
        queue = state.defence_queue[1:]
        if queue:
            return _commit(state, records, defence_queue=queue, floor=queue[0], turn=state.turn + 1)
        return _open_explanation(state, records, defended=state.turn + 1)
    turn = state.turn + 1
    cap = state.config.max_debate_turns if state.phase is Phase.DEBATE else state.explanation_turns
    if turn >= cap:
        return _end_speaking_phase(_commit(state, records, turn=turn, floor=None), [])
    return _commit(state, records, turn=turn, floor=None)


def _end_speaking_phase(state: GameState, records: list[Record]) -> GameState:
    nxt = Phase.VOTE if state.phase is Phase.DEBATE else Phase.REVOTE
    return _commit(state, records, phase=nxt, turn=0, floor=None)


def _open_explanation(state: GameState, records: list[Record], defended: int) -> GameState:
    """Defences use up explanation turns first; the rest are open bid-and-speak rounds."""
    open_turns = max(0, state.config.max_explanation_turns - defended)
    if open_turns == 0:
        return _commit(state, records, phase=Phase.REVOTE, turn=0, floor=None, defence_queue=())
    return _commit(state, records, phase=Phase.EXPLANATION, turn=0, floor=None,
                   defence_queue=(), explanation_turns=open_turns)


# --------------------------------------------------------------------------- ballots


def _ballot(state: GameState, records: list[Record], by_seat: dict[str, Decision]) -> GameState:
    final = state.phase is Phase.REVOTE or not state.config.has_defence
    ballot: Ballot = ("final" if final else "first") if state.config.has_defence else "only"
    living = state.living_names
    for seat in living:
        d = by_seat[seat]
        reason = (d.reason or "").strip() or None if d.target else None  # an abstention gives no reason
        if reason and _withheld(state, d):  # the vote stands; its false reason is not published
            assert d.false is not None
            state = _add(state, records, Kind.WITHHELD, actor=seat, data=Withheld(
                action=d.action, said=bound_words(reason, state.config.max_statement_words)[0], why=d.false,
                asked_again=False), text=f"The moderator withheld your vote's reason, which states something false "
                                         f"({d.false}), and you play open today: your vote stands without it.")
            reason = None
        if reason:
            reason, _ = bound_words(reason, state.config.max_statement_words)
        text = reason
        state = _add(state, records, Kind.VOTE, actor=seat, target=d.target, text=text,
                     data=Vote(ballot=ballot, mentions=mentions(reason or "", [n for n in state.names if n != seat])))
    tally = Counter(target for s in living if (target := by_seat[s].target))
    summary = ", ".join(f"{n} {c}" for n, c in tally.most_common()) or "no votes"
    label = f"Votes ({ballot} ballot)" if state.config.has_defence else "Votes"
    state = _add(state, records, Kind.TALLY, text=f"{label}: {summary}.",
                 data=Tally(ballot=ballot, tally=dict(tally), living=len(living),
                            abstained=[s for s in living if not by_seat[s].target]))
    reasons = tuple(r.index for r in records if r.kind is Kind.VOTE and r.text)
    if reasons and state.config.deception_analysis:
        return _commit(state, records, analysis_queue=reasons, ballot_waiting=True)
    return _resolve_ballot(state, records)


def _resolve_ballot(state: GameState, records: list[Record]) -> GameState:
    """Defences after a first ballot, the exile after a final one: read off the latest tally."""
    latest = next(r.data for r in reversed((*state.records, *records)) if isinstance(r.data, Tally))
    tally = Counter(latest.tally)
    if latest.ballot == "first":
        rng = derive_rng(state.seed, "defence", state.day)
        accused = list(tally)
        rng.shuffle(accused)
        accused.sort(key=lambda n: -tally[n])
        if not accused:
            return _open_explanation(state, records, defended=0)
        return _commit(state, records, phase=Phase.DEFENCE, turn=0, defence_queue=tuple(accused), floor=accused[0])
    return _exile(state, records, tally, latest.living)


# --------------------------------------------------------------------------- deception analysis


def _analyses(state: GameState, records: list[Record], matched: dict[Slot, Decision]) -> GameState:
    """Record each statement's self and peer labels and fold the peers' suspicion into the matrix."""
    matrix = {o: dict(row) for o, row in state.suspicion.items()}
    taxonomy = state.config.taxonomy
    seat_order = {p.name: p.seat for p in state.players}
    for d in matched.values():
        if d.analysis is not None and d.analysis.deception_type not in taxonomy:
            raise IllegalAction(f"{d.seat}: deception type {d.analysis.deception_type!r} "
                                f"is not one of {list(taxonomy)}")
    for idx in state.analysis_queue:
        said = state.records[idx]
        speaker = said.actor
        assert speaker is not None
        own = matched[(speaker, Action.SELF_ANALYSIS, idx)]
        peers = sorted(((seat, d) for (seat, action, subject), d in matched.items()
                        if action is Action.PEER_ANALYSIS and subject == idx), key=lambda sd: seat_order[sd[0]])
        for observer, d in peers:
            if d.analysis is not None and d.analysis.suspicion is not None:
                prior = matrix[observer][speaker]
                matrix[observer][speaker] = round(NEW_WEIGHT * d.analysis.suspicion + (1 - NEW_WEIGHT) * prior, 6)
        position = sum(1 for r in state.records[:idx] if r.day == said.day and r.analysed and r.wave < said.wave)
        _add(state, records, Kind.DECEPTION, actor=speaker, day=said.day, phase=said.phase, data=Deception(
            statement=idx, kind=said.kind, speaker_role=state.player(speaker).role,
            statement_day=said.day, statement_phase=said.phase,
            turn=said.data.turn if isinstance(said.data, Speech) else None,
            ballot=said.data.ballot if isinstance(said.data, Vote) else None, position=position, text=said.text,
            self=own.analysis, peers={o: d.analysis for o, d in peers},
            missing=[s for s, d in [(speaker, own), *peers] if d.analysis is None],
            suspicion={o: dict(row) for o, row in matrix.items()},
        ))
    if state.ballot_waiting:
        state = state.model_copy(update={"suspicion": matrix, "analysis_queue": (), "ballot_waiting": False})
        return _resolve_ballot(state, records)
    return _commit(state, records, analysis_queue=(), suspicion=matrix)


def _exile(state: GameState, records: list[Record], tally: Counter[str], n_living: int) -> GameState:
    day = state.day
    top, count = (tally.most_common(1)[0] if tally else (None, 0))
    exiled = top if top is not None and count > n_living / 2 else None
    if exiled is not None:
        state = _kill(state, exiled)
        state = _add(state, records, Kind.EXILE, target=exiled,
                     text=f"{exiled} is exiled with {count} of {n_living} votes.{_revealed(state, exiled)}",
                     data=Exile(votes=count, living=n_living, role=_role_if_revealed(state, exiled)))
    else:
        leaders = sorted(n for n, c in tally.items() if c == count)
        lead = f" (most votes: {' and '.join(leaders)}, {count} each of {n_living})" if len(leaders) > 1 else (
            f" (most votes: {top}, {count} of {n_living})" if top else "")
        state = _add(state, records, Kind.NO_EXILE,
                     text=f"No strict majority{lead}; nobody is exiled.", data=NoExile(living=n_living))
    outcome = _win_check(state, exiled=exiled, day_ends=True)
    if outcome:
        return _commit(state, records, outcome=outcome)
    return _commit(state, records, phase=Phase.NIGHT, day=day + 1, turn=0, floor=None)


# --------------------------------------------------------------------------- wins


def _win_check(state: GameState, exiled: str | None = None, day_ends: bool = False) -> Outcome | None:
    """Every win, in the rules' order: the Jester exiled by vote (it alone wins, at once); no wolf alive
    (village); living wolves at least the living village, the Jester not counted (wolves); and, when a
    day ends undecided on the day cap, a draw.

    Called after the night (``exiled`` None) and after the final ballot (``day_ends``).
    """
    days = state.day - 1 if state.phase is Phase.NIGHT else state.day
    if exiled is not None and state.player(exiled).role is Role.JESTER:
        return Outcome(winner=Winner.JESTER, day=state.day, days=days, reason=f"the Jester {exiled} was exiled")
    wolves = sum(1 for p in state.living if p.role is Role.WEREWOLF)
    village = sum(1 for p in state.living if FACTION_OF[p.role] is Faction.VILLAGERS)
    if wolves == 0:
        return Outcome(winner=Winner.VILLAGERS, day=state.day, days=days, reason="no werewolf is left alive")
    if wolves >= village:
        return Outcome(winner=Winner.WEREWOLVES, day=state.day, days=days,
                       reason=f"{wolves} {'werewolf' if wolves == 1 else 'werewolves'} "
                              f"against {village} of the village")
    if day_ends and state.day >= state.config.max_days:
        return Outcome(winner=Winner.DRAW, day=state.day, days=days,
                       reason=f"the day cap ({state.config.max_days}) was reached")
    return None


# --------------------------------------------------------------------------- plumbing


def _kill(state: GameState, name: str) -> GameState:
    players = tuple(p.model_copy(update={"alive": False}) if p.name == name else p for p in state.players)
    return state.model_copy(update={"players": players})


def _add(state: GameState, records: list[Record], kind: Kind, *, actor: str | None = None,
         target: str | None = None, text: str | None = None, data: AnyPayload | None = None,
         day: int | None = None, phase: Phase | None = None) -> GameState:
    """Append a record of ``kind``, seen by its kind's audience; it is dated now unless ``day``/``phase``
    say otherwise (an analysis dates from its statement). A kind given no ``data`` carries none (``Empty``)."""
    records.append(Record(index=len(state.records) + len(records), day=state.day if day is None else day,
                          phase=state.phase if phase is None else phase, kind=kind,
                          actor=actor, target=target, text=text, data=Empty() if data is None else data))
    return state


_WINNER_TEXT = {
    Winner.VILLAGERS: "the villagers win",
    Winner.WEREWOLVES: "the werewolves win",
    Winner.JESTER: "the Jester wins",
    Winner.DRAW: "a draw",
}


def _commit(state: GameState, records: list[Record], **update: object) -> GameState:
    outcome = update.get("outcome")
    if isinstance(outcome, Outcome):
        records.append(Record(index=len(state.records) + len(records), day=state.day, phase=state.phase,
                              kind=Kind.GAME_OVER,
                              text=f"The game is over: {_WINNER_TEXT[outcome.winner]} ({outcome.reason}).",
                              data=GameOver(**outcome.model_dump())))
        update["phase"] = Phase.OVER
        update["floor"] = None
    return state.model_copy(update={"records": state.records + tuple(records), **update})
