"""Strict Structured Outputs: the loopback OpenAI stub's checker and generator, and a game played through it.

The game is played with Inspect's real ``openai-api`` provider (it needs the ``openai`` SDK),
pointed at :class:`strict_openai.StrictOpenAIStub` on ``127.0.0.1``; no test here reaches
anything but loopback (a guard refuses any other connection and records it).
"""

from __future__ import annotations

import copy
import json
import random
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

import pytest
from strict_openai import (
    MAX_NESTING,
    StrictOpenAIStub,
    random_instance,
    schema_violations,
    strict_violations,
)

from wolf_eval.engine import Action

# --------------------------------------------------------------------------------------------
# Hand-written schemas
# --------------------------------------------------------------------------------------------

VALID: dict[str, Any] = {
    "type": "object",
    "title": "Everything strict mode allows",
    "properties": {
        "name": {"type": "string", "description": "free text"},
        "handle": {"type": "string", "pattern": "^@[a-z0-9_]{3,8}$"},
        "email": {"type": "string", "format": "email"},
        "when": {"type": "string", "format": "date-time"},
        "bid": {"type": "integer", "minimum": 0, "maximum": 10},
        "odd": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 100, "multipleOf": 3},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "step": {"type": "number", "minimum": -2, "maximum": 2, "multipleOf": 0.25},
        "vote": {"type": "string", "enum": ["Ava", "Ben"]},
        "unit": {"type": ["string", "null"], "enum": ["F", "C", None]},
        "kind": {"type": "string", "const": "ballot"},
        "flag": {"type": "boolean"},
        "notes": {"type": ["string", "null"], "description": "optional, as a union with null"},
        "reasoning": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "optional, as anyOf"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
        "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}},
        "pair": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": ["number", "null"]}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    },
    "$defs": {
        "step": {
            "type": "object",
            "properties": {"explanation": {"type": "string"}, "output": {"type": "string"}},
            "required": ["explanation", "output"],
            "additionalProperties": False,
        }
    },
    "additionalProperties": False,
}
VALID["required"] = list(VALID["properties"])

