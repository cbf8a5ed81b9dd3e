"""What a game's tokens cost: each seat model's usage priced from a small table of list prices.

The table (``wolf_eval/data/prices.json``, US dollars per million tokens) covers common models;
``WOLF_EVAL_PRICES=/path/prices.json`` adds or overrides entries. A model with no known price is
costed as NaN, never as zero: an unknown cost is not a free game; a person's seat (``human/<name>``) costs
nothing. Dated model names match their
base name (``anthropic/claude-sonnet-4-5-20250929`` is priced as ``anthropic/claude-sonnet-4-5``).

Per game and seat model (:func:`model_cost`) and per game (:func:`game_cost`): ``input_tokens``
(prompt tokens not read from a cache, cache writes included, so input + cached is the whole
prompt), ``cached_tokens`` (prompt-cache reads), ``output_tokens`` and ``usd``. Pooled over games
(:func:`pooled_cost`): sums and means per game, NaN when any game's figure is unknown, because a
total missing a game would pass for the whole run's cost. :func:`tokens` is the one all-in token
count (prompt, cached prompt and output) that the eval's ``cost`` score and the report's console
show. What a seat model's provider ignored of the requested settings is counted beside it, in
:mod:`wolf_eval.measures.ignored`.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from functools import cache
from importlib.resources import files
from typing import Any

from wolf_eval.measures.pooling import logged_name
from wolf_eval.store import TokenUsage

PRICES_ENV = "WOLF_EVAL_PRICES"
COST_KEYS = ("input_tokens", "cached_tokens", "output_tokens", "usd")
#: Each figure per game, as a pooled cost names it (``usd_per_game``).
PER_GAME = {k: logged_name(k, "per_game") for k in COST_KEYS}
#: A person at a seat (``human/<name>``): their replies are counted as no tokens and cost nothing.
HUMAN = "human"
UNPAID = {"input": 0.0, "cache_read": 0.0, "cache_write": 0.0, "output": 0.0}
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
    """The price of ``model``: its own entry, else its undated name's, else the one it routes to.

    A routed name (``openai-api/<service>/gpt-4.1``, ``openrouter/openai/gpt-4.1``) is priced as the
    listed model it names, when its name picks out exactly one entry: a local server or a router that
    calls itself gpt-4.1 is costed as gpt-4.1, and a name two providers share is left unpriced.
    """
    if model.split("/", 1)[0] == HUMAN:
        return UNPAID
    table = prices()
    undated = _DATED.sub("", model)
    if model in table or undated in table:
        return table.get(model) or table[undated]
    parts = undated.split("/")
    if len(parts) < 3:
        return None
    if "/".join(parts[-2:]) in table:
        return table["/".join(parts[-2:])]
    named = [k for k in table if k.split("/", 1)[-1] == parts[-1]]
    return table[named[0]] if len(named) == 1 else None


def _usage(usage: TokenUsage | Mapping[str, Any]) -> TokenUsage:
    return usage if isinstance(usage, TokenUsage) else TokenUsage.model_validate(usage)


def usd(model: str, usage: TokenUsage | Mapping[str, Any]) -> float:
    """Estimated cost of ``usage`` on ``model`` in US dollars; NaN when the model's price is unknown."""
    u = _usage(usage)
    price = price_of(model)
    if price is None:
        return math.nan
    per_token = {k: v / 1e6 for k, v in price.items()}
    return (u.input * per_token["input"] + u.cache_read * per_token.get("cache_read", per_token["input"])
            + u.cache_write * per_token.get("cache_write", per_token["input"]) + u.output * per_token["output"])


def model_cost(model: str, usage: TokenUsage | Mapping[str, Any]) -> dict[str, float]:
    """One seat model's tokens over a game and their estimated cost (``usd`` NaN when unpriced)."""
    u = _usage(usage)
    return {"input_tokens": float(u.input + u.cache_write), "cached_tokens": float(u.cache_read),
            "output_tokens": float(u.output), "usd": usd(model, u)}


def game_cost(usage: Mapping[str, TokenUsage | Mapping[str, Any]]) -> dict[str, float]:
    """A game's tokens and estimated cost over all its seat models.

    ``usd`` is NaN if any seat model is unpriced; every figure is NaN for a game that recorded no
    usage (a log from before usage was kept), which is unknown, not free.
    """
    per_model = [model_cost(m, u) for m, u in usage.items()]
    if not per_model:
        return dict.fromkeys(COST_KEYS, math.nan)
    return {k: math.fsum(c[k] for c in per_model) for k in COST_KEYS}


def tokens(cost: Mapping[str, float]) -> float:
    """All the tokens of a :func:`model_cost`, :func:`game_cost` or :func:`pooled_cost` figure: prompt
    (cached or not) plus output, the one count a user compares with a provider's bill."""
    return cost["input_tokens"] + cost["cached_tokens"] + cost["output_tokens"]


def pooled_cost(costs: Sequence[Mapping[Any, Any]]) -> dict[str, float]:
    """Per-game costs (:func:`model_cost` or :func:`game_cost`, or report rows that hold them) pooled: ``games``,
    each figure summed and per game.

    A sum over games where one is unknown is NaN, not the sum of the rest.
    """
    out: dict[str, float] = {"games": float(len(costs))}
    for k in COST_KEYS:
        total = math.fsum(float(c.get(k, math.nan)) for c in costs) if costs else math.nan
        out[k] = total
        out[PER_GAME[k]] = total / len(costs) if costs else math.nan
    return out


def cost_by_model(usages: Sequence[Mapping[str, TokenUsage | Mapping[str, Any]]]) -> dict[str, dict[str, float]]:
    """Per seat model, sorted, over the games it played (each game's usage by seat model): :func:`pooled_cost`."""
    models = sorted({m for u in usages for m in u})
    return {m: pooled_cost([model_cost(m, u[m]) for u in usages if m in u]) for m in models}


def unpriced(usages: Sequence[Mapping[str, Any]]) -> list[str]:
    """The seat models in these games' usage that the price table in force has no price for, sorted."""
    return sorted({m for u in usages for m in u if price_of(m) is None})
