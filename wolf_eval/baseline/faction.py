"""The ``faction`` baseline: a village that weighs what each of the three factions wants.

Its village seats keep the deeds apart instead of summing suspicion, and weigh every way the wolves
and the Jester could be seated (its wolves and Jester play ``tom``, from ``policies.py``):

- the Jester wants the ballot, so it keeps up its guilty act, throws suspicion at someone new each
  time and will not deny once on the ballot;
- the wolves want their accusers gone, so a night victim's accusations point at the pack, and a
  vote against a seat's accusers shields that seat; a pack does not turn on its own;
- the rules rule out the rest (a victim was no wolf; an exile that did not end the game was no
  Jester).

The first ballot, which exiles no one, puts suspects to their defence; on the final ballot the
village votes a seat only if it is likely a wolf and unlikely the Jester, and otherwise spreads
its votes so that no doubtful seat reaches a majority. Like every baseline policy it answers from
the Observation alone and draws randomness from the ``rng`` it is handed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from random import Random

from wolf_eval.agents.observation import Observation
from wolf_eval.baseline.policies import Reply, argmax, deception_kind, defence_opener, scripted, self_analysis, subject
from wolf_eval.baseline.reading import Ledger, ledger, read
from wolf_eval.engine import VARIANTS, Action, Phase, Role

#: How the faction village's wolves and Jester play.
TOM = scripted("tom")


@dataclass
class Weighing:
    """This seat's belief about every other seat: the chance it is a wolf, and that it is the Jester."""

    wolf: dict[str, float]
    jester: dict[str, float]


Pairs = dict[tuple[str, str], float]


@dataclass
class Evidence:
    """The deeds as log-odds against a seat being a plain villager, for one seat's reckoning."""

    jester: dict[str, float]  # per seat: that it is the Jester
    wolf: dict[str, float]  # per seat: that it is a wolf
    pack: Pairs  # per pair of seats (sorted): that both are wolves
    faced: Pairs  # per (Jester, wolf): that this wolf sat beside this Jester

    def link(self, table: Pairs, a: str, b: str, weight: float) -> None:
        """Add ``weight`` to a pair of other seats (the pack's pairs are unordered)."""
        if a == b or a not in self.wolf or b not in self.wolf:
            return
        key = (a, b) if table is self.faced else (min(a, b), max(a, b))
        table[key] = table.get(key, 0.0) + weight


def _deeds(lg: Ledger) -> Evidence:
    """What each seat's deeds say about its faction, read against what each faction wants."""
    obs = lg.obs
    others = [n for n in obs.players if n != obs.seat]
    ev = Evidence(dict.fromkeys(others, 0.0), dict.fromkeys(others, 0.0), {}, {})
    jester, wolf, pack, faced, link = ev.jester, ev.wolf, ev.pack, ev.faced, ev.link

    for p in others:
        # the Jester wants the ballot: it keeps up a guilty act in every line; a wolf only slips
        jester[p] += 1.2 * lg.jester_tells[p] + 0.6 * lg.wolf_tells[p]
        wolf[p] += 0.6 * lg.wolf_tells[p]
        # ... and it will not argue its way off the ballot once there
        for denied in lg.defences.get(p, []):
            jester[p] += -1.5 if denied else 3.0
        # ... it takes the floor often and throws its suspicion at someone new each time;
        # a wolf needs a scapegoat that sticks
        for (speaker, _day), targets in lg.targets_by_day.items():
            if speaker == p:
                jester[p] += 0.8 * max(0, len(targets) - 1)
        for (speaker, _day), n in lg.speeches_by_day.items():
            if speaker == p:
                jester[p] += 0.3 * max(0, n - 2)

    # the wolves silence whoever was on their trail: a victim's accusations point at the pack
    for day, victim in lg.night_victims:
        named = Counter(t for d, a, t in lg.accusations if a == victim and d < day)
        total = sum(named.values())
        for t, c in named.items():
            if t in wolf:
                wolf[t] += 1.5 * c / total
    for saved in lg.spared:
        named = Counter(t for _, a, t in lg.accusations if a == saved)
        total = sum(named.values())
        for t, c in named.items():
            if t in wolf:
                wolf[t] += 1.5 * c / total

    # a pack does not turn on its own
    for _, a, t in lg.accusations:
        link(pack, a, t, -1.0)
    first_accused: dict[tuple[str, str], int] = {}  # (accuser, accused) -> the day it began
    for d, a, t in lg.accusations:
        first_accused.setdefault((a, t), d)
    for day, _ballot, voter, target in lg.ballots:
        if target is None:
            continue
        link(pack, voter, target, -1.5)
        link(faced, target, voter, -0.8)  # a wolf does not hand the Jester its win
        # a vote against a player's accusers shields that player
        for shielded in sorted(t for (a, t), d in first_accused.items() if a == target and d <= day):
            if shielded == voter:
                if voter in wolf:
                    wolf[voter] += 0.4
            else:
                link(pack, voter, shielded, 0.6)
    return ev