RECURSIVE: dict[str, Any] = {
    "type": "object",
    "properties": {"linked_list": {"$ref": "#/$defs/node"}},
    "$defs": {
        "node": {
            "type": "object",
            "properties": {"value": {"type": "number"},
                           "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}},
            "additionalProperties": False,
            "required": ["next", "value"],
        }
    },
    "additionalProperties": False,
    "required": ["linked_list"],
}


def envelope(schema: Any, strict: Any = True, name: str = "test_schema") -> dict[str, Any]:
    return {"name": name, "schema": schema, "description": None, "strict": strict}


def messages(violations: list[Any], name: str = "test_schema") -> list[str]:
    return [v.render(name) for v in violations]


def with_change(path: list[str], change: Any) -> dict[str, Any]:
    """VALID with the node at ``path`` (keys under "properties") changed by ``change(node)``."""
    schema = copy.deepcopy(VALID)
    node = schema
    for key in path:
        node = node["properties"][key]
    change(node)
    return schema


# --------------------------------------------------------------------------------------------
# The strict checker
# --------------------------------------------------------------------------------------------

def test_a_schema_using_every_supported_feature_is_accepted() -> None:
    assert strict_violations(envelope(VALID)) == []
    assert strict_violations(envelope(RECURSIVE)) == []
    assert schema_violations(VALID) == [], "the bare schema, without the name/strict envelope"


def test_an_object_without_additional_properties_false_is_rejected() -> None:
    schema = with_change(["pair"], lambda n: n.pop("additionalProperties"))
    [v] = strict_violations(envelope(schema))
    assert v.context == ("properties", "pair")
    assert v.render("test_schema") == ("Invalid schema for response_format 'test_schema': In context=('properties', "
                                       "'pair'), 'additionalProperties' is required to be supplied and to be false.")
    schema = with_change(["pair"], lambda n: n.update(additionalProperties=True))
    assert len(strict_violations(envelope(schema))) == 1
    schema = with_change(["pair"], lambda n: n.update(additionalProperties={"type": "string"}))
    assert len(strict_violations(envelope(schema))) == 1


def test_a_property_missing_from_required_is_rejected() -> None:
    schema = copy.deepcopy(VALID)
    schema["required"].remove("notes")
    [v] = strict_violations(envelope(schema))
    assert v.context == ()
    assert v.message == ("'required' is required to be supplied and to be an array including every key in "
                         "properties. Missing 'notes'.")
    schema.pop("required")
    assert "Missing 'name'" in strict_violations(envelope(schema))[0].message
    nested = with_change(["pair"], lambda n: n.update(required=["a"]))
    assert strict_violations(envelope(nested))[0].context == ("properties", "pair")


def test_a_default_is_rejected_even_on_an_optional_value() -> None:
    schema = with_change(["name"], lambda n: n.update(default=""))
    [v] = strict_violations(envelope(schema))
    assert v.render("wolf_night_kill") == ("Invalid schema for response_format 'wolf_night_kill': "
                                           "In context=('properties', 'name'), 'default' is not permitted.")
    schema = with_change(["reasoning"], lambda n: n.update(default=None))
    assert messages(strict_violations(envelope(schema)))[0].endswith("'default' is not permitted.")


@pytest.mark.parametrize(("path", "keyword", "value"), [
    (["name"], "minLength", 1),
    (["name"], "maxLength", 40),
    (["tags"], "uniqueItems", True),
    (["pair"], "patternProperties", {"^x": {"type": "string"}}),
    (["pair"], "minProperties", 1),
    (["name"], "examples", ["x"]),
    (["name"], "$comment", "x"),
    (["name"], "allOf", [{"type": "string"}]),
    (["name"], "not", {"type": "integer"}),
    (["name"], "if", {"type": "string"}),
    (["name"], "nullable", True),
    (["name"], "minimum", 0),  # a number keyword on a string
])
def test_an_unsupported_keyword_is_rejected(path: list[str], keyword: str, value: Any) -> None:
    schema = with_change(path, lambda n: n.update({keyword: value}))
    found = strict_violations(envelope(schema))
    assert found, keyword
    assert keyword in found[0].message and "not permitted" in found[0].message


def test_one_of_is_rejected_and_so_is_an_untyped_or_multi_typed_value() -> None:
    one_of = with_change(["reasoning"], lambda n: n.update(oneOf=n.pop("anyOf")))
    assert strict_violations(envelope(one_of))
    untyped = with_change(["vote"], lambda n: n.pop("type"))
    assert "'type' is required" in strict_violations(envelope(untyped))[0].message
    assert strict_violations(envelope(with_change(["name"], lambda n: n.update(type=["string", "integer"]))))
    assert strict_violations(envelope(with_change(["name"], lambda n: n.update(type="text"))))


@pytest.mark.parametrize("strict", [False, None, "absent"])
def test_a_request_that_does_not_ask_for_strict_mode_is_rejected(strict: Any) -> None:
    env = envelope(VALID, strict=strict)
    if strict == "absent":
        env.pop("strict")
    [v] = strict_violations(env)
    assert "strict must be true" in v.render("x")
    assert v.render("x").endswith({False: "got false.", None: "got null.", "absent": "got absent."}[strict])


def test_the_root_must_be_an_object_and_not_any_of() -> None:
    root_any_of = {"anyOf": [VALID, {"type": "null"}]}
    assert "not use anyOf" in strict_violations(envelope(root_any_of))[0].message
    assert strict_violations(envelope({"type": "array", "items": {"type": "string"}}))
    assert strict_violations(envelope({"type": ["object", "null"], "properties": {}, "required": [],
                                       "additionalProperties": False}))


def test_refs_must_point_into_defs_and_stand_alone() -> None:
    bad = copy.deepcopy(VALID)
    bad["properties"]["steps"]["items"] = {"$ref": "#/$defs/missing"}
    assert "'$ref'" in strict_violations(envelope(bad))[0].message
    bad["properties"]["steps"]["items"] = {"$ref": "#/$defs/step", "description": "one step"}
    assert "cannot be combined" in strict_violations(envelope(bad))[0].message


def test_limits_on_nesting_properties_and_enums() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_NESTING + 1):
        deep = {"type": "object", "properties": {"x": deep}, "required": ["x"], "additionalProperties": False}
    assert (strict_violations(envelope(deep))[0].message
            == f"{MAX_NESTING + 1} levels of nesting exceeds limit of {MAX_NESTING}.")
    ok = deep["properties"]["x"]
    assert strict_violations(envelope(ok)) == []
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(101)},
            "required": [f"p{i}" for i in range(101)], "additionalProperties": False}
    assert "object properties exceeds limit" in strict_violations(envelope(wide))[0].message
    many = {"type": "object", "properties": {"e": {"type": "integer", "enum": list(range(501))}},
            "required": ["e"], "additionalProperties": False}
    assert "enum values exceeds limit" in strict_violations(envelope(many))[0].message


