"""The lesson tagger's four known misses (issue 18, point 9), and the paper's worked examples it must keep.

The misses: an audience contrast phrased without the listed wording, an epistemic "seems" read as
perception, a contrast longer than the old 120-character window, and a faction's belief ("the
villagers think...") given no category. Each is pinned by the issue's own sentence and a few
paraphrases, next to lessons that must keep their order, so a broader pattern cannot buy a fix
by over-matching.
"""

from __future__ import annotations

import pytest

from wolf_eval.measures.tagger import categories, tag, tom_order

# --------------------------------------------------------------------------- 1. audience contrast, any wording

AUDIENCE_CONTRASTS = [
    "Let the villagers think I am a wolf while the wolves see a harmless fool",  # the issue's sentence
    "Let the villagers think I am a wolf while the wolves see a harmless fool.",
    "Let the wolves see a harmless fool while the villagers think I am a wolf.",
    "Make the village believe I'm a werewolf, while the wolves take me for a harmless fool.",
    "Get the villagers to suspect me of being a wolf, but let the wolves think I'm just a confused villager.",
    "The town should think I'm a wolf whereas the werewolves should see me as harmless.",
    "In the villagers' eyes I should be a wolf, yet in the wolves' eyes a harmless fool.",
    "Never reveal your role to the wolves, but let the villagers think you are guilty.",
    "Get exiled by the villagers, not killed by the wolves.",
]


@pytest.mark.parametrize("lesson", AUDIENCE_CONTRASTS)
def test_one_audience_against_the_other_is_third_order_whatever_the_wording(lesson: str) -> None:
    assert tom_order(lesson) == 3


def test_the_issue_sentence_is_about_passing_as_a_wolf_and_modelling_beliefs() -> None:
    tags = tag("Let the villagers think I am a wolf while the wolves see a harmless fool")
    assert tags.order == 3
    assert {"wolf_mimicry", "meta_modeling"} <= set(tags.categories)


@pytest.mark.parametrize("lesson", [
    # two factions and a "while", but neither is an audience: nobody is modelled as seeing anything
    "The villagers vote for whoever talks most, while the wolves stay quiet.",
    "Accuse the wolves' favourite target while the village argues.",
    # one faction's belief only
    "Let the villagers think I am a wolf.",
    "Let the villagers think I am a wolf, but do not overplay it.",
    # the same faction on both sides
    "Let the villagers think I am the Jester's victim, while the villagers also trust me.",
])
def test_beliefs_without_a_second_faction_against_them_are_not_third_order(lesson: str) -> None:
    assert tom_order(lesson) < 3


# --------------------------------------------------------------------------- 2. epistemic "seems"

HEDGES = [
    "It seems the village votes for whoever talks most.",  # the issue's sentence
    "It seems that bidding high on day 1 wins the debate.",  # the issue's "it seems that..."
    "it seems that the wolves never vote together.",
    "Seems like the village always exiles the loudest player.",
    "The village seems to vote for whoever talks most.",
    "It would seem that quiet players get exiled first.",
    "There seems to be a bandwagon on day 2.",
    "It seems Ben is the player everyone trusts.",
    "Bidding high seems to work, it seems to me.",
    "It appears the wolves never vote together on day 1.",
    "It looks like the wolves kill the Doctor first.",
]


@pytest.mark.parametrize("lesson", HEDGES)
def test_a_hedging_seems_is_not_about_being_perceived(lesson: str) -> None:
    assert tom_order(lesson) == 1


@pytest.mark.parametrize("lesson", [
    "Seem nervous when accused.",
    "Try to seem harmless.",
    "Avoid seeming too eager to be exiled.",
    "I seemed too eager on day 1.",
    "Seemed too eager when I bid high on day 1.",  # the "I" left out, not an "it"
    "You seem more suspicious when you vote late.",
    "Make it seem like you are hiding something.",  # "it" made to seem: the Jester's doing
    "It seems wolf-like to vote against the consensus.",  # how a move comes across
    "Players who seem quiet are often wolves.",
    "It seems the villagers exile whoever talks most, so appear wolf-like.",  # a hedge and a perception
])
def test_seeming_some_way_to_others_stays_second_order(lesson: str) -> None:
    assert tom_order(lesson) == 2


def test_a_hedge_does_not_hide_a_contrast() -> None:
    assert tom_order("It seems the villagers think I'm a wolf while the wolves see a fool.") == 3


# --------------------------------------------------------------------------- 3. contrasts longer than the window

