"""Prompt blocks that are made once and shared by every call that sends them.

A seat's calls repeat the same blocks call after call (its rules, its role, its record so far), and
Inspect keeps every call's prompt for the whole game; one object per block text keeps that memory to
one copy a block (``benchmarks/memory.py``). The words of the blocks are ``prompts.py``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from weakref import WeakValueDictionary

from inspect_ai.model import ContentText
from pydantic import PrivateAttr


class SharedText(ContentText):
    """A prompt block that is never changed once made, so it is shared, not copied.

    Inspect's model events keep every call's prompt for the whole game, each message deep-copied.
    A seat's calls repeat the same blocks (and seats that saw the same wave, the same block), so a
    block of the same text is one object for every call that sends it, and the copy an event
    keeps is that object (``benchmarks/memory.py``). The log writes it exactly as a ``ContentText``.
    """

    _copied: tuple[str, SharedText] | None = PrivateAttr(default=None)

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> SharedText:
        return self

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> SharedText:
        """A copy, except that a copy with only a new text is made once per text and then shared.

        Inspect writes a finished sample by copying every event with each prompt block's text
        replaced by its attachment reference (``condense_sample``): a copy of a block per call
        that sent it, some twenty thousand in a five-day game. Each block's copy is the same
        block with the same reference, so it is made once and every event's copy shares it.
        """
        if deep or not update or update.keys() != {"text"}:
            return super().model_copy(update=update, deep=deep)
        text = update["text"]
        if text == self.text:
            return self
        # read from the instance's private values directly: pydantic's attribute lookup of a private name costs
        # more than the rest of this method, and it ran for every block of every call's event
        copied = (self.__pydantic_private__ or {}).get("_copied")
        if copied is None or copied[0] != text:
            copy = super().model_copy(update=update)
            copy._copied = None
            copied = (text, copy)
            self._copied = copied
        return copied[1]


#: The blocks of the prompts of calls in flight or kept by a transcript, by their text and cache mark; a block
#: goes when nothing holds it.
_BLOCKS: WeakValueDictionary[tuple[str, bool], SharedText] = WeakValueDictionary()
#: Whether this Inspect release marks a prompt block as the end of a cached prefix (``cache_breakpoint``,
#: from 0.3.278): what Anthropic and OpenAI's newest models cache up to.
CACHE_MARKS = "cache_breakpoint" in ContentText.model_fields


def text_block(text: str, cache_mark: bool = False) -> ContentText:
    """A prompt block of ``text``: the one any call holding that text sends (see :class:`SharedText`);
    ``cache_mark``: the block ends the prompt's stable prefix, which a provider is asked to cache."""
    mark = cache_mark and CACHE_MARKS
    block = _BLOCKS.get((text, mark))
    if block is None:
        block = SharedText(text=text, cache_breakpoint=True) if mark else SharedText(text=text)
        _BLOCKS[(text, mark)] = block
    return block


__all__ = ["CACHE_MARKS", "SharedText", "text_block"]
