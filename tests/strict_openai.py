"""A local OpenAI-compatible server for tests that enforces Structured Outputs' *strict* schema rules.

Inspect's ``openai-api`` provider (``openai-api/<service>/<model>``, inspect-ai 0.3.285) sends every
``generate`` call to ``POST {base_url}/chat/completions`` with the ``openai`` SDK's
``AsyncOpenAI.chat.completions.create``: it uses the Responses API only when the model arg
``responses_api=true`` is given, and streams only when ``stream=true`` is given or a display
asks for a stream (``display="none"`` does not). A ``ResponseSchema`` becomes::

    "response_format": {"type": "json_schema", "json_schema": {
        "name": ..., "schema": <json_schema_dump(..., exclude=JSON_SCHEMA_EXTENDED_FIELDS)>,
        "description": <or null>, "strict": <ResponseSchema.strict, null when unset>}}

(``inspect_ai/model/_openai.py:openai_completion_params``). Note that the provider strips
``pattern``, ``minLength``, ``maxLength``, ``minimum``, ``maximum`` and ``examples`` from the
schema at every level (``OpenAICompatibleAPI.schema_exclude_fields``), so a bound written as
``minimum``/``maximum`` never reaches the server, and Inspect's ``JSONSchema`` model keeps only
``type, format, description, default, enum, items, properties, additionalProperties, anyOf,
required`` (plus the stripped ones): ``const``, ``$defs``/``$ref``, ``title``, ``minItems`` ... are
dropped before anything is sent.

Use :class:`StrictOpenAIStub` as a context manager and point the provider at ``stub.base_url``
(``http://127.0.0.1:PORT/v1``)::

    with StrictOpenAIStub() as stub:
        inspect_ai.eval(task, model="openai-api/stub/any", model_base_url=stub.base_url,
                        model_args={"api_key": "stub"})

For each chat-completions request:

* ``response_format.type == "json_schema"``: the schema is checked against the strict rules
  below (:func:`strict_violations`); the first violation is answered with HTTP 400 and an
  OpenAI-style error body. A valid schema is answered with a random instance of it
  (:func:`random_instance`), seeded from a hash of the request body, so a run is deterministic.
* no ``response_format`` (or another type): ``{"note": "no schema"}``, which a caller that
  forgot the schema then sees as an unusable reply.

``thinking`` makes every reply carry a reasoning model's thinking as OpenAI-compatible servers return it:
``"full"`` as ``reasoning_content`` (DeepSeek, vLLM), ``"summary"`` as ``reasoning_details`` holding a
readable summary beside the encrypted reasoning (OpenRouter's shape for OpenAI's reasoning models), and
``"encrypted"`` as ``reasoning_details`` holding the encrypted reasoning alone. Each text is
``STUB-THOUGHT-<n>`` (full or summary), unique to its request, so a test can find it wherever it travels.

Every reply carries ``usage`` (with ``prompt_tokens_details.cached_tokens``), so Inspect never
needs a tokenizer. Every request is recorded in :attr:`StrictOpenAIStub.requests`, with its
``prompt_cache_key`` (if sent) and a hash of its response schema (``benchmarks/cache.py`` reads them).

Sources of the strict rules (the "Supported schemas" section of OpenAI's Structured Outputs
guide, https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas,
formerly https://platform.openai.com/docs/guides/structured-outputs#supported-schemas, read
through stored copies of several of its versions), cited below as [SO]. Where its wording
leaves a case open, the checker takes the strict reading and says so ("strict reading").
Error messages follow the API's own wording where a real one is on record:

* ``Invalid schema for response_format 'NAME': In context=('properties', 'x'), 'required' is
  required to be supplied and to be an array including every key in properties. Missing 'y'.``
  (quoted in vercel/ai#6484 and hamc/blastproof#85, code ``invalid_json_schema``);
* ``... In context=('properties', 'error'), 'default' is not permitted.`` (567-labs/instructor#1074);
* ``... N levels of nesting exceeds limit of 5.`` (tidyverse/ellmer#671).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# --------------------------------------------------------------------------------------------
# The strict rules
# --------------------------------------------------------------------------------------------

#: [SO] "Supported types: String, Number, Boolean, Integer, Object, Array, Enum, anyOf", and
#: "emulate an optional parameter by using a union type with null" (``"type": ["string", "null"]``).
JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})

#: Keywords any schema may carry. ``description``: used throughout [SO]'s examples. ``title``: not
#: listed by [SO], but the openai SDK's own strict converter (openai-python
#: ``src/openai/lib/_pydantic.py:to_strict_json_schema``, used by ``chat.completions.parse``) leaves
#: pydantic's ``title`` on every node, so the API accepts it. ``enum``: a supported "type" in [SO].
#: ``const``: [SO] counts "const values" in its total string size limit, so it is accepted.
COMMON_KEYWORDS = frozenset({"type", "description", "title", "enum", "const"})

#: [SO] "Supported properties", per type.
STRING_KEYWORDS = frozenset({"pattern", "format"})
NUMBER_KEYWORDS = frozenset({"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"})
ARRAY_KEYWORDS = frozenset({"items", "minItems", "maxItems"})
#: [SO] "additionalProperties: false must always be set in objects", "All fields must be required".
OBJECT_KEYWORDS = frozenset({"properties", "required", "additionalProperties"})
TYPE_KEYWORDS = {
    "string": STRING_KEYWORDS,
    "number": NUMBER_KEYWORDS,
    "integer": NUMBER_KEYWORDS,
    "array": ARRAY_KEYWORDS,
    "object": OBJECT_KEYWORDS,
    "boolean": frozenset(),
    "null": frozenset(),
}
ALL_TYPE_KEYWORDS = frozenset().union(*TYPE_KEYWORDS.values())

#: [SO] "format — Predefined formats for strings. Currently supported: date-time, time, date,
#: duration, email, hostname, ipv4, ipv6, uuid".
STRING_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})

#: [SO] "Some type-specific keywords are not yet supported — Composition: allOf, not,
#: dependentRequired, dependentSchemas, if, then, else" and, for fine-tuned models, "minLength,
#: maxLength, pattern, format / minimum, maximum, multipleOf / patternProperties / minItems,
#: maxItems". Strict reading: ``minLength``/``maxLength`` are named as unsupported only for
#: fine-tuned models, but they are not in the supported list either, so they are rejected; so is
#: every other keyword [SO] does not list (``oneOf``, ``uniqueItems``, ``prefixItems``,
#: ``examples``, ``$comment``, ``$schema``, ``nullable`` ...). ``default``: not in the supported
#: list, and the API answers "'default' is not permitted" (567-labs/instructor#1074; the openai SDK
#: strips ``default: None`` for this reason, ``_pydantic.py``: "strip `None` defaults").
DOCUMENTED_UNSUPPORTED = frozenset({
    "allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else",
    "minLength", "maxLength", "patternProperties", "default",
})

# Limits. [SO] has raised them over time; the checker applies the smallest value any version
# documented (strict reading), so a schema that passes here passes every version:
#   2024 guide: "up to 100 object properties total, with up to 5 levels of nesting"; "total
#     string length of all property names, definition names, enum values, and const values
#     cannot exceed 15,000 characters"; "up to 500 enum values across all enum properties";
#     "For a single enum property with string values, the total string length of all enum values
#     cannot exceed 7,500 characters when there are more than 250 enum values."
#   later versions: 5000 properties with up to 5 levels of nesting, 120,000 characters, 1000 enum
#     values, 15,000 characters; the current page says "up to 10 levels of nesting".
MAX_OBJECT_PROPERTIES = 100
MAX_NESTING = 5
MAX_TOTAL_STRING_CHARS = 15_000
MAX_ENUM_VALUES = 500
LARGE_ENUM = 250
MAX_LARGE_ENUM_CHARS = 7_500

#: The ``json_schema.name`` rule, from the API reference (openai-python
#: ``types/shared_params/response_format_json_schema.py``): "Must be a-z, A-Z, 0-9, or contain
#: underscores and dashes, with a maximum length of 64."
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class Violation:
    """One broken rule: where (the API's ``context`` tuple) and what."""

    context: tuple[str, ...]
    message: str

    def render(self, schema_name: str | None) -> str:
        if self.context == ("response_format",):
            return self.message
        return f"Invalid schema for response_format {schema_name!r}: In context={self.context!r}, {self.message}"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _fits_type(value: Any, types: list[str]) -> bool:
    kind = _json_type(value)
    if kind in types:
        return True
    if kind == "integer" and "number" in types:
        return True
    return kind == "number" and "integer" in types and float(value).is_integer()


# Regex constructs a decoder over a regular language cannot enforce. [SO] does not list them;
# strict reading (unverified against the API): lookarounds, backreferences and conditionals are
# rejected.
_IRREGULAR = re.compile(r"\(\?[=!]|\(\?<[=!]|\\[1-9]|\\k<|\(\?\(")


class _Checker:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.violations: list[Violation] = []
        self.properties = 0
        self.enum_values = 0
        self.string_chars = 0
        self.deepest = 0

    def add(self, context: tuple[str, ...], message: str) -> None:
        self.violations.append(Violation(context, message))

    def run(self) -> list[Violation]:
        root = self.root
        if not isinstance(root, dict):
            self.add((), "schema must be a JSON object.")
            return self.violations
        # [SO] "Root objects must not be anyOf and must be an object"
        if "anyOf" in root:
            self.add((), "the root schema must be an object and not use anyOf.")
        elif root.get("type") != "object":
            self.add((), f"the root schema must have type 'object', got {root.get('type')!r}.")
        defs = root.get("$defs")
        if defs is not None:
            # [SO] "Definitions are supported" (``$defs`` at the root in its examples; strict
            # reading: only there, and not the older ``definitions``).
            if not isinstance(defs, dict):
                self.add(("$defs",), "'$defs' must be an object.")
            else:
                for name, sub in defs.items():
                    self.string_chars += len(name)
                    self.node(sub, ("$defs", name), 0)
        self.node(root, (), 0, is_root=True)
        # totals
        if self.deepest > MAX_NESTING:
            self.add((), f"{self.deepest} levels of nesting exceeds limit of {MAX_NESTING}.")
        if self.properties > MAX_OBJECT_PROPERTIES:
            self.add((), f"{self.properties} object properties exceeds limit of {MAX_OBJECT_PROPERTIES}.")
        if self.enum_values > MAX_ENUM_VALUES:
            self.add((), f"{self.enum_values} enum values exceeds limit of {MAX_ENUM_VALUES}.")
        if self.string_chars > MAX_TOTAL_STRING_CHARS:
            self.add((), f"total string length of property names, definition names, enum values and const values "
                         f"({self.string_chars}) exceeds limit of {MAX_TOTAL_STRING_CHARS}.")
        return self.violations

    def node(self, s: Any, ctx: tuple[str, ...], depth: int, is_root: bool = False) -> None:
        if not isinstance(s, dict):
            # boolean schemas (``true``/``false``) are not in [SO]'s subset (strict reading)
            self.add(ctx, f"a schema must be a JSON object, got {json.dumps(s)}.")
            return
        if "$ref" in s:
            self.ref(s, ctx)
            return
        if "anyOf" in s:
            self.any_of(s, ctx, depth)
            return
        for key in s:
            if key == "$defs" and is_root:
                continue
            if key in DOCUMENTED_UNSUPPORTED or (key not in COMMON_KEYWORDS and key not in ALL_TYPE_KEYWORDS):
                self.add(ctx, f"{key!r} is not permitted.")
        for key in ("description", "title"):
            if key in s and not isinstance(s[key], str):
                self.add(ctx, f"{key!r} must be a string.")
        types = self.types(s, ctx)
        if types is None:
            return
        allowed = set().union(*(TYPE_KEYWORDS[t] for t in types))
        for key in s:
            if key in ALL_TYPE_KEYWORDS and key not in allowed and key not in DOCUMENTED_UNSUPPORTED:
                self.add(ctx, f"{key!r} is not permitted for type {s['type']!r}.")
        self.values(s, ctx, types)
        level = depth + 1 if ("object" in types or "array" in types) else depth
        self.deepest = max(self.deepest, level)
        if "object" in types:
            self.obj(s, ctx, level)
        if "array" in types:
            self.array(s, ctx, level)
        if "string" in types:
            self.string(s, ctx)
        if "number" in types or "integer" in types:
            self.number(s, ctx, integer="number" not in types)

    def ref(self, s: dict[str, Any], ctx: tuple[str, ...]) -> None:
        # The openai SDK inlines a ``$ref`` that has sibling keywords because the API refuses
        # it (``_pydantic.py``: "we can't use `$ref`s if there are also other properties defined").
        extra = sorted(k for k in s if k != "$ref")
        if extra:
            self.add(ctx, f"'$ref' cannot be combined with other keywords ({', '.join(map(repr, extra))}).")
        ref = s["$ref"]
        # [SO] "Recursive schemas are supported": ``"#"`` (root recursion) and ``"#/$defs/<name>"``.
        if ref == "#":
            return
        m = re.fullmatch(r"#/\$defs/([^/]+)", ref) if isinstance(ref, str) else None
        defs = self.root.get("$defs") if isinstance(self.root, dict) else None
        if m is None or not isinstance(defs, dict) or m.group(1) not in defs:
            self.add(ctx, f"'$ref' {ref!r} must be '#' or point at an entry of the root's '$defs'.")

    def any_of(self, s: dict[str, Any], ctx: tuple[str, ...], depth: int) -> None:
        # [SO] "For anyOf, the nested schemas must each be a valid JSON Schema per this subset".
        # Strict reading: next to ``anyOf`` only ``description`` and ``title`` (what pydantic and
        # the openai SDK put there) are accepted.
        for key in s:
            if key not in ("anyOf", "description", "title"):
                self.add(ctx, f"{key!r} is not permitted next to 'anyOf'." if key != "default"
                         else "'default' is not permitted.")
        branches = s["anyOf"]
        if not isinstance(branches, list) or not branches:
            self.add(ctx, "'anyOf' must be a non-empty array.")
            return
        for i, branch in enumerate(branches):
            self.node(branch, (*ctx, "anyOf", str(i)), depth)

    def types(self, s: dict[str, Any], ctx: tuple[str, ...]) -> list[str] | None:
        t = s.get("type")
        if t is None:
            # Strict reading: [SO]'s subset is typed; an untyped schema (``{}``, any value) is not
            # in it, and neither is an untyped ``enum``/``const``.
            self.add(ctx, "'type' is required.")
            return None
        types = t if isinstance(t, list) else [t]
        if not types or not all(isinstance(x, str) and x in JSON_TYPES for x in types) or len(set(types)) != len(types):
            self.add(ctx, f"'type' must be one of {sorted(JSON_TYPES)} or a list of distinct ones, got {t!r}.")
            return None
        # [SO] shows only ``[T, "null"]`` unions; strict reading: a type list is one type plus null.
        if isinstance(t, list) and len([x for x in types if x != "null"]) > 1:
            self.add(ctx, f"a type list may only add 'null' to one type, got {t!r} (use anyOf).")
        return types

    def values(self, s: dict[str, Any], ctx: tuple[str, ...], types: list[str]) -> None:
        if "enum" in s:
            enum = s["enum"]
            if not isinstance(enum, list) or not enum:
                self.add(ctx, "'enum' must be a non-empty array.")
            else:
                self.enum_values += len(enum)
                chars = sum(len(v) for v in enum if isinstance(v, str))
                self.string_chars += chars
                if len(enum) > LARGE_ENUM and chars > MAX_LARGE_ENUM_CHARS:
                    self.add(ctx, f"an enum of more than {LARGE_ENUM} values may total at most "
                                  f"{MAX_LARGE_ENUM_CHARS} characters, got {chars}.")
                for v in enum:
                    if isinstance(v, (dict, list)) or not _fits_type(v, types):
                        self.add(ctx, f"enum value {json.dumps(v)} does not match type {s['type']!r}.")
                        break
        if "const" in s:
            v = s["const"]
            if isinstance(v, str):
                self.string_chars += len(v)
            if isinstance(v, (dict, list)) or not _fits_type(v, types):
                self.add(ctx, f"const value {json.dumps(v)} does not match type {s['type']!r}.")

    def obj(self, s: dict[str, Any], ctx: tuple[str, ...], level: int) -> None:
        props = s.get("properties")
        if not isinstance(props, dict):
            # Strict reading: an object lists its keys (a free-form map cannot be strict).
            self.add(ctx, "'properties' is required to be supplied and to be an object.")
            props = {}
        if s.get("additionalProperties") is not False:
            self.add(ctx, "'additionalProperties' is required to be supplied and to be false.")
        required = s.get("required")
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            missing = list(props)
        else:
            missing = [k for k in props if k not in required]
            unknown = [r for r in required if r not in props]
            if unknown:  # strict reading
                self.add(ctx, f"'required' names {unknown[0]!r}, which is not in properties.")
        if missing or not isinstance(required, list):
            tail = f" Missing {missing[0]!r}." if missing else ""
            self.add(ctx, "'required' is required to be supplied and to be an array including every key in "
                          f"properties.{tail}")
        for name, sub in props.items():
            self.properties += 1
            self.string_chars += len(name)
            self.node(sub, (*ctx, "properties", name), level)

    def array(self, s: dict[str, Any], ctx: tuple[str, ...], level: int) -> None:
        items = s.get("items")
        if not isinstance(items, dict):
            # strict reading: one item schema, required (no tuple form, no untyped arrays)
            self.add(ctx, "'items' is required to be supplied and to be a schema.")
        else:
            self.node(items, (*ctx, "items"), level)
        lo, hi = s.get("minItems"), s.get("maxItems")
        for key, v in (("minItems", lo), ("maxItems", hi)):
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                self.add(ctx, f"{key!r} must be a non-negative integer.")
        if isinstance(lo, int) and isinstance(hi, int) and lo > hi:
            self.add(ctx, "'minItems' exceeds 'maxItems'.")

    def string(self, s: dict[str, Any], ctx: tuple[str, ...]) -> None:
        fmt = s.get("format")
        if fmt is not None and fmt not in STRING_FORMATS:
            self.add(ctx, f"format {fmt!r} is not supported (one of {sorted(STRING_FORMATS)}).")
        pattern = s.get("pattern")
        if pattern is not None:
            try:
                re.compile(pattern)
            except (re.error, TypeError):
                self.add(ctx, f"'pattern' {pattern!r} is not a valid regular expression.")
                return
            if _IRREGULAR.search(pattern):
                self.add(ctx, f"'pattern' {pattern!r} uses lookaround, backreferences or conditionals.")

    def number(self, s: dict[str, Any], ctx: tuple[str, ...], integer: bool) -> None:
        for key in NUMBER_KEYWORDS:
            v = s.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                self.add(ctx, f"{key!r} must be a number.")
        m = s.get("multipleOf")
        if isinstance(m, (int, float)) and not isinstance(m, bool) and m <= 0:
            self.add(ctx, "'multipleOf' must be greater than 0.")
        lo, hi = _bounds(s, integer)
        if lo is not None and hi is not None and lo > hi:
            self.add(ctx, "the bounds admit no value.")


def strict_violations(json_schema_param: Any) -> list[Violation]:
    """Every strict-mode rule ``response_format.json_schema`` breaks, in the order they are found.

    ``json_schema_param`` is the ``json_schema`` object of a ``response_format`` (with ``name``,
    ``schema``, ``strict``, ``description``).
    """
    rf = ("response_format",)
    if not isinstance(json_schema_param, dict):
        return [Violation(rf, "response_format.json_schema must be an object.")]
    out: list[Violation] = []
    name = json_schema_param.get("name")
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        out.append(Violation(rf, f"response_format.json_schema.name {name!r} must be 1-64 characters of "
                                 "a-z, A-Z, 0-9, '_' or '-'."))
    strict = json_schema_param.get("strict", "<absent>")
    if strict is not True:
        # Not an API rule: the API runs a non-strict schema best-effort. The stub exists to prove
        # every schema is sent in strict mode, so it refuses anything else.
        shown = "absent" if strict == "<absent>" else json.dumps(strict)
        out.append(Violation(rf, f"this server accepts only strict Structured Outputs: "
                                 f"response_format.json_schema.strict must be true, got {shown}."))
    if "schema" not in json_schema_param:
        out.append(Violation(rf, "response_format.json_schema.schema is required."))
        return out
    return out + _Checker(json_schema_param["schema"]).run()


def schema_violations(schema: Any) -> list[Violation]:
    """The strict rules a bare JSON schema breaks (no ``name``/``strict`` envelope)."""
    return _Checker(schema).run()


# --------------------------------------------------------------------------------------------
# Random instances
# --------------------------------------------------------------------------------------------

_WORDS = ("wolf moon village night vote trust quiet doctor jester dawn suspect honest river "
          "lantern bread storm whisper gate ember shadow council alibi accuse defend").split()

#: A number the schema does not bound is drawn from this wide range on purpose: a bound the
#: schema does not carry is a bound a constrained decoder does not enforce.
UNBOUNDED = 1_000_000


def _bounds(s: dict[str, Any], integer: bool) -> tuple[float | None, float | None]:
    lo, hi = s.get("minimum"), s.get("maximum")
    xlo, xhi = s.get("exclusiveMinimum"), s.get("exclusiveMaximum")
    step = 1 if integer else 1e-9
    if isinstance(xlo, (int, float)) and not isinstance(xlo, bool):
        lo = xlo + step if lo is None else max(lo, xlo + step)
    if isinstance(xhi, (int, float)) and not isinstance(xhi, bool):
        hi = xhi - step if hi is None else min(hi, xhi - step)
    if integer:
        lo = None if lo is None else math.ceil(lo)
        hi = None if hi is None else math.floor(hi)
    return lo, hi


def _number(s: dict[str, Any], rng: random.Random, integer: bool) -> int | float:
    lo, hi = _bounds(s, integer)
    if lo is None and hi is None:
        lo, hi = -UNBOUNDED, UNBOUNDED
    elif lo is None:
        lo = hi - UNBOUNDED
    elif hi is None:
        hi = lo + UNBOUNDED
    m = s.get("multipleOf")
    if m:
        k_lo, k_hi = math.ceil(lo / m), math.floor(hi / m)
        k = rng.randint(k_lo, k_hi)
        value = k * m
        if integer or isinstance(m, int):
            return int(round(value))
        return float(value)
    if integer:
        return rng.randint(int(lo), int(hi))
    return rng.uniform(lo, hi)


def _words(rng: random.Random, lo: int = 1, hi: int = 6) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(lo, hi)))


