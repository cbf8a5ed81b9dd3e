"""A call's private reasoning, as its provider returned it: kept for the moderator, never shown to a seat.

A reasoning model's thinking reaches Inspect as ``ContentReasoning`` blocks in the reply's message
(Anthropic thinking, OpenAI reasoning summaries, Google thought parts, ``<think>`` tags and the like).
What a monitor can read of it is one of three things, which :class:`Thought` names:

- ``reasoning``: the readable reasoning itself (a block that is not redacted);
- ``summary``: only the provider's summary of it (a redacted block that carries one);
- ``unavailable``: nothing readable (encrypted blocks only, or no reasoning at all).

The game's record keeps one per seat call (``wolf_eval.store.ThoughtRow``); no prompt is ever built from
it (prompts are built from a seat's view alone, ``wolf_eval.agents.observation``), and every seat call
asks Inspect to replay none of it (``reasoning_history="none"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from inspect_ai.model import ContentReasoning, ModelOutput

ThoughtKind = Literal["reasoning", "summary", "unavailable"]


@dataclass(frozen=True)
class Thought:
    """What a monitor can read of one call's reasoning, and how much of it that is."""

    kind: ThoughtKind = "unavailable"
    text: str = ""


#: A call that returned no readable reasoning.
UNAVAILABLE = Thought()


def thought_of(output: ModelOutput) -> Thought:
    """The readable reasoning of a reply: every block's own text, or its summary where the block is redacted;
    ``summary`` if any readable part is only a summary, ``unavailable`` if nothing is readable."""
    if not output.choices or isinstance(output.message.content, str):
        return UNAVAILABLE
    blocks = [c for c in output.message.content if isinstance(c, ContentReasoning)]
    parts: list[tuple[ThoughtKind, str]] = []
    for block in blocks:
        if not block.redacted and block.reasoning.strip():
            parts.append(("reasoning", block.reasoning.strip()))
        elif block.summary and block.summary.strip():
            parts.append(("summary", block.summary.strip()))
    if not parts:
        return UNAVAILABLE
    kind: ThoughtKind = "summary" if any(k == "summary" for k, _ in parts) else "reasoning"
    return Thought(kind, "\n\n".join(text for _, text in parts))


__all__ = ["UNAVAILABLE", "Thought", "ThoughtKind", "thought_of"]
