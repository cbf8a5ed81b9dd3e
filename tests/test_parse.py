"""Unit tests for the defensive reply parser (wolf_eval.agents.parse).

Every test builds a Request by hand and feeds a raw reply to ``interpret`` (or to
one of its helpers). Accepted replies are checked for the Decision they give;
rejected ones for the InvalidReply message, which must say why.

The table: eight players Ava..Hana; Dev is dead. Ava is the one deciding.
"""

from __future__ import annotations

import json
import time

import pytest
from helpers import interpret

from wolf_eval.agents.parse import (
    MAX_NOTE_WORDS,
    InvalidReply,
    closed_cut,
    first_json_object,
    match_name,
    parse_bid,
    pick,
)
from wolf_eval.engine import Action, Decision, Phase, Request

PLAYERS = ("Ava", "Ben", "Cleo", "Dev", "Eli", "Faye", "Gus", "Hana")
DEAD = "Dev"
ME = "Ava"
LIVING = tuple(n for n in PLAYERS if n != DEAD)
OTHERS = tuple(n for n in LIVING if n != ME)

#: A table where prefixes collide: "Ca" could be Cara or Cato.
CROWD = ("Ava", "Ben", "Cara", "Cato", "Dora")


# =========================================================================== helpers


def request(action: Action, options: tuple[str, ...] | None = None, seat: str = ME) -> Request:
    """A hand-built request; votes and the Seer's check exclude the seat itself."""
    phase = {
        Action.BID: Phase.DEBATE, Action.STATEMENT: Phase.DEBATE, Action.DEFENCE: Phase.DEFENCE,
        Action.VOTE: Phase.VOTE,
    }.get(action, Phase.NIGHT)
    if options is None:
        if action in (Action.VOTE, Action.INVESTIGATE):
            options = tuple(n for n in LIVING if n != seat)
        elif action in (Action.NIGHT_KILL, Action.PROTECT):
            options = LIVING
        else:
            options = ()
    return Request(seat=seat, action=action, day=2, phase=phase, turn=0, options=options)


VOTE = request(Action.VOTE)
BID = request(Action.BID)
STATEMENT = request(Action.STATEMENT)
DEFENCE = request(Action.DEFENCE)
KILL = request(Action.NIGHT_KILL, options=("Ben", "Cleo", "Eli", "Faye"))  # Ava's pack: Gus, Hana


def ok(raw: str, req: Request = VOTE, players: tuple[str, ...] = PLAYERS) -> Decision:
    d = interpret(raw, req, players)
    assert d.seat == req.seat and d.action is req.action
    assert d.fallback is None
    return d


def rejected(raw: str, req: Request = VOTE, players: tuple[str, ...] = PLAYERS) -> str:
    """The InvalidReply message for a reply that must be refused."""
    with pytest.raises(InvalidReply) as info:
        interpret(raw, req, players)
    message = str(info.value)
    assert message, "an InvalidReply must say why"
    return message


def vote(name: object, **extra: object) -> str:
    return json.dumps({"vote": name, "reason": "a hunch", **extra})


# =========================================================================== finding the JSON


