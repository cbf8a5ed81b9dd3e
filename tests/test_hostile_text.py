"""Hostile text (issue 19, point 2): control and format characters a model writes reach no prompt or record.

Every model-written string is cleaned once where it enters the game (``wolf_eval.text``, called by
the reply parser and the lessons file): C0 and C1 controls but newline and tab, DEL, format
characters (Cf) and lone surrogates are removed; line and paragraph separators become newlines.
Unit tests pin the normaliser, property tests show that no parsed reply keeps a hostile character
whatever the text around it and however the JSON carries it (raw, escaped, or raw where JSON
forbids it), and a short game whose every reply is laced with them shows that none reaches any
seat's prompt or the game's records.
"""

from __future__ import annotations

import json
import unicodedata
import zlib
from pathlib import Path
from typing import Any

import pytest
from helpers import interpret, learned, scripted_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai.log import EvalSample, resolve_sample_attachments

from wolf_eval.agents.parse import InvalidReply, first_json_object, match_name
from wolf_eval.agents.role_guesses import parse_guesses
from wolf_eval.engine import Action, Phase, Request
from wolf_eval.lessons.asking import parse_lessons
from wolf_eval.lessons.book import Snapshot, model_folder, new_lessons, read_snapshot, snapshot_path
from wolf_eval.store import logged_record
from wolf_eval.text import clean_text, clean_value, is_hostile

#: The tester's characters (DEL, C1 NEL and CSI, RLO, LRI, LINE SEPARATOR) and their kin: C0 controls,
#: the paragraph separator, zero-width space and joiner, BOM, soft hyphen, a tag character, PDF/PDI.
REPORTED = "\x7f\x85\x9b\u202e\u2066\u2028"
HOSTILE = REPORTED + "\x00\x07\x1b\r\x0b\x0c\u2029\u200b\u200d\ufeff\xad\U000e0041\u202c\u2069\u061c"
#: The ones that are removed, not turned into a line break: a name veiled in them is still the name.
INVISIBLE = "".join(c for c in HOSTILE if clean_text(c) == "")
PLAYERS = ("Ava", "Bram", "Cleo", "Dev", "Eli", "Faye", "Gus", "Hana")


def hostile_in(text: str) -> str:
    return "".join(sorted({c for c in text if is_hostile(c)}))