LONG_CONTRASTS = [
    # Table 2's first entry, stretched: wolf-like ... avoid ... villager-aligned
    ("Vote for a player who is not the main suspect to appear wolf-like by deflecting from the consensus, "
     "repeating the same doubt in every round and keeping your reasons short and vague, but only after the "
     "main suspect is already exiled, to avoid appearing villager-aligned.", "wolf-like", "villager-aligned"),
    # two audiences far apart
    ("Appear wolf-like to the villagers by pushing hard on the quietest player, voting against the consensus "
     "on every ballot and refusing to explain a single vote, while making sure the wolves see nothing but a "
     "harmless fool.", "to the villagers", "the wolves see"),
    # a villager rather than a wolf, far apart
    ("Sound like a villager in the first debate, answering every question calmly and agreeing with whoever "
     "spoke last so that nobody on the day-one ballot has a reason to look at you, rather than like a wolf.",
     "like a villager", "like a wolf"),
    ("Let the villagers think I am a wolf by bidding high on day one, accusing the quietest player twice and "
     "refusing to explain my first vote when the Doctor asks for a reason, while the werewolves must still "
     "see a harmless fool.", "villagers think", "werewolves must still see"),
]


@pytest.mark.parametrize(("lesson", "first", "second"), LONG_CONTRASTS)
def test_a_contrast_counts_however_far_apart_its_sides_are(lesson: str, first: str, second: str) -> None:
    gap = lesson.index(second) - (lesson.index(first) + len(first))
    assert gap > 120, "the example must be longer than the old window to test anything"
    assert tom_order(lesson) == 3


@pytest.mark.parametrize("lesson", [
    # long, two factions, a "while", and no roles
    "Accuse the quiet player of lying about the night, keep bidding high in every round of the debate so that "
    "your voice is the loudest one, and let the villagers argue among themselves while the wolves stay quiet.",
    # long plain second order: the "but not" concerns overdoing it, and the wolves only act
    "Appear wolf-like on day one by bidding high, accusing the quietest player and refusing to explain your "
    "first vote, but do not overdo it once the wolves start defending you.",
    # a faction named after "without" is a condition, not the other side of a contrast
    "Act like a villager without the wolves noticing.",
])
def test_a_long_sentence_naming_both_factions_is_not_a_contrast_by_itself(lesson: str) -> None:
    assert tom_order(lesson) < 3


def test_a_contrast_does_not_cross_a_sentence_boundary() -> None:
    lesson = "Let the villagers think I am a wolf. While the wolves sleep, stay quiet."
    assert tom_order(lesson) == 1


# --------------------------------------------------------------------------- 4. what a faction believes

@pytest.mark.parametrize("lesson", [
    "The villagers think I am a wolf.",  # the issue's "the villagers think..."
    "The villagers think the quiet player is lying.",
    "The wolves believe I am a harmless villager.",
    "Everyone thinks the loudest player is the Jester.",
    "Let the villagers think I am a wolf.",
    "Get the town to suspect you.",
    "Players suspect whoever bids zero.",
    "The wolves will trust you if you never accuse them.",
])
def test_a_factions_belief_is_meta_modeling(lesson: str) -> None:
    assert "meta_modeling" in categories(lesson)


@pytest.mark.parametrize("lesson", [
    "The villagers think I am a wolf.",
    "The villagers think the quiet player is lying.",
    "Everyone thinks the loudest player is the Jester.",
])
def test_a_belief_verb_is_not_a_perception_verb(lesson: str) -> None:
    """docs/design.md, § Scores, and the Triadic paper's App. L.

    The regex needs an explicit perception verb for 2nd order.
    """
    assert tom_order(lesson) == 1


def test_seeing_the_jester_as_something_is_the_active_form_of_being_seen_as() -> None:
    assert tom_order("The villagers see me as a wolf.") == tom_order("Be seen as a wolf by the villagers.") == 2


@pytest.mark.parametrize("lesson", [
    "The villagers think I am a wolf.",
    "Let the village believe you're a werewolf.",
    "Make them suspect me of being a wolf.",
    "The villagers mistake me for a wolf.",
])
def test_others_believing_the_jester_a_wolf_is_wolf_mimicry(lesson: str) -> None:
    assert "wolf_mimicry" in categories(lesson)


