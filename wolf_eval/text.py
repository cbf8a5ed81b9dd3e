r"""Hostile text: what is taken out of every model-written string where it enters the game.

A model's words travel: into the record, into every other seat's prompt, into the log, the
exports and the report. Characters that are invisible or that steer a terminal or a text renderer
have no business on that path: a right-to-left override (U+202E) or an isolate (U+2066) makes a
quoted statement read differently from what it is, a zero-width or tag character (U+E0000 block)
smuggles words past a reader, ANSI escapes (ESC, CSI U+009B) drive the terminal that shows a
report, and raw line separators (U+2028) break lines where the renderer did not expect one.

So each string a model writes is cleaned exactly once, at its entry point, before anything else
reads it: the reply parser (``wolf_eval.agents.parse.first_json_object``, through which every
seat's reply, the judge's reply and the Jester's lessons reply pass) and the lessons file
(``wolf_eval.lessons.book``, on read and on write, as an older release may have written it).
Downstream code (prompt rendering, records, reports) can then treat the text as plain.

``clean_text`` removes:

* C0 and C1 control characters and DEL (category Cc), except newline and tab;
* format characters (category Cf): bidirectional overrides, embeddings and isolates, zero-width
  characters and joiners, the BOM, soft hyphens, tag characters;
* lone surrogates (category Cs), which a JSON ``\ud800`` escape can produce and UTF-8 cannot encode.

Line breaks are kept as line breaks: CR LF, CR, NEL (U+0085), and the line and paragraph
separators (U+2028, U+2029, categories Zl and Zp) become a newline. Everything else, letters of
any script, emoji, punctuation, ordinary spaces, is left as it is; one cost is that an emoji
sequence joined by ZERO WIDTH JOINER (a Cf character) shows as its separate emoji. Categories are
those of the running Python's Unicode database.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

#: Categories removed outright: controls, format characters, lone surrogates.
REMOVED_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})
#: Characters kept although their category is removed.
KEPT = frozenset("\n\t")

_LINE_BREAKS = re.compile("\r\n?|[\x85\u2028\u2029]")
_ASCII_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def is_hostile(char: str) -> bool:
    """Whether ``clean_text`` takes this one character out or turns it into a newline."""
    return char not in KEPT and unicodedata.category(char) in REMOVED_CATEGORIES | {"Zl", "Zp"}


def clean_text(text: str) -> str:
    r"""``text`` without control, format and lone surrogate characters; line breaks become ``\n``."""
    text = _LINE_BREAKS.sub("\n", text)
    if text.isascii():
        return _ASCII_CONTROLS.sub("", text)
    return "".join(c for c in text if c in KEPT or unicodedata.category(c) not in REMOVED_CATEGORIES)


def clean_value(value: Any) -> Any:
    """A decoded JSON value with ``clean_text`` applied to every string in it, keys included.

    Lists and dicts are cleaned in place (they are fresh from the decoder), without recursion,
    so a deeply nested reply cannot exhaust the stack.
    """
    if isinstance(value, str):
        return clean_text(value)
    stack = [value] if isinstance(value, (dict, list)) else []
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, str):
                    node[i] = clean_text(item)
                elif isinstance(item, (dict, list)):
                    stack.append(item)
            continue
        items = list(node.items())
        node.clear()
        for key, item in items:
            if isinstance(item, str):
                item = clean_text(item)
            elif isinstance(item, (dict, list)):
                stack.append(item)
            node[clean_text(key) if isinstance(key, str) else key] = item
    return value
