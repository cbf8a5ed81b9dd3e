"""A comparison in rounds that stops each question when it is decided (``wolf-eval compare --sequential``).

Round k plays ``round_games`` games of each eval still needed, dealt from seed ``base + k - 1`` (so
round 1 deals what the fixed comparison with the same seed deals, and every later round new deals).
After each complete round every question of every matchup (a pair of models in a faction, with what they
held fixed: :func:`wolf_eval.analysis.compare.matchups`) is tested on the deals of the complete rounds
alone (:func:`wolf_eval.analysis.sequential.decide`), never on a round still being played; a question
decided at a round stays decided there, with that round's deals (:func:`looks`). A question stops when
it is decided, when the group design's futility bound stops it as smaller than planned, when each of its
two evals has played ``max_games`` games, or when the next round would take the comparison past
``max_usd``. An eval plays the next round while any question it answers is open.

Every step is a function of the logs' finished games, so the same command run again after an
interruption finds the same complete rounds, the same decisions and the same next round, and
resumes it (:func:`standing`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from wolf_eval.analysis import sequential
from wolf_eval.analysis.compare import CROSSPLAY, FACTION_LABEL, Pairing, held_label, matchups
from wolf_eval.analysis.questions import asked
from wolf_eval.engine import Faction, variant

#: Games per eval in each round unless told otherwise.
ROUND_GAMES = 10
#: The share of the comparison's error rate a primary question named in advance is tested at (the rest is shared by
#: the other questions): half, so a truth figure that carries the difference is tested at alpha / 2 rather than one
#: question's equal share.
PRIMARY_SHARE = 0.5

PLAYING = "playing"
DECIDED = "decided"
SMALLER = "smaller than planned"  # stopped by the group design's futility bound
GAMES_CAP = "games cap"
DOLLAR_CAP = "dollar cap"
UNDEFINED = "not defined"  # no deal of the complete rounds defines the figure (a game without analysis)


@dataclass(frozen=True)
class Stopping:
    """When a comparison in rounds stops: its error rate, its round size and its caps."""

    max_games: int  # games per eval after which a question stops undecided (the group design's planned cap)
    round_games: int = ROUND_GAMES
    alpha: float = sequential.ALPHA  # the comparison's: of deciding any question of any pair that does not differ
    max_usd: float | None = None
    design: str = sequential.GROUP
    spending: str = sequential.SPENDING  # the group design's error-spending function (:func:`sequential.spent`)
    questions: int = 1  # how many questions the comparison asks (every pair's); the error rate is shared by them
    per_question: bool = False  # each question at ``alpha`` alone (the comparison's error then grows with them)
    primary: tuple[Faction, str] | None = None  # the question named in advance to get :data:`PRIMARY_SHARE` of alpha
    primaries: int = 0  # how many of the comparison's questions are it (one per pair and reference opponent)
    futile: sequential.Futility | None = None  # the group design's futility bound (None: a question stops undecided)

    @property
    def question_alpha(self) -> float:
        """The error rate each question other than the primary one is tested at: Bonferroni's share of the
        comparison's, or of what the primary question leaves (see :meth:`level`)."""
        if self.per_question:
            return self.alpha
        if self.primary is None or self.primaries == self.questions:
            return self.alpha / self.questions
        return self.alpha * (1 - PRIMARY_SHARE) / (self.questions - self.primaries)

    def level(self, faction: Faction, question: str) -> float:
        """The error rate one question is tested at. With a primary question, a weighted Bonferroni: the primary
        questions share :data:`PRIMARY_SHARE` of alpha and the others the rest, so the levels still sum to alpha."""
        if self.primary is None or self.per_question or (faction, question) != self.primary:
            return self.question_alpha
        return self.alpha * (PRIMARY_SHARE if self.primaries < self.questions else 1.0) / self.primaries

    @property
    def procedure(self) -> str:
        """The procedure as the decisions table names it."""
        test = (f"group-sequential, {self.spending} error spending over the cap" if self.design == sequential.GROUP
                else "anytime-valid betting test")
        if self.futile is not None:
            test += (f", stopping a question as smaller than planned when it falls short of a share ahead of "
                     f"{self.futile.difference:g} ({self.futile.spending} spending of {self.futile.beta:g}, "
                     "non-binding: the decision bounds are those without it)")
        if self.per_question:
            return f"{test}; each of the {self.questions} questions at {self.alpha:g} alone (no family-wise control)"
        if self.primary is not None:
            named = f"{FACTION_LABEL[self.primary[0]]} {self.primary[1]}"
            return (f"{test}; weighted Bonferroni over the comparison's {self.questions} questions: the primary "
                    f"question named in advance ({named}, {self.primaries} of them) each at "
                    f"{self.level(*self.primary):.3g}, the other {self.questions - self.primaries} each at "
                    f"{self.question_alpha:.3g}")
        return (f"{test}; Bonferroni over the comparison's {self.questions} questions, each at "
                f"{self.question_alpha:.3g}")

    def __post_init__(self) -> None:
        if self.design not in sequential.DESIGNS:
            raise ValueError(f"design {self.design!r}: one of {', '.join(sequential.DESIGNS)}")
        sequential.spending_function(self.spending)
        if self.questions < 1:
            raise ValueError(f"a comparison asks at least one question, not {self.questions}")
        if self.round_games < 1:
            raise ValueError(f"a round plays at least one game per eval, not {self.round_games}")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha {self.alpha}: an error rate lies strictly between 0 and 1")
        if self.max_games < self.round_games:
            raise ValueError(f"the cap of {self.max_games} games is below one round of {self.round_games}")
        if self.max_usd is not None and not self.max_usd > 0:
            raise ValueError(f"the dollar cap must be positive, not {self.max_usd}")
        if self.futile is not None and self.design != sequential.GROUP:
            raise ValueError("a futility bound stops the group design; the anytime design has none")
        if self.primary is not None and (self.per_question or not 0 < self.primaries <= self.questions):
            raise ValueError("a primary question takes a larger share of the comparison's error rate: not with each "
                             "question at alpha alone, and asked of at least one pair")