def _formatted(fmt: str, rng: random.Random) -> str:
    d = f"20{rng.randint(10, 39)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    t = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
    return {
        "date": d,
        "time": t + "Z",
        "date-time": f"{d}T{t}Z",
        "duration": f"P{rng.randint(0, 9)}DT{rng.randint(0, 23)}H",
        "email": f"{rng.choice(_WORDS)}@{rng.choice(_WORDS)}.example",
        "hostname": f"{rng.choice(_WORDS)}.{rng.choice(_WORDS)}.example",
        "ipv4": ".".join(str(rng.randint(0, 255)) for _ in range(4)),
        "ipv6": ":".join(f"{rng.randint(0, 65535):x}" for _ in range(8)),
        "uuid": (f"{rng.getrandbits(32):08x}-{rng.getrandbits(16):04x}-4{rng.getrandbits(12):03x}"
                 f"-{0x8000 | rng.getrandbits(14):04x}-{rng.getrandbits(48):012x}"),
    }.get(fmt, _words(rng))


def _from_regex(pattern: str, rng: random.Random) -> str:
    """A string ``re.search(pattern, s)`` accepts, built from the parsed pattern (common constructs)."""
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as P  # type: ignore[attr-defined]

    printable = [chr(c) for c in range(32, 127)]
    categories = {
        C.CATEGORY_DIGIT: "0123456789",
        C.CATEGORY_NOT_DIGIT: "abcXYZ _-",
        C.CATEGORY_SPACE: " ",
        C.CATEGORY_NOT_SPACE: "abcXYZ019_-",
        C.CATEGORY_WORD: "abcxyzABCXYZ0189_",
        C.CATEGORY_NOT_WORD: " -.,!",
    }

    def in_set(items: list[Any]) -> str:
        negate = items and items[0][0] is C.NEGATE
        chars: set[str] = set()
        for op, av in items:
            if op is C.LITERAL:
                chars.add(chr(av))
            elif op is C.RANGE:
                chars.update(chr(c) for c in range(av[0], min(av[1], av[0] + 200) + 1))
            elif op is C.CATEGORY:
                chars.update(categories.get(av, "a"))
        pool = [c for c in printable if c not in chars] if negate else sorted(chars)
        return rng.choice(pool or ["a"])

    def emit(seq: Any) -> str:
        out = []
        for op, av in seq:
            if op is C.LITERAL:
                out.append(chr(av))
            elif op is C.NOT_LITERAL:
                out.append(rng.choice([c for c in printable if ord(c) != av]))
            elif op is C.ANY:
                out.append(rng.choice("abcxyz019"))
            elif op is C.IN:
                out.append(in_set(av))
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
                lo, hi, sub = av
                hi = lo + 3 if hi == C.MAXREPEAT else min(hi, lo + 3)
                out.extend(emit(sub) for _ in range(rng.randint(lo, hi)))
            elif op is C.SUBPATTERN:
                out.append(emit(av[-1]))
            elif op is getattr(C, "ATOMIC_GROUP", None):
                out.append(emit(av))
            elif op is C.BRANCH:
                out.append(emit(rng.choice(av[1])))
            elif op is C.CATEGORY:
                out.append(rng.choice(categories.get(av, "a")))
            # AT (anchors) and anything else emit nothing
        return "".join(out)

    parsed = P.parse(pattern)
    for _ in range(50):
        s = emit(parsed)
        if re.search(pattern, s):
            return s
    raise ValueError(f"could not build a string matching {pattern!r}")


