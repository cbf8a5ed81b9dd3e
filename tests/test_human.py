"""A person at a seat (``human/<name>``): each decision asked in words, an answer the rules cannot use asked again
with its reason, a forfeit or a skipped statement recorded as the rules' fallback with the person's reason, the
seat's view and nothing else shown. The games here are played by the engine alone, without an eval; the games
played as evals are in tests/test_human_games.py."""

from __future__ import annotations

import json
import math
from random import Random

import anyio
import pytest
from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model

from wolf_eval.agents.observation import observe
from wolf_eval.agents.parse import FORFEIT, InvalidReply, interpret_object
from wolf_eval.agents.seat_call import SeatCall, call_messages, call_of, reply_fields
from wolf_eval.baseline.bots import POLICIES
from wolf_eval.engine import Action, GameState, Request, advance, new_game, pending
from wolf_eval.measures.cost import model_cost
from wolf_eval.providers.human import Human
from wolf_eval.providers.human_asking import GAVE_UP, SKIPPED, Person, decide, page
from wolf_eval.providers.human_input import TIMEOUT, Scripted, answers_from
from wolf_eval.refusal import ValueRefused
from wolf_eval.settings import rules_for
from wolf_eval.store import TokenUsage


def play_to(action: Action, variant: str = "triadic", seed: int = 2) -> tuple[GameState, Request]:
    """A game played by the ``cue`` players up to the first pending request of ``action``."""
    state = new_game(rules_for(variant, shuffle_roles=False, max_debate_turns=3), seed)
    while True:
        requests = pending(state)
        wanted = next((r for r in requests if r.action is action), None)
        if wanted is not None:
            return state, wanted
        decisions = []
        for r in requests:
            reply = POLICIES["cue"](observe(state, r), Random(f"{seed}:{r.key}"))
            decisions.append(interpret_object(reply, r, state.names, state.config.taxonomy))
        state = advance(state, decisions)
        assert not state.over


def ask(state: GameState, request: Request, answers: list[str], person: Person | None = None,
        timeout: float | None = None) -> tuple[dict, Scripted, Person]:
    """One decision asked of a person answering ``answers``."""
    source, person = Scripted(answers), person or Person()

    async def run() -> dict:
        async with source.screen("seat") as screen:
            return await decide(screen, observe(state, request), request, person, timeout)

    return anyio.run(run), source, person


def read_back(state: GameState, request: Request, part: dict) -> object:
    """The decision the game reads from the person's part, through the call's own reader (the seat layout)."""
    call = SeatCall.of([request], "seat")
    raw = call.assemble([json.dumps(part)], reply_fields(observe(state, request)))
    [decision] = call.read(raw, state)
    return decision


def test_an_answer_the_rules_cannot_use_is_asked_again_with_the_reason():
    state, bid = play_to(Action.BID)
    part, source, person = ask(state, bid, ["11", "soon", "3"])
    assert part == {"bid": 3, "notes": None}
    assert person.reasks == 2 and person.forfeits == 0
    assert any("bid 11 is outside 0-10" in t for t in source.shown)
    assert any("bid is not an integer: 'soon'" in t for t in source.shown)
    decision = read_back(state, bid, part)
    assert decision.bid == 3 and decision.fallback is None


def test_a_vote_names_a_legal_player_and_gives_a_reason():
    state, vote = play_to(Action.VOTE)
    dead = next(p.name for p in state.players if not p.alive)
    legal = vote.options[0]
    part, source, person = ask(state, vote, [dead, "Nobody", vote.seat, legal.lower(), "", "They dodged my question."])
    assert part == {"vote": legal, "reason": "They dodged my question.", "notes": None}
    shown = "\n".join(source.shown)
    assert f"{dead} is not a legal choice now" in shown and "'Nobody' is not a player in this game" in shown
    assert "nothing was said" in shown  # the empty reason
    assert person.reasks == 4
    decision = read_back(state, vote, part)
    assert decision.target == legal and decision.reason == "They dodged my question." and decision.fallback is None


def test_a_statement_over_the_word_limit_is_asked_again():
    state, bid = play_to(Action.STATEMENT)
    limit = state.config.max_statement_words
    part, source, _ = ask(state, bid, ["word " * (limit + 1), "I watched Kai all day."])
    assert part["statement"] == "I watched Kai all day."
    assert any(f"{limit + 1} words; at most {limit} are allowed" in t for t in source.shown)


def test_a_forfeit_is_the_rules_fallback_recorded_with_the_persons_reason():
    state, vote = play_to(Action.VOTE)
    part, _, person = ask(state, vote, ["/help", "/forfeit"])
    assert part == {FORFEIT: GAVE_UP} and person.forfeits == 1
    decision = read_back(state, vote, part)
    assert decision.target is None  # the vote's fallback: an abstention
    assert decision.fallback.reason == f"vote: {FORFEIT}: {GAVE_UP}"
    own = SeatCall.of([vote], "own")  # read at once in a decision's own layout too, never asked again
    [again] = own.read(json.dumps(part), state)
    assert again.fallback.reason == f"{FORFEIT}: {GAVE_UP}"


def test_a_decision_that_runs_out_of_time_is_forfeited():
    state, bid = play_to(Action.BID)
    part, _, person = ask(state, bid, ["12", TIMEOUT], timeout=30)
    assert part == {FORFEIT: "no answer within 30 s"} and person.forfeits == 1 and person.reasks == 1