def strings_in(value: Any) -> list[str]:
    """Every string in a JSON-like value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [*strings_in(k), *strings_in(v)]]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in strings_in(v)]
    return []


# =========================================================================== the normaliser


@pytest.mark.parametrize("char", list(HOSTILE))
def test_every_hostile_character_is_taken_out(char: str) -> None:
    assert is_hostile(char)
    cleaned = clean_text(f"Bram{char}is{char}lying")
    assert hostile_in(cleaned) == ""
    assert cleaned in ("Bramislying", "Bram\nis\nlying"), repr(cleaned)


def test_what_is_removed_and_what_becomes_a_newline() -> None:
    assert clean_text("a\x7fb\x9bc\u202ed\u2066e") == "abcde"
    assert clean_text("\x1b[31mred\x1b[0m") == "[31mred[0m"  # the escape is gone, the bracket text is inert
    assert clean_text("one\u2028two\u2029three\x85four\r\nfive\rsix") == "one\ntwo\nthree\nfour\nfive\nsix"
    assert clean_text("z\u200bw\u200dj\ufeffb\xads\U000e0041t") == "zwjbst"
    assert clean_text("lone \ud800 surrogate") == "lone  surrogate"


def test_newline_tab_and_ordinary_text_are_kept() -> None:
    for text in ("line one\nline two\tindented", "Zoë, Łukasz and Ōta", "Привет, 你好, مرحبا, שלום",
                 "I 🐺 suspect 🎭 Bram 👀", "«quoted» — “curly” ‘single’ …", "nbsp\u00a0and\u3000ideographic space",
                 "e\u0301 combining accent", ""):
        assert clean_text(text) == text


def test_cleaning_is_idempotent_and_reaches_keys_and_nested_values() -> None:
    value = {"sta\u200btement": ["a\u202eb", {"x\x7f": "y\x9b"}], "n": 3, "ok": None}
    assert clean_value(value) == {"statement": ["ab", {"x": "y"}], "n": 3, "ok": None}
    deep: Any = "\u202e"
    for _ in range(5000):  # deeper than the recursion limit: cleaned without recursing
        deep = [deep]
    clean_value(deep)
    for _ in range(5000):
        deep = deep[0]
    assert deep == ""


@settings(derandomize=True)
@given(st.text())
def test_clean_text_leaves_nothing_hostile_and_keeps_everything_else(text: str) -> None:
    cleaned = clean_text(text)
    assert hostile_in(cleaned) == ""
    assert clean_text(cleaned) == cleaned
    kept = [c for c in text if not is_hostile(c) or c == "\r"]
    assert [c for c in cleaned if c != "\n"] == [c for c in kept if c not in "\n\r"]


# =========================================================================== the parser


def request(action: Action, options: tuple[str, ...] = ()) -> Request:
    phase = {Action.BID: Phase.DEBATE, Action.STATEMENT: Phase.DEBATE, Action.DEFENCE: Phase.DEFENCE,
             Action.VOTE: Phase.VOTE, Action.SELF_ANALYSIS: Phase.DEBATE, Action.PEER_ANALYSIS: Phase.DEBATE}.get(
        action, Phase.NIGHT)
    subject = 7 if action in (Action.SELF_ANALYSIS, Action.PEER_ANALYSIS) else None
    return Request(seat="Ava", action=action, day=2, phase=phase, turn=0, options=options, subject=subject)


TAXONOMY = ("none", "omission", "distortion", "fabrication", "misdirection")
OTHERS = PLAYERS[1:]


def test_a_name_with_hidden_characters_still_matches() -> None:
    for written in ("Bram\u202e", "\u2066Bram\u2069", "Br\u200bam", "B\xadram", "\ufeffbram", "Bra\x7fm", "Bram\x85"):
        assert match_name(written, OTHERS, PLAYERS) == "Bram", repr(written)
    reply = '{"vote": "Br\\u200bam\\u202e", "reason": "He\\u2066 lied\\u2028twice."}'
    decision = interpret(reply, request(Action.VOTE, OTHERS), PLAYERS)
    assert (decision.target, decision.reason) == ("Bram", "He lied twice.")


def test_hostile_characters_between_and_inside_json_tokens_do_not_break_the_reply() -> None:
    raw = '\u202e{\u2066"statement"\u200b: "Bram \x1b[2Jlies\x7f\x9b",\ufeff "notes": "a\x00b\ttab\nline"}\u2028'
    decision = interpret(raw, request(Action.STATEMENT), PLAYERS)
    assert decision.fallback is None
    assert decision.text == "Bram [2Jlies"
    assert decision.notes == "ab tab line"


def test_the_judge_and_the_lessons_read_clean_text() -> None:
    reply = '{"roles": {"Br\\u200bam": "were\\u202ewolf", "Ava\\u2066": "villager", "Z\\u202eed": "jester"}}'
    guesses, problems = parse_guesses(reply, PLAYERS, ("villager", "werewolf", "jester"))
    assert guesses["Bram"] == "werewolf" and guesses["Ava"] == "villager"
    assert problems and all(hostile_in(p) == "" for p in problems)
    assert parse_lessons('{"to_do": ["Bid\\u202e high\\u2028early.", "\\u200b"], "to_not_do": "Lie\\x7f"}'
                         .replace("\\x7f", "\x7f")) == [("to_do", "Bid high early."), ("to_not_do", "Lie")]


def test_a_refusal_names_the_hostile_text_only_escaped() -> None:
    with pytest.raises(InvalidReply) as err:
        interpret('{"vote": "Zed\\u202e", "reason": "x"}', request(Action.VOTE, OTHERS), PLAYERS)
    assert hostile_in(str(err.value)) == ""
    with pytest.raises(InvalidReply) as err:
        interpret('{"\\u202eXyz\\u2066": "Bram"}', request(Action.VOTE, OTHERS), PLAYERS)
    assert hostile_in(str(err.value)) == ""


HOSTILE_TEXT = st.text(alphabet=st.sampled_from([*HOSTILE, *"abc Bram,.!\"\\\n\t", "é", "🐺", "ж"]), max_size=60)


def lace(text: str, hostile: str) -> str:
    """``text`` with hostile characters between its characters, round-robin."""
    if not hostile:
        return text
    return "".join(c + hostile[i % len(hostile)] for i, c in enumerate(text))


def encode(obj: dict[str, Any], how: str) -> str:
    """The reply as a model might send it: escaped JSON, raw JSON, raw controls where JSON forbids them, fenced."""
    if how == "escaped":
        return json.dumps(obj)
    raw = json.dumps(obj, ensure_ascii=False)
    if how == "raw":
        return raw
    if how == "raw_controls":  # a control character written as itself inside a string
        return raw.replace("\\u001b", "\x1b").replace("\\u0000", "\x00").replace("\\u0007", "\x07")
    return f"Sure\u202e! Here it is:\n```json\n{raw}\n```\u2028"


ENCODINGS = st.sampled_from(["escaped", "raw", "raw_controls", "fenced"])


def assert_clean(value: Any) -> None:
    dumped = value.model_dump(mode="json") if hasattr(value, "model_dump") else value
    for s in strings_in(dumped):
        assert hostile_in(s) == "", repr(s)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(statement=HOSTILE_TEXT, notes=HOSTILE_TEXT, reason=HOSTILE_TEXT, reasoning=HOSTILE_TEXT,
       veil=st.text(alphabet=st.sampled_from(INVISIBLE), max_size=3), name=st.sampled_from(OTHERS), how=ENCODINGS)
def test_no_parsed_reply_keeps_a_hostile_character(statement: str, notes: str, reason: str, reasoning: str,
                                                   veil: str, name: str, how: str) -> None:
    replies = [
        (request(Action.STATEMENT), {"statement": statement + "x", "notes": notes}),
        (request(Action.DEFENCE), {"statement": statement + "x", "notes": notes}),
        (request(Action.BID), {"bid": 3, "notes": notes}),
        (request(Action.VOTE, OTHERS), {"vote": lace(name, veil), "reason": reason, "notes": notes}),
        (request(Action.NIGHT_KILL, OTHERS), {"target": veil + name + veil, "notes": notes}),
        (request(Action.SELF_ANALYSIS), {"deception_type": "omission", "confidence": 0.5, "reasoning": reasoning}),
        (request(Action.PEER_ANALYSIS), {"deception_type": "none", "confidence": 0.5, "suspicion": 0.2,
                                         "reasoning": reasoning, "notes": notes}),
    ]
    for req, obj in replies:
        decision = interpret(encode(obj, how), req, PLAYERS, TAXONOMY)
        assert decision.fallback is None
        assert_clean(decision)
        if req.action in (Action.VOTE, Action.NIGHT_KILL):
            assert decision.target == name, "a name with hidden characters still matches"
    lessons = parse_lessons(encode({"to_do": [statement, notes], "to_not_do": reason, "winning_tactics": []}, how))
    assert_clean(lessons)
    roles = {lace(name, veil): "villager", f"not a player: {reason}": "werewolf"}
    guesses, problems = parse_guesses(encode({"roles": roles}, how), PLAYERS, ("villager", "werewolf"))
    assert guesses[name] == "villager"
    assert_clean([guesses, problems])


@settings(max_examples=200, deadline=None, derandomize=True)
@given(key=HOSTILE_TEXT, value=HOSTILE_TEXT, how=ENCODINGS)
def test_every_decoded_string_is_clean(key: str, value: str, how: str) -> None:
    obj = first_json_object(encode({key: value, "nested": [{key: [value, 1, None]}]}, how))
    assert_clean(obj)


# =========================================================================== the lessons file


def test_lessons_written_by_an_older_release_are_cleaned_on_read(tmp_path: Path) -> None:
    path = snapshot_path(tmp_path, 0)
    old = Snapshot.model_validate({"model": "m", "lessons": [
        {"list": "to_do", "text": "Bid\u202e high\x1b[2J on\u2028day one."},
        {"list": "to_not_do", "text": "\u200b\ufeff"},
        {"list": "winning_tactics", "text": "Act 🐺 wolfish."}]})
    path.write_text(json.dumps(old.model_dump(mode="json"), ensure_ascii=False), encoding="utf-8")
    read = read_snapshot(path)
    assert read is not None and [x.text for x in read.lessons] == ["Bid high[2J on day one.", "Act 🐺 wolfish."]
    added = new_lessons([("to_do", "Speak\u2066 first\x7f."), ("to_do", "Bid high[2J on day one.")], read.lessons, 1)
    assert [x.text for x in added] == ["Speak first."]
    assert hostile_in(read.model_copy(update={"lessons": [*read.lessons, *added]}).dump().decode()) == ""


# =========================================================================== a whole game

GAME_ARGS = {"games": 1, "seed": 0, "max_days": 2, "max_debate_turns": 3, "max_explanation_turns": 2}
TEXT_KEYS = ("statement", "reason", "notes", "reasoning", "to_do", "to_not_do", "winning_tactics")


def haunt(obs: Any, content: str) -> str:
    """Lace every text field of a reply with hostile characters, veil the names, and vary the encoding."""
    whole = json.loads(content)
    obj = whole["decision"] if isinstance(whole.get("decision"), dict) else whole  # a seat's reply: its decision
    pick = zlib.crc32(content.encode())
    if (obs.action not in ("lessons", "self_analysis", "peer_analysis") or "bid" in obj or "statement" in obj) \
            and obj.get("notes") is None:
        obj["notes"] = f"Day {obs.day}: watch {obs.alive[pick % len(obs.alive)]}."
    for part in [obj, *(a for a in whole.get("analyses") or [] if isinstance(a, dict))]:  # its analyses too
        for key in TEXT_KEYS:
            value = part.get(key)
            if isinstance(value, str):
                part[key] = f"\u2066{value[:1]}\u202e{value[1:]}\x7f \x85\x9b\x1b[31m\u2028{REPORTED}"
            elif isinstance(value, list):
                part[key] = [f"{v}\u202e\x9b\u2028" for v in value] + ["\u200b\ufeff"]
    for key in ("vote", "target"):
        if isinstance(obj.get(key), str):
            name = obj[key]
            obj[key] = f"{name[:1]}\u200b{name[1:]}\u202e" if pick % 2 else f"\u2066{name}\x7f\u2069"
    how = ("escaped", "raw", "raw_controls", "fenced")[pick % 4]
    return encode(whole, how)


def play_haunted_game(log_dir: Path, lessons_dir: Path) -> EvalSample:
    """A two-day triadic game (analysis and Jester learning on), laced replies, a laced old lessons file."""
    model = scripted_model(haunt, policy="random", whole=True)  # the random bots play the two days out
    path = snapshot_path(model_folder(lessons_dir, str(model)), 0)
    old = {"model": str(model), "lessons": [{"list": "to_do", "text": f"Act wolfish{REPORTED} on day one."}]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(old, ensure_ascii=False), encoding="utf-8")
    [log] = learned(model, log_dir, 1, task_args={k: v for k, v in GAME_ARGS.items() if k != "games"}
                    | {"lessons_dir": str(lessons_dir)})
    assert log.status == "success", log.error
    [sample] = log.samples
    return resolve_sample_attachments(sample)


def prompts(sample: EvalSample) -> list[str]:
    """Every prompt sent to a seat: each model event's input messages, attachments resolved."""
    return ["\n".join(m.text for m in e.input) for e in sample.events if e.event == "model"]