def random_instance(schema: Any, rng: random.Random, root: Any = None, depth: int = 0) -> Any:
    """A random value valid against ``schema`` (the strict subset, and untyped schemas loosely)."""
    root = schema if root is None else root
    if schema is True or not isinstance(schema, dict) or not schema:
        return _words(rng)
    if "$ref" in schema:
        ref = schema["$ref"]
        target = root
        if ref != "#":
            for part in ref.removeprefix("#/").split("/"):
                target = target[part]
        return random_instance(target, rng, root, depth + 1)
    if "anyOf" in schema:
        branches = schema["anyOf"]
        if depth > 6:  # prefer a branch that ends a recursion
            ends = [b for b in branches if isinstance(b, dict) and b.get("type") == "null"]
            branches = ends or branches
        return random_instance(rng.choice(branches), rng, root, depth + 1)
    t = schema.get("type")
    types = t if isinstance(t, list) else [t] if t else []
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        options = [v for v in schema["enum"] if not types or _fits_type(v, types)]
        return rng.choice(options or schema["enum"])
    if not types:
        return _words(rng)
    non_null = [x for x in types if x != "null"]
    if "null" in types and (not non_null or rng.random() < 0.3):
        return None
    kind = rng.choice(non_null)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind in ("integer", "number"):
        return _number(schema, rng, integer=kind == "integer")
    if kind == "string":
        if "format" in schema:
            return _formatted(schema["format"], rng)
        if "pattern" in schema:
            return _from_regex(schema["pattern"], rng)
        lo, hi = schema.get("minLength", 0), schema.get("maxLength")
        s = _words(rng)
        while len(s) < lo:
            s += " " + _words(rng)
        return s[:hi] if hi is not None else s
    if kind == "array" and "prefixItems" in schema:  # a tuple: each item its own schema (none after them here)
        return [random_instance(item, rng, root, depth + 1) for item in schema["prefixItems"]]
    if kind == "array":
        lo = schema.get("minItems", 0)
        hi = schema.get("maxItems", lo + 3)
        if depth > 6:
            hi = lo
        items = schema.get("items", {})
        return [random_instance(items, rng, root, depth + 1) for _ in range(rng.randint(lo, hi))]
    # object
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    return {k: random_instance(v, rng, root, depth + 1)
            for k, v in props.items() if k in required or rng.random() < 0.5}


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------