def weigh(lg: Ledger) -> Weighing:
    """Every way the wolves and the Jester could be seated, weighed by the deeds and the rules.

    The rules rule some out: a night victim was no wolf (the pack cannot kill its own), an exiled
    player whose exile did not end the game was no Jester, the Doctor's saved patient was the
    wolves' target, and a game still running has a wolf alive and short of parity.
    """
    obs = lg.obs
    others = [n for n in obs.players if n != obs.seat]
    alive = set(obs.alive)
    ev = _deeds(lg)
    jester_ev, wolf_ev, pack, faced = ev.jester, ev.wolf, ev.pack, ev.faced
    not_wolf = {v for _, v in lg.night_victims} | lg.spared | {n for n, w in lg.checks.items() if not w}
    sure_wolf = {n for n, w in lg.checks.items() if w}
    not_jester = {n for _, n in lg.exiled}
    jesters: list[str | None] = [n for n in others if n not in not_jester] if lg.jester_in_play else [None]
    wolf_pool = [n for n in others if n not in not_wolf]
    weights: list[tuple[float, str | None, tuple[str, ...]]] = []
    for j in jesters:
        for pack_seats in combinations([n for n in wolf_pool if n != j], lg.wolves_in_play):
            if not sure_wolf <= set(pack_seats):
                continue
            living_wolves = sum(1 for w in pack_seats if w in alive)
            living_village = len(alive) - living_wolves - (1 if j in alive else 0)
            if living_wolves == 0 or living_wolves >= living_village:
                continue
            score = 0.0
            for w in pack_seats:
                score += wolf_ev[w] if j is None else wolf_ev[w] + faced.get((j, w), 0.0)
            for pair in combinations(sorted(pack_seats), 2):
                score += pack.get(pair, 0.0)
            if j is not None:
                score += jester_ev[j]
            weights.append((score, j, pack_seats))
    wolf = dict.fromkeys(others, 0.0)
    jester = dict.fromkeys(others, 0.0)
    if not weights:
        return Weighing(wolf, jester)
    top = max(w for w, _, _ in weights)
    total = 0.0
    for score, j, pack_seats in weights:
        p = math.exp(score - top)
        total += p
        if j is not None:
            jester[j] += p
        for w in pack_seats:
            wolf[w] += p
    return Weighing({n: v / total for n, v in wolf.items()}, {n: v / total for n, v in jester.items()})


#: The village exiles only a seat at least this likely a wolf and at most this likely the Jester.
EXILE_WOLF = 0.35
EXILE_JESTER = 0.15


def _sample(options: list[str], weight: Callable[[str], float], rng: Random) -> str:
    """One option drawn in proportion to its weight (uniformly if none has any)."""
    weights = [max(0.0, weight(n)) for n in options]
    if sum(weights) <= 0:
        return rng.choice(options)
    return rng.choices(options, weights=weights)[0]


def _faction_vote(lg: Ledger, wg: Weighing, rng: Random) -> Reply:
    """Exile a seat only when it is likely a wolf and unlikely the Jester; otherwise spread the votes.

    No vote is an abstention, so the village keeps a doubtful seat from a majority by voting its
    beliefs one by one: where the village agrees the votes gather, where it doubts they scatter.
    """
    obs = lg.obs
    options = list(obs.options)
    if obs.phase is Phase.VOTE and VARIANTS[obs.variant].two_ballots:
        # the first ballot exiles no one: put suspects to their defence, where a Jester gives itself away
        pool = [n for n in options if n not in lg.defences] or options
        x = _sample(pool, lambda n: wg.wolf[n] + wg.jester[n], rng)
        return {"vote": x, "reason": f"{x} should answer for themselves before the final ballot."}
    safe = [n for n in options if wg.jester[n] <= EXILE_JESTER] or options
    x = max(safe, key=lambda n: (wg.wolf[n], n))
    if wg.wolf[x] < EXILE_WOLF and VARIANTS[obs.variant].two_ballots:
        x = _sample(safe, lambda n: wg.wolf[n], rng)
        return {"vote": x, "reason": f"Only a hunch about {x}; I will not follow a crowd onto a fool."}
    return {"vote": x, "reason": f"{x} acts for the wolves: {x} is my vote."}