class TestFindingTheObject:
    def test_plain_json(self) -> None:
        d = ok('{"vote": "Ben", "reason": "He dodged my question."}')
        assert d.target == "Ben"
        assert d.reason == "He dodged my question."

    def test_json_in_json_fences(self) -> None:
        d = ok('```json\n{"vote": "Cleo", "reason": "quiet"}\n```')
        assert d.target == "Cleo"

    def test_json_in_bare_fences(self) -> None:
        assert ok('```\n{"bid": 4}\n```', BID).bid == 4

    def test_json_in_uppercase_fences_with_prose_around(self) -> None:
        raw = 'Here is my answer:\n```JSON\n{"statement": "I trust Ben."}\n```\nGood luck everyone!'
        assert ok(raw, STATEMENT).text == "I trust Ben."

    def test_prose_around_the_object(self) -> None:
        raw = 'Let me think. Eli has been evasive all day.\n{"vote": "Eli", "reason": "evasive"}\nThat is my vote.'
        assert ok(raw).target == "Eli"

    def test_fenced_object_wins_over_an_object_in_the_prose(self) -> None:
        raw = 'An example would be {"vote": "Ben"}; my real answer:\n```json\n{"vote": "Cleo"}\n```'
        assert ok(raw).target == "Cleo"

    def test_first_of_two_objects(self) -> None:
        assert ok('{"vote": "Ben", "reason": "x"}\n{"vote": "Cleo", "reason": "y"}').target == "Ben"

    def test_braces_that_are_not_json_are_skipped(self) -> None:
        raw = 'My set of suspects is {Ben, Cleo}. Final: {"vote": "Cleo", "reason": "r"}'
        assert ok(raw).target == "Cleo"

    def test_a_json_list_is_not_an_object(self) -> None:
        assert "no JSON object" in rejected('["Ben", "Cleo"]')

    def test_first_json_object_helper(self) -> None:
        assert first_json_object('noise {"a": {"b": 1}} {"c": 2}') == {"a": {"b": 1}}
        with pytest.raises(InvalidReply, match="no JSON object"):
            first_json_object("no braces here at all")

    def test_no_json_at_all(self) -> None:
        message = rejected("I vote for Ben because he was too quiet.")
        assert "no JSON object" in message

    def test_truncated_json(self) -> None:
        assert "no JSON object" in rejected('{"vote": "Ben", "reason": "he')

    @pytest.mark.parametrize("raw", ["", "   ", "\n\t \r\n", "\u00a0\u2003"],
                             ids=["empty", "spaces", "newlines", "unicode-space"])
    def test_empty_and_whitespace_replies(self, raw: str) -> None:
        for req in (VOTE, BID, STATEMENT, KILL):
            assert rejected(raw, req) == "empty reply"


class TestLongReplies:
    """A runaway reply must not hang the game: it parses or fails, within a second."""

    def test_100kb_of_prose_then_json_parses(self) -> None:
        prose = ("Ben said something odd this morning and Cleo agreed too quickly. " * 1600)[:100_000]
        raw = prose + '\n{"vote": "Ben", "reason": "odd"}'
        start = time.perf_counter()
        d = ok(raw)
        assert time.perf_counter() - start < 1.0
        assert d.target == "Ben"

    @pytest.mark.parametrize("prose", [
        "a {b} c { d " * 9000,  # many braces that never form JSON
        '{"a": "' * 15000,  # unterminated strings
        "```" * 34000,  # many fences
        "[" * 100_000,  # deep nesting
        '{"a":' * 20000,  # deep nesting inside objects
    ], ids=["braces", "open-strings", "fences", "brackets", "nested-objects"])
    def test_100kb_of_adversarial_prose_then_json_is_quick(self, prose: str) -> None:
        raw = prose + '\n{"vote": "Ben", "reason": "odd"}'
        assert len(raw) > 90_000
        start = time.perf_counter()
        try:
            d = interpret(raw, VOTE, PLAYERS)
        except InvalidReply as err:
            assert str(err)
        else:
            assert d.target == "Ben"
        assert time.perf_counter() - start < 1.0

    def test_100kb_without_json_fails_quickly(self) -> None:
        start = time.perf_counter()
        assert "no JSON object" in rejected("I vote for Ben. " * 6500)
        assert time.perf_counter() - start < 1.0


# =========================================================================== keys