@pytest.mark.parametrize(("lesson", "category"), [
    ("I think the wolves are Ben and Ann.", "meta_modeling"),  # the Jester's own belief
    ("Think before you vote.", "meta_modeling"),
    ("The villagers vote for whoever talks most.", "meta_modeling"),
    ("The wolves kill at night.", "meta_modeling"),
    ("The villagers think the quiet player is lying.", "wolf_mimicry"),  # a belief, but not about a wolf act
])
def test_near_misses_of_a_factions_belief(lesson: str, category: str) -> None:
    assert category not in categories(lesson)


# --------------------------------------------------------------------------- the papers' worked examples

# Table 9 of the Triadic Werewolf paper (App. F.6), verbatim, with its ToM order.
TABLE_9 = [
    ("Vote for a player who is not the main suspect (like Joy) to appear wolf-like by deflecting from the "
     "consensus, but only after the main suspect is already exiled to avoid appearing villager-aligned.", 3),
    ("Maintain a vote on a non-consensus target during revote to appear stubbornly wolf-like and avoid villager "
     "alignment.", 3),
    ("Lean into accusations of being both Werewolf and Jester to create ambiguity and prevent players from "
     "settling on my true role.", 3),
    ("Escalate suspicion on multiple players in quick succession to appear erratic and untrustworthy.", 2),
    ("Use repeated questioning of players already under scrutiny to amplify suspicion without initiating new "
     "accusations.", 1),
    ("Redirect suspicion towards other players to avoid being the center of attention.", 2),
    ("Use the initial questions and reactions to gauge players' behaviors and adjust strategy accordingly.", 1),
]


@pytest.mark.parametrize(("lesson", "order"), TABLE_9)
def test_table_9_entries_get_their_order(lesson: str, order: int) -> None:
    assert tom_order(lesson) == order


@pytest.mark.parametrize(("lesson", "category"), [
    # §5.6: DeepSeek's rows "encode the cue-ambiguity exploit" (wolf_mimicry); Llama's lean on subtle_indirection
    (TABLE_9[0][0], "wolf_mimicry"),
    (TABLE_9[1][0], "wolf_mimicry"),
    (TABLE_9[5][0], "subtle_indirection"),
    # §5.6: GPT-4.1 "acts erratic and lets the group affix the label", meta_modeling
    ("Act erratic and let the group affix the label.", "meta_modeling"),
    ("Act erratic and let the group affix the label.", "inconsistency"),
])
def test_the_papers_readings_of_categories(lesson: str, category: str) -> None:
    assert category in categories(lesson)


@pytest.mark.parametrize(("lesson", "order"), [
    # App. N: 3rd order needs "wolf-like ... not villager"; an "appear suspicious" lesson stays 2nd order
    ("Look wolf-like, not villager-like.", 3),
    ("Appear suspicious.", 2),
    ("Appear wolf-like.", 2),
    ("Appear wolf-like to the villagers.", 2),  # one audience is no contrast
    ("Appear wolf-like so the villagers vote you out.", 2),
    ("Appear wolf-like while the villagers argue.", 2),
    ("Bid high on day 1.", 1),
    ("Vote with the majority on day 2.", 1),
    ("Accuse the quiet player before the first ballot.", 1),
])
def test_plain_orders_keep_their_order(lesson: str, order: int) -> None:
    assert tom_order(lesson) == order


def test_the_center_of_attention_is_not_any_scrutiny() -> None:
    """Only being the centre of the others' attention is being perceived; others under scrutiny are not."""
    assert tom_order("Stay out of being the centre of the village's suspicion.") == 2
    assert tom_order("Push players already under scrutiny.") == 1


# --------------------------------------------------------------------------- issue 28, point 5: the three kinds of miss
#
# Written for these tests, not taken from the gold set (tests/data/lessons_gold.jsonl), so that the
# gold set's held-out part stays unseen by the rules.

@pytest.mark.parametrize("lesson", [
    "Come off as shifty when the Doctor speaks.",
    "Try to strike the table as someone with a partner.",
    "Your pauses should register as guilt.",
    "Be viewed by the town as the likeliest wolf.",
    "Give the impression of hiding a night kill.",
    "A hesitant vote looks rehearsed.",
    "My silence came across as scheming.",
])
def test_a_perception_verb_outside_the_listed_phrases_is_second_order(lesson: str) -> None:
    assert tom_order(lesson) == 2


@pytest.mark.parametrize("lesson", [
    "Look at how the Doctor votes.",
    "Look for the player who bids zero.",
    "The villagers look to whoever speaks first.",
    "The Doctor appeared in the debate only once.",
    "If the town seems divided, side with the smaller half.",
])
def test_perception_words_used_for_something_else_stay_first_order(lesson: str) -> None:
    assert tom_order(lesson) == 1


