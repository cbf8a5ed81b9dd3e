"""The token counts and the prompt-cache models behind every cost figure, on calls whose answers are worked by hand.

``" cat"`` is one o200k token however often it repeats, so a block of ``" cat" * n`` is ``n`` tokens and
each expected figure below is arithmetic on the providers' documented rules (``wolf_eval.measures.caching``).
"""

from __future__ import annotations

import gzip
import hashlib
from importlib.resources import files

import pytest

from wolf_eval.measures import caching
from wolf_eval.measures.caching import AnthropicCache, OpenAIAutomatic, OpenAIBreakpoints, Sent
from wolf_eval.measures.tokenizer import count, first


def cats(n: int) -> str:
    return " cat" * n


def call(*sizes: int, schema: str = "", at: float = 0.0, key: str | None = None, tail: str = " dog",
         system: int = 1, marks: tuple[int, ...] = (), game: str = "g") -> Sent:
    """Blocks of ``sizes`` tokens of " cat", then a last block ``tail`` (what differs from call to call)."""
    return Sent(schema=schema, blocks=(*(cats(n) for n in sizes), tail), system=system, key=key, marks=marks,
                at=at, game=game)


def test_the_bundled_encoding_is_openai_s_o200k() -> None:
    """The file bpe-openai ships is byte for byte the one tiktoken downloads: tiktoken pins its SHA-256
    (``tiktoken_ext/openai_public.py``, ``o200k_base``)."""
    raw = gzip.decompress(files("bpe_openai.data").joinpath("o200k_base.tiktoken.gz").read_bytes())
    assert hashlib.sha256(raw).hexdigest() == "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
    assert count("hello world") == 2 and count(cats(1000)) == 1000 and count("") == 0
    assert first(cats(300), 256) == first(cats(256) + " dog", 256) != first(" dog" + cats(300), 256)


def serve(cache: object, *calls: Sent) -> list[caching.Served]:
    return caching.serve_all(calls, cache)  # type: ignore[arg-type]


def test_openai_serves_the_shared_prefix_from_1024_tokens_in_steps_of_128() -> None:
    a, b = serve(OpenAIAutomatic(), call(1500, tail=" dog"), call(1500, tail=" wolf", at=1))
    assert (a.sent, a.read, b.read) == (1501, 0, 1024 + 128 * 3)  # 1,500 shared: 1,024 + 3 steps of 128
    short = serve(OpenAIAutomatic(), call(1000), call(1000, tail=" wolf", at=1))
    assert short[1].read == 0  # under the minimum


def test_openai_cuts_inside_the_block_where_two_requests_part() -> None:
    one = Sent(schema="", blocks=(cats(1200) + " dog" * 300,), at=0)
    two = Sent(schema="", blocks=(cats(1200) + " wolf" * 300,), at=1)
    assert serve(OpenAIAutomatic(), one, two)[1].read == 1024 + 128  # 1,200 shared tokens


def test_a_different_schema_first_in_the_prefix_shares_nothing() -> None:
    a = call(1500, schema='{"type":"object","title":"bid"}')
    b = call(1500, schema='{"type":"object","title":"vote"}', at=1)
    assert serve(OpenAIAutomatic(), a, b)[1].read == 0


def test_a_route_spills_past_15_requests_a_minute_and_a_key_keeps_a_seat_on_its_own() -> None:
    """Sixteen requests in a minute with the same first 256 tokens: the 16th goes to a second machine, cold.
    With a key of its own, the same request goes to its own route's machine, which holds its earlier prefix."""
    crowd = [call(1500, tail=f" dog{i}", at=i) for i in range(15)]
    late = call(1500, tail=" wolf", at=20)
    assert serve(OpenAIAutomatic(), *crowd, late)[-1].read == 0
    keyed = [call(1500, tail=f" dog{i}", at=i) for i in range(14)] + [call(1500, tail=" mine", at=14, key="seat")]
    assert serve(OpenAIAutomatic(), *keyed, call(1500, tail=" wolf", at=20, key="seat"))[-1].read == 1408
    assert serve(OpenAIAutomatic(keep_all=True), *crowd, late)[-1].read == 1408