def _faction_speech(lg: Ledger, wg: Weighing, defence: bool) -> Reply:
    obs = lg.obs
    opener = defence_opener(obs, defence)
    if obs.role is Role.SEER:
        wolves = [n for n, w in lg.checks.items() if w and n in obs.alive]
        if wolves:
            return {"statement": f"{opener}I am the Seer. I checked {wolves[0]}: {wolves[0]} is a werewolf. "
                                 f"Vote {wolves[0]}."}
    living = [n for n in obs.alive if n != obs.seat]
    if not living:
        return {"statement": f"{opener}Nothing to add."}
    suspect = max(living, key=lambda n: (wg.wolf[n] - wg.jester[n], n))
    fool = max(living, key=lambda n: (wg.jester[n], n))
    parts = [opener.strip()] if opener else []
    if wg.wolf[suspect] >= 0.3:
        parts.append(f"I suspect {suspect}: their deeds serve the wolves.")
    else:
        parts.append("Nothing solid yet. I want to hear more before we vote.")
    if lg.jester_in_play and wg.jester[fool] >= 0.5:
        parts.append(f"{fool} courts the ballot like a Jester; leave {fool} be.")
    return {"statement": " ".join(parts)}


def _faction_bid(lg: Ledger, wg: Weighing, rng: Random) -> Reply:
    obs = lg.obs
    living = [n for n in obs.alive if n != obs.seat]
    sure = max((wg.wolf[n] for n in living), default=0.0)
    bid = rng.randint(5, 8) if sure >= 0.3 else rng.randint(1, 4)
    if lg.speeches_by_day[(obs.seat, obs.day)]:
        bid = max(0, bid - 2)
    return {"bid": bid}


def _faction_night(lg: Ledger, wg: Weighing, rng: Random) -> Reply:
    obs = lg.obs
    options = list(obs.options)
    if obs.action == Action.PROTECT:
        # the wolves kill whoever is on their trail: guard the seat whose accusations weigh most on them
        def danger(n: str) -> float:
            named = [t for _, a, t in lg.accusations if a == n]
            on_trail = sum(wg.wolf.get(t, 0.0) for t in named) / max(1, len(named)) * min(3, len(named))
            return on_trail + 3.0 * (n in lg.seer_claims) - 3.0 * (wg.wolf.get(n, 0.0) + wg.jester.get(n, 0.0))
        x = argmax(options, danger, rng)
        if danger(x) < 0.5 and obs.seat in options:
            x = obs.seat
        return {"target": x, "reason": f"The wolves want {x} gone."}
    unchecked = [n for n in options if n not in lg.checks] or options
    x = argmax(unchecked, lambda n: wg.wolf[n], rng)
    return {"target": x, "reason": f"I want to know what {x} is."}


def _faction_peer(lg: Ledger, wg: Weighing) -> Reply:
    obs = lg.obs
    speaker = subject(obs).actor or ""
    w, j = wg.wolf.get(speaker, 0.0), wg.jester.get(speaker, 0.0)
    if j > w and j >= 0.4:
        kind = deception_kind(obs.taxonomy, "strategic_deception", "fabrication")
    elif w >= 0.4:
        kind = deception_kind(obs.taxonomy, "misdirection")
    else:
        kind = "none"
    return {"is_deceptive": kind != "none", "confidence": round(min(0.95, 0.5 + abs(w + j - 0.5)), 2),
            "deception_type": kind, "suspicion": round(min(0.95, max(0.05, w)), 2),
            "reasoning": f"{speaker}: wolf {w:.2f}, Jester {j:.2f} by what they have done."}


def faction_policy(obs: Observation, rng: Random) -> Reply:
    """The village seats weigh what each faction wants; the wolves and the Jester play ``tom``."""
    if obs.role in (Role.WEREWOLF, Role.JESTER):
        return TOM(obs, rng)
    if obs.action == Action.SELF_ANALYSIS:
        return self_analysis(read(obs), rng)
    lg = ledger(obs)
    wg = weigh(lg)
    action = obs.action
    if action == Action.PEER_ANALYSIS:
        return _faction_peer(lg, wg)
    if action == Action.BID:
        return _faction_bid(lg, wg, rng)
    if action in (Action.STATEMENT, Action.DEFENCE):
        reply = _faction_speech(lg, wg, defence=action == Action.DEFENCE)
    elif action == Action.VOTE:
        reply = _faction_vote(lg, wg, rng)
    else:
        reply = _faction_night(lg, wg, rng)
    living = [n for n in obs.alive if n != obs.seat]
    if living:
        w = max(living, key=lambda n: (wg.wolf[n], n))
        reply["notes"] = f"Day {obs.day}: likeliest wolf {w} ({wg.wolf[w]:.2f})" + (
            f"; likeliest Jester {max(living, key=lambda n: (wg.jester[n], n))}" if lg.jester_in_play else "") + "."
    return reply