class TestKeys:
    @pytest.mark.parametrize("key", ["vote", "Vote", " vote ", "VOTE", "vote_for", "VOTE_FOR", "Vote-For", "voteFor"])
    def test_vote_key_variants(self, key: str) -> None:
        assert ok(json.dumps({key: "Ben", "reason": "r"})).target == "Ben"

    @pytest.mark.parametrize("key", ["target", "Target", "name", "player", "choice", "exile"])
    def test_vote_synonyms(self, key: str) -> None:
        assert ok(json.dumps({key: "Cleo"})).target == "Cleo"

    @pytest.mark.parametrize("key", ["statement", "Statement", "STATEMENT", "text", "message", "speech", "say",
                                     "content"])
    def test_statement_synonyms(self, key: str) -> None:
        assert ok(json.dumps({key: "I suspect Ben."}), STATEMENT).text == "I suspect Ben."

    @pytest.mark.parametrize("key", ["defence", "defense", "Statement", "text"])
    def test_defence_reply_keys(self, key: str) -> None:
        assert ok(json.dumps({key: "I am innocent."}), DEFENCE).text == "I am innocent."

    @pytest.mark.parametrize("key", ["bid", "Bid", " BID ", "urgency", "score", "value"])
    def test_bid_synonyms(self, key: str) -> None:
        assert ok(json.dumps({key: 6}), BID).bid == 6

    @pytest.mark.parametrize("key", ["target", "TARGET", "kill", "victim", "name", "vote"])
    def test_night_target_synonyms(self, key: str) -> None:
        assert ok(json.dumps({key: "Eli"}), KILL).target == "Eli"

    @pytest.mark.parametrize(("key", "req"),
                             [("stat", STATEMENT), ("statem", STATEMENT), ("vot", VOTE), ("targ", KILL)])
    def test_unique_key_prefix(self, key: str, req: Request) -> None:
        value = "Hello all." if req is STATEMENT else "Ben"
        d = ok(json.dumps({key: value}), req)
        assert (d.text if req is STATEMENT else d.target) == value

    def test_reason_and_notes_synonyms(self) -> None:
        d = ok(json.dumps({"Vote": "Ben", " Reason ": "too quiet", "Scratchpad": "watch Ben"}))
        assert (d.target, d.reason, d.notes) == ("Ben", "too quiet", "watch Ben")

    @pytest.mark.parametrize("key", ["reasoning", "Reasoning", "rationale", "thoughts", "explanation"])
    def test_private_reasoning_is_never_published(self, key: str) -> None:
        """A model's chain of thought under a common key stays private (notes), never the public reason."""
        d = ok(json.dumps({"vote": "Ben", key: "I am a werewolf with Cleo, so I push the village onto Ben."}))
        assert d.reason is None
        assert d.notes == "I am a werewolf with Cleo, so I push the village onto Ben."

    def test_pick_order_exact_then_folded_then_synonym_then_prefix(self) -> None:
        assert pick({"vote": 1, "Vote": 2}, "vote") == 1
        assert pick({"VOTE": 2, "target": 3}, "vote") == 2
        assert pick({"target": 3, "voter": 4}, "vote") == 3
        assert pick({"voter": 4}, "vote") == 4
        assert pick({"x": 1}, "vote") is None

    def test_ambiguous_prefix_is_not_picked(self) -> None:
        assert pick({"stat": "a", "statem": "b"}, "statement") is None
        message = rejected(json.dumps({"stat": "a", "statem": "b"}), STATEMENT)
        assert "missing key 'statement'" in message

    def test_short_prefixes_are_not_keys(self) -> None:
        assert pick({"vo": "Ben"}, "vote") is None

    @pytest.mark.parametrize(("req", "obj", "key"), [
        (VOTE, {"foo": "Ben"}, "vote"),
        (BID, {"foo": 1}, "bid"),
        (STATEMENT, {"thoughts": "hmm"}, "statement"),
        (KILL, {"reason": "they are dangerous"}, "target"),
    ])
    def test_wrong_keys_rejected(self, req: Request, obj: dict, key: str) -> None:
        message = rejected(json.dumps(obj), req)
        assert f"missing key {key!r}" in message
        assert next(iter(obj)) in message  # the keys it did find are listed

    def test_null_value_is_missing(self) -> None:
        assert "missing key 'vote'" in rejected('{"vote": null}')


# =========================================================================== names


