"""The wolfbot Jester's lessons: read off what happened to it in the game it just played.

Only the Jester's own view is used: how it left the game (exiled, killed at night, or still
alive when the others won), who voted for it, how often it spoke. Each outcome has a few fixed
phrasings with the game's facts filled in, one drawn per game from the call's seed, so the file
grows over the first games and then mostly meets duplicates, as a real model's would.
"""

from __future__ import annotations

from collections import Counter
from random import Random

from wolf_eval.agents.observation import Observation
from wolf_eval.records import SPEECH_KINDS, Exile, Kind

_EXILED_WON = (
    "{opening} and speak {spoke} times by day {day}: that drew {votes} votes to exile me.",
    "Seem wolf-like to the wolves, not like a villager, so that both sides want me gone.",
    "Deflect questions with vague answers; the village read it as guilt and exiled me on day {day}.",
    "Accuse {voter} loudly on day {day} to invite a counter-vote.",
)
_EXILED_TO_DO = (
    "Make players like {voters} suspicious of me early; they voted for me.",
    "Ask {voter} pointed questions early to look nervous and guilty.",
    "Change my story once in the defence to seem erratic.",
)
_KILLED_NOT_TO_DO = (
    "Do not look like a threat to the wolves: they killed me on night {day} after I spoke {spoke} times.",
    "Never court votes too obviously on day 1; the wolves kill a player who might be the Jester.",
    "Avoid confronting the wolves' targets; it made me look like a villager rather than a wolf.",
)
_ALIVE_TO_DO = (
    "Court more votes: my best ballot got {best} on day {best_day}, short of a majority.",
    "Bid higher on day 1 so I speak before the village settles on a suspect.",
)
_OPENINGS = {
    "cue": "Court suspicion openly",
    "tom": "Look like a wolf the village fears",
    "random": "Stay unpredictable",
}


def jester_lessons(obs: Observation, style: str, rng: Random) -> dict[str, list[str]]:
    me = obs.seat
    exile = next((r for r in obs.records if r.kind is Kind.EXILE and r.target == me), None)
    died = next((r.day for r in obs.records if r.kind is Kind.DEATH and r.target == me), None)
    spoke = sum(1 for r in obs.records if r.actor == me and r.kind in SPEECH_KINDS)
    votes = Counter(r.day for r in obs.records if r.kind is Kind.VOTE and r.target == me)
    voters = sorted({r.actor for r in obs.records if r.kind is Kind.VOTE and r.target == me and r.actor})
    best_day, best = max(votes.items(), key=lambda kv: kv[1], default=(1, 0))
    facts = {"opening": _OPENINGS.get(style, _OPENINGS["cue"]), "spoke": spoke, "voters": " and ".join(voters[:2]),
             "voter": voters[0] if voters else "the first speaker", "best": best, "best_day": best_day}
    out: dict[str, list[str]] = {"to_do": [], "to_not_do": [], "winning_tactics": []}
    if exile is not None:
        assert isinstance(exile.data, Exile)
        facts |= {"day": exile.day, "votes": exile.data.votes}
        out["winning_tactics"].append(rng.choice(_EXILED_WON).format(**facts))
        if voters:
            out["to_do"].append(rng.choice(_EXILED_TO_DO).format(**facts))
    elif died is not None:
        facts["day"] = died
        out["to_not_do"].append(rng.choice(_KILLED_NOT_TO_DO).format(**facts))
    else:
        out["to_do"].append(rng.choice(_ALIVE_TO_DO).format(**facts))
    return out
