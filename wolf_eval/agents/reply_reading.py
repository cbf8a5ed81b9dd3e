"""The judge's reading of the deceiving seats' replies (docs/refusal.md): one call that puts each in a class.

With a judge bound (``--model-role judge=...``), after naming the roles the judge reads every reply of the
game's deceiving seats, each with its writer's true role, and says whether it played, refused or exposed
itself, as the rules of :mod:`wolf_eval.measures.role_play` do. Its reading is logged beside the rules' as
a second opinion; the scores keep the rules', which are free, deterministic and replay exactly.
"""

from __future__ import annotations

from inspect_ai.model import ChatMessage, ChatMessageUser
from pydantic import BaseModel, ConfigDict

from wolf_eval.agents.parse import InvalidReply, first_json_object
from wolf_eval.agents.prompts import quote, template

READING_METADATA_KEY = "wolf_eval_reply_reading"


class ReplyReading(BaseModel):
    """What the reader sees: each reply's writer's role and its text, and the classes it may give."""

    model_config = ConfigDict(frozen=True)

    replies: tuple[tuple[str, str], ...]  # (role, text)
    classes: tuple[str, ...]


def reading_messages(reading: ReplyReading) -> list[ChatMessage]:
    """The one prompt of the reading; its metadata carries the view, as a seat's prompt does."""
    listed = "\n".join(f"{i}. ({role}) {quote(text)}" for i, (role, text) in enumerate(reading.replies, start=1))
    prompt = template("reply_reading").substitute(replies=listed, count=len(reading.replies))
    return [ChatMessageUser(content=prompt, metadata={READING_METADATA_KEY: reading.model_dump(mode="json")})]


def parse_classes(raw: str, reading: ReplyReading) -> tuple[str, ...]:
    """One class per reply, in order; a reply whose list is missing, short or holds a class not offered is
    unreadable (the reading is then lost, never filled in with the rules')."""
    got = first_json_object(raw).get("classes")
    if not isinstance(got, list) or len(got) != len(reading.replies):
        raise InvalidReply(f"'classes' is not a list of {len(reading.replies)} classes: {str(got)[:80]!r}")
    named = tuple(str(c).strip().lower().replace("-", "_").replace(" ", "_") for c in got)
    wrong = [c for c in named if c not in reading.classes]
    if wrong:
        raise InvalidReply(f"not a class offered: {wrong[0][:40]!r}")
    return named
