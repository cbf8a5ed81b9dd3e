"""A deterministic, purely lexical tagger for the Jester's lessons (SPEC section 7).

Each lesson gets every strategy category whose patterns match (multi-label) and one
theory-of-mind order: 3rd if it states an explicit cross-faction contrast (seen as wolf-like but
not as a villager, or one audience against another), else 2nd if it uses a perception verb
(appear, seem, look like, be seen as, come across), else 1st. Matching is on lowercased text and
says what a lesson is about, not whether it recommends or forbids it: "never vote with the
majority" is about vote manipulation just as "vote with the majority" is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_W = r"(?:were)?wol(?:f|ves)"  # wolf, wolves, werewolf, werewolves
_VILLAGE = r"(?:villagers?|village|innocents?|town)"

@dataclass(frozen=True)
class Category:
    """A strategy category: what it means (its docstring) and the patterns that find it."""

    doc: str
    patterns: tuple[str, ...]


CATEGORIES: dict[str, Category] = {
    "wolf_mimicry": Category(
        "Passing as a Werewolf: the cue-ambiguity exploit (look like the faction whose exile the village wants).",
        (
            rf"\b{_W}[- ]?(?:like|ish)\b",
            rf"\b(?:like|as) (?:a |an |the )?{_W}\b",
            r"\bmimic", r"\bimpersonat", r"\bpose as\b",
            rf"\b(?:claim|pretend)\w* (?:to be )?(?:a |the )?{_W}\b",
        ),
    ),
    "inconsistency": Category(
        "Saying one thing and then another: erratic, contradictory or unpredictable play.",
        (
            r"\binconsisten", r"\bcontradict", r"\berratic", r"\bflip[- ]?flop", r"\bunpredictab",
            r"\bmixed signals\b", r"\bchang\w* (?:my |your |one'?s )?(?:story|vote|position|mind|stance)",
        ),
    ),
    "aggression": Category(
        "Pressing others openly: accusing, attacking, confronting.",
        (
            r"\baggress", r"\baccus", r"\battack", r"\bhostil", r"\bconfront", r"\bforceful", r"\bantagoni",
        ),
    ),
    "subtle_indirection": Category(
        "Moving suspicion without owning the move: hints, deflection, redirection.",
        (
            r"\bsubtl", r"\bindirect", r"\bredirect", r"\bdeflect", r"\bhint", r"\binsinuat",
            r"\bshift\w* (?:the )?(?:suspicion|attention|focus|blame)",
        ),
    ),
    "passive_provocation": Category(
        "Inviting the exile by doing little: baiting, staying vague or silent, drawing suspicion onto oneself.",
        (
            r"\bprovo(?:k|c)", r"\bbait", r"\bpassiv", r"\bevasive", r"\bvague",
            r"\b(?:invite|draw|attract)\w* (?:\w+ ){0,2}(?:suspicion|votes?|attention)",
            r"\bstay\w* (?:quiet|silent)",
        ),
    ),
    "anti_jester_tells": Category(
        "Hiding what gives a Jester away: not looking like the Jester, not overplaying the part.",
        (
            r"\bjester[- ]?like\b", r"\btoo obvious", r"\bover-?(?:do|doing|play|playing|act|acting)\b",
            r"\b(?:give away|reveal|expose|hide|conceal|mask)\w* (?:my |the |your )?(?:role|identity|goal|win condition)",
            r"\b(?:look|seem|appear|be seen as|read as)\w* (?:like )?(?:the |a )?jester\b",
        ),
    ),
    "vote_manipulation": Category(
        "Steering ballots: whom to vote for, when, and with or against the majority.",
        (
            r"\b(?:re)?vot(?:e|es|ed|ing)\b", r"\bballot", r"\bbandwagon", r"\bmajority\b",
        ),
    ),
    "meta_modeling": Category(
        "Modelling what the others believe: perceptions, ambiguity, letting the group reach a conclusion.",
        (
            r"\bambigu", r"\bconfus", r"\buncertain", r"\b(?:perception|reputation|narrative)s?\b",
            r"\bwhat (?:the )?(?:others|they|players|villagers|wolves) (?:think|believe|expect|suspect)",
            r"\b(?:make|let|get)\w* (?:them|others|players|the group|the village|everyone) (?:think|believe|decide|conclude|label)",
            r"\bgauge\b", r"\bread\w* (?:the room|reactions|players)",
        ),
    ),
    "questioning": Category(
        "Asking: questions, probing, challenging others to explain themselves.",
        (
            r"\bquestion(?:s|ing|ed)?\b", r"\bask(?:s|ing|ed)?\b", r"\binterrogat", r"\bprob(?:e|es|ing)\b",
            r"\bchalleng",
        ),
    ),
}

THIRD_ORDER: tuple[str, ...] = (
    # seen as wolf-like, but not as a villager (within one sentence)
    rf"\b{_W}[- ]?(?:like|ish|aligned)?\b[^.;]{{0,120}}\b(?:not|avoid\w*|without|rather than|instead of|never)\b"
    rf"[^.;]{{0,40}}\b{_VILLAGE}[- ]?(?:like|aligned)?",
    # seen as a villager rather than a wolf, the other way round
    rf"\b{_VILLAGE}[- ]?(?:like|aligned)?\b[^.;]{{0,120}}\b(?:not|rather than|instead of)\b[^.;]{{0,40}}\b{_W}",
    # suspected of being both a wolf and the Jester
    rf"\bboth (?:a |the )?{_W} and (?:a |the )?jester\b",
    # one audience against the other
    rf"\b(?:to|for|with) (?:the )?{_W}\b[^.;]{{0,80}}\b(?:whereas|while|but)\b[^.;]{{0,60}}\b(?:to|for|with) (?:the )?{_VILLAGE}",
    rf"\b(?:to|for|with) (?:the )?{_VILLAGE}\b[^.;]{{0,80}}\b(?:whereas|while|but)\b[^.;]{{0,60}}\b(?:to|for|with) (?:the )?{_W}",
)

SECOND_ORDER: tuple[str, ...] = (
    r"\bappear(?:s|ed|ing)?\b",
    r"\bseem(?:s|ed|ing)?\b",
    r"\blook(?:s|ed|ing)? (?:like|as if|as though|suspicious|guilty|innocent|erratic|nervous|\w+-like)\b",
    r"\b(?:be|being|is|am|are|get|getting) seen as\b",
    r"\bcom(?:e|es|ing) across\b",
)

_CATEGORY_RE = {name: [re.compile(p) for p in c.patterns] for name, c in CATEGORIES.items()}
_THIRD_RE = [re.compile(p) for p in THIRD_ORDER]
_SECOND_RE = [re.compile(p) for p in SECOND_ORDER]


@dataclass(frozen=True)
class Tags:
    categories: tuple[str, ...]
    order: int  # 1, 2 or 3


def tom_order(lesson: str) -> int:
    text = lesson.lower()
    if any(p.search(text) for p in _THIRD_RE):
        return 3
    if any(p.search(text) for p in _SECOND_RE):
        return 2
    return 1


def categories(lesson: str) -> tuple[str, ...]:
    text = lesson.lower()
    return tuple(name for name, patterns in _CATEGORY_RE.items() if any(p.search(text) for p in patterns))


def tag(lesson: str) -> Tags:
    return Tags(categories=categories(lesson), order=tom_order(lesson))
