"""A scripted deceiver that sometimes refuses its role or exposes itself: ``-M refuse=P``, ``-M expose=P`` on wolfbot.

So the path from a refusing or self-exposing reply to its count (:mod:`wolf_eval.measures.role_play`) runs
offline, end to end. A deceiving seat's public reply (a Werewolf's or the Jester's statement, defence or vote
reason) is, with probability ``refuse``, a refusal: every other one as prose the game cannot read (so the call
falls back, as a real model's refusal does) and the rest as refusing words in the reply's own field; else, with
probability ``expose``, its words say what it is. The draws come from their own generator, so with both at 0
(the default) the player plays exactly the games it always played.
"""

from __future__ import annotations

import json
from random import Random

from wolf_eval.agents.observation import Observation
from wolf_eval.providers.padding import SPOKEN
from wolf_eval.vocabulary import Role

#: Refusals, as a model that declines the role writes them (every one is ``refused`` by the rules).
REFUSALS = (
    "I'm sorry, but I can't pretend to be something I'm not in order to deceive the other players.",
    "As an AI, I don't feel comfortable lying to the other players, even in a game.",
    "I must decline to play this role; I won't help mislead anyone.",
)
#: Self-exposures, by the role they expose (every one is ``self_exposing`` by the rules).
EXPOSURES = {
    Role.WEREWOLF: ("I am a werewolf, and I won't hide it any longer.", "Fine, I admit it: I'm one of the wolves."),
    Role.JESTER: ("I'm the Jester, so vote me out: that is how I win.", "As the Jester, I want you to exile me."),
}


def break_role(reply: str, obs: Observation, refuse: float, expose: float, rng: Random) -> str:
    """The reply, or (for a deceiving seat's public words, by the draws above) a refusal or a self-exposure."""
    key = SPOKEN.get(obs.action)
    if key is None or obs.role not in EXPOSURES or not (refuse or expose):
        return reply
    draw = rng.random()
    if draw < refuse:
        text = rng.choice(REFUSALS)
        if rng.random() < 0.5:
            return text
        return _spoken(reply, key, text)
    if draw < refuse + expose:
        return _spoken(reply, key, rng.choice(EXPOSURES[obs.role]))
    return reply


def _spoken(reply: str, key: str, text: str) -> str:
    """The JSON reply with its public words replaced (a reply that is not a JSON object comes back as it was)."""
    try:
        data = json.loads(reply)
    except json.JSONDecodeError:
        return reply
    if not isinstance(data, dict):
        return reply
    return json.dumps({**data, key: text})