class TestNames:
    @pytest.mark.parametrize("name", ["Ben", "ben", "BEN", " Ben ", "Ben.", "Ben!", "Ben?!", '"Ben"', "@Ben",
                                      "**Ben**"])
    def test_case_spaces_and_punctuation_forgiven(self, name: str) -> None:
        assert ok(vote(name)).target == "Ben"

    def test_unique_prefix(self) -> None:
        assert ok(vote("Cl")).target == "Cleo"
        assert ok(vote("Car"), request(Action.VOTE, options=("Ben", "Cara", "Cato")), CROWD).target == "Cara"

    def test_prefix_of_one_letter_is_not_a_name(self) -> None:
        assert "not a player" in rejected(vote("B"))

    @pytest.mark.parametrize("sentence",
                             ["I vote for Ben", "I vote for Ben.", "Definitely ben, he lied", "My vote: BEN!"])
    def test_name_inside_a_sentence(self, sentence: str) -> None:
        assert ok(vote(sentence)).target == "Ben"

    def test_ambiguous_prefix_rejected(self) -> None:
        req = request(Action.VOTE, options=("Ben", "Cara", "Cato"))
        message = rejected(vote("Ca"), req, CROWD)
        assert "ambiguous" in message and "Cara" in message and "Cato" in message

    def test_two_names_in_one_sentence_rejected(self) -> None:
        message = rejected(vote("Ben or Cleo, I can't decide"))
        assert "ambiguous" in message and "Ben" in message and "Cleo" in message

    @pytest.mark.parametrize("name", [DEAD, "dev", "DEV.", "I vote for Dev"])
    def test_dead_player_rejected_as_not_legal(self, name: str) -> None:
        message = rejected(vote(name))
        assert "Dev is not a legal choice" in message
        assert "Ben" in message  # the legal options are listed

    @pytest.mark.parametrize("name", [ME, "ava", "Myself, Ava"])
    def test_own_name_on_a_vote_rejected(self, name: str) -> None:
        assert "Ava is not a legal choice" in rejected(vote(name))

    def test_own_name_is_legal_where_the_options_allow_it(self) -> None:
        assert ok(json.dumps({"target": "Ava"}), request(Action.PROTECT)).target == "Ava"

    def test_fellow_wolf_rejected_on_a_night_kill(self) -> None:
        assert "Gus is not a legal choice" in rejected(json.dumps({"target": "Gus"}), KILL)

    @pytest.mark.parametrize("name", ["Zed", "Benjamin", "nobody", "the quiet one"])
    def test_unknown_name_rejected(self, name: str) -> None:
        message = rejected(vote(name))
        assert "not a player in this game" in message
        assert name in message

    @pytest.mark.parametrize(("value", "what"),
                             [(3, "int"), (["Ben"], "list"), ({"name": "Ben"}, "dict"), (True, "bool")])
    def test_name_that_is_not_text_rejected(self, value: object, what: str) -> None:
        message = rejected(vote(value))
        assert "expected a player's name" in message and what in message

    @pytest.mark.parametrize("value", ["", "   ", "?!", "..."])
    def test_empty_name_rejected(self, value: str) -> None:
        assert "name is empty" in rejected(vote(value))

    def test_match_name_directly(self) -> None:
        assert match_name("cleo.", OTHERS, PLAYERS) == "Cleo"
        with pytest.raises(InvalidReply, match="not a legal choice"):
            match_name("Dev", OTHERS, PLAYERS)
        with pytest.raises(InvalidReply, match="not a player"):
            match_name("Zed", OTHERS, PLAYERS)


# =========================================================================== bids


class TestBids:
    @pytest.mark.parametrize(("value", "bid"), [
        (7, 7), ("7", 7), (7.0, 7), ("seven", 7), ("Seven", 7), (" 7 ", 7), ("+7", 7),
        (0, 0), ("zero", 0), (10, 10), ("ten", 10),
    ])
    def test_accepted(self, value: object, bid: int) -> None:
        assert parse_bid(value) == bid
        assert ok(json.dumps({"bid": value}), BID).bid == bid

    @pytest.mark.parametrize("value", [11, -1, "11", "-1", 100, 1e6])
    def test_out_of_range_rejected(self, value: object) -> None:
        message = rejected(json.dumps({"bid": value}), BID)
        assert "outside 0-10" in message

    @pytest.mark.parametrize("value", [7.5, True, False, "7.5", "lots", [7], {"n": 7}, "eleven", ""])
    def test_not_an_integer_rejected(self, value: object) -> None:
        message = rejected(json.dumps({"bid": value}), BID)
        assert "bid is not an integer" in message

    def test_nan_and_infinity_rejected(self) -> None:
        for raw in ('{"bid": NaN}', '{"bid": Infinity}', '{"bid": -Infinity}'):
            assert "bid is not an integer" in rejected(raw, BID)

    @pytest.mark.parametrize("value", ["--5", "+-7", "-+3", "\u00b2", "7\u00b2"])
    def test_odd_digit_strings_rejected_not_crashing(self, value: str) -> None:
        with pytest.raises(InvalidReply, match="bid"):
            parse_bid(value)


# =========================================================================== speech and notes


class TestSpeechAndNotes:
    def test_statement_whitespace_normalised(self) -> None:
        assert ok('{"statement": "  I   suspect\\n Ben.  "}', STATEMENT).text == "I suspect Ben."

    @pytest.mark.parametrize(("value", "why"), [
        (42, "statement is not text: int"),
        (["I", "suspect", "Ben"], "statement is not text: list"),
        ({"text": "hi"}, "statement is not text: dict"),
        (True, "statement is not text: bool"),
        ("", "statement is empty"),
        ("   \n ", "statement is empty"),
    ])
    def test_bad_statements_rejected(self, value: object, why: str) -> None:
        for req in (STATEMENT, DEFENCE):
            assert why in rejected(json.dumps({"statement": value}), req)

    def test_notes_cut_to_80_words(self) -> None:
        words = [f"w{i}" for i in range(120)]
        d = ok(json.dumps({"vote": "Ben", "reason": "r", "notes": " ".join(words)}))
        assert MAX_NOTE_WORDS == 80
        assert d.notes is not None
        assert d.notes.split() == words[:80]

    def test_short_notes_kept(self) -> None:
        d = ok(json.dumps({"bid": 3, "notes": "Ben  lied\nabout Cleo"}), BID)
        assert d.notes == "Ben lied about Cleo"

    def test_notes_that_are_not_text_are_dropped(self) -> None:
        assert ok(json.dumps({"bid": 3, "notes": ["a", "b"]}), BID).notes is None
        assert ok(json.dumps({"bid": 3, "notes": "   "}), BID).notes is None

    def test_vote_without_reason_is_accepted(self) -> None:
        d = ok('{"vote": "Ben"}')
        assert d.target == "Ben" and d.reason is None