def test_formats_patterns_and_enum_types_are_checked() -> None:
    assert strict_violations(envelope(with_change(["email"], lambda n: n.update(format="uri"))))
    assert strict_violations(envelope(with_change(["handle"], lambda n: n.update(pattern="^(?=a)b"))))
    assert strict_violations(envelope(with_change(["handle"], lambda n: n.update(pattern="(unclosed"))))
    assert strict_violations(envelope(with_change(["vote"], lambda n: n.update(enum=["Ava", 3]))))
    assert strict_violations(envelope(VALID, name="bad name!"))


# --------------------------------------------------------------------------------------------
# The instance generator
# --------------------------------------------------------------------------------------------

def _validator(schema: dict[str, Any]) -> Any:
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - jsonschema comes with inspect-ai
        return None
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _small_check(schema: dict[str, Any], value: Any, root: dict[str, Any]) -> None:
    """A fallback validator for the subset, used only without the jsonschema library."""
    if "$ref" in schema:
        target = root
        if schema["$ref"] != "#":
            for part in schema["$ref"][2:].split("/"):
                target = target[part]
        return _small_check(target, value, root)
    if "anyOf" in schema:
        errors = []
        for branch in schema["anyOf"]:
            try:
                return _small_check(branch, value, root)
            except AssertionError as err:
                errors.append(err)
        raise AssertionError(errors)
    if "const" in schema:
        assert value == schema["const"]
    if "enum" in schema:
        assert value in schema["enum"]
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    kinds = {type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string",
             list: "array", dict: "object"}
    kind = kinds[type(value)]
    assert kind in types or (kind == "integer" and "number" in types), (schema, value)
    if kind in ("integer", "number"):
        assert value >= schema.get("minimum", value) and value <= schema.get("maximum", value)
    if kind == "object":
        assert set(value) <= set(schema["properties"]) and set(schema.get("required", [])) <= set(value)
        for k, v in value.items():
            _small_check(schema["properties"][k], v, root)
    if kind == "array":
        assert schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value))
        for v in value:
            _small_check(schema["items"], v, root)


def assert_valid(schema: dict[str, Any], value: Any) -> None:
    validator = _validator(schema)
    if validator is not None:
        errors = list(validator.iter_errors(value))
        assert not errors, (value, [e.message for e in errors])
    else:
        _small_check(schema, value, schema)


@pytest.mark.parametrize("schema", [VALID, RECURSIVE], ids=["valid", "recursive"])
def test_every_generated_instance_validates_against_its_schema(schema: dict[str, Any]) -> None:
    seen_null = seen_value = False
    for seed in range(300):
        value = random_instance(schema, random.Random(seed))
        assert_valid(schema, value)
        assert set(value) == set(schema["properties"]), "every required property is present"
        if schema is VALID:
            seen_null |= value["notes"] is None
            seen_value |= isinstance(value["notes"], str)
    if schema is VALID:
        assert seen_null and seen_value, "nulls sometimes, where allowed"


def test_generated_instances_of_non_strict_schemas_still_validate() -> None:
    loose = {"type": "object", "properties": {"a": {"type": "string", "minLength": 12, "maxLength": 20},
                                              "b": {"type": "integer", "default": 3}, "c": {}},
             "required": ["a"]}
    for seed in range(100):
        assert_valid(loose, random_instance(loose, random.Random(seed)))