@dataclass
class Standing:
    """Where a comparison in rounds stands after its complete rounds."""

    rounds: list[list[Pairing]]  # the evals of every round played or being played, in order
    complete: int  # how many of them are complete
    questions: pd.DataFrame  # per matchup and question: its decision and why it stopped (or PLAYING)
    spent: float  # USD of the complete rounds' games, over the seat models with a price
    games: int  # games of the complete rounds

    @property
    def finished(self) -> bool:
        """Nothing more to play: every question stopped."""
        return self.complete == len(self.rounds)


def seats(task: str, p: Pairing) -> dict[Faction, str]:
    """Who plays each faction in a pairing's games."""
    return {f: p.model if f == p.faction else p.opponent for f in variant(task).factions}


def serves(task: str, p: Pairing, model: str, opponent: str, faction: Faction) -> bool:
    """Whether the pairing's games are the games of ``model`` playing ``faction`` against ``opponent``."""
    return seats(task, p) == seats(task, Pairing(model, opponent, faction))


def round_rows(rows: pd.DataFrame, base_seed: int, rounds: int) -> pd.DataFrame:
    """The rows of the first ``rounds`` rounds (seeds ``base_seed`` .. ``base_seed + rounds - 1``)."""
    if rows.empty:
        return rows
    seeds = pd.to_numeric(rows["seed"], errors="coerce")
    return rows[(seeds >= base_seed) & (seeds < base_seed + rounds)]


def _games_of(rows: pd.DataFrame, p: Pairing, seed: int) -> int:
    """Finished games of one eval at one seed."""
    if rows.empty:
        return 0
    mine = rows[(pd.to_numeric(rows["seed"], errors="coerce") == seed) & (rows["model"] == p.model)
                & (rows["opponent"] == p.opponent) & (rows["faction"] == p.faction)]
    return len(mine[["sample", "epoch"]].drop_duplicates())


def decisions(rows: pd.DataFrame, models: Sequence[str], against: Sequence[str], stopping: Stopping) -> pd.DataFrame:
    """Every question of every matchup of the compared models, tested on ``rows`` (complete rounds only)."""
    held = set(against) if against else {CROSSPLAY}
    out = []
    for key, ga, gb in (matchups(rows) if not rows.empty else []):
        if key["a"] not in models or key["b"] not in models or key["held"] not in held:
            continue
        for q in asked(key["faction"]):
            a, b = q.per_game(ga[list(q.columns)].to_numpy(float)), q.per_game(gb[list(q.columns)].to_numpy(float))
            defined = ~(np.isnan(a) | np.isnan(b))
            d = (a - b)[defined]
            level = stopping.level(key["faction"], q.name)
            decision = sequential.decide(d, looks(ga["seed"].to_numpy()[defined]), level, stopping.design,
                                         stopping.max_games, stopping.spending, stopping.futile)
            state = DECIDED if decision.decided else SMALLER if decision.stopped else (
                UNDEFINED if not len(d) else GAMES_CAP if len(ga) >= stopping.max_games else PLAYING)
            out.append(key | {"question": q.name, "games": len(ga), "state": state, "decision": decision.state,
                              "deals": decision.deals, "mean": decision.mean, "ahead": decision.ahead,
                              "low": decision.low, "high": decision.high, "evidence": decision.evidence,
                              "needed": decision.needed, "smaller_below": decision.smaller_below, "alpha": level})
    return pd.DataFrame(out)