def haunted_prompts(sample: EvalSample) -> int:
    return sum(1 for p in prompts(sample) if hostile_in(p))


@pytest.fixture(scope="module")
def haunted(tmp_path_factory: pytest.TempPathFactory) -> EvalSample:
    return play_haunted_game(tmp_path_factory.mktemp("logs"), tmp_path_factory.mktemp("lessons"))


@pytest.mark.slow
def test_the_game_was_laced_and_played_through(haunted: EvalSample) -> None:
    replies = [e.output.completion for e in haunted.events if e.event == "model"]
    assert sum(1 for r in replies if hostile_in(r)) > 100, "the replies do carry hostile characters"
    record = logged_record(haunted.store)
    game = record.game()
    assert game.outcome is not None and game.day == 2
    kinds = {r.kind for r in game.records}
    assert {"statement", "defence", "vote", "note", "wolf_proposal", "deception"} <= kinds
    assert not [r for r in game.records if r.kind == "fallback"], "every laced reply was still readable"
    reasoning = [a.reasoning for r in game.records if r.kind == "deception"
                 for a in [r.data.self, *r.data.peers.values()] if a is not None and a.reasoning]
    assert reasoning and all("\n" not in x for x in reasoning)
    assert record.lessons_read and record.lessons_added


@pytest.mark.slow
def test_no_prompt_carries_a_hostile_character(haunted: EvalSample) -> None:
    sent = prompts(haunted)
    assert len(sent) > 100
    assert haunted_prompts(haunted) == 0
    jester = [p for p in sent if "Act wolfish on day one." in p]
    assert jester, "the old lessons reach the Jester's prompt, cleaned"


@pytest.mark.slow
def test_no_record_carries_a_hostile_character(haunted: EvalSample) -> None:
    store = logged_record(haunted.store).model_dump(mode="json")
    for key, value in store.items():
        for s in strings_in(value):
            assert hostile_in(s) == "", f"{key}: {s[:80]!r}"


@pytest.mark.slow
def test_the_raw_reply_copies_are_clean_too(haunted: EvalSample) -> None:
    reply = logged_record(haunted.store).lessons_reply
    assert reply is not None and hostile_in(reply) == ""


def test_unicode_database_agrees_with_the_reported_categories() -> None:
    assert [unicodedata.category(c) for c in REPORTED] == ["Cc", "Cc", "Cc", "Cf", "Cf", "Zl"]