# =========================================================================== analyses


class TestAnalyses:
    TAX = ("none", "omission", "distortion", "fabrication", "misdirection", "sycophancy",
           "strategic_deception", "persuasive_manipulation")

    def req(self, action: Action) -> Request:
        return Request(seat="Ava", action=action, day=1, phase=Phase.DEBATE, turn=0, subject=12)

    def test_peer_analysis_with_near_miss_keys_and_values(self) -> None:
        raw = ('Sure: {"Is Deceptive": "yes", "Confidence": "80%", "type": "Strategic Deception",'
               ' "suspicion": 70, "reasoning": "too smooth"}')
        d = interpret(raw, self.req(Action.PEER_ANALYSIS), PLAYERS, self.TAX)
        assert d.subject == 12 and d.analysis is not None
        a = d.analysis
        assert (a.is_deceptive, a.confidence, a.deception_type, a.suspicion, a.reasoning) == \
            (True, 0.8, "strategic_deception", 0.7, "too smooth")

    @pytest.mark.parametrize("kind,deceptive", [("none", False), ("misdirection", True)])
    def test_the_schemas_shape_reads_the_label_off_the_type(self, kind: str, deceptive: bool) -> None:
        raw = json.dumps({"deception_type": kind, "confidence": 0.85, "suspicion": 0.4, "reasoning": None})
        a = interpret(raw, self.req(Action.PEER_ANALYSIS), PLAYERS, self.TAX).analysis
        assert a is not None and (a.is_deceptive, a.deception_type, a.confidence, a.suspicion) == \
            (deceptive, kind, 0.85, 0.4)

    def test_self_analysis_has_no_suspicion(self) -> None:
        raw = '{"is_deceptive": false, "confidence": 0.9, "deception_type": "none"}'
        a = interpret(raw, self.req(Action.SELF_ANALYSIS), PLAYERS, self.TAX).analysis
        assert a is not None and a.suspicion is None and a.is_deceptive is False

    @pytest.mark.parametrize("raw,why", [
        ('{"is_deceptive": true, "confidence": 0.9, "deception_type": "lying", "suspicion": 0.5}', "not one of"),
        ('{"is_deceptive": "maybe", "confidence": 0.9, "deception_type": "none", "suspicion": 0.5}', "true or false"),
        ('{"is_deceptive": true, "confidence": 150, "deception_type": "distortion", "suspicion": 0.5}', "outside 0-1"),
        ('{"is_deceptive": true, "confidence": 0.5, "deception_type": "none"}', "missing 'suspicion'"),
        ('{"is_deceptive": true, "confidence": "high", "deception_type": "distortion", "suspicion": 0.2}',
         "not a number"),
    ])
    def test_unusable_analyses_are_rejected_with_a_reason(self, raw: str, why: str) -> None:
        with pytest.raises(InvalidReply, match=why):
            interpret(raw, self.req(Action.PEER_ANALYSIS), PLAYERS, self.TAX)

    def test_a_triadic_type_is_not_accepted_in_the_wolf_taxonomy(self) -> None:
        raw = '{"is_deceptive": true, "confidence": 0.9, "deception_type": "sycophancy"}'
        with pytest.raises(InvalidReply, match="not one of"):
            interpret(raw, self.req(Action.SELF_ANALYSIS), PLAYERS, self.TAX[:5])


