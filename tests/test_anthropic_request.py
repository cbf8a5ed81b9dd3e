"""A seat's call as Inspect's Anthropic provider sends it, recorded offline with a stand-in client
(``benchmarks/anthropic_request.py``): the response schema travels outside the system prompt and the messages,
as the structured-outputs parameter Anthropic keys its cache by, and the cache marks close the system prompt,
the seat's settled record and its whole record, never the instruction."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("anthropic")  # the provider's SDK, in the ``anthropic`` extra

from wolf_eval.agents.blocks import CACHE_MARKS  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "anthropic_request.py"


def script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("anthropic_request", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["anthropic_request"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not CACHE_MARKS, reason="inspect-ai marks prompt blocks from 0.3.278")
def test_the_schema_travels_apart_and_the_marks_close_the_settled_and_the_whole_record() -> None:
    bench = script()
    request, schema, blocks = bench.recorded_request(day=3)
    sent = request.get("extra_body", {}).get("output_format") or request.get("output_config", {}).get("format")
    assert sent["type"] == "json_schema" and set(sent["schema"]["properties"]) == {"analyses", "decision"}
    assert not any(schema[:60] in b for b in blocks)  # the schema is not in the prompt's words
    assert "cache_control" not in request  # the marks replace Anthropic's automatic caching
    marked = [i for _, i in bench.breakpoints(request)]
    assert marked == [0, 3, len(blocks) - 2]  # the system prompt; heading, day 1's and day 2's facts; the record
    assert blocks[3].startswith("\n--- Night 2 and day 2, facts only ---")
    assert blocks[-1].startswith("\n") and "Vote to exile" in blocks[-1]  # the instruction, unmarked
