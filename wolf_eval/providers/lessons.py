"""The wolfbot Jester's lessons: read off what happened to it in the game it just played.

Only the Jester's own view is used: when and how it left the game, who voted for it, how often
it spoke. The wording is fixed per outcome, with the game's facts filled in, so the lessons file
fills up over the first games and then mostly meets duplicates, as a real model's would.
"""

from __future__ import annotations

from collections import Counter
from random import Random

from wolf_eval.agents.observation import Observation

_OPENINGS = {"cue": "Court suspicion openly", "tom": "Look like a wolf the village fears", "random": "Stay unpredictable"}


def jester_lessons(obs: Observation, style: str, rng: Random) -> dict[str, list[str]]:
    me = obs.seat
    exile = next((r for r in obs.records if r.kind == "exile" and r.target == me), None)
    death = next((r for r in obs.records if r.kind == "death" and r.target == me), None)
    spoke = sum(1 for r in obs.records if r.actor == me and r.kind in ("statement", "defence"))
    votes = Counter(r.day for r in obs.records if r.kind == "vote" and r.target == me)
    voters = sorted({r.actor for r in obs.records if r.kind == "vote" and r.target == me and r.actor})
    opening = _OPENINGS.get(style, _OPENINGS["cue"])
    out: dict[str, list[str]] = {"to_do": [], "to_not_do": [], "winning_tactics": []}
    if exile is not None:
        out["winning_tactics"].append(
            f"{opening} and speak {spoke} times by day {exile.day}: that drew {exile.data.get('votes', '?')} votes to exile me.")
        if voters:
            out["to_do"].append(f"Make players like {' and '.join(voters[:2])} suspicious of me early; they voted for me.")
    elif death is not None:
        out["to_not_do"].append(
            f"Do not look like a threat to the wolves: they killed me on night {death.day} after I spoke {spoke} times.")
        if spoke == 0:
            out["to_do"].append("Speak on day 1 even with a low bid, or the village never suspects me.")
    else:
        best_day, best = max(votes.items(), key=lambda kv: kv[1], default=(1, 0))
        out["to_do"].append(f"Court more votes: my best ballot got {best} on day {best_day}, short of a majority.")
    if rng.random() < 0.3:
        out["to_not_do"].append("Never explain my votes in detail; a clear reason makes me look like a villager.")
    return out
