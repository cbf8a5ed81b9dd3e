"""What a game's tokens cost: each seat model's usage priced from a small table of list prices.

The table (``wolf_eval/data/prices.json``, US dollars per million tokens) covers common models;
``WOLF_EVAL_PRICES=/path/prices.json`` adds or overrides entries. A model with no known price is
costed as NaN, never as zero: an unknown cost is not a free game. Dated model names match their
base name (``anthropic/claude-sonnet-4-5-20250929`` is priced as ``anthropic/claude-sonnet-4-5``).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from typing import Any

from wolf_eval.store import TokenUsage

PRICES_ENV = "WOLF_EVAL_PRICES"
_DATED = re.compile(r"(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$")


@cache
def _table(override: str | None) -> dict[str, dict[str, float]]:
    table = json.loads(files("wolf_eval.data").joinpath("prices.json").read_text(encoding="utf-8"))
    if override:
        with open(override, encoding="utf-8") as f:
            table |= json.load(f)
    return {k: v for k, v in table.items() if not k.startswith("_")}


def prices() -> dict[str, dict[str, float]]:
    """The price table in force: the package's, with ``WOLF_EVAL_PRICES`` on top."""
    return _table(os.environ.get(PRICES_ENV))


def price_of(model: str) -> dict[str, float] | None:
    table = prices()
    return table.get(model) or table.get(_DATED.sub("", model))


def usd(model: str, usage: TokenUsage | Mapping[str, Any]) -> float:
    """Estimated cost of ``usage`` on ``model`` in US dollars; NaN when the model's price is unknown."""
    u = usage if isinstance(usage, TokenUsage) else TokenUsage.model_validate(usage)
    price = price_of(model)
    if price is None:
        return math.nan
    per_token = {k: v / 1e6 for k, v in price.items()}
    return (u.input * per_token["input"] + u.cache_read * per_token.get("cache_read", per_token["input"])
            + u.cache_write * per_token.get("cache_write", per_token["input"]) + u.output * per_token["output"])


def game_cost(usage: Mapping[str, TokenUsage | Mapping[str, Any]]) -> dict[str, float]:
    """A game's tokens and estimated cost over all its seat models (cost NaN if any model is unpriced)."""
    rows = {m: u if isinstance(u, TokenUsage) else TokenUsage.model_validate(u) for m, u in usage.items()}
    return {
        "input_tokens": float(sum(u.input for u in rows.values())),
        "cached_tokens": float(sum(u.cache_read for u in rows.values())),
        "output_tokens": float(sum(u.output for u in rows.values())),
        "usd": sum(usd(m, u) for m, u in rows.items()) if rows else math.nan,
    }
