"""Tokens as OpenAI's current models count them: the ``o200k_base`` encoding (gpt-4o, gpt-4.1, gpt-5).

Why this encoding: every cost figure is a count of tokens times a list price, and four characters a
token undercounts this project's prompts (its JSON schemas most: about 2.2 characters a token).
The encoding ships inside the ``bpe-openai`` package (``bpe_openai/data/o200k_base.tiktoken.gz``,
the same file as tiktoken's, checked in the tests against the SHA-256 that tiktoken pins for it), so
counting needs no download. Anthropic publishes no tokenizer for its current models: their prompts
are counted in o200k too, which third-party comparisons put some 16% under Claude's own count for
English prose and 21-30% under it for code and symbols (Claude 3.5 Sonnet against GPT-4o, VentureBeat,
May 2025, summarised at https://techgeekwire.com/the-hidden-costs-of-tokenization-comparing-openais-gpt-4o-and-anthropics-claude-3-5-sonnet),
so a Claude figure here is a floor.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from typing import Any

ENCODING = "o200k_base"


@cache
def _encoding():
    import bpe_openai

    return bpe_openai.get_encoding(ENCODING)


@lru_cache(maxsize=8192)
def count(text: str) -> int:
    """The number of o200k tokens in ``text`` (special-token text counted as plain text).

    Cached: a game sends the same rules, roles and record blocks again and again.
    """
    return len(_encoding().encode_ordinary(text)) if text else 0


def first(text: str, n: int) -> tuple[int, ...]:
    """The first ``n`` tokens of ``text`` (what OpenAI's cache routing hashes)."""
    head = _encoding().encode_ordinary(text[: 8 * n])  # a token is rarely longer than 8 characters
    if len(head) < n < len(text):
        head = _encoding().encode_ordinary(text)
    return tuple(head[:n])


#: The text of each response schema counted lately, by the identity of its JSON Schema, with the schema held
#: so its identity is not reused: a seat's calls all carry its one schema (copies share the object).
_SCHEMA_TEXTS: dict[int, tuple[Any, str]] = {}
_SCHEMA_TEXTS_KEPT = 256


def schema_text(schema: Any) -> str:
    """A call's response schema (an Inspect ``ResponseSchema``, or None) as compact JSON, as a provider
    receives it and counts it among the prompt's tokens; "" for a call sent without one.

    Remembered per schema object: every call of a seat sends the seat's one schema, and writing it out
    again for each call's token count was a tenth of a ``wolfbot`` call's own time.
    """
    if schema is None:
        return ""
    body = schema.json_schema
    kept = _SCHEMA_TEXTS.get(id(body))
    if kept is not None and kept[0] is body:
        return kept[1]
    text = json.dumps(body.model_dump(exclude_none=True), separators=(",", ":"))
    if len(_SCHEMA_TEXTS) >= _SCHEMA_TEXTS_KEPT:
        _SCHEMA_TEXTS.clear()
    _SCHEMA_TEXTS[id(body)] = (body, text)
    return text