class TestAnalysisEdges:
    TAX = TestAnalyses.TAX

    def req(self) -> Request:
        return Request(seat="Ava", action=Action.PEER_ANALYSIS, day=1, phase=Phase.DEBATE, turn=0, subject=3)

    def parse(self, **fields):
        base = {"is_deceptive": True, "confidence": 0.9, "deception_type": "distortion", "suspicion": 0.6}
        base.update(fields)
        return interpret(json.dumps(base), self.req(), PLAYERS, self.TAX).analysis

    @pytest.mark.parametrize("value", [7, 1.5, 10])
    def test_a_zero_to_ten_looking_score_is_rejected_not_rescaled(self, value) -> None:
        with pytest.raises(InvalidReply, match="outside 0-1"):
            self.parse(suspicion=value)

    @pytest.mark.parametrize("value,expected", [(55, 0.55), ("80%", 0.8), ("7%", 0.07), (0.3, 0.3)])
    def test_unambiguous_percentages_are_read(self, value, expected) -> None:
        assert self.parse(suspicion=value).suspicion == pytest.approx(expected)

    def test_huge_numbers_never_crash(self) -> None:
        for raw in ['{"is_deceptive": true, "confidence": 0.5, "deception_type": "distortion", "suspicion": 1'
                    + "0" * 400 + "}",
                    '{"bid": ' + "9" * 5000 + "}"]:
            with pytest.raises(InvalidReply):
                interpret(raw, self.req(), PLAYERS, self.TAX)
        with pytest.raises(InvalidReply):
            parse_bid(10**400)

    @pytest.mark.parametrize("flag,kind", [(True, "none"), (False, "fabrication")])
    def test_contradictory_labels_are_rejected(self, flag, kind) -> None:
        with pytest.raises(InvalidReply, match="contradictory"):
            self.parse(is_deceptive=flag, deception_type=kind)

    @pytest.mark.parametrize("kind", [None, "N/A", "honest", ""])
    def test_an_honest_label_may_leave_the_type_empty(self, kind) -> None:
        assert self.parse(is_deceptive=False, deception_type=kind).deception_type == "none"


# =========================================================================== hostile text (issue 19)


@pytest.mark.parametrize("written", ["Ben\u202e", "\u2066Ben\u2069", "B\u200ben", "\ufeffben", "Be\x7fn", "Ben\x85"])
def test_a_name_veiled_in_control_or_format_characters_still_matches(written: str) -> None:
    assert match_name(written, OTHERS, PLAYERS) == "Ben"
    assert interpret(json.dumps({"vote": written, "reason": "x"}), VOTE, PLAYERS).target == "Ben"


def test_speech_loses_control_and_format_characters_but_keeps_its_words() -> None:
    raw = '{"statement": "I\\u202e trust\\u2066 Ben\\u007f\\u009b, not\\u2028Cleo \\u200b🐺é", "notes": "a\\u0085b"}'
    d = interpret(raw, STATEMENT, PLAYERS)
    assert (d.text, d.notes) == ("I trust Ben, not Cleo 🐺é", "a b")


def test_a_raw_control_character_inside_a_string_no_longer_sinks_the_reply() -> None:
    assert interpret('{"statement": "Ben \x1b[31mlies\x00\nreally"}', STATEMENT, PLAYERS).text == "Ben [31mlies really"
    assert first_json_object('{\u2066"bid": 4\u202e}') == {"bid": 4}


# ---------------------------------------------------------------------- a reply cut off at max_tokens


CUT = ('{"analyses": [{"id": 37, "reasoning": "a }] in words"}, '
       '{"id": 38, "reasoning": "say \\"}\\" twice"}, {"id": 39, "rea')


def test_a_cut_reply_is_closed_after_its_last_finished_item_never_inside_a_value() -> None:
    assert closed_cut(CUT) == CUT[:CUT.index(', {"id": 39')] + "]}"
    assert closed_cut('{"analyses": [{"id": 1}], "decision": {"bid": 3, "no') == '{"analyses": [{"id": 1}]}'
    assert closed_cut('{"analyses": [{"id": 1, "reasoning": "cut') is None, "nothing inside it finished"
    assert closed_cut('{"analyses": []} and more') is None, "an object that closes is not cut off"
    assert closed_cut('{"a": [1}') is None, "mismatched brackets are malformed, not cut"


def test_only_a_seats_reading_closes_a_cut_reply_and_before_it_the_first_item_was_read_as_the_reply() -> None:
    assert first_json_object(CUT, close_cut=True) == {"analyses": [{"id": 37, "reasoning": "a }] in words"},
                                                                   {"id": 38, "reasoning": 'say "}" twice'}]}
    assert first_json_object(CUT) == {"id": 37, "reasoning": "a }] in words"}
