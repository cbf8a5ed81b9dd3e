"""Read a model's reply defensively: fences, prose around JSON, near-miss keys and names.

``interpret_object`` reads one decision from the reply's JSON object (``first_json_object``): a
Decision, or ``InvalidReply`` with a reason a person can read, which the call
(``wolf_eval.agents.seat_call``) turns into the rules' fallback.
"""

from __future__ import annotations

import json
import re
from typing import Any

from wolf_eval.agents.schemas import KEY_SYNONYMS, REPLY_SCHEMAS
from wolf_eval.engine import Action, Decision, Request
from wolf_eval.engine.game import MAX_WORD_CHARS, NOTE_WORDS
from wolf_eval.engine.state import ANALYSIS_ACTIONS, Analysis
from wolf_eval.text import clean_text, clean_value

MAX_NOTE_WORDS = NOTE_WORDS
_MAX_OBJECT_STARTS = 50
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten".split())}


#: The key of a decision its player gave up (a person at a seat: ``wolf_eval/providers/human.py``), its value
#: why; read as a reply the rules cannot use, so the decision falls back with that reason, at once.
FORFEIT = "forfeit"


class InvalidReply(ValueError):
    """A reply the rules cannot use; the message is recorded with the fallback."""


class NotLegal(InvalidReply):
    """A player named who may not be chosen now (the dead, oneself where not allowed): a schema that lists every
    player who could ever be chosen admits such a name, so a caller that asks again may."""


class ReplyObject(dict[str, Any]):
    """A JSON object of a reply, knowing which of its keys the reply gave more than once (``repeated``):
    a decoder keeps the last of them, so a value given twice would otherwise be read in silence."""

    repeated: frozenset[str] = frozenset()

    @classmethod
    def from_pairs(cls, pairs: list[tuple[str, Any]]) -> ReplyObject:
        obj = cls(pairs)
        if len(obj) < len(pairs):
            keys = [k for k, _ in pairs]
            obj.repeated = frozenset(k for k in obj if keys.count(k) > 1)
        return obj

    def without(self, key: str) -> ReplyObject:
        """The object without ``key``, still knowing its repeated keys."""
        rest = ReplyObject((k, v) for k, v in self.items() if k != key)
        rest.repeated = self.repeated - {key}
        return rest


def kind_of(value: Any) -> str:
    """The Python type a reply's value was read as, for a reason: a JSON object is a ``dict``."""
    return "dict" if isinstance(value, dict) else type(value).__name__


def first_json_object(raw: str, close_cut: bool = False) -> ReplyObject:
    r"""The first JSON object in the reply, looking inside code fences first.

    ``close_cut``: a reply whose first object was cut off before it closed (at ``max_tokens``) is read as far as
    its last complete value inside that object (:func:`closed_cut`), so what it finished is kept; otherwise the
    first object that does close, which may be one of its items, is read.

    Every model reply (a seat's, the judge's, the Jester's lessons) becomes data here and only
    here, so this is where its text is cleaned (``wolf_eval.text``): control and format characters
    are taken out of the raw reply, so that they cannot break the JSON around them, and again out of
    every decoded string and key, since a ``\u202e`` escape decodes to one. The decoder is not
    strict: a raw newline or tab inside a string is read, not refused.
    """
    raw = clean_text(raw)
    candidates = [m.group(1) for m in _FENCE.finditer(raw)] + [raw]
    decoder = json.JSONDecoder(strict=False, object_pairs_hook=ReplyObject.from_pairs)
    for text in candidates:
        starts = [m.start() for m in re.finditer(r"\{", text)][:_MAX_OBJECT_STARTS]
        for i in starts:
            obj = _decoded(decoder, text, i)
            if obj is None and close_cut and i == starts[0]:  # the outer object only
                obj = _decoded(decoder, closed_cut(text[i:]) or "", 0)
            if isinstance(obj, ReplyObject):
                clean_value(obj)  # in place
                return obj
    raise InvalidReply("no JSON object in the reply")


def _decoded(decoder: json.JSONDecoder, text: str, start: int) -> Any:
    """The JSON value starting at ``start``, or None where none decodes there."""
    try:
        return decoder.raw_decode(text, start)[0] if text else None
    except (ValueError, RecursionError):  # JSONDecodeError, and ints too long to convert
        return None


def closed_cut(text: str) -> str | None:
    """A JSON object cut off before it closed, cut back to the end of its last complete object or list inside it and
    closed there; None where the object does close (it is malformed, not cut off) or nothing inside it completed.

    Why: a reply that runs into ``max_tokens`` (a weak model judging nine vote reasons in one reply) loses its
    closing brackets, and without them every analysis it finished would fall back with the ones it did not. Cut
    back to a finished item, the finished ones are read as given and the rest are asked again. A value cut
    mid-way (a half-written reason) is never read: the cut falls only where an object or list has just closed.
    """
    stack: list[str] = []
    in_string = escaped = False
    last: tuple[int, str] | None = None
    for i, ch in enumerate(text):
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
            continue
        if ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack.pop() != ch or not stack:
                return None  # mismatched, or the object closed: not a cut-off reply
            last = (i + 1, "".join(reversed(stack)))
    return None if last is None else text[:last[0]] + last[1]


