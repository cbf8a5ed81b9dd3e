"""Which requested generation settings a seat's provider actually honours.

A seat asks for the task's temperature and a per-call seed, but some providers drop part of
that: OpenAI's reasoning models (o-series, gpt-5, codex) always sample at temperature 1 and,
served through the Responses API, take no seed; Anthropic takes no seed at all, and no
temperature while extended thinking is on. A game played that way is still a valid game, but
"temperature 1.0, seeded" would be a false description of it, so each seat's record says what
was dropped and the eval warns once per model.
"""

from __future__ import annotations

import logging
import re

from inspect_ai.model import GenerateConfig

logger = logging.getLogger(__name__)

_OPENAI_REASONING = re.compile(r"^(o\d|gpt-5|codex)", re.IGNORECASE)
_warned: set[tuple[str, str]] = set()


def ignored_settings(model_name: str, config: GenerateConfig, temperature: float | None) -> list[str]:
    """The requested settings ``model_name``'s provider is known to ignore, each with why."""
    provider, _, name = model_name.partition("/")
    base = name.rsplit("/", 1)[-1]
    out: list[str] = []
    if provider in ("openai", "azureai") and _OPENAI_REASONING.match(base):
        if temperature is not None:
            out.append("temperature (a reasoning model samples at 1)")
        out.append("seed (the Responses API takes none)")
    elif provider == "anthropic":
        if temperature is not None and config.reasoning_tokens:
            out.append("temperature (extended thinking samples at 1)")
        out.append("seed (Anthropic takes none)")
    return out


def warn_once(model_name: str, ignored: list[str]) -> None:
    """One warning per model and setting per process, so a long eval says it once, not per game."""
    for what in ignored:
        if (model_name, what) not in _warned:
            _warned.add((model_name, what))
            logger.warning(f"wolf-eval: {model_name} ignores the requested {what}; "
                           "each sample's seating records it")