def family(task: str, models: Sequence[str], against: Sequence[str]) -> int:
    """How many questions a comparison asks: every question of every faction, for every pair of the compared
    models and every reference opponent (or cross-play). Its error rate is shared among them all."""
    pairs = len(models) * (len(models) - 1) // 2
    return max(1, pairs * max(1, len(against)) * sum(len(asked(f)) for f in variant(task).factions))


def primary_question(task: str, text: str) -> tuple[Faction, str]:
    """The question ``--primary`` names, as FACTION:QUESTION (``wolves:evasion``, ``village:win``) or QUESTION alone
    where it applies to one faction of the task (``evasion``, ``detection``)."""
    asked_ = [(f, q.name) for f in variant(task).factions for q in asked(f)]
    named = [f"{FACTION_LABEL[f]}:{q}" for f, q in asked_]
    side, _, name = text.rpartition(":")
    found = [(f, q) for f, q in asked_ if q == name and side in ("", FACTION_LABEL[f])]
    if len(found) != 1:
        raise ValueError(f"--primary {text}: one of {', '.join(named)} on {task} (the faction may be left out where "
                         "the question applies to one)")
    return found[0]


def pairs_asked(models: Sequence[str], against: Sequence[str]) -> int:
    """How many times a comparison asks each question: once per pair of compared models and reference opponent."""
    return len(models) * (len(models) - 1) // 2 * max(1, len(against))


def looks(seeds: np.ndarray) -> list[int]:
    """The deals seen at the end of each complete round, from each deal's seed in play order (a round is a seed).

    A question is decided at the first look whose evidence reaches 1 / alpha and stays decided there: its
    evals may play on for another question, and the deals after its decision are not its."""
    s = pd.to_numeric(pd.Series(seeds), errors="coerce").to_numpy()
    return [i + 1 for i in range(len(s)) if i + 1 == len(s) or s[i + 1] != s[i]]


def _needed(task: str, plan: Sequence[Pairing], open_: pd.DataFrame) -> list[Pairing]:
    """The evals that play a game of a question still open."""
    if open_.empty:
        return []
    need = []
    for p in plan:
        for r in open_.to_dict("records"):
            a_against, b_against = (r["b"], r["a"]) if r["held"] == CROSSPLAY else (r["held"], r["held"])
            if serves(task, p, r["a"], a_against, r["faction"]) or serves(task, p, r["b"], b_against, r["faction"]):
                need.append(p)
                break
    return need


def _spent(rows: pd.DataFrame) -> tuple[float, int]:
    """USD (priced seat models) and the number of distinct games in ``rows``."""
    if rows.empty:
        return 0.0, 0
    games = rows.drop_duplicates(["log", "sample", "epoch"])
    return float(games["game_usd"].sum()), len(games)


def standing(task: str, rows: pd.DataFrame, plan: Sequence[Pairing], models: Sequence[str],
             against: Sequence[str], stopping: Stopping, base_seed: int) -> Standing:
    """Replay the comparison's rounds from its finished games: which evals each round played, which round is
    under way, and every question's decision after the complete ones."""
    rounds: list[list[Pairing]] = [list(plan)]
    questions = pd.DataFrame()
    spent, games, last = 0.0, 0, 0.0
    while True:
        k = len(rounds)
        now = rounds[-1]
        if any(_games_of(rows, p, base_seed + k - 1) < stopping.round_games for p in now):
            return Standing(rounds, k - 1, questions, spent, games)
        done = round_rows(rows, base_seed, k)
        before = spent
        spent, games = _spent(done)
        last = spent - before
        questions = decisions(done, models, against, stopping)
        open_ = questions[questions["state"] == PLAYING] if not questions.empty else questions
        following = _needed(task, plan, open_)
        if following and stopping.max_usd is not None and spent + last * len(following) / len(now) > stopping.max_usd:
            questions.loc[questions["state"] == PLAYING, "state"] = DOLLAR_CAP
            following = []
        if not following:
            return Standing(rounds, k, questions, spent, games)
        rounds.append(following)


# --------------------------------------------------------------------------- progress


@dataclass
class Pace:
    """How fast this run has played its rounds, for the progress line printed before each round: the time
    left is the round's games at the pace of the rounds played so far (none yet: not known), and the most it
    could take is every round up to the games cap at that pace."""

    seconds: float = 0.0  # wall time of the rounds played in this run
    games: int = 0  # their games
    started: float = 0.0

    def played(self, games: int) -> None:
        """A round ended with ``games`` more finished games."""
        self.seconds += time.monotonic() - self.started
        self.games += games

    def line(self, now: Standing, stopping: Stopping) -> str:
        """Which round is playing, its evals, and the time left (starts the round's clock)."""
        self.started = time.monotonic()
        k, evals = now.complete + 1, now.rounds[now.complete]
        last = math.ceil(stopping.max_games / stopping.round_games)
        games = len(evals) * stopping.round_games
        if self.games:
            per_game = self.seconds / self.games
            cap = per_game * games * (last - k + 1)
            left = (f"about {_minutes(games * per_game)} left in this round, at most {_minutes(cap)} to the games cap, "
                    f"at this run's pace of {per_game:.1f} s a game")
        else:
            left = "time left known once this run has played a round"
        return (f"round {k} of at most {last}: playing {games} games in {len(evals)} evals "
                f"({'; '.join(p.describe() for p in evals)}); {left}")


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