def test_the_same_seed_gives_the_same_instance() -> None:
    assert random_instance(VALID, random.Random(7)) == random_instance(VALID, random.Random(7))
    assert len({json.dumps(random_instance(VALID, random.Random(s))) for s in range(20)}) > 1


# --------------------------------------------------------------------------------------------
# The server, over HTTP on loopback (no SDK needed)
# --------------------------------------------------------------------------------------------

def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, never a proxy
    try:
        with opener.open(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_the_server_answers_rejects_and_records() -> None:
    chat = [{"role": "user", "content": "hi"}]
    good = {"model": "any", "messages": chat,
            "response_format": {"type": "json_schema", "json_schema": envelope(VALID, name="good")}}
    bad = {"model": "any", "messages": chat,
           "response_format": {"type": "json_schema", "json_schema": envelope(VALID, strict=None, name="bad")}}
    with StrictOpenAIStub() as stub:
        assert stub.base_url.startswith("http://127.0.0.1:") and stub.base_url.endswith("/v1")
        status, reply = _post(stub.base_url + "/chat/completions", good)
        assert status == 200
        assert_valid(VALID, json.loads(reply["choices"][0]["message"]["content"]))
        assert reply["usage"]["prompt_tokens_details"]["cached_tokens"] == 0
        assert reply["usage"]["total_tokens"] == reply["usage"]["prompt_tokens"] + reply["usage"]["completion_tokens"]
        assert _post(stub.base_url + "/chat/completions", good)[1]["choices"] == reply["choices"], "deterministic"

        status, reply = _post(stub.base_url + "/chat/completions", bad)
        assert status == 400
        assert reply["error"]["type"] == "invalid_request_error" and reply["error"]["code"] == "invalid_json_schema"
        assert "strict must be true" in reply["error"]["message"]

        status, reply = _post(stub.base_url + "/chat/completions", {"model": "any", "messages": chat})
        assert status == 200 and json.loads(reply["choices"][0]["message"]["content"]) == {"note": "no schema"}

        assert _post(stub.base_url + "/responses", good)[0] == 404

        assert stub.schema_names() == {"good": 2, "bad": 1}
        assert [r.status for r in stub.requests] == [200, 200, 400, 200, 404]
        assert list(stub.rejection_reasons()) == [
            "this server accepts only strict Structured Outputs: response_format.json_schema.strict must be true, "
            "got null.",
            "this stub serves only POST /v1/chat/completions, not POST /v1/responses",
        ]


# --------------------------------------------------------------------------------------------
# The project's own schemas, in the form Inspect's openai-api provider sends them
# --------------------------------------------------------------------------------------------

def sent_response_format(action: Action) -> dict[str, Any]:
    """``response_format.json_schema`` as inspect-ai 0.3.285's openai-api provider builds it.

    Mirrors ``inspect_ai.model._openai.openai_completion_params`` (which imports the openai SDK)
    with ``OpenAICompatibleAPI.schema_exclude_fields``; the test below checks the mirror
    against the real function where the SDK is installed.
    """
    from inspect_ai.util._json import JSON_SCHEMA_EXTENDED_FIELDS, json_schema_dump

    from wolf_eval.agents.schemas import response_schema

    schema = response_schema(action, ("none", "omission"), ("Ava", "Ben"))
    return {"name": schema.name, "schema": json_schema_dump(schema.json_schema, exclude=JSON_SCHEMA_EXTENDED_FIELDS),
            "description": schema.description, "strict": schema.strict}


def test_the_mirror_matches_what_inspect_sends() -> None:
    pytest.importorskip("openai")
    from inspect_ai.model import GenerateConfig
    from inspect_ai.model._openai import openai_completion_params
    from inspect_ai.model._providers.openai_compatible import OpenAICompatibleAPI

    from wolf_eval.agents.schemas import response_schema

    exclude = OpenAICompatibleAPI.schema_exclude_fields.fget(None)  # type: ignore[attr-defined]
    for action in _schema_actions():
        config = GenerateConfig(response_schema=response_schema(action, ("none", "omission"), ("Ava", "Ben")))
        params = openai_completion_params(model="any", config=config, tools=False, schema_exclude=exclude)
        assert params["response_format"] == {"type": "json_schema", "json_schema": sent_response_format(action)}


def _schema_actions() -> list[Action]:
    from wolf_eval.agents.schemas import REPLY_SCHEMAS

    return [a for a in Action if a in REPLY_SCHEMAS]


@pytest.mark.parametrize("action", _schema_actions(), ids=lambda a: a.value)
def test_every_project_schema_is_strict_valid_as_sent(action: Action) -> None:
    js = sent_response_format(action)
    assert messages(strict_violations(js), js["name"]) == []


# --------------------------------------------------------------------------------------------
# A game through Inspect's openai-api provider
# --------------------------------------------------------------------------------------------

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def _host(address: Any) -> str | None:
    return address[0] if isinstance(address, tuple) and address else None


@contextmanager
def loopback_only(attempts: list[str]) -> Iterator[None]:
    """Refuse every connection beyond loopback while the block runs, each attempt kept in ``attempts``."""
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def guard(address: Any) -> None:
        host = _host(address)
        if host is not None and host not in LOOPBACK and not host.startswith("127."):
            attempts.append(repr(address))
            raise ConnectionRefusedError(f"test_strict_openai: no network beyond loopback ({address!r})")

    def connect(self: socket.socket, address: Any) -> Any:
        guard(address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> Any:
        guard(address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and name not in LOOPBACK and not str(name).startswith("127."):
            attempts.append(f"getaddrinfo({name!r})")
            raise socket.gaierror(f"test_strict_openai: no network beyond loopback ({name!r})")
        return real_getaddrinfo(host, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket.socket, "connect", connect)
        mp.setattr(socket.socket, "connect_ex", connect_ex)
        mp.setattr(socket, "getaddrinfo", getaddrinfo)
        for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            mp.delenv(var, raising=False)
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        mp.setenv("no_proxy", "127.0.0.1,localhost")
        # the provider also reads STUB_API_KEY / STUB_BASE_URL; both are given explicitly instead
        mp.delenv("STUB_BASE_URL", raising=False)
        yield


@pytest.fixture(scope="module")
def stub_game(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """One triadic game played by ``openai-api/stub/any`` against the stub, with outside connections refused."""
    pytest.importorskip("openai")
    import inspect_ai

    log_dir = tmp_path_factory.mktemp("strict_openai_logs")
    attempts: list[str] = []
    with loopback_only(attempts), StrictOpenAIStub() as stub:
        [log] = inspect_ai.eval(
            "wolf_eval/triadic",
            model="openai-api/stub/any",
            model_base_url=stub.base_url,
            model_args={"api_key": "stub-key", "stream": False},
            task_args={"games": 1, "max_days": 2, "max_debate_turns": 2, "max_explanation_turns": 1},
            display="none",
            log_dir=str(log_dir),
        )
    return SimpleNamespace(log=log, stub=stub, attempts=attempts)


@pytest.mark.slow
def test_the_game_reaches_only_the_stub_and_sends_every_decision_with_a_schema(stub_game: SimpleNamespace) -> None:
    stub = stub_game.stub
    assert stub_game.attempts == [], "nothing but loopback was contacted"
    assert stub.requests, "the game called the stub"
    assert {r.path for r in stub.requests} == {"/v1/chat/completions"}
    assert all(r.response_format_type == "json_schema" and (r.schema_name or "").startswith("wolf_")
               for r in stub.requests), "every decision is sent with its response schema"


@pytest.mark.slow
def test_a_game_through_strict_openai_runs_clean(stub_game: SimpleNamespace) -> None:
    from wolf_eval.store import logged_record

    log, stub = stub_game.log, stub_game.stub
    assert not stub.rejections, dict(stub.rejection_reasons())
    [sample] = log.samples
    record = logged_record(sample.store)
    if record.state is not None:  # checked before the status: a fallback can also break a scorer
        # a random reply may leave the decision asked null (and name statements not asked) twice: that falls
        # back; a reply that answers what was asked never does
        fallbacks = [(r.actor, r.text) for r in record.game().records if r.kind == "fallback"]
        assert all(text.endswith("asked twice") for _, text in fallbacks), fallbacks
    assert log.status == "success", log.error
    assert record.game().outcome is not None
    assert sum(stub.schema_names().values()) == len(stub.requests)


def test_each_request_s_cache_key_and_schema_hash_are_recorded() -> None:
    """``benchmarks/cache.py`` counts requests per ``prompt_cache_key`` and distinct schemas from the record:
    the key as sent (None when absent) and one hash per schema, whatever its keys' order."""
    schema = {"type": "object", "properties": {"bid": {"type": "integer"}}, "required": ["bid"],
              "additionalProperties": False}
    reordered = dict(reversed(list(schema.items())))

    def body(s: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {"model": "m", "messages": [{"role": "user", "content": "hi"}], **extra,
                "response_format": {"type": "json_schema", "json_schema": {"name": "b", "schema": s, "strict": True}}}

    _, _, keyed = StrictOpenAIStub.answer(body(schema, prompt_cache_key="game1:Ada"))
    _, _, plain = StrictOpenAIStub.answer(body(reordered))
    _, _, other = StrictOpenAIStub.answer(body({**schema, "properties": {"bid": {"type": "number"}}}))
    assert (keyed.cache_key, plain.cache_key) == ("game1:Ada", None)
    assert keyed.schema_hash == plain.schema_hash != other.schema_hash


# --------------------------------------------------------------------------------------------
# Reasoning through Inspect's openai-api provider: kept in the record, never in a seat's prompt
# --------------------------------------------------------------------------------------------

@pytest.fixture(scope="module", params=["full", "summary", "encrypted"])
def thinking_game(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """One short triadic game of seats on the stub, whose replies carry reasoning of one kind, read by the scripted
    monitor (bound to a role of its own, so the monitor's prompts are not the stub's)."""
    pytest.importorskip("openai")
    import inspect_ai

    attempts: list[str] = []
    with loopback_only(attempts), StrictOpenAIStub(reader=True, thinking=request.param) as stub:
        [log] = inspect_ai.eval(
            "wolf_eval/triadic", model="openai-api/stub/any", model_base_url=stub.base_url,
            model_args={"api_key": "stub-key", "stream": False}, model_roles={"monitor": "wolfbot/monitor"},
            task_args={"games": 1, "max_days": 1, "max_debate_turns": 1, "max_explanation_turns": 0,
                       "monitor": "reasoning"},
            display="none", log_dir=str(tmp_path_factory.mktemp("thinking_logs")))
    return SimpleNamespace(log=log, stub=stub, attempts=attempts, thinking=request.param)


@pytest.mark.slow
def test_reasoning_is_captured_or_marked_unavailable_and_never_sent_to_a_seat(thinking_game: SimpleNamespace) -> None:
    from wolf_eval.store import logged_record

    log, stub = thinking_game.log, thinking_game.stub
    assert thinking_game.attempts == [] and log.status == "success", log.error
    [sample] = log.samples
    record = logged_record(sample.store)
    sent = [r.thought for r in stub.requests if r.status == 200]
    assert len(record.reasoning) == len(sent) == record.calls - sum(v.wolf is not None for v in record.monitor)
    readable = thinking_game.thinking != "encrypted"
    kind = {"full": "reasoning", "summary": "summary", "encrypted": "unavailable"}[thinking_game.thinking]
    assert {t.kind for t in record.reasoning} == {kind}
    assert sorted(t.text for t in record.reasoning) == (sorted(sent) if readable else [""] * len(sent))
    # no seat's request ever carries a thought, its own earlier ones included
    for r in stub.requests:
        assert "STUB-THOUGHT" not in json.dumps(r.body)
    # the monitor read them (its prompts are wolfbot's, not the stub's), or had nothing to read
    assert record.monitor and all((v.wolf is not None) == readable for v in record.monitor)