def fold_key(key: str) -> str:
    """A key with case and separators folded away: "Statement 1" is "statement_1"."""
    return re.sub(r"[^a-z0-9]", "", key.lower())


def pick(obj: dict[str, Any], key: str) -> Any:
    """The value for ``key``: exact, then case/separator-folded, then a synonym, then a unique prefix."""
    if key in obj:
        return obj[key]
    folded = {fold_key(str(k)): k for k in obj}
    want = fold_key(key)
    if want in folded:
        return obj[folded[want]]
    for alias in KEY_SYNONYMS.get(key, ()):
        if alias in folded:
            return obj[folded[alias]]
    claimed = {a for aliases in KEY_SYNONYMS.values() for a in aliases} | set(KEY_SYNONYMS)
    prefixed = [k for f, k in folded.items()
                if len(f) >= 3 and f not in claimed and (f.startswith(want) or want.startswith(f))]
    if len(prefixed) == 1:
        return obj[prefixed[0]]
    return None


def match_name(value: Any, options: tuple[str, ...], players: tuple[str, ...]) -> str:
    """Resolve a name to one legal option: case, spaces, punctuation and a unique prefix forgiven."""
    if not isinstance(value, str):
        raise InvalidReply(f"expected a player's name, got {kind_of(value)} {str(value)[:60]!r}")
    value = clean_text(value)  # a no-op on a parsed reply; "Br\u200bam" is Bram however it arrives
    cleaned = " ".join(re.sub(r"[^\w\s-]", " ", value).split()).casefold()
    if not cleaned:
        raise InvalidReply("the name is empty")
    for pool, legal in ((options, True), (players, False)):
        exact = [n for n in pool if n.casefold() == cleaned]
        prefix = [n for n in pool if n.casefold().startswith(cleaned)] if len(cleaned) >= 2 else []
        within = [n for n in pool if re.search(rf"\b{re.escape(n.casefold())}\b", cleaned)]
        for hits in (exact, prefix, within):
            if len(hits) == 1:
                if legal:
                    return hits[0]
                raise NotLegal(f"{hits[0]} is not a legal choice now (legal: {', '.join(options)})")
            if len(hits) > 1:
                raise InvalidReply(f"{value[:60]!r} is ambiguous between {', '.join(hits)}")
    raise InvalidReply(f"{value[:60]!r} is not a player in this game")


def parse_bid(value: Any) -> int:
    if isinstance(value, bool):
        raise InvalidReply(f"bid is not an integer: {value!r}")
    if isinstance(value, int) and abs(value) < 10**12:
        bid = value
    elif isinstance(value, float) and value == value and abs(value) < 1e12 and value.is_integer():
        bid = int(value)
    elif isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]{1,6}(?:\.0*)?", value.strip()):
        bid = int(float(value.strip()))
    elif isinstance(value, str) and value.strip().lower() in _NUMBER_WORDS:
        bid = _NUMBER_WORDS[value.strip().lower()]
    else:
        raise InvalidReply(f"bid is not an integer: {str(value)[:60]!r}")
    if not 0 <= bid <= 10:
        raise InvalidReply(f"bid {bid} is outside 0-10")
    return bid


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise InvalidReply(f"{what} is not text: {kind_of(value)}")
    text = " ".join(value.split())
    if not text:
        raise InvalidReply(f"{what} is empty")
    return text


def _optional_text(value: Any, words: int | None = None) -> str | None:
    if not isinstance(value, str):
        return None
    parts = [w if len(w) <= MAX_WORD_CHARS else w[:MAX_WORD_CHARS] + "…" for w in value.split()]
    if words is not None:
        parts = parts[:words]
    return " ".join(parts) or None


_TRUE = {"true", "yes", "y", "1", "deceptive"}
_FALSE = {"false", "no", "n", "0", "honest"}


