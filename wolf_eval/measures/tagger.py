"""A deterministic, purely lexical tagger for the Jester's lessons (docs/design.md, § Scores).

An instrument of the lessons measures (``measures.lessons``, ``third_order_lessons``, the report and
``benchmarks/tagger_agreement.py``), not of the learning loop: a game's record keeps each lesson's tags,
and the Jester is shown only the lessons' text.

Each lesson gets every strategy category whose patterns match (multi-label) and one
theory-of-mind order: 3rd if it states an explicit cross-faction contrast (seen as wolf-like but
not as a villager, or one audience against another), else 2nd if it uses a perception verb
(appear, seem, look like, be seen as, come across), else 1st. Matching is on lowercased text and
says what a lesson is about, not whether it recommends or forbids it: "never vote with the
majority" is about vote manipulation just as "vote with the majority" is.

A contrast counts at any distance within a sentence, not only inside the windows of
``THIRD_ORDER``, when its two sides stand in the same role (two audiences: "let the villagers think
I am a wolf while the wolves see a harmless fool"; or two identities: "wolf-like ... not
villager-aligned") with a contrasting word between them.

Two readings follow the spec and the Triadic paper rather than surface words:

- A faction's belief ("the villagers think I am a wolf") is ``meta_modeling`` but not 2nd order
  by itself: the paper's regex, unlike its LLM judges, needs an explicit perception verb (App. L),
  and "think" is a belief verb. Two factions' beliefs set against each other are 3rd order.
- An epistemic or hedging "seems" ("it seems the village votes for whoever talks most") is the
  writer's uncertainty about the game, not how the Jester is perceived, so it is not 2nd order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_W = r"(?:were)?wol(?:f|ves)"  # wolf, wolves, werewolf, werewolves
_VILLAGE = r"(?:villagers?|village|innocents?|town(?:s(?:people|folk))?)"
_MODIFIER = r"(?:(?:real|actual|other|remaining|true|fellow)\s+)?"  # "the actual wolves"
#: The factions as audiences and identities, by other names too: "the pack", "the night team", "the day crowd".
_WOLF_SIDE = rf"(?:{_W}|(?:wolf\s+)?pack|night[- ](?:team|side|players|crew|killers|hunters))"
_TOWN_SIDE = rf"(?:{_VILLAGE}|day(?:time)?[- ](?:crowd|vote|voters|side|players|team))"
#: Both factions, joined: "the wolves and the villagers".
_BOTH_SIDES = (rf"(?:(?:the\s+)?{_WOLF_SIDE}\s+(?:and|or|nor)\s+(?:the\s+)?{_TOWN_SIDE}"
               rf"|(?:the\s+)?{_TOWN_SIDE}\s+(?:and|or|nor)\s+(?:the\s+)?{_WOLF_SIDE})\b")
#: Everyone except one faction: the rest of the table, set against that faction.
_ALL_BUT = (r"(?:everyone|everybody|anyone|anybody|all|the (?:whole )?(?:table|room|group)|(?:the )?others)\s+"
            r"(?:else\s+)?(?:except|but|other than|apart from|besides|save|bar)\s+(?:for\s+)?(?:the\s+)?"
            rf"(?:{_WOLF_SIDE}|{_TOWN_SIDE})\b")

# A faction holding a belief about, or a perception of, someone: the subject of these verbs is an audience.
_HOLDS = (
    r"(?:think|thinks|thinking|thought|believ(?:e|es|ed|ing)|suspect(?:s|ed|ing)?|assum(?:e|es|ed|ing)|"
    r"see|sees|saw|view(?:s|ed)?|perceiv(?:e|es|ed)|reads?|regard(?:s|ed)?|consider(?:s|ed)?|"
    r"trust(?:s|ed)?|expect(?:s|ed)?|conclud(?:e|es|ed)|label(?:s|led)?|mistak(?:e|es|en)|"
    r"tak(?:e|es|en) (?:me|you|us|him|her|them)|tak(?:e|es|en) (?:it|that|this|(?:my|your) \w+ )?(?:as|for)|"
    r"buy|buys|bought|treat(?:s|ed)?|forg[eo]t\w*|remember\w*|"
    r"doubt(?:s|ed|ing)?|guess(?:es|ed|ing)?|sens(?:e|es|ed|ing)|notic(?:e|es|ed|ing)|realis(?:e|es|ed)|"
    r"realiz(?:e|es|ed)|figur(?:e|es|ed) out|concluding|(?:find|finds|found) (?:me|my|you|your|us|our|them|it)|"
    r"fear(?:s|ed)?|ignor(?:e|es|ed)|dismiss(?:es|ed)?|overlook(?:s|ed)?|distrust(?:s|ed)?|underestimat(?:e|es|ed)|"
    r"misjudg(?:e|es|ed)|misread(?:s)?|decid(?:e|es|ed)|listen(?:s|ing)?|watch(?:es|ing)?|overestimat(?:e|es|ed)|"
    r"discount(?:s|ed)?|fixat(?:e|es|ed) on|focus(?:es|ed)? on|zero(?:es)? in on|"
    r"(?:list|brand|label|mark|peg|count|rank|class|file|tag|write)\w* (?:me|you|us) (?:as|for|down)|"
    # a state of mind: "the wolves stay oblivious", "the villagers uneasy about me"
    r"(?:(?:stay|stays|remain|remains|grow|grows|become|becomes|feel|feels|get|gets)\s+)?(?:comfortable|uneasy|"
    r"suspicious|wary|unaware|oblivious|indifferent|relaxed|worried|afraid|scared|unsure|doubtful|fooled|misled|"
    r"certain|sure|convinced|nervous|anxious|blind|curious|interested|bored|alarmed|threatened|safe|calm|"
    r"complacent|jumpy|paranoid|hunted|targeted|clueless|ignorant|none the wiser|in the dark)|"
    # coming to a view: "the wolves must draw a different conclusion", "whatever the villagers make of me"
    r"draw\w* (?:a |the |any |no |their )?(?:\w+ )?conclusions?|mak(?:e|es) of|smell\w*|sniff\w*|detect\w*|"
    r"register\w* (?:me|my|you|your)|"
    # judging someone's worth or danger: "the night team should rate me as harmless", "the pack catches on"
    r"(?:rat(?:e|es|ed|ing)|underrat(?:e|es|ed|ing)|overrat(?:e|es|ed|ing)) (?:me|you|us|my|your)|catch(?:es)? on)"
)
# An aside between an audience and its belief: "the wolves, however, should believe".
_ASIDE = r"(?:\s*,\s*(?:however|though|in turn|meanwhile|for their part|themselves)\s*,)?"
# Modals, adverbs and negation that may sit between an audience and its belief verb.
_BETWEEN = (
    r"(?:(?:should|must|will|would|can|could|may|might|need|needs|have|has|to|keep|still|all|both|only|"
    r"never|also|really|truly|just|then|always|not|do|does|don't|doesn't|won't|mustn't|shouldn't|"
    r"continue|come|start|begin|eventually|wrongly|falsely|genuinely|ever|who|that|themselves|from|stop|"
    r"stops|keeps|kept|keeping|are|is|were|was|be|already|end|ends|ended|up|go|goes|going|on|soon|finally|first|ultimately|"
    r"gradually|quickly|slowly)\s+){0,4}"
)
#: Between an audience and what it comes to hold, any few words that open no new clause: "villagers ought to
#: walk away certain", "the werewolves should barely register".
_ANY_BETWEEN = (r"(?:(?!(?:and|but|or|nor|while|whilst|whereas|whoever|whomever|whom|which|if|when|because|so|than|"
                r"then|though|although|yet|unless|until|before|after|even)\b)[\w']+\s+){0,4}?")


# Words before "accus-" or "attack" that make the Jester the one accused or attacked.
_NOT_UNDERGONE = "".join(f"(?<!{w} )" for w in ("when", "if", "being", "been", "get", "gets", "got", "once", "the"))


@dataclass(frozen=True)
class Category:
    """A strategy category: what it means (its docstring) and the patterns that find it."""

    doc: str
    patterns: tuple[str, ...]


CATEGORIES: dict[str, Category] = {
    "wolf_mimicry": Category(
        "Passing as a Werewolf: the cue-ambiguity exploit (look like the faction whose exile the village wants).",
        (
            rf"\b{_W}-?(?:like|ish)\b",  # not "the wolves like quiet targets"
            rf"\b(?:like|as) (?:a |an |the )?(?:[\w-]+ ){{0,2}}?{_W}\b",  # "as the most likely wolf"
            r"\bmimic", r"\bimpersonat", r"\bpose as\b",
            rf"\b(?:(?:mis)?taken|(?:mis)?tak(?:e|es|ing) \w+) for (?:a |an |the )?(?:\w+ )?{_W}\b",
            rf"\b(?:part|role) of (?:a |an |the )?{_W}\b", r"\bboth (?:a |an |the )?(?:were)?wolf\b",
            # the Jester, never a wolf, said to be one: "certain that I am a wolf", "be the obvious wolf"
            rf"(?:\b(?:i|you)\s+(?:am|are|was|were|must be|might be|could be)|\bi'm|\byou're|\bbe)\s+"
            rf"(?:a |an |the |one of the )(?:[\w-]+ )?{_W}\b",
            rf"\b(?:see|sees|saw|seeing|sens(?:e|es|ed|ing)|spot\w*) (?:a |an |the |only a |just a )?{_W}\b",
            rf"\b(?:cop(?:y|ies|ying)|mirror\w*|echo\w*|imitat\w*)\b[^.;]{{0,40}}\b{_W}\b",
            rf"\b(?:claim|pretend)\w* (?:to be )?(?:a |the )?{_W}\b",
            # others brought to believe the Jester is a wolf: "let them think I am a wolf"
            rf"\b(?:think|thinks|thought|believ\w*|suspect\w*|assum\w*|conclud\w*|decid\w*|convinc\w*|persuad\w*|"
            rf"doubt\w*|guess\w*)\s+(?:(?:the\s+)?(?:{_VILLAGE}|{_W}|them|everyone|others|players)\s+)?"
            rf"(?:that\s+)?(?:i|you|we)(?:'m|'re|\s+am|\s+are|\s+was|\s+were|\s+must be|\s+might be|\s+could be)\s+"
            rf"(?:a |an |the |one of the )?{_W}\b",
            rf"\b(?:suspect\w*|tak(?:e|es|ing)|mistak(?:e|es|ing|en))\s+(?:me|you|us)\s+(?:of being|for)\s+"
            rf"(?:a |an |the |one of the )?{_W}\b",
        ),
    ),
    "inconsistency": Category(
        "Saying one thing and then another: erratic, contradictory or unpredictable play.",
        (
            r"\binconsisten", r"\bcontradict", r"\berratic", r"\bflip[- ]?flop", r"\bunpredictab",
            r"\bmixed signals\b", r"\bchang\w* (?:my |your |one'?s )?(?:story|vote|position|mind|stance)",
            r"\brandom", r"\bjump\w* (?:off|ship)\b", r"\bswitch\w* (?:my |your |the )?(?:votes?|sides?|targets?)",
            r"\bthe opposite\b", r"\bsay\w* one thing\b",
        ),
    ),
    "aggression": Category(
        "Pressing others openly: accusing, attacking, confronting.",
        (
            r"\baggress", r"(?<!as )\bhostil", r"\bconfront", r"\bforceful", r"\bantagoni",
            # the Jester accusing or attacking, not accused ("when accused", "provoke them into accusing you")
            rf"{_NOT_UNDERGONE}\baccus(?!ed\b)(?!\w*\s+(?:you|me|us)\b)(?!ations?\s+of\s+being)",
            rf"{_NOT_UNDERGONE}\baccused\b(?!\s+(?:you|me|us)\b)",
            rf"{_NOT_UNDERGONE}\battack(?!\w*\s+(?:you|me|us)\b)",
            r"\btaunt", r"\bbull(?:y|ies|ying)\b", r"\b(?:press|push)\w* (?:\w+ ){0,3}?hard\b",
            r"\bfight", r"\bfought\b", r"\bgrill", r"\b(?:go|goes|going|went) after\b",
        ),
    ),
    "subtle_indirection": Category(
        "Moving suspicion without owning the move: hints, deflection, redirection.",
        (
            r"\bsubtl", r"\bindirect", r"\bredirect", r"\bdeflect", r"\bhint", r"\binsinuat",
            r"\bshift\w* (?:the )?(?:suspicion|attention|focus|blame)",
            r"\bwithout naming\b", r"\braise\w* (?:\w+ )?doubts?\b",
            r"\bplant\w* (?:a |the |some )?(?:seeds?|doubts?|ideas?)",
            r"\blet\w* (?:others|someone else|another player) (?:make|lead|start|do|voice)",
        ),
    ),
    "passive_provocation": Category(
        "Inviting the exile by doing little: baiting, staying vague or silent, drawing suspicion onto oneself.",
        (
            r"\bprovo(?:k|c)", r"\bbait", r"\bpassiv", r"\bevasive", r"\bvague",
            r"\b(?:invite|draw|attract)\w* (?:\w+ ){0,2}(?:suspicion|votes?|attention)",
            r"\bstay\w* (?:quiet|silent)",
            r"\bsilen(?:t|ce)\b", r"\bsay\w* nothing\b", r"\bdodg", r"\bnon-?committal", r"\balibi",
            r"\bweak(?:ly)?\b[^.;]{0,20}\bdefen[cs]", r"\bdefen\w* weakly\b", r"\bfeeble",
            r"\b(?:court|earn)\w* (?:\w+ ){0,2}(?:suspicion|votes?)",
        ),
    ),
    "anti_jester_tells": Category(
        "Hiding what gives a Jester away: not looking like the Jester, not overplaying the part.",
        (
            r"\bjester[- ]?like\b", r"\btoo obvious", r"\bover-?(?:do|doing|play|playing|act|acting)\b",
            r"\b(?:give away|reveal|expose|hide|conceal|mask)\w* (?:my |the |your )?"
            r"(?:role|identity|goal|win condition)",
            r"\b(?:look|seem|appear|be seen as|read as)\w* (?:like )?(?:the |a )?jester\b",
            # the Jester found out: taken for, seen as, suspected or called the Jester (not "As the Jester, ...")
            r"(?<=\w )(?:as|like|for)\s+(?:a |an |the )?jester\b",
            r"(?:\b(?:am|is|are|be|being|been)|'m|'re)\s+(?:a |an |the )?jester\b",
            r"\b(?:see|sees|saw|seeing|sens\w*|spot\w*|notic\w*|recogni[sz]\w*|unmask\w*|guess\w*|suspect\w*|"
            r"call\w* (?:yourself|myself))\s+(?:a |the |(?:me|you) as (?:a |the )?)?jester\b",
            r"\bs(?:ee|ees|aw) through (?:my|your|the) (?:act|plan|ploy|game)",
            r"\btoo (?:keen|eager)\b", r"\btry\w* to lose\b",
            r"\b(?:rather than|instead of|not|never|nor)\s+(?:as |like )?(?:a |an |the )?jester\b",
            rf"\b{_W} (?:and|or|nor) (?:a |the )?jester\b|\bjester (?:and|or|nor) (?:a |the )?{_W}\b",
            r"\b(?:eager|keen|desperate|happy|willing) (?:to be|to get|for) (?:exiled|voted|lynched|executed|exile)",
            r"\bwant\w* (?:the rope|to (?:be exiled|lose|die|be voted out|get exiled))",
            r"\b(?:without|not|never|avoid\w*|don't)\b[^.;]{0,20}\b(?:appear|look|seem)\w* (?:too )?"
            r"(?:deliberate|intentional|staged)\b",
        ),
    ),
    "vote_manipulation": Category(
        "Steering ballots: whom to vote for, when, and with or against the majority.",
        (
            r"\b(?:re)?vot(?:e|es|ed|ing)\b(?!\s+(?:me\s+|you\s+|us\s+)?out\b)", r"\bballot", r"\bbandwagon",
            r"\bmajority\b",
        ),
    ),
    "meta_modeling": Category(
        "Modelling what the others believe: perceptions, ambiguity, letting the group reach a conclusion.",
        (
            r"\bambigu", r"\buncertain", r"\bconfusion\b", r"\bconfusing\b",
            r"\bconfus(?:e|es|ed|ing) (?:them|the |everyone|everybody|others|players|people)",
            r"\bkeep\w* (?:\w+ ){0,2}guessing\b", r"\bopinions?\b", r"\b(?:its|their) minds?\b",
            r"\bwatch\w* (?:how|who|what|whether)\b", r"\blook\w* at (?:how|who|what)\b",
            r"\b(?:perception|reputation|narrative)s?\b",
            r"\bwhat (?:the )?(?:others|they|players|villagers|wolves) (?:think|believe|expect|suspect)",
            r"\b(?:make|let|get)\w* (?:them|others|players|the group|the village|everyone) "
            r"(?:think|believe|decide|conclude|label)",
            r"\bgauge\b", r"\bread\w* (?:the room|reactions|players)",
            rf"\b(?:convinc|persuad|fool)\w* (?:the )?{_MODIFIER}(?:{_VILLAGE}|{_W}|them|others|everyone)\b",
            # what a faction or the table believes: "the villagers think...", "get the wolves to trust you"
            rf"\b(?:{_VILLAGE}|{_W}|others|players|everyone|everybody|the group|the table){_ASIDE}\s+{_BETWEEN}"
            r"(?:think|thinks|thought|believ(?:e|es|ed|ing)|suspect(?:s|ed|ing)?|assum(?:e|es|ed|ing)|"
            r"conclud(?:e|es|ed)|expect(?:s|ed)?|trust(?:s|ed)?|see(?:s)? (?:me|you|us|a|an|only|just|nothing)|"
            r"(?:view|read|regard)(?:s|ed)? (?:me|you|us)|tak(?:e|es|en) (?:me|you|us) (?:for|as)|"
            r"mistak(?:e|es|en) (?:me|you|us)|doubt\w*|guess\w*|sens(?:e|es|ed|ing)|notic\w*|perceiv\w*|realis\w*|"
            r"realiz\w*|figur\w* out|s(?:ee|ees|aw) through|(?:find|finds|found) (?:me|my|you|your|us|our|them|it))\b",
            r"\b(?:affix|pin|attach|stick|apply)\w* (?:the |a |that |this )?label",
            rf"\bin (?:the )?(?:{_VILLAGE}|{_W}|others|everyone)(?:'s|')? eyes\b|\bin the eyes of\b",
        ),
    ),
    "questioning": Category(
        "Asking: questions, probing, challenging others to explain themselves.",
        (
            # the Jester asking, not questioned ("whenever I'm questioned")
            r"(?<!i'm )(?<!am )(?<!when )(?<!if )(?<!being )(?<!get )(?<!was )(?<!were )\bquestion(?:s|ing|ed)?\b",
            r"\bask(?:s|ing|ed)?\b", r"\binterrogat", r"\bprob(?:e|es|ing)\b",
            r"\bchalleng",
        ),
    ),
}

THIRD_ORDER: tuple[str, ...] = (
    # seen as wolf-like, but not as a villager (within one sentence); the first side an identity, so that
    # factions named as targets or allies ("accuse wolves, not villagers") are no contrast
    rf"(?:\b{_W}[- ]?(?:like|ish|aligned)|\b(?:like|as) (?:a |an |the )?{_W})\b"
    rf"[^.;]{{0,120}}\b(?:not|avoid\w*|without|rather than|instead of|never)\b"
    rf"[^.;]{{0,40}}\b{_VILLAGE}[- ]?(?:like|aligned)?",
    # seen as a villager rather than a wolf, the other way round
    rf"(?:\b{_VILLAGE}[- ]?(?:like|aligned)|\b(?:like|as) (?:a |an |the )?{_VILLAGE})\b"
    rf"[^.;]{{0,120}}\b(?:not|rather than|instead of)\b[^.;]{{0,40}}\b{_W}",
    # suspected of being both a wolf and the Jester
    rf"\bboth (?:a |the )?{_W} and (?:a |the )?jester\b",
    # one audience against the other
    rf"\b(?:to|for|with) (?:the )?{_W}\b[^.;]{{0,80}}\b(?:whereas|while|but)\b[^.;]{{0,60}}"
    rf"\b(?:to|for|with) (?:the )?{_VILLAGE}",
    rf"\b(?:to|for|with) (?:the )?{_VILLAGE}\b[^.;]{{0,80}}\b(?:whereas|while|but)\b[^.;]{{0,60}}"
    rf"\b(?:to|for|with) (?:the )?{_W}",
    # two factions kept from the same view of the Jester, or made to differ: "never let the wolves and the
    # villagers reach the same verdict about me"
    rf"\b(?:not|never|no|n't)\b[^.;]{{0,30}}\b{_BOTH_SIDES}[^.;]{{0,40}}\b(?:same|agree\w*|alike|match\w*|"
    r"shar(?:e|es|ing))\b",
    rf"\b{_BOTH_SIDES}[^.;]{{0,20}}\b(?:not|never|no|n't)\b[^.;]{{0,30}}\b(?:same|agree\w*|alike|match\w*|"
    r"shar(?:e|es|ing))\b",
    rf"\b{_BOTH_SIDES}[^.;]{{0,40}}\b(?:differ\w*|disagree\w*|opposite)\b",
    # everyone but one faction, as an audience: "seem like a wolf to everyone except the wolves"
    rf"\b(?:to|by|for|among|around|in front of|before)\s+{_ALL_BUT}",
    # ... or as the one who believes: "everyone but the wolves should walk away sure I'm a killer"
    rf"(?:^|[,;:]\s*|\b(?:let|make|have|get|and|while|but|so)\s+){_ALL_BUT}(?:\s+themselves)?,?\s+"
    r"(?:should|must|will|would|can|could|may|might|has to|have to|needs? to|is|are|to)\b",
)

SECOND_ORDER: tuple[str, ...] = (
    r"\bappear(?:s|ed|ing)?\b",
    r"\bseem(?:s|ed|ing|ingly)?\b",
    # "look" with what it looks like ("look rattled", "look a little too keen"), not looking at or for something
    r"\blook(?:s|ed|ing)? (?!(?:at|for|out|after|to|into|up|around|over|through|back|forward|ahead|away|down|"
    r"in|on|and|or|closely|carefully|again)\b)[\w']+",
    r"\bsound(?:s|ed|ing)? (?:like|as if|as though|too|more|less|so|very|a bit|a little|\w+-like)\b",
    r"\bc(?:o|a)m(?:e|es|ing)? (?:across|off as|off (?:like|too|so|very|more|less|a little|a bit|rather|quite))\b",
    r"\b(?:feel|feels|felt) (?:[\w-]+ ){1,2}?(?:to|for) (?:the |everyone|everybody|them|others|people)",
    r"\breads? (?:badly|well|poorly|like)\b",
    r"\b(?:strike|strikes|struck) (?:\w+ ){1,2}?as\b",
    r"\b(?:read|reads|reading|register|registers|registered|pass|passes|passed|passing) (?:as|for)\b",
    r"\bgiv(?:e|es|ing)\w* (?:\w+ )?(?:the |an )?impression\b|\breputation (?:as|for)\b",
    # "be seen as", with the audience anywhere ("be seen by the villagers as"), and its active voice
    r"\b(?:be|being|been|is|am|are|get|getting|got|was|were|'m|'re) (?:seen|viewed|perceived|regarded|taken|"
    r"mistaken|noticed|pegged|marked|read|judged|treated|recogni[sz]ed|unmasked)(?: by [\w' ]{1,30}?)? (?:as|for)\b",
    r"\b(?:see|sees|saw|seeing|perceiv(?:e|es|ed|ing)|view(?:s|ed|ing)?|regard(?:s|ed|ing)?|read(?:s|ing)?|"
    r"peg(?:s|ged)?|tak(?:e|es|ing)|mistak(?:e|es|ing)|misjudg(?:e|es|ed|ing)|present(?:s|ed|ing)?) "
    r"(?:me|you|us|myself|yourself|oneself|ourselves|(?:my|your) [\w-]+) (?:as|for)\b",
    r"\b(?:see|sees|saw|seeing) through (?:me|my|you|your|us|our|the jester)\b",
    # the Jester's words heard a certain way: "let my alibi sound just shy of believable"
    r"\b(?:my|your|our) [\w-]+ sound(?:s|ed)?\b",
    # the others judging the Jester or its moves some way: "the table has to find my reasons flimsy"
    r"\b(?:find|finds|found|finding) (?:me|you|us|(?:my|your|our) [\w-]+) "
    r"(?!(?:out|in|at|on|with|to|for|and|or|a|an|the|when|if|before|after|because)\b)[\w-]+",
    r"\b(?:see|sees|saw|seeing|spot\w*|notic\w*|sens(?:e|es|ed|ing)) (?:a |the )?jester\b",
    # the others' eyes on the Jester: the Triadic paper's Table 9 tags "avoid being the center of attention" 2nd order
    r"\b(?:be|being|been|is|am|are|was|were|become|becoming|becomes|stay|staying|remain|remaining|get|getting) "
    r"(?:the )?(?:cent(?:er|re)|focus) of (?:[\w']+ ){0,2}?(?:attention|suspicion|scrutiny)\b",
)

_CATEGORY_RE = {name: [re.compile(p) for p in c.patterns] for name, c in CATEGORIES.items()}
_THIRD_RE = [re.compile(p) for p in THIRD_ORDER]
_SECOND_RE = [re.compile(p) for p in SECOND_ORDER]


# --------------------------------------------------------------------------- cross-faction contrast at any distance
#
# The windowed THIRD_ORDER patterns only see a contrast whose two sides are close. Across a whole
# sentence, two factions count as contrasted only if each stands in the same kind of role (both an
# audience, or both an identity the Jester takes on) and a contrasting word lies between them; two
# faction names that merely share a long sentence are not a contrast.

_FACTIONS = {"wolves": _WOLF_SIDE, "village": _TOWN_SIDE}
#: As audiences, "the others" set against the wolves are the village.
_AUDIENCES = {"wolves": _WOLF_SIDE,
              "village": rf"(?:{_TOWN_SIDE}|others|everyone else|the rest(?: of (?:the )?(?:table|players|room))?)"}
#: The Jester is a faction one may be taken for, not an audience; "one of their own" is the audience's own
#: faction, set against whatever else the Jester is taken for ("reads me as wolf-aligned and not as one of their own").
_IDENTITIES = {**_FACTIONS, "jester": r"jester", "own": r"one of (?:their|its) own"}
_CONTRAST = r"\b(?:while|whilst|whereas|but|yet|though|although|the other)\b|;"
_NEGATING = r"\b(?:not|never|no|without|avoid\w*|rather than|instead of|as opposed to|unlike|nor|neither)\b"
_BELIEF_NOUN = (r"(?:suspicions?|doubts?|trust|distrust|beliefs?|views?|opinions?|verdict|indifference|complacency|"
                r"attention|fears?|interest|curiosity)")
_ELIDING = r"\b(?:not|never|rather than|instead of|as opposed to|unlike|nor)\b"
#: Verbs that work on a faction's mood or mind: "convince the town and bore the wolves".
_SWAYED = (r"(?:bor(?:e|es|ed|ing)|worr(?:y|ies|ied|ying)|alarm\w*|reassur\w*|unsettl\w*|scar(?:e|es|ed|ing)|"
           r"frighten\w*|lull\w*|intrigu\w*|spook\w*|rattl\w*|mislead\w*|misled|deceiv\w*|trick\w*|impress\w*)")
#: What a faction does to or holds against someone, in the possessive: "the wolves' kill list", "the villagers' votes".
_TREATMENT_NOUN = (r"(?:votes|ballots|rope|noose|teeth|claws|knives|kill list|hit list|target list|radar|sights|"
                   r"notice|eyes)")
#: A faction as the subject, not a preposition's object ("vote with the wolves", "turn on the village").
_NOT_OBJECT = "".join(f"(?<!{w} )(?<!{w} the )" for w in ("with", "against", "on", "at", "like", "as", "of", "from",
                                                          "for", "help", "helping", "accuse", "accusing"))


def _audience(faction: str) -> str:
    """A faction as the one who believes or sees: "the villagers think", "to the wolves", "in the wolves' eyes"."""
    return (
        # "the villagers (should) think"; not a view of someone else ("the villagers trust the Doctor")
        rf"\b(?:the\s+)?{faction}{_ASIDE}\s+{_ANY_BETWEEN}{_HOLDS}\b"
        r"(?!\s+(?:him|her|the\s+doctor|each other|one another|nobody|no one|anyone|anybody)\b)"
        # nor of a kind of player: "villagers distrust quiet players while wolves distrust loud ones"
        r"(?!\s+(?:[\w-]+\s+)?(?:players|ones|people|targets|voices|speakers|talkers|villagers|wolves|werewolves)\b)"
        rf"|\b(?:to|by|among|around|in front of|in the eyes of|convinc\w*|persuad\w*|fool\w*|{_SWAYED})\s+"
        rf"(?:the\s+|all\s+the\s+|both\s+)?{_MODIFIER}{faction}\b"
        rf"|\bfor\s+(?:the\s+)?{faction}(?:'s|')?(?:\s+benefit\b|(?=\s*(?:[,;:]|and\b|but\b|$)))"  # not "wait for"
        rf"|\bin\s+(?:the\s+)?{faction}(?:'s|')?\s+(?:eyes|story|view|minds?|books|picture|estimation|version)\b"
        rf"|\b{_BELIEF_NOUN}\s+(?:from|among|by)\s+(?:the\s+)?{faction}\b"  # "suspicion from the village"
        rf"|\b{faction}(?:'s|')\s+{_BELIEF_NOUN}\b"  # "the village's suspicion", "the wolves' indifference"
        rf"|\b(?=(?:villager|village|town|werewolf|wolf)\s){faction}\s+{_BELIEF_NOUN}\b"  # "werewolf complacency"
        rf"|\b{faction}(?:'s|')\s+{_TREATMENT_NOUN}\b"  # "the wolves' kill list", "the villagers' votes"
        # its belief about the Jester in its own words: "the wolves keep their doubts about me",
        # "the day crowd piles its suspicion onto me"
        rf"|\b{faction}\s+(?:\w+\s+){{1,2}}?(?:its|their)\s+(?:{_BELIEF_NOUN}|{_TREATMENT_NOUN})"
        r"(?:\s+\w+)?\s+(?:on|onto|about|of|against|toward|towards|at|in)\s+(?:me|you|us)\b"
        # a standing with it: "a wolf's reputation with the town"
        rf"|\b(?:reputation|standing|image|name|credit|credibility)\s+(?:with|among|in)\s+(?:the\s+)?{faction}\b"
        # a clause opened by it: "for the wolves I want to be furniture; for the village, the prime suspect"
        rf"|(?:^|[,;:]\s*)(?:to|for|with|among|around)\s+(?:the\s+)?{faction}\b"
        # a reason it has or lacks: "before the wolves have any reason to doubt I'm a villager"
        rf"|\b(?:the\s+)?{faction}\s+{_BETWEEN}(?:have|has|had|get|gets|got|find|finds|need|needs)\s+"
        r"(?:any|no|every|a|the|enough|little|more|less)?\s*(?:reason|cause|grounds|excuse|motive)s?\b"
    )


def _treated(faction: str) -> str:
    """A faction acting on the Jester rather than believing something of it: "the wolves kill you", "the pack
    should shrug me off", "give the village a wolf to hang". Weaker than a belief: it is set against another
    faction only past a contrasting word, or against another such act ("give the village a wolf to hang and
    give the wolves no reason to kill me"), so a consequence ("if the villagers see a wolf, the wolves may
    defend me") is no contrast.
    """
    return (
        rf"\b{_NOT_OBJECT}(?:the\s+)?{faction}\s+{_BETWEEN}\w+\s+(?:\w+\s+)?(?:me|myself|you|yourself)\b"
        rf"|\b(?:give|gives|giving|gave|show|shows|showing|showed|offer\w*|hand|hands|leave|leaves|leaving|deny|denies)"
        rf"\s+(?:the\s+)?{faction}\b(?!')"
    )


def _identity(faction: str) -> str:
    """A faction as what the Jester passes for: "wolf-like", "villager-aligned", "like a wolf", "am a villager",
    "taken for a wolf".

    The Jester's own name counts after a word only ("read as the Jester", not "As the Jester, vote..."),
    and in the possessive ("as a Jester's").
    """
    jester = faction == "jester"
    after = r"(?<=\w\s)" if jester else r"\b"
    owner = "" if jester else "(?!')"
    return (
        rf"\b{faction}-?(?:like|ish|aligned|side)\b"  # not "wolves like quiet players"
        rf"|\b{faction}\s+(?:aligned|alignment)\b"
        rf"|{after}(?:as|like)\s+(?:a\s+|an\s+|the\s+|one of the\s+)?{faction}\b{owner}"
        rf"|(?:\b(?:am|is|are|be|being|been|was|were)|'m|'re)\s+(?:a|an|the|one of the)\s+{faction}\b{owner}"
        rf"|\b(?:(?:mis)?taken|pass(?:es|ed|ing)?|(?:mis)?tak(?:e|es|ing) \w+)\s+for\s+"
        rf"(?:a\s+|an\s+|the\s+|one of the\s+)?{faction}\b{owner}"
        rf"|\b(?:see|sees|saw|seeing|sens(?:e|es|ed|ing)|spot\w*)\s+(?:a|an|the|only a|just a)\s+{faction}\b{owner}"
        # looking the part: "look every inch the werewolf"
        rf"|\b(?:look|looks|looking|seem|seems|seeming|sound|sounds|sounding)\s+(?:\w+\s+){{0,2}}?(?:a|an|the)\s+"
        rf"{faction}\b{owner}"
        # judged to be one: "being thought a werewolf", "branded a wolf", "considered the Jester"
        rf"|\b(?:thought|believed|considered|deemed|branded|label+ed|called|judged|declared|pegged|marked|named)\s+"
        rf"(?:to be\s+)?(?:a|an|the|one of the)\s+{faction}\b{owner}"
    )


def _elided(faction: str, *, audience: bool) -> str:
    """The second side of a contrast that leaves its verb implied.

    An audience: "let the villagers think I am a wolf, but not the wolves", ending its clause, or with
    only a modal left: "... and the wolves should not", "... when the wolves are". An identity:
    "sound like a villager rather than a wolf", with an article or "like"/"as".
    """
    if audience:
        return (rf"{_ELIDING}\s+(?:(?:to|by)\s+)?(?:the\s+)?{faction}(?:'s|'|\b)(?=\s*(?:[,;:)]|$))"
                rf"|\b(?:and|but|while|whereas|yet)\s+(?:the\s+)?{faction}\s+(?:should|must|will|would|do|does|can|could)"
                rf"(?:\s+(?:not|never)|n't)\b"
                rf"|\b(?:when|while|and|but)\s+(?:the\s+)?{faction}\s+(?:are|is|do|does)(?=\s*(?:[,;:)]|$))"
                # the second of two things shown or given: "show the village a suspicious face and the wolves a
                # friendly one"
                rf"|\b(?:and|but|yet)\s+(?:the\s+)?{faction}\s+(?:a|an|no|every|nothing|some|one|only)\b")
    owner = "" if faction == "jester" else "(?!')"
    article = r"(?:a\s+|an\s+|the\s+)?"
    return (rf"{_ELIDING}\s+(?:(?:once|ever|even|really|remotely)\s+)?(?:(?:be|being)\s+)?"
            rf"(?:(?:a|an)\s+|(?:as|like|for)\s+{article}){faction}\b{owner}")


_NEVER = "(?!)"
#: role -> faction -> (a side, a weaker side, an elided side); identities have no weaker side
_ROLE_RE = {
    audience: {
        name: tuple(re.compile(p) for p in (_audience(f) if audience else _identity(f),
                                            _treated(f) if audience else _NEVER, _elided(f, audience=audience)))
        for name, f in (_AUDIENCES if audience else _IDENTITIES).items()
    }
    for audience in (True, False)
}
#: An audience singled out: "only the villagers should be convinced", "appear wolfish to villagers only".
_ONLY_BEFORE = re.compile(r"\bonly\s+$")
_ONLY_AFTER = re.compile(r"\s+(?:only|alone)\b")
_CONNECTOR_RE = re.compile(f"{_CONTRAST}|{_NEGATING}")
_SENTENCE_END = re.compile(r"[.!?\n]+")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|vs|etc)\.")


Role = dict[str, tuple[re.Pattern[str], ...]]


def _events(sentence: str, roles: Role) -> list[tuple[int, int, str, str]]:
    """Every side, weaker side, elided side and contrasting word of a sentence, in order."""
    events: list[tuple[int, int, str, str]] = []
    for faction, patterns in roles.items():
        for kind, pattern in zip(("side", "weak", "elided"), patterns, strict=True):
            events += [(m.start(), m.end(), kind, faction) for m in pattern.finditer(sentence)]
    # an act that is a belief too ("the villagers read me") is the belief, not a weaker side
    beliefs = [(start, end, faction) for start, end, kind, faction in events if kind == "side"]
    events = [e for e in events if e[2] != "weak" or not any(
        f == e[3] and start < e[1] and e[0] < end for start, end, f in beliefs)]
    events += [(m.start(), m.end(), "connector", "") for m in _CONNECTOR_RE.finditer(sentence)]
    return sorted(events)


def _singled_out(sentence: str, start: int, end: int) -> bool:
    """Whether an audience is the only one: "only the villagers should...", "... to villagers only"."""
    return bool(_ONLY_BEFORE.search(sentence[:start]) or _ONLY_AFTER.match(sentence, end))


def _contrasts(sentence: str, roles: Role, direct: bool) -> bool:
    """Whether one faction in a role is followed, past a contrasting word, by another in the same role.

    ``direct``: two audiences need no word between them; what two factions each believe or see of the
    Jester, in one sentence, is already one audience set against another ("the village sees a wolf,
    the wolves see a villager"); so are two factions each acting on the Jester (weaker sides), but not one
    belief and one act. A side set aside first ("Unlike the village, the wolves should...") counts before the
    side it is contrasted with, and an audience singled out ("only the villagers") is set against the rest.
    """
    never = len(sentence) + 1
    seen_end: dict[tuple[str, str], int] = {}  # the earliest end of a (weaker) side of each faction
    armed_from: dict[str, int] = {}  # the earliest end of a connector that follows such a side
    leading: set[str] = set()  # factions set aside before any side: "unlike the village, ..."
    for start, end, kind, faction in _events(sentence, roles):
        if kind == "connector":
            for (f, _), side_end in seen_end.items():
                if side_end <= start:
                    armed_from[f] = min(armed_from.get(f, end), end)
            continue
        others = [f for f in roles if f != faction]
        if kind in ("side", "weak") and any(armed_from.get(f, never) <= start for f in others):
            return True
        if kind in ("side", "weak") and direct and any(seen_end.get((f, kind), never) <= start for f in others):
            return True
        if kind == "elided" and any(seen_end.get((f, k), never) <= start for f in others for k in ("side", "weak")):
            return True
        if kind == "elided" and sentence[start:end].startswith(("unlike", "as opposed to")):
            leading.add(faction)
        if kind == "side" and (leading - {faction} or (direct and _singled_out(sentence, start, end))):
            return True
        if kind in ("side", "weak"):
            seen_end[(faction, kind)] = min(seen_end.get((faction, kind), end), end)
    return False


#: Both factions said to hold the same view: "the village also thinks I'm a villager".
_SAMENESS = re.compile(r"\b(?:also|too|as well|likewise|alike|equally)\b")


def _long_contrast(text: str) -> bool:
    """Whether any sentence sets two factions against each other as audiences or identities."""
    sentences = _SENTENCE_END.split(_ABBREVIATION.sub(" ", text))
    return any(_contrasts(s, _ROLE_RE[audience], audience and not _SAMENESS.search(s))
               for s in sentences for audience in (True, False))


# --------------------------------------------------------------------------- epistemic "seems"

_HEDGEABLE = re.compile(r"(?:seem|appear|look)\w*")
_WORD = re.compile(r"[a-z'][a-z'-]*")
_CLAUSE_BREAK = re.compile(r"[,;:()\"]")
_REACH = 200  # characters looked at on either side of the verb
_FILLERS = frozenset(
    "would could might may can will should must does did do often always usually sometimes also really just "
    "still now then generally clearly certainly indeed even only already not never don't doesn't didn't won't "
    "surely probably mostly rarely seldom".split()
)
_DUMMY = frozenset({"it", "there"})
_CAUSATIVE = frozenset("make makes made making let lets letting have has having".split())
_SELF_OR_IMPERATIVE = frozenset(
    "i i'm you you're we me us myself yourself ourselves one oneself jester to and or but by without avoid "
    "avoiding stop start keep try trying then so yet while when if".split()
)
_CLAUSE_START = frozenset(
    "the a an most many some every each no nobody everyone everybody people players player villagers villager "
    "village town wolves wolf werewolves werewolf they we he she i you it there this these those whoever someone "
    "somebody anyone all both only my our your their his her".split()
)
_EPISTEMIC_ADJECTIVES = frozenset(
    "likely unlikely clear obvious certain probable true possible evident safe wise best better reasonable".split()
)
#: A player who "seems" is perceived, as the Jester's rule for itself; a villager or wolf who seems is observed.
_PERCEIVED_PLAYERS = frozenset("jester player players someone somebody anyone anybody one you".split())
_CLAUSE_PRONOUNS = frozenset("it they he she we i you everyone everybody nobody someone there".split())
#: A faction or the Doctor as the subject: "the village seems split" is the writer's reading of the village.
_THIRD_PARTIES = frozenset("village villagers villager town wolves wolf werewolves werewolf doctor".split())
#: An audience in the clause makes a seeming someone's perception: "to the village it will look like a wolf".
_AUDIENCE_NEAR = re.compile(
    rf"\bto (?:the |all the )?(?:{_VILLAGE}|{_W}|others|everyone|everybody|them|the table|the group|the room)\b")


def _is_hedge(lesson: str, text: str, verb: re.Match[str]) -> bool:
    """Whether a seem/appear/look is the writer hedging rather than someone being perceived.

    Hedges: an empty subject ("it seems the village...", "there seems to be...", or "seems like..."
    with the "it" left out) followed by a clause, "to", "like" or nothing; "seems that..." or "seems
    to me" after any subject; and "X seems to <verb>" when X is not the Jester ("the village seems to
    vote for whoever talks most", "the village seems split"). "Make it seem...", imperatives ("seem
    harmless"), the Jester as subject and an audience in the clause ("to the village it will look
    like...") stay perception, and so does "it seems wolf-like to...": an adjective there says how a
    move comes across.
    """
    before = _CLAUSE_BREAK.split(text[max(0, verb.start() - _REACH):verb.start()])[-1]
    after = _CLAUSE_BREAK.split(text[verb.end():verb.end() + _REACH])[0]
    if _AUDIENCE_NEAR.search(before) or _AUDIENCE_NEAR.search(after):
        return False
    words = _WORD.findall(before)
    while words and words[-1] in _FILLERS:
        words.pop()
    prev = words[-1] if words else None
    if prev in _DUMMY and len(words) >= 2 and words[-2] in _CAUSATIVE:
        return False
    following = _WORD.findall(after)
    nxt = following[0] if following else None
    second = following[1] if len(following) > 1 else None
    if (nxt == "that" and second != "way") or (nxt == "to" and second in {"me", "us"}):
        return True
    if prev in _DUMMY or (prev is None and verb.group().endswith(("s", "ed"))):
        if nxt is None or nxt in {"like", "as", "so", "to"} or nxt in _CLAUSE_START | _EPISTEMIC_ADJECTIVES:
            return True
        name = re.match(r"\s*([A-Za-z]+)", lesson[verb.end():verb.end() + _REACH])
        return bool(name and name.group(1).istitle())  # "it seems Ben is the wolf", not "IT SEEMS WOLF-LIKE"
    if prev is None or prev in _SELF_OR_IMPERATIVE:
        return False
    if prev in {"who", "that"} and len(words) >= 2 and words[-2] in _PERCEIVED_PLAYERS:
        return False  # "a Jester who seems to want exile", "a player who seems desperate"
    if prev in _THIRD_PARTIES and nxt not in {"like", "as"}:
        return True
    if nxt == "to":
        return True
    if nxt in {"like", "as"}:
        rest = following[2:] if second in {"if", "though"} else following[1:]
        return bool(rest) and rest[0] in _CLAUSE_PRONOUNS
    return False


def _perceived(lesson: str, text: str) -> bool:
    """Whether any perception verb is used about someone being perceived, not as a hedge."""
    for pattern in _SECOND_RE:
        for m in pattern.finditer(text):
            verb = _HEDGEABLE.match(text, m.start())
            if verb is None or not _is_hedge(lesson, text, verb):
                return True
    return False


@dataclass(frozen=True)
class Tags:
    """A lesson's strategy categories (any number, in ``CATEGORIES`` order) and its one ToM order."""

    categories: tuple[str, ...]
    order: int  # 1, 2 or 3


def _lowered(lesson: str) -> str:
    """Lowercase, one character for one, so a position in the result is the same position in the lesson."""
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in lesson)


def tom_order(lesson: str) -> int:
    """The lesson's theory-of-mind order, by strict precedence: a contrast (3), else a perception (2), else 1."""
    text = _lowered(lesson)
    if any(p.search(text) for p in _THIRD_RE) or _long_contrast(text):
        return 3
    if _perceived(lesson, text):
        return 2
    return 1


def categories(lesson: str) -> tuple[str, ...]:
    """Every strategy category with a pattern found in the lesson; a lesson may have several or none."""
    text = _lowered(lesson)
    return tuple(name for name, patterns in _CATEGORY_RE.items() if any(p.search(text) for p in patterns))


def tag(lesson: str) -> Tags:
    """Both readings of a lesson, as the scorers, the report and ``wolf-eval lessons tag`` record them."""
    return Tags(categories=categories(lesson), order=tom_order(lesson))
