"""Decisions in rounds: a comparison that may stop as soon as its evidence decides, at a stated error rate.

The unit is a deal that both models played: the same task, condition, seed, sample and epoch, so
the same seats and roles. On each deal a question gives a difference ``d = x_A - x_B`` of a per-game
figure bounded in [0, 1] (a win, a game's AUROC), so ``d`` lies in [-1, 1]; deals are independent
draws. The test asks which model is ahead: it bets on the sign of each deal's difference, +1 where
A's game was ahead, -1 where B's was, 0 on a tie, and the question is ``ahead``, the mean of that
sign: the share of deals A was ahead on minus the share B was. For a win, a 0/1 figure, the sign is
the difference itself and ``ahead`` is the win-rate difference. For a figure that moves by tenths
(a game's AUROC) the sign spends the whole of the bet's range where the difference would spend a
tenth of it: a bet on ``d`` itself must stake so little that a difference of -1 could not ruin it,
and needed five times the deals on the baseline players' village detection
(``benchmarks/decisive.py``).

The test is a bet against the null "the mean is m" (Waudby-Smith and Ramdas's testing by betting).
A bettor who stakes a fraction ``lam`` of its wealth on each deal multiplies it by
``1 + lam * (s - m)``; under the null each factor has mean 1, so the wealth is a nonnegative
martingale starting at 1, and by Ville's inequality the chance that it *ever* reaches ``1 / alpha``
is at most ``alpha``, however often it is looked at. The wealth here is the average over a grid of
bets (:data:`BETS` fractions of the largest safe stake, for and against A), itself such a martingale;
on the deals with a winner it is the mixture likelihood ratio of the sign test (a mixture SPRT).
Nothing is assumed of the deals beyond their independence.

A question is decided when the wealth against ``m = 0`` ("A is ahead as often as B", true of two
models that do not differ) reaches ``1 / alpha``: for A if A was ahead more often, else for B. Its
confidence sequence is every ``m`` whose wealth is below ``1 / alpha``: a ``1 - alpha`` interval for
``ahead`` that holds at whatever number of deals the comparison stopped (a fixed-sample interval
read after stopping early does not).

The group-sequential design (:data:`GROUP`, ``compare --sequential``'s default) tests the same signs
at the looks only, over a cap of deals planned in advance (``wolf-eval plan``'s). Its statistic is the
walk: the deals A was ahead on minus those B was. Under the null each deal with a winner is a fair
coin, whichever deals have one, so the walk's chance of first reaching each look's bound is computed
exactly, and each bound is set so that by the look that has seen a share ``t`` of the cap at most
:func:`spent` ``(t)`` of the error has been spent, by an error-spending function (Lan and DeMets's
approach; :data:`SPENDING`, Hwang, Shih and DeCani's with gamma -2, unless told). Any spending function
keeps the error exactly; they differ in when they stop and in the cap they need for the same power
(``benchmarks/designs.py`` measures each). It gives up the anytime test's freedom to look at any time or
play past the cap, and in return decides a difference of the size planned for in fewer deals. A decided
question's interval is the anytime confidence sequence, which holds at any stop, this design's
included.

The group design also stops a question as *smaller than planned* (:class:`Futility`): "no difference as large
as planned" when the walk has fallen so far short of what a share ahead of the planned difference would give
that the question is unlikely to be decided within the cap. It is a sequential test of "A is ahead by the
planned difference" and of "B is", each rejected at a look when the walk's z, measured from where that
difference would put it, is below the look's futility bound; the bounds spend the plan's ``1 - power`` over the
cap by a spending function (beta spending), on the normal approximation to the walk. The bound is non-binding:
the decision bounds are set as if it did not exist, so a comparison that stops at it decides for A or B only where
the same comparison played to the cap would have, and the chance of a false decision is at most ``alpha``
whether a user stops there or plays on past it. What it costs is power (a difference of the planned size stopped
as smaller), which the planner's cap pays back.

A comparison asks many questions: every figure of every faction of every pair. Its error rate is the
chance of deciding *any* question between two models that do not differ on it, and each question is
tested at that rate divided by the number of questions (Bonferroni). Each question's own test keeps
its error within its share however the rounds stop, and the chance that any of them errs is at most
the sum of theirs, whatever the questions share (the same deals, the same games): valid under
optional stopping and under any dependence between questions, with no model of either.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import ndtr, ndtri
from scipy.stats import binom

#: The error rate a comparison decides at unless told otherwise: the chance, over the whole run, of
#: deciding a question between two models that do not differ on it.
ALPHA = 0.05
#: Bets in the mixture on each side: fractions 1/(BETS+1) .. BETS/(BETS+1) of the largest safe stake.
BETS = 20
#: Below the largest safe stake (never all of it, so one deal cannot bankrupt a bet).
STAKE = 0.98
#: How close the confidence sequence's ends are found (each is moved outward by at most this).
TOLERANCE = 1e-3

#: The group design's error-spending functions (:func:`spent`); ``hsd`` takes its gamma as ``hsd:GAMMA``.
OBRIEN_FLEMING = "obrien-fleming"
POCOCK = "pocock"
HSD = "hsd"
SPENDINGS = (OBRIEN_FLEMING, POCOCK, f"{HSD}:GAMMA")
#: The spending the group design uses unless told: the least mean games at the planned difference among those whose
#: cap stays within 1.3 times the fixed design's (``benchmarks/designs.py``'s criterion; docs/comparing.md).
SPENDING = f"{HSD}:-2"

#: The designs a comparison in rounds stops by: group-sequential (an error spent over a planned cap of deals,
#: looked at after each round) and anytime (the betting test, valid at any look with no cap planned).
GROUP = "group"
ANYTIME = "anytime"
DESIGNS = (GROUP, ANYTIME)

#: The group design's futility bound unless told (:class:`Futility`): the beta-spending function, or :data:`NO_FUTILITY`
#: for none. Chosen by ``benchmarks/designs.py`` (docs/comparing.md).
FUTILITY = f"{HSD}:0"
NO_FUTILITY = "none"

FOR_A = "A"
FOR_B = "B"
SMALLER = "smaller than planned"  # stopped by the futility bound: no difference as large as planned
UNDECIDED = "undecided"


def _fractions() -> np.ndarray:
    return STAKE * np.arange(1, BETS + 1) / (BETS + 1)


def log_wealth(d: Sequence[float] | np.ndarray, m: float = 0.0) -> np.ndarray:
    """The log of the mixture bettor's wealth against "the mean of ``d`` is ``m``", after each deal.

    ``d`` holds the deals' differences in play order, each in [-1, 1]; ``m`` lies in (-1, 1).
    """
    x = np.asarray(d, dtype=float) - m
    if not len(x):
        return np.zeros(0)
    bets = np.r_[_fractions() / (1 + m), -_fractions() / (1 - m)]  # 1 + bet * (d - m) > 0 for every d in [-1, 1]
    paths = np.cumsum(np.log1p(np.outer(x, bets)), axis=0)
    top = paths.max(axis=1, keepdims=True)
    return top[:, 0] + np.log(np.mean(np.exp(paths - top), axis=1))


def confidence_sequence(d: Sequence[float] | np.ndarray, alpha: float = ALPHA) -> tuple[float, float]:
    """The ``1 - alpha`` anytime-valid interval for the mean difference after the deals ``d`` (NaN with none).

    The candidate means whose wealth after the last deal is below ``1 / alpha``: the wealth is
    smallest near the deals' mean and grows away from it, so each end is found by bisection between
    the mean and -1 or +1, to within :data:`TOLERANCE` (outward, so the interval errs wide).
    """
    x = np.asarray(d, dtype=float)
    if not len(x):
        return (math.nan, math.nan)
    threshold = math.log(1 / alpha)
    mean = float(np.clip(x.mean(), -1 + TOLERANCE, 1 - TOLERANCE))

    def end(outside: float) -> float:
        inside = mean
        while abs(outside - inside) > TOLERANCE:
            middle = (inside + outside) / 2
            if log_wealth(x, middle)[-1] < threshold:
                inside = middle
            else:
                outside = middle
        return outside

    return (max(-1.0, end(-1.0)), min(1.0, end(1.0)))


@dataclass(frozen=True)
class Decision:
    """Where one question stands after the deals seen: decided for A or B, or undecided, with its interval."""

    state: str  # FOR_A, FOR_B or UNDECIDED
    deals: int
    mean: float  # the deals' mean difference of the figure, A minus B
    ahead: float  # the share of deals A was ahead on minus the share B was: what is tested
    low: float  # the anytime-valid interval for ``ahead``
    high: float
    evidence: float  # anytime: the bettor's wealth; group: the walk over the root of the deals with a winner (z)
    needed: float  # what the evidence had to reach at that look to decide (1 / alpha; the look's bound as a z)
    alpha: float
    smaller_below: float = math.nan  # group with a futility bound: the z below which that look stopped it as smaller

    @property
    def decided(self) -> bool:
        """Decided for A or for B."""
        return self.state in (FOR_A, FOR_B)

    @property
    def stopped(self) -> bool:
        """Decided, or stopped as smaller than planned: nothing more to play for it."""
        return self.state != UNDECIDED


@dataclass(frozen=True)
class Futility:
    """The group design's futility bound: when a look stops a question as smaller than planned.

    A look that has seen ``n`` deals, ``winners`` of them with a winner, would find the walk near
    ``difference * n`` if A were ahead by the planned difference, with a spread of at most the root of the deals
    with a winner; it stops the question as smaller when the walk is short of that, for A and for B alike, by more
    than the look's bound (:func:`futility_bounds`) in those units: ``|walk| < difference * n - bound *
    sqrt(max(winners, difference * n))``. A share ahead of ``difference`` needs at least ``difference * n`` deals
    with a winner, so fewer seen is a sampling low, and the spread is not taken below that root (else a run of ties
    early on, common where a win is rare, would read as a shortfall). The bounds spend ``beta`` (the plan's
    ``1 - power``) over the cap by the function ``spending`` names, so a share ahead of exactly ``difference`` is
    stopped as smaller with chance at most ``beta`` (normal approximation).
    """

    difference: float  # the share ahead planned for (for a win rate, the win-rate difference)
    beta: float  # the chance of stopping a difference of that size as smaller, at most: 1 - the plan's power
    spending: str = FUTILITY

    def __post_init__(self) -> None:
        if not (0 < self.difference < 1 and 0 < self.beta < 1):
            raise ValueError(f"a futility bound needs a planned difference and a power strictly between 0 and 1, not "
                             f"{self.difference:g} and {1 - self.beta:g}")
        try:
            spending_function(self.spending)
        except ValueError:
            raise ValueError(f"futility {self.spending!r}: one of {OBRIEN_FLEMING}, {POCOCK}, {HSD}:GAMMA (a number, "
                             f"e.g. {FUTILITY}) or {NO_FUTILITY}") from None

    def below(self, deals: int, winners: int, bound: float) -> float:
        """The z (the walk over the root of the deals with a winner, as the decisions show it) under which a look of
        ``deals`` deals, ``winners`` with a winner, stops the question as smaller."""
        expected = self.difference * deals
        return (expected - bound * math.sqrt(max(winners, expected))) / math.sqrt(max(winners, 1))


def futility(spending: str | None, difference: float, power: float) -> Futility | None:
    """The futility bound a plan's difference and power give, by the beta-spending ``spending`` names (None or
    :data:`NO_FUTILITY`: none)."""
    return None if spending in (None, NO_FUTILITY) else Futility(difference, 1 - power, spending)


def ahead(d: Sequence[float] | np.ndarray) -> np.ndarray:
    """Which model each deal's difference puts ahead: +1 A, -1 B, 0 a tie (what the test bets on)."""
    x = np.asarray(d, dtype=float)
    if np.any(np.abs(x) > 1 + 1e-12) or np.any(np.isnan(x)):
        raise ValueError("a deal's difference must be a number in [-1, 1]")
    return np.sign(x)