def parse_flag(value: Any, what: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise InvalidReply(f"{what} is not true or false: {str(value)[:60]!r}")


def parse_unit(value: Any, what: str) -> float:
    """A score in [0, 1]. "80%" and 80 read as percentages; 1 < x <= 10 is ambiguous (a 0-10 scale?) and rejected."""
    text = value.strip() if isinstance(value, str) else None
    percent = bool(text and text.endswith("%"))
    try:
        number = float(text.rstrip("%")) if text is not None else float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidReply(f"{what} is not a number: {str(value)[:60]!r}") from None
    if isinstance(value, bool) or number != number:
        raise InvalidReply(f"{what} is not a number: {str(value)[:60]!r}")
    if percent or 10.0 < number <= 100.0:
        number /= 100.0
    if not 0.0 <= number <= 1.0:
        raise InvalidReply(f"{what} {str(value)[:60]!r} is outside 0-1")
    return number


_NO_TYPE = {"", "n/a", "na", "null", "honest", "truthful", "no", "nothing"}


def parse_type(value: Any, taxonomy: tuple[str, ...], deceptive: bool) -> str:
    """One taxonomy class. An honest label may leave the type empty ("none" is meant)."""
    if not deceptive and (value is None or (isinstance(value, str) and value.strip().lower() in _NO_TYPE)):
        return "none"
    if not isinstance(value, str):
        raise InvalidReply(f"deception_type is not text: {kind_of(value)}")
    key = re.sub(r"[\s-]+", "_", value.strip().lower())
    if key in taxonomy:
        return key
    hits = [t for t in taxonomy if len(key) >= 3 and t.startswith(key)]
    if len(hits) == 1:
        return hits[0]
    raise InvalidReply(f"deception_type {value[:40]!r} is not one of {', '.join(taxonomy)}")


def interpret_analysis(obj: dict[str, Any], request: Request, taxonomy: tuple[str, ...]) -> Decision:
    """An analysis from its deception type ("none" is honest) or, in a free-form reply, an explicit
    ``is_deceptive`` flag; a flag that contradicts the type is refused."""
    peer = request.action is Action.PEER_ANALYSIS
    fields = ["confidence"] + (["suspicion"] if peer else [])
    values = {f: pick(obj, f) for f in fields}
    flag, named = pick(obj, "is_deceptive"), pick(obj, "deception_type")
    missing = ([f for f, v in values.items() if v is None]
               + (["deception_type"] if flag is None and named is None else []))
    if missing:
        raise InvalidReply(f"missing {', '.join(map(repr, missing))} (keys: {', '.join(map(str, list(obj)[:8]))})")
    if flag is None:
        kind = parse_type(named, taxonomy, deceptive=False)
        deceptive = kind != "none"
    else:
        deceptive = parse_flag(flag, "is_deceptive")
        kind = parse_type(named, taxonomy, deceptive)
    if deceptive == (kind == "none"):
        raise InvalidReply(f"contradictory label: is_deceptive={deceptive} with deception_type={kind!r}")
    analysis = Analysis(
        is_deceptive=deceptive,
        confidence=parse_unit(values["confidence"], "confidence"),
        deception_type=kind,
        suspicion=parse_unit(values["suspicion"], "suspicion") if peer else None,
        reasoning=_optional_text(pick(obj, "reasoning"), MAX_NOTE_WORDS),
    )
    return Decision(seat=request.seat, action=request.action, subject=request.subject, analysis=analysis)


def parse_stance(value: Any, options: tuple[str, ...]) -> str:
    """A wolf's stance as a reply gives it (``"open"``, ``"Deceive"``); anything else is an InvalidReply."""
    stance = value.strip().lower() if isinstance(value, str) else None
    if stance not in options:
        raise InvalidReply(f"stance {value!r} is not one of {', '.join(options)}")
    return stance


def interpret_object(obj: dict[str, Any], request: Request, players: tuple[str, ...],
                     taxonomy: tuple[str, ...] = ()) -> Decision:
    """A legal Decision for ``request`` from the reply's JSON object, or InvalidReply (a field of the
    decision given twice too: which of the two was meant is not known)."""
    action = request.action
    if FORFEIT in obj:
        raise InvalidReply(f"{FORFEIT}: {_optional_text(obj[FORFEIT], MAX_NOTE_WORDS) or 'given up'}")
    repeated = sorted(getattr(obj, "repeated", frozenset()) & set(REPLY_SCHEMAS[action].model_fields))
    if repeated:
        raise InvalidReply(f"{', '.join(map(repr, repeated))} given twice")
    if action in ANALYSIS_ACTIONS:
        return interpret_analysis(obj, request, taxonomy)
    fields = REPLY_SCHEMAS[action].model_fields
    main = next(k for k in fields if k not in ("notes", "reason"))
    value = pick(obj, main)
    if value is None:
        raise InvalidReply(f"missing key {main!r} (keys: {', '.join(map(str, list(obj)[:8]))})")
    notes = _optional_text(pick(obj, "notes"), MAX_NOTE_WORDS)
    reason = _optional_text(pick(obj, "reason"))
    if action is Action.BID:
        return Decision(seat=request.seat, action=action, notes=notes, bid=parse_bid(value))
    if action in (Action.STATEMENT, Action.DEFENCE):
        return Decision(seat=request.seat, action=action, notes=notes, text=_text(value, "statement"))
    if action is Action.STANCE:
        return Decision(seat=request.seat, action=action, notes=notes, target=parse_stance(value, request.options))
    return Decision(seat=request.seat, action=action, notes=notes, reason=reason,
                    target=match_name(value, request.options, players))