# --------------------------------------------------------------------------- the decisions as a table


def _cell(v: float, low: float = math.nan, high: float = math.nan) -> str:
    if math.isnan(v):
        return "n/a"
    return f"{v:+.2f} [{low:+.2f}, {high:+.2f}]" if not math.isnan(low) else f"{v:+.2f}"


def _verdict(r: Mapping[Hashable, Any], stopping: Stopping) -> str:
    if r["state"] == DECIDED:
        return f"**{r['a'] if r['decision'] == sequential.FOR_A else r['b']}**"
    if r["state"] == SMALLER and stopping.futile is not None:
        return f"no difference as large as planned ({stopping.futile.difference:g} ahead)"
    return {PLAYING: "undecided (playing)", GAMES_CAP: "undecided at the games cap",
            DOLLAR_CAP: "undecided at the dollar cap", UNDEFINED: "not defined in these games"}[r["state"]]


DECISIONS_NOTE = (
    "Each question tested after every complete round on the deals both models played, on which model's game was "
    "ahead on each deal, against \"each is ahead as often as the other\". Group-sequential: the deals A was "
    "ahead on minus those B was, against a bound at each round that spends the question's error over the cap "
    "(the spending named below: how much of the error each round may use), exact for a fair coin on each deal "
    "with a winner. Anytime: a bettor's wealth on the same signs, which decides at 1/error rate and may be looked "
    "at any time, with no cap planned. Decided for the model named, which is ahead on that figure on more "
    "deals. Ahead: the share of deals A was ahead on minus the share B was (for a win rate, the win-rate "
    "difference), with its anytime-valid interval at the question's error rate (valid at whatever round the "
    "comparison stopped, unlike a fixed-sample interval read after an early stop). A − B: the mean over deals "
    "of the two games' figures' difference. Evidence: what the test reached, beside what decides (group: the "
    "walk over the root of the deals with a winner, against the round's bound; anytime: the wealth). No "
    "difference as large as planned: the group design's futility bound stopped the question, its walk's z below "
    "the figure shown, short of what a share ahead of the planned difference gives (for A or for B) by more than "
    "the bound spends; it is neither model's decision, and a true difference of the planned size is stopped so at "
    "most 1 - power of the time.")


def _evidence(r: Mapping[Hashable, Any]) -> str:
    """What the test reached and, in brackets, what decides there (and what stops it as smaller, if it did)."""
    if r["state"] == SMALLER:
        return f"{r['evidence']:.3g} (smaller below {r['smaller_below']:.3g})"
    return f"{r['evidence']:.3g} ({r['needed']:.3g})"


def decisions_markdown(questions: pd.DataFrame, standing_: Standing, stopping: Stopping) -> str:
    """The decisions table, with the comparison's error rate and procedure, and what it played and spent."""
    spent = f"${standing_.spent:,.2f} in the seat models with a price" if standing_.spent else "no priced model"
    rate = (f"Error rate {stopping.alpha:g} per question" if stopping.per_question else
            f"Error rate {stopping.alpha:g} for the whole comparison (the chance of deciding any of its "
            f"{stopping.questions} questions between models that do not differ)")
    lines = ["### Decisions", "", DECISIONS_NOTE, "",
             f"{rate}: {stopping.procedure}. Rounds of {stopping.round_games} games per eval; "
             f"caps {stopping.max_games} games per eval"
             + (f" and ${stopping.max_usd:,.2f}" if stopping.max_usd is not None else "")
             + f". {standing_.complete} complete rounds, {standing_.games} games, {spent}.", "",
             "| task | faction | A | B | held fixed | question | decision | deals | A − B "
             f"| ahead [anytime {1 - stopping.question_alpha:.1%}"
             + (f"; primary {1 - stopping.level(*stopping.primary):.1%}" if stopping.primary is not None else "")
             + "] | evidence (decides at) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in questions.to_dict("records"):
        lines.append(f"| {r['task']} | {FACTION_LABEL[r['faction']]} | {r['a']} | {r['b']} | {held_label(r['held'])} "
                     f"| {r['question']}{' (primary)' if r['alpha'] != stopping.question_alpha else ''} "
                     f"| {_verdict(r, stopping)} | {r['deals']} | {_cell(r['mean'])} "
                     f"| {_cell(r['ahead'], r['low'], r['high'])} | {_evidence(r)} |")
    return "\n".join(lines) + "\n"