def decide(d: Sequence[float] | np.ndarray, looks: Sequence[int] | None = None, alpha: float = ALPHA,
           design: str = ANYTIME, cap: int | None = None, spending: str = SPENDING,
           futile: Futility | None = None) -> Decision:
    """The decision on the deals ``d`` (differences A minus B in play order) at error rate ``alpha``, looked at
    after each count of deals in ``looks`` (once, after every deal, unless told): decided at the first look
    whose evidence reaches what decides there (or, group design with a ``futile`` bound, stopped there as smaller
    than planned), with that look's deals (those after it are not the question's), else undecided on the deals
    of the last look."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha {alpha}: an error rate lies strictly between 0 and 1")
    signs = ahead(d)
    seen = [n for n in (looks or [len(signs)]) if 0 < n <= len(signs)]
    if not seen:
        return Decision(UNDECIDED, 0, math.nan, math.nan, math.nan, math.nan, 1.0, 1 / alpha, alpha)
    stop, state, evidence, needed, below = _stop(signs, seen, alpha, design, cap, spending, futile)
    share = float(signs[:stop].mean())
    low, high = confidence_sequence(signs[:stop], alpha)
    return Decision(state, stop, float(np.mean(np.asarray(d, dtype=float)[:stop])), share, low, high, evidence,
                    needed, alpha, below)


def first_decision(d: Sequence[float] | np.ndarray, looks: Sequence[int], alpha: float = ALPHA,
                   design: str = ANYTIME, cap: int | None = None, spending: str = SPENDING) -> int | None:
    """The number of deals at the first look (counts of deals, increasing) where the question is decided, or None.

    A comparison looks only at the ends of its rounds; this is what it would have stopped at. ``design``: the
    betting test (:data:`ANYTIME`) or the group-sequential one (:data:`GROUP`, which needs the ``cap`` in deals
    its error is spent over, by the function ``spending`` names). With no futility bound; :func:`first_stop` has it.
    """
    n, state = first_stop(d, looks, alpha, design, cap, spending)
    return n if state in (FOR_A, FOR_B) else None


def first_stop(d: Sequence[float] | np.ndarray, looks: Sequence[int], alpha: float = ALPHA,
               design: str = ANYTIME, cap: int | None = None, spending: str = SPENDING,
               futile: Futility | None = None) -> tuple[int, str]:
    """Where the question stops and how: the deals at the first look (counts of deals, increasing) that decides it
    for A or B or, with a ``futile`` bound, stops it as smaller than planned; else the last look's deals, undecided
    (0 with no look). What a comparison in rounds would have stopped at, with no interval computed."""
    signs = ahead(d)
    seen = [n for n in looks if 0 < n <= len(signs)]
    if not seen:
        return 0, UNDECIDED
    n, state, *_ = _stop(signs, seen, alpha, design, cap, spending, futile)
    return n, state


def _stop(signs: np.ndarray, seen: list[int], alpha: float, design: str, cap: int | None, spending: str,
          futile: Futility | None) -> tuple[int, str, float, float, float]:
    """The first look that stops the question: (deals, state, evidence, what decides there, the z below which it
    is smaller: NaN without a futility bound)."""
    if design != GROUP:
        wealth, threshold = log_wealth(signs), math.log(1 / alpha)
        stop = next((n for n in seen if wealth[n - 1] >= threshold), seen[-1])
        state = UNDECIDED if wealth[stop - 1] < threshold else FOR_A if signs[:stop].sum() > 0 else FOR_B
        return stop, state, float(np.exp(wealth[stop - 1])), 1 / alpha, math.nan
    cap = _cap(cap)
    bounds = futility_bounds(tuple(n / cap for n in seen), futile.beta, futile.spending) if futile else None
    for k, (n, walk, winners, bound) in enumerate(group_path(signs, seen, alpha, cap, spending)):
        root = math.sqrt(max(winners, 1))
        below = futile.below(n, winners, bounds[k]) if futile is not None and bounds is not None else math.nan
        if abs(walk) >= bound:
            return n, FOR_A if walk > 0 else FOR_B, abs(walk) / root, bound / root, below
        if abs(walk) / root < below or n == seen[-1]:
            return n, SMALLER if abs(walk) / root < below else UNDECIDED, abs(walk) / root, bound / root, below
    raise AssertionError("the last look stops every question")


def _cap(cap: int | None) -> int:
    if cap is None or cap < 1:
        raise ValueError("the group-sequential design spends its error over a planned cap of deals: give one")
    return cap


# --------------------------------------------------------------------------- the group-sequential design


def spent(fraction: float, alpha: float, spending: str = SPENDING) -> float:
    """The error a group design may have spent by a share ``fraction`` of its planned deals (0 to ``alpha``).

    By the spending function ``spending`` names (:data:`SPENDINGS`):

    - ``obrien-fleming``: Lan and DeMets's O'Brien-Fleming-like 2 - 2 Phi(z[1 - alpha/2] / sqrt(t)), almost
      nothing at the first looks and most of ``alpha`` near the cap, where a fixed design would test;
    - ``pocock``: Lan and DeMets's Pocock-like alpha ln(1 + (e - 1) t), spread evenly enough that a difference
      of the size planned for is often decided halfway;
    - ``hsd:GAMMA``: Hwang, Shih and DeCani's alpha (1 - e^(-gamma t)) / (1 - e^(-gamma)) (alpha t at gamma 0),
      a family from near Pocock's (gamma 1) to near O'Brien-Fleming's (gamma -4).

    The earlier a function spends, the sooner it decides a difference of the planned size and the higher the cap
    it needs to keep the power (:func:`wolf_eval.analysis.plan.inflation`)."""
    t = min(fraction, 1.0)
    if t <= 0:
        return 0.0
    name, gamma = spending_function(spending)
    if name == OBRIEN_FLEMING:
        return float(2 * ndtr(ndtri(alpha / 2) / math.sqrt(t)))
    if name == POCOCK:
        return alpha * math.log(1 + (math.e - 1) * t)
    return alpha * t if gamma == 0 else alpha * math.expm1(-gamma * t) / math.expm1(-gamma)


@lru_cache(maxsize=64)
def spending_function(spending: str) -> tuple[str, float]:
    """The function a spending names and its parameter (Hwang-Shih-DeCani's gamma; 0 for the others)."""
    name, _, value = spending.partition(":")
    if name in (OBRIEN_FLEMING, POCOCK) and not value:
        return name, 0.0
    if name == HSD and value:
        try:
            gamma = float(value)
        except ValueError:
            gamma = math.nan
        if math.isfinite(gamma) and abs(gamma) <= 40:
            return name, gamma
    raise ValueError(f"spending {spending!r}: one of {OBRIEN_FLEMING}, {POCOCK} or {HSD}:GAMMA (a number, e.g. "
                     f"{HSD}:-2)")


@lru_cache(maxsize=512)
def _steps(steps: int) -> np.ndarray:
    """The distribution of ``steps`` fair +1/-1 steps' sum over -steps..steps (every value, odd gaps 0)."""
    kernel = np.zeros(2 * steps + 1)
    kernel[::2] = binom.pmf(np.arange(steps + 1), steps, 0.5)
    return kernel


def _spread(mass: np.ndarray, steps: int) -> np.ndarray:
    """The walk's distribution after ``steps`` more fair +1/-1 steps (``mass`` over -D..D, every value)."""
    return np.convolve(mass, _steps(steps)) if steps > 0 else mass


def group_path(signs: np.ndarray, looks: Sequence[int], alpha: float, cap: int,
               spending: str = SPENDING) -> Iterator[tuple[int, int, int, int]]:
    """Per look: (deals, the walk, the deals with a winner, the walk's size that decides there).

    The walk is the number of deals A was ahead on minus those B was. Under "each model is ahead as often
    as the other" each deal with a winner is a fair coin whichever deals have one, so given the looks'
    counts of such deals the walk is a simple random walk, and its chance of first reaching a size at
    each look is computed exactly (the walk's distribution carried look to look, the paths already
    decided taken out). Each look's size is the smallest whose chance stays within the error the look
    may spend (:func:`spent` at the share of ``cap`` seen, less what the looks before spent): the chance
    of ever deciding between models that do not differ is at most ``alpha`` at the cap, exactly, for any
    tie rate and with no normal approximation.
    """
    walk, winners = np.cumsum(signs), np.cumsum(signs != 0)
    mass, before, used = np.ones(1), 0, 0.0
    for n in looks:
        now = int(winners[n - 1])
        mass, before = _spread(mass, now - before), now
        folded = mass[now:].copy()  # P(|walk| = a), a = 0..now
        folded[1:] += mass[:now][::-1]
        tail = np.cumsum(folded[::-1])[::-1]  # P(|walk| >= a), a = 0..now
        budget = spent(n / cap, alpha, spending) - used + 1e-15
        within = np.flatnonzero(tail[1:] <= budget)
        bound = 1 + int(within[0]) if len(within) else now + 1  # now + 1: out of the walk's reach
        bound += (now - bound) % 2 if bound <= now else 0  # the walk has the parity of ``now``: the size it can reach
        if bound <= now:
            used += float(tail[bound])
            mass = mass.copy()
            mass[:now - bound + 1] = 0.0
            mass[now + bound:] = 0.0
        yield n, int(walk[n - 1]), now, bound


# --------------------------------------------------------------------------- the futility bound


@lru_cache(maxsize=256)
def futility_bounds(fractions: tuple[float, ...], beta: float, spending: str = FUTILITY) -> tuple[float, ...]:
    """Per look (the share of the cap it has seen, increasing), the futility bound as a z (``inf``: none there).

    Measured from where the planned difference would put it, the walk at the looks is close to a Brownian
    motion without drift, in the time of the share of the cap seen (the normal approximation the planner's counts
    use). Each bound is the z below which its first crossing at that look has the chance the look may spend:
    :func:`spent` of ``beta`` at its share, less what the looks before spent. The chance is carried look to look
    on a grid (cells a tenth of the smallest step's spread wide, to 8 units either side), the paths already stopped
    taken out, so a share ahead of exactly the planned difference is stopped as smaller with chance ``beta`` by the
    cap, and less where the decision bound stops it first.
    """
    steps = np.diff((0.0, *fractions))
    if not len(steps) or np.any(steps <= 0) or fractions[-1] > 1 + 1e-9:
        raise ValueError("a futility bound's looks are increasing shares of the cap, above 0 and at most 1")
    width = math.sqrt(float(steps.min())) / 10
    grid = np.arange(-math.ceil(8 / width), math.ceil(8 / width) + 1) * width
    mass, used, out = np.zeros(len(grid)), 0.0, []
    mass[len(grid) // 2] = 1.0  # the walk starts at 0
    for t, step in zip(fractions, steps, strict=True):
        reach = min(math.ceil(9 * math.sqrt(step) / width), len(grid) // 2)
        offsets = np.arange(-reach, reach + 1) * width
        kernel = np.diff(ndtr(np.r_[offsets - width / 2, offsets[-1] + width / 2] / math.sqrt(step)))
        mass = np.convolve(mass, kernel, mode="same")  # each cell's chance after one more step
        budget = spent(t, beta, spending) - used
        below = np.cumsum(mass)  # the chance at or below each cell's upper edge
        cell = int(np.searchsorted(below, budget))
        if budget <= 1e-12:
            out.append(math.inf)  # nothing to spend: no path stops there
            continue
        if cell >= len(grid):
            out.append(-math.inf)  # more to spend than paths left: every one stops
            mass[:] = 0.0
            continue
        before = below[cell - 1] if cell else 0.0
        share = (budget - before) / mass[cell]  # of the cell the bound cuts, the part below it
        edge = grid[cell] - width / 2 + share * width
        used += budget
        mass[:cell] = 0.0
        mass[cell] *= 1 - share
        out.append(-edge / math.sqrt(t))
    return tuple(out)
