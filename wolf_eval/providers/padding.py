"""Speech as long as a language model's, for measuring what a game costs in tokens.

The baseline bots say five to ten words a turn; models say close to the word limit. ``-M words=N``
on ``wolfbot`` runs every statement and defence on to N words (at most the game's limit) and every
vote reason to at most REASON_WORDS (the prompt asks for one sentence). The small talk added names
nobody and holds none of the words the bots read for cues, so the game is the same game, decision
for decision, and only its prompts grow.
"""

from __future__ import annotations

import json
from random import Random

from wolf_eval.agents.observation import Observation
from wolf_eval.vocabulary import Action

SMALL_TALK = (
    "I have been listening to everyone carefully today.",
    "Some of what was said fits together, and some of it does not.",
    "I would like to hear more from the quieter players before we decide.",
    "Please say plainly what you think and why.",
    "We all lose if we choose badly, so let us take the time to think it through.",
    "I will keep my thoughts short and to the point.",
    "Tell me if you see something I have missed.",
    "Every answer we get now helps us later.",
)
#: A one-sentence vote reason: the WOLF paper's length for a concise statement.
REASON_WORDS = 20
#: The reply field that carries each action's public words.
SPOKEN = {"statement": "statement", "defence": "statement", "vote": "reason"}


def lengthen(reply: str, obs: Observation, words: int, rng: Random) -> str:
    """The reply with its public words run on to ``words`` words; anything else comes back unchanged."""
    key = SPOKEN.get(obs.action)
    if not words or key is None:
        return reply
    try:
        data = json.loads(reply)
    except json.JSONDecodeError:
        return reply
    if not isinstance(data, dict) or not isinstance(data.get(key), str):
        return reply
    said = data[key].split()
    target = min(words, obs.max_statement_words, REASON_WORDS if obs.action == Action.VOTE else words)
    if len(said) >= target:
        return reply
    while len(said) < target:
        said += rng.choice(SMALL_TALK).split()
    data[key] = " ".join(said[:target])
    return json.dumps(data)