def _last_text(body: dict[str, Any]) -> str:
    """The text of a chat-completions body's last message."""
    messages = body.get("messages") or [{}]
    content = messages[-1].get("content")
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))


def read_the_instruction(schema: dict[str, Any], text: str, rng: random.Random) -> dict[str, Any]:
    """A random reply to a wolf-eval seat's call (the ``wolf_seat`` schema) that answers what its instruction
    asks, as a model that reads it would: one analysis of each statement the instruction names (``#57: ...``),
    and a decision of the kind its last line names (``decision {bid, notes}``, or ``decision null``); every
    value random within the schema, names too, so a name the rules do not allow now (the dead) can be drawn."""
    props = schema["properties"]
    reply: dict[str, Any] = {}
    if "analyses" in props:
        item = props["analyses"]["items"]
        reply["analyses"] = [{**random_instance(item, rng), "id": int(n)}
                             for n in re.findall(r"^#(\d+): ", text, re.MULTILINE)]
    asked = re.search(r"decision \{([a-z, ]+)\}\.\s*$", text)
    kinds = [k for k in props["decision"]["anyOf"] if k.get("type") == "object"]
    wanted = set(asked.group(1).split(", ")) if asked else None
    kind = next((k for k in kinds if set(k["properties"]) == wanted), None)
    reply["decision"] = random_instance(kind, rng) if kind is not None else None
    return reply