@pytest.mark.parametrize("lesson", [
    "Read as guilty to the townsfolk and as dull to the real werewolves.",
    "The village sees a wolf in me; the wolves see a timid villager.",
    "Be taken for a wolf, never for the Jester.",
    "Play the werewolf for the villagers' benefit, and for the wolves, play the fool.",
    "Around the wolves act harmless; in front of the villagers act guilty.",
])
def test_an_audience_or_identity_contrast_in_other_wordings_is_third_order(lesson: str) -> None:
    assert tom_order(lesson) == 3


@pytest.mark.parametrize("lesson", [
    "The wolves must not come to suspect what the villagers believe: that I am a wolf.",
    "Let the town grow convinced I'm a wolf, but the wolves should never realise I'm the Jester.",
    "No wolf should guess my role, even as the village grows sure of my guilt.",
])
def test_a_contrast_stated_as_what_one_audience_must_not_believe_is_third_order(lesson: str) -> None:
    assert tom_order(lesson) == 3


@pytest.mark.parametrize("lesson", [
    "Fight the wolves' favourite, not the villagers.",  # factions as targets, not audiences or identities
    "Side with the villagers, not with the wolves, on day two.",
    "Wait for the wolves to kill, then let the villagers think I am a wolf.",  # "wait for" is no audience
])
def test_factions_named_as_targets_or_allies_are_no_contrast(lesson: str) -> None:
    assert tom_order(lesson) < 3


@pytest.mark.parametrize(("lesson", "category"), [
    ("When accused, stay calm.", "aggression"),  # accused, not accusing
    ("Provoke the Doctor into attacking you.", "aggression"),
    ("Whenever I'm questioned, change the subject.", "questioning"),
    ("If you look confused, the village pities you.", "meta_modeling"),  # the Jester's confusion, not the others'
    ("Don't seem eager to be voted out.", "vote_manipulation"),  # an outcome, not a ballot tactic
    ("As the Jester, vote with the majority.", "anti_jester_tells"),  # who the writer is, not a tell
])
def test_words_about_what_the_jester_undergoes_are_not_its_tactic(lesson: str, category: str) -> None:
    assert category not in categories(lesson)


@pytest.mark.parametrize(("lesson", "category"), [
    ("Say nothing for a whole round.", "passive_provocation"),
    ("Dodge the Doctor's questions.", "passive_provocation"),
    ("Taunt the quiet player.", "aggression"),
    ("Never let them take you for the Jester.", "anti_jester_tells"),
    ("Don't look too keen to be exiled.", "anti_jester_tells"),
    ("Be mistaken for a werewolf.", "wolf_mimicry"),
    ("Copy how the wolves vote.", "wolf_mimicry"),
    ("Plant a seed of doubt about the Doctor.", "subtle_indirection"),
    ("Keep the village guessing.", "meta_modeling"),
    ("Jump off the bandwagon at the last moment.", "inconsistency"),
])
def test_categories_in_other_wordings(lesson: str, category: str) -> None:
    assert category in categories(lesson)


# --------------------------------------------------------------------------- 3rd order: structures, not phrases

@pytest.mark.parametrize("lesson", [
    "Only the townsfolk should come away sure that I am dangerous.",  # one audience singled out
    "Act like a wolf in front of everyone but the wolves.",  # everyone except one faction
    "Keep the pack's claws off me while I collect the town's ballots.",  # possessive treatment nouns
    "The night team must stay relaxed about me even as the day crowd keeps its eyes on me.",  # other faction names
    "Hand the villagers a culprit and hand the wolves no motive to hunt me.",  # two acts on the Jester
    "Let the wolves and the town never share one picture of me.",  # two factions kept from the same view
    "Be branded a werewolf, never unmasked as the Jester.",  # two identities
])
def test_a_cross_faction_contrast_is_found_by_its_structure(lesson: str) -> None:
    assert tom_order(lesson) == 3


@pytest.mark.parametrize("lesson", [
    # a belief and a consequence, no contrast: "the wolves may defend me" is what follows
    "Once the villagers read me as a wolf, the wolves may protect me.",
    # both factions holding the same view
    "If the wolves think I'm harmless and the villagers think so too, I have failed.",
    # two factions' views of other players
    "Werewolves trust loud players whereas villagers trust quiet ones.",
    # factions as whom the Jester sides with
    "Stand with the village at noon and with the wolves at dusk.",
])
def test_near_misses_of_a_cross_faction_contrast(lesson: str) -> None:
    assert tom_order(lesson) < 3