def test_a_statement_is_judged_in_one_line_or_skipped_as_missing():
    state, analysis = play_to(Action.PEER_ANALYSIS)
    part, source, person = ask(state, analysis, ["lying 0.8 0.2", "none 1.5 0.2", "none 0.8",
                                                              "none 80% 0.2 sounded sincere"])
    assert part == {"deception_type": "none", "confidence": 0.8, "suspicion": 0.2, "reasoning": "sounded sincere"}
    assert person.reasks == 3  # "lying" is no type, 1.5 is no confidence, then the suspicion was missing
    shown = "\n".join(source.shown)
    assert "deception_type 'lying' is not one of" in shown and "'1.5' is outside 0-1" in shown
    assert read_back(state, analysis, part).analysis.suspicion == 0.2
    skipped, _, person = ask(state, analysis, ["/skip all"])
    assert skipped == {FORFEIT: SKIPPED}
    decision = read_back(state, analysis, skipped)
    assert decision.analysis is None and decision.fallback.reason == f"#{analysis.subject}: {FORFEIT}: {SKIPPED}"
    again, later, _ = ask(state, analysis, [], person=person)  # skipped for the rest of the game: not asked
    assert again == {FORFEIT: SKIPPED} and later.asked == []


def test_the_page_shows_the_seats_view_once_then_only_what_is_new():
    state, vote = play_to(Action.VOTE)
    obs = observe(state, vote)
    person = Person()
    first = page(obs, person)
    assert f"You are {vote.seat}." in first and "/forfeit" in first and "JSON" not in first
    assert f"Alive ({len(obs.alive)})" in first
    assert person.shown_upto == max(r.index for r in obs.records)
    assert page(obs, person).startswith("Alive")  # nothing new since


def test_the_provider_answers_a_call_as_its_seat_and_costs_nothing():
    state, bid = play_to(Action.BID)
    views = [observe(state, bid, calls="per_seat")]
    human = get_model("human/ann", memoize=False)
    with answers_from(Scripted(["7"])) as source:
        from wolf_eval.agents.observation import in_flight

        ref = f"{state.seed}:{bid.key}"
        with in_flight({ref: views[0]}):
            out = anyio.run(lambda: human.generate(call_messages(views, [ref], [1]), config=GenerateConfig()))
    reply = json.loads(out.completion)
    assert reply["decision"] == {"bid": 7, "notes": None}
    assert call_of(views).read(out.completion, state)[0].bid == 7
    assert out.usage is not None and out.usage.total_tokens == 0
    assert len(out.metadata["human"]["seconds"]) == 1 and out.metadata["human"]["forfeits"] == 0
    assert source.shown[0] == f"{bid.seat} ({state.player(bid.seat).role.value}) · day {bid.day}"
    cost = model_cost("human/ann", TokenUsage(calls=3, input=0, output=0))
    assert cost["usd"] == 0.0 and not math.isnan(cost["usd"])


def test_the_provider_refuses_what_it_cannot_do_in_one_line():
    with pytest.raises(ValueRefused, match="timeout must be a number of seconds above 0"):
        Human("ann", timeout=0)
    with pytest.raises(ValueRefused, match="takes only the model arguments timeout"):
        Human("ann", speed=2)
    out = anyio.run(lambda: get_model("human/ann", memoize=False).generate([ChatMessageUser(content="Who is a wolf?")]))
    assert out.error is not None and "only a seat's decisions" in out.error


def test_a_forfeit_key_in_any_reply_is_read_as_given_up():
    state, bid = play_to(Action.BID)
    with pytest.raises(InvalidReply, match="forfeit: tired"):
        interpret_object({FORFEIT: "tired", "bid": 3}, bid, state.names)


def test_play_seats_the_person_in_a_role_one_player_holds_unless_told():
    from wolf_eval.human_game import seat_role, single_seats

    assert single_seats("triadic") == ("doctor", "jester")
    assert single_seats("wolf") == ("seer", "doctor")
    assert single_seats("dyadic") == ("doctor",)  # its Jester's seat is dealt a Villager
    drawn = {seat_role("triadic", None, Random(k)) for k in range(40)}
    assert drawn == {"doctor", "jester"}
    assert seat_role("wolf", "werewolf", Random(0)) == "werewolf"  # the pack, played whole
    with pytest.raises(ValueRefused, match="dyadic seats villager, doctor, werewolf"):
        seat_role("dyadic", "jester", Random(0))


def test_play_refuses_what_is_its_own_in_one_line(capsys):
    from wolf_eval.cli import main

    assert main(["play", "-T", "games=3"]) == 2
    assert capsys.readouterr().err.strip() == "wolf-eval: play: -T games: play is one game; its seed is --seed"


def test_the_terminal_reads_a_line_or_gives_up_at_the_deadline_or_on_ctrl_c(monkeypatch):
    """The terminal's read (``select`` on stdin) returns the typed line, and gives up without reading when the
    decision's time is over or Ctrl-C was pressed, so no thread is left holding the terminal."""
    import os
    import threading
    import time

    from wolf_eval.providers.human_input import Interrupted, _Deadline

    read_end, write_end = os.pipe()
    with os.fdopen(read_end) as stdin, os.fdopen(write_end, "w") as typed:
        monkeypatch.setattr("sys.stdin", stdin)
        typed.write("Kai\nleft over\n")
        typed.flush()
        assert _Deadline(None, threading.Event()).readline() == "Kai\n"
        with pytest.raises(TimeoutError):
            _Deadline(time.monotonic() - 1, threading.Event()).readline()
        pressed = threading.Event()
        pressed.set()
        with pytest.raises(Interrupted):
            _Deadline(None, pressed).readline()
        later = _Deadline(time.monotonic() + 30, threading.Event())  # no earlier read took the next answer
        assert later.readline() == "left over\n"