@dataclass
class StubRequest:
    """What the stub saw for one request and what it answered."""

    path: str
    body: dict[str, Any] | None
    status: int = 200
    schema_name: str | None = None
    strict: Any = None
    response_format_type: str | None = None
    error: str | None = None
    content: str | None = None
    seconds: float = 0.0  # the server's CPU time for this request: reading, answering, writing (not the latency)
    cache_key: str | None = None  # the request's ``prompt_cache_key``, if it sent one
    schema_hash: str | None = None  # SHA-256 of the response schema as sent (compact, keys sorted), if any
    thought: str | None = None  # the reasoning text the reply carried (``thinking``), if any


@dataclass
class _Record:
    requests: list[StubRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _usage(body: dict[str, Any], content: str) -> dict[str, Any]:
    prompt = max(1, len(json.dumps(body.get("messages", ""))) // 4)
    completion = max(1, len(content) // 4)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # a wave opens one connection a call at once; the default 5 would drop SYNs


#: The kinds of reasoning a stub's replies can carry (None: none).
THINKING = (None, "full", "summary", "encrypted")


def thought_fields(thinking: str, text: str) -> dict[str, Any]:
    """The fields of a reply's message that carry its reasoning, as OpenAI-compatible servers send them."""
    encrypted = {"type": "reasoning.encrypted", "data": f"gAAAAB{hashlib.sha256(text.encode()).hexdigest()}",
                 "format": "openai-responses-v1", "index": 0}
    if thinking == "full":
        return {"reasoning_content": text}
    if thinking == "summary":
        return {"reasoning_details": [{"type": "reasoning.summary", "summary": text, "format": "openai-responses-v1",
                                       "index": 0}, encrypted]}
    return {"reasoning_details": [encrypted]}


class StrictOpenAIStub:
    """A loopback OpenAI-compatible chat-completions server that enforces strict Structured Outputs.

    ``with StrictOpenAIStub() as stub: ...`` starts it on ``127.0.0.1`` on a free port in a
    background thread and stops it on exit. ``stub.base_url`` is ``http://127.0.0.1:PORT/v1``.
    ``latency``: seconds each chat-completions reply waits before it is sent, as an API's round
    trip would (each connection has its own thread, so concurrent requests wait together).
    ``keep_bodies=False`` drops each request's body once answered (a long benchmark's memory).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, latency: float = 0.0, keep_bodies: bool = True,
                 reader: bool = False, thinking: str | None = None) -> None:
        if not 0 <= latency <= 600:
            raise ValueError(f"latency must be 0 to 600 seconds, got {latency!r}")
        self.latency = float(latency)
        self.reader = reader  # answer what a wolf-eval seat's instruction asks (see ``read_the_instruction``)
        if thinking not in THINKING:
            raise ValueError(f"thinking must be one of {THINKING}, got {thinking!r}")
        self.thinking = thinking  # the reasoning every reply carries (see the module)
        self.keep_bodies = keep_bodies
        self._record = _Record()
        self._server = _Server((host, port), self._handler_class())
        self._thread: threading.Thread | None = None

    # ---- lifecycle
    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> StrictOpenAIStub:
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="strict-openai-stub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:  # shutdown() waits for serve_forever, so only once it runs
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> StrictOpenAIStub:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ---- what was seen
    @property
    def requests(self) -> list[StubRequest]:
        with self._record.lock:
            return list(self._record.requests)

    @property
    def rejections(self) -> list[StubRequest]:
        """Requests answered with a 4xx, each with its ``error``."""
        return [r for r in self.requests if r.status >= 400]

    def schema_names(self) -> Counter[str]:
        return Counter(r.schema_name for r in self.requests if r.schema_name is not None)

    def rejection_reasons(self) -> Counter[str]:
        return Counter(r.error or "" for r in self.rejections)

    # ---- answering
    @staticmethod
    def answer(body: dict[str, Any], reader: bool = False,
               thinking: str | None = None) -> tuple[int, dict[str, Any], StubRequest]:
        """Status, JSON reply and record for one chat-completions body (no HTTP involved); ``reader``: a
        wolf-eval seat's reply answers what its instruction asks (``read_the_instruction``); ``thinking``: the
        reasoning the reply carries (see the module)."""
        seen = StubRequest(path="/v1/chat/completions", body=body)
        key = body.get("prompt_cache_key")
        seen.cache_key = key if isinstance(key, str) else None
        rf = body.get("response_format")
        digest = hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).digest()
        seed = int.from_bytes(digest[:8], "big")
        rng = random.Random(seed)
        if isinstance(rf, dict):
            seen.response_format_type = rf.get("type")
        if isinstance(rf, dict) and rf.get("type") == "json_schema":
            js = rf.get("json_schema")
            if isinstance(js, dict):
                seen.schema_name = js.get("name")
                seen.strict = js.get("strict")
                shape = json.dumps(js.get("schema"), sort_keys=True, separators=(",", ":"))
                seen.schema_hash = hashlib.sha256(shape.encode()).hexdigest()
            violations = strict_violations(js)
            if violations:
                message = violations[0].render(seen.schema_name)
                seen.status, seen.error = 400, message
                return 400, {"error": {"message": message, "type": "invalid_request_error",
                                       "param": "response_format", "code": "invalid_json_schema"}}, seen
            instance = random_instance(js["schema"], rng)
            if reader and seen.schema_name == "wolf_seat":
                instance = read_the_instruction(js["schema"], _last_text(body), rng)
            content = json.dumps(instance)
        else:
            content = json.dumps({"note": "no schema"})
        seen.content = content
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
        if thinking is not None:
            seen.thought = f"STUB-THOUGHT-{seed % 10**9}"
            message |= thought_fields(thinking, seen.thought)
        reply = {
            "id": f"chatcmpl-stub{seed % 10**12:012d}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", "stub")),
            "system_fingerprint": "strict-openai-stub",
            "choices": [{
                "index": 0,
                "message": message,
                "finish_reason": "stop",
                "logprobs": None,
            }],
            "usage": _usage(body, content),
        }
        return 200, reply, seen

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        record = self._record
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: dict[str, Any]) -> None:
                chunk = {k: reply[k] for k in ("id", "created", "model", "system_fingerprint")}
                chunk["object"] = "chat.completion.chunk"
                content = reply["choices"][0]["message"]["content"]
                events = [
                    {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": content},
                                           "finish_reason": None, "logprobs": None}]},
                    {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop", "logprobs": None}]},
                    {**chunk, "choices": [], "usage": reply["usage"]},
                ]
                data = "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode() + b"data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _not_found(self, body: dict[str, Any] | None) -> None:
                message = f"this stub serves only POST /v1/chat/completions, not {self.command} {self.path}"
                with record.lock:
                    record.requests.append(StubRequest(path=self.path, body=body, status=404, error=message))
                self._send(404, {"error": {"message": message, "type": "invalid_request_error",
                                           "param": None, "code": "unknown_url"}})

            def do_GET(self) -> None:
                self._not_found(None)

            def do_POST(self) -> None:
                start = time.thread_time()  # this connection's thread: other requests' work is not counted
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = None
                if self.path.split("?")[0].rstrip("/") != "/v1/chat/completions":
                    self._not_found(body if isinstance(body, dict) else None)
                    return
                if not isinstance(body, dict):
                    with record.lock:
                        record.requests.append(StubRequest(path=self.path, body=None, status=400,
                                                           error="body is not a JSON object"))
                    self._send(400, {"error": {"message": "We could not parse the JSON body of your request.",
                                               "type": "invalid_request_error", "param": None, "code": None}})
                    return
                status, reply, seen = StrictOpenAIStub.answer(body, stub.reader, stub.thinking)
                seen.path = self.path
                if not stub.keep_bodies:
                    seen.body = None
                with record.lock:
                    record.requests.append(seen)
                if stub.latency:
                    time.sleep(stub.latency)  # the API's round trip; this connection's thread alone waits
                if status == 200 and body.get("stream"):
                    self._stream(reply)
                else:
                    self._send(status, reply)
                seen.seconds = time.thread_time() - start

        return Handler


# --------------------------------------------------------------------------------------------
# As a process of its own (benchmarks/concurrency.py)
# --------------------------------------------------------------------------------------------

def main() -> None:
    """``python tests/strict_openai.py [--latency S]``: serve on loopback in this process.

    Prints ``base_url`` on its first line of stdout, serves until stdin closes, then prints one JSON
    line: requests, rejections and the server's own CPU seconds (answering, not the latency), in all.
    A separate process, so that the server's work neither shares a client's interpreter lock nor
    counts as the client's time.
    """
    import argparse
    import sys

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--latency", type=float, default=0.0, help="seconds each reply waits before it is sent")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    with StrictOpenAIStub(port=args.port, latency=args.latency, keep_bodies=False) as stub:
        print(stub.base_url, flush=True)
        sys.stdin.read()
        seen = stub.requests
    print(json.dumps({"requests": len(seen), "rejections": len([r for r in seen if r.status >= 400]),
                      "server_seconds": sum(r.seconds for r in seen),
                      "schemas": dict(Counter(r.schema_name for r in seen if r.schema_name))}), flush=True)


if __name__ == "__main__":
    main()