def test_an_openai_prefix_expires_after_five_idle_minutes() -> None:
    assert serve(OpenAIAutomatic(), call(1500), call(1500, tail=" wolf", at=301))[1].read == 0
    assert serve(OpenAIAutomatic(), call(1500), call(1500, tail=" wolf", at=299))[1].read == 1408


def test_breakpoint_models_write_the_whole_prompt_and_read_only_a_stored_breakpoint() -> None:
    """Without marks each call writes its whole prompt at the implicit breakpoint (1.25 times the input price)
    and the next, whose tail differs, reads nothing; a mark at the end of the shared part is read back."""
    a, b = serve(OpenAIBreakpoints(), call(1500), call(1500, tail=" wolf", at=1))
    assert (a.written, b.read, b.written, b.write_price) == (1501, 0, 1501, 1.25)
    a, b = serve(OpenAIBreakpoints(), call(1500, marks=(0,)), call(1500, tail=" wolf", at=1, marks=(0,)))
    assert (a.written, b.read, b.written) == (1501, 1500, 1)


def test_anthropic_reads_within_20_blocks_and_writes_at_its_breakpoints() -> None:
    """Inspect's breakpoints: the system block, the second-to-last block and the last. A seat's next call
    (a record one block longer) reads what its last call wrote at its last block."""
    first_call = call(1100, 10, 10)  # system 1,100; record 10 + 10; tail 1
    later = Sent(schema="", blocks=(cats(1100), cats(10), cats(10), " dog", cats(5), " wolf"), system=1, at=1)
    a, b = serve(AnthropicCache(), first_call, later)
    assert (a.read, a.written, a.write_price) == (0, 1121, 1.25)
    assert (b.read, b.written) == (1121, 6)
    far = Sent(schema="", blocks=(cats(1100), *(cats(1) for _ in range(27)), " wolf"), system=1, at=1)
    assert serve(AnthropicCache(), call(1100, 1, 1), far)[1].read == 1100  # 25 blocks back: the system prompt only
    near = Sent(schema="", blocks=(cats(1100), *(cats(1) for _ in range(20)), " wolf"), system=1, at=1)
    assert serve(AnthropicCache(), call(1100, 1, 1), near)[1].read == 1102


def test_marked_blocks_replace_inspect_s_message_breakpoints_but_the_system_prompt_keeps_its_own() -> None:
    """A seat's marks: the end of its settled record (1,100 + 200 tokens after a 500-token system prompt) and its
    last record block. Its next day's first call shares the settled part and reads it back from the mark there,
    though it wrote nothing at the last block's; the system prompt alone (under 1,024 tokens) is never written."""
    day = call(500, 1100, 200, 300, marks=(2, 3))
    a = serve(AnthropicCache(), day)[0]
    assert (a.read, a.written) == (0, 2100)
    morning = call(500, 1100, 200, 60, 40, marks=(2, 4), at=1)
    b = serve(AnthropicCache(), day, morning)[1]
    assert (b.read, b.written) == (1800, 100)


def test_anthropic_misses_on_a_new_schema_and_goes_to_the_hour_after_a_five_minute_gap() -> None:
    a = call(1100, 10, schema='{"title":"bid"}')
    b = call(1100, 10, schema='{"title":"vote"}', at=1)
    assert serve(AnthropicCache(), a, b)[1].read == 0
    late = serve(AnthropicCache(), call(1100, 10), call(1100, 10, tail=" wolf", at=400))[1]
    assert (late.read, late.write_price) == (0, 2.0)  # expired, and written for the hour


def test_the_price_of_served_calls_by_hand() -> None:
    """gpt-4.1: $2 input, $0.50 cache read, $8 output a million; claude-sonnet-4-5: $3, $0.30, $15."""
    served = [caching.Served(sent=2_000_000, read=1_000_000), caching.Served(sent=1_000_000)]
    assert caching.price(served, 1_000_000, "openai/gpt-4.1") == pytest.approx(2 * 2 + 0.5 + 8)
    written = [caching.Served(sent=1_000_000, read=500_000, written=500_000, write_price=2.0)]
    assert caching.price(written, 0, "anthropic/claude-sonnet-4-5") == pytest.approx(0.15 + 3.0)
    assert caching.price(served, 0, "acme/unknown") != caching.price(served, 0, "acme/unknown")  # NaN
