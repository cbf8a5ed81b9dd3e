"""The optional post-game judge (docs/design.md, § Logs and the judge): one call that reads only
the public record and names every role.

Bound with ``--model-role judge=<model>``. It tests whether the transcript carries the signal
that separates the roles, e.g. a Wolf from a Jester, independently of how the players used it.
"""

from __future__ import annotations

import re
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageUser
from pydantic import BaseModel, ConfigDict

from wolf_eval.agents.parse import InvalidReply, first_json_object, match_name
from wolf_eval.agents.prompts import render_records, template
from wolf_eval.engine import GameState, Role
from wolf_eval.engine.roles import role_named
from wolf_eval.records import PUBLIC, Kind, ViewRecord, view

JUDGE_METADATA_KEY = "wolf_eval_judge"
HIDDEN_KINDS = (Kind.GAME_OVER,)  # names the winner, which would give the Jester away

_JUDGE_ALIASES = {"town": "villager", "villain": "werewolf", "fool": "jester"}  # beyond the roster's role names


class JudgeView(BaseModel):
    """What the judge sees: the players, the roles in play and the public record."""

    model_config = ConfigDict(frozen=True)

    variant: str
    players: tuple[str, ...]
    roles_in_play: dict[str, int]
    records: tuple[ViewRecord, ...]


def judge_view(game: GameState) -> JudgeView:
    counts = {r.value: sum(1 for p in game.players if p.role is r) for r in Role}
    return JudgeView(
        variant=game.config.variant, players=game.names,
        roles_in_play={r: n for r, n in counts.items() if n},
        records=tuple(view(r) for r in game.records if r.visibility == PUBLIC and r.kind not in HIDDEN_KINDS),
    )


def judge_messages(jv: JudgeView) -> list[ChatMessage]:
    jester_line = ("The Jester wins alone if the village exiles it, so it may have courted suspicion on purpose.\n"
                   if "jester" in jv.roles_in_play else "")
    prompt = template("judge").substitute(
        roles=", ".join(f"{n} {r}" for r, n in jv.roles_in_play.items()),
        players=", ".join(jv.players), jester_line=jester_line, record=render_records(jv.records),
        role_names=", ".join(jv.roles_in_play),
    )
    return [ChatMessageUser(content=prompt, metadata={JUDGE_METADATA_KEY: jv.model_dump(mode="json")})]


def _role(value: Any, roles: tuple[str, ...]) -> str | None:
    if not isinstance(value, str):
        return None
    word = "".join(w for w in re.findall(r"[a-z]+", value.casefold()) if w not in ("the", "a", "an"))
    role = role_named(word)
    named = role.value if role is not None else _JUDGE_ALIASES.get(word, word)
    return named if named in roles else None


def parse_guesses(
        raw: str, players: tuple[str, ...], roles: tuple[str, ...]) -> tuple[dict[str, str | None], list[str]]:
    """Each player's guessed role (None when missing or unreadable) and what could not be read.

    Raises InvalidReply when the reply holds no mapping of players to roles at all.
    """
    obj = first_json_object(raw)
    mapping = obj.get("roles", obj)
    if not isinstance(mapping, dict):
        raise InvalidReply(f"'roles' is not an object: {str(mapping)[:80]!r}")
    guesses: dict[str, str | None] = dict.fromkeys(players)
    problems: list[str] = []
    for key, value in mapping.items():
        try:
            name = match_name(key, players, players)
        except InvalidReply as err:
            if key not in ("reasoning", "roles"):
                problems.append(str(err))
            continue
        role = _role(value, roles)
        if role is None:
            problems.append(f"{name}: {str(value)[:40]!r} is not a role in play")
        guesses[name] = role
    if all(g is None for g in guesses.values()):
        raise InvalidReply("no player was given a role in play")
    problems += [f"{n}: no guess" for n, g in guesses.items()
                 if g is None and not any(p.startswith(f"{n}:") for p in problems)]
    return guesses, problems
