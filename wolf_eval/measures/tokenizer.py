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

import importlib.machinery
import importlib.util
import json
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

ENCODING = "o200k_base"


@cache
def _encoder() -> Any:
    """bpe-openai's Rust encoder of o200k, loaded alone.

    Importing the ``bpe_openai`` package builds, in Python, the rank tables of all three of its
    encodings (about half a second of CPU in every process: a tenth of a ``wolfbot`` game's, since the
    baseline players' usage is counted in these tokens), which its Rust encoder never reads: it holds
    its own. So the compiled module is loaded by itself; its ``encode`` is what the package's
    ``encode_ordinary`` calls, text with lone surrogates made valid UTF-8 first as the package does.
    """
    package = importlib.util.find_spec("bpe_openai")
    if package is None or not package.submodule_search_locations:
        raise ImportError("bpe-openai is not installed: pip install bpe-openai")
    [path] = [p for folder in package.submodule_search_locations for p in Path(folder).glob("_bindings*")
              if p.suffix in importlib.machinery.EXTENSION_SUFFIXES or p.name.endswith(".so")]
    loader = importlib.machinery.ExtensionFileLoader("bpe_openai._bindings", str(path))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    if spec is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module.tokenizer_for_encoding(ENCODING)


def _tokens(text: str) -> list[int]:
    try:
        return list(_encoder().encode(text))
    except UnicodeEncodeError:
        return list(_encoder().encode(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")))


@lru_cache(maxsize=8192)
def count(text: str) -> int:
    """The number of o200k tokens in ``text`` (special-token text counted as plain text).

    Cached: a game sends the same rules, roles and record blocks again and again.
    """
    return len(_tokens(text)) if text else 0


def first(text: str, n: int) -> tuple[int, ...]:
    """The first ``n`` tokens of ``text`` (what OpenAI's cache routing hashes)."""
    head = _tokens(text[: 8 * n])  # a token is rarely longer than 8 characters
    if len(head) < n < len(text):
        head = _tokens(text)
    return tuple(head[:n])


def schema_text(schema: Any) -> str:
    """A call's response schema (an Inspect ``ResponseSchema``, or None) as compact JSON, as a provider
    receives it and counts it among the prompt's tokens; "" for a call sent without one."""
    if schema is None:
        return ""
    return json.dumps(schema.json_schema.model_dump(exclude_none=True), separators=(",", ":"))
