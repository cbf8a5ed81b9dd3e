"""Anytime-valid decisions: a comparison that may stop as soon as its evidence decides, at a stated error rate.

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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: The error rate a comparison decides at unless told otherwise: the chance, over the whole run, of
#: deciding a question between two models that do not differ on it.
ALPHA = 0.05
#: Bets in the mixture on each side: fractions 1/(BETS+1) .. BETS/(BETS+1) of the largest safe stake.
BETS = 20
#: Below the largest safe stake (never all of it, so one deal cannot bankrupt a bet).
STAKE = 0.98
#: How close the confidence sequence's ends are found (each is moved outward by at most this).
TOLERANCE = 1e-3

FOR_A = "A"
FOR_B = "B"
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
    evidence: float  # the bettor's wealth against "A is ahead as often as B" (decides at 1 / alpha)
    alpha: float

    @property
    def decided(self) -> bool:
        return self.state != UNDECIDED


def ahead(d: Sequence[float] | np.ndarray) -> np.ndarray:
    """Which model each deal's difference puts ahead: +1 A, -1 B, 0 a tie (what the test bets on)."""
    x = np.asarray(d, dtype=float)
    if np.any(np.abs(x) > 1 + 1e-12) or np.any(np.isnan(x)):
        raise ValueError("a deal's difference must be a number in [-1, 1]")
    return np.sign(x)


def decide(d: Sequence[float] | np.ndarray, alpha: float = ALPHA) -> Decision:
    """The decision after the deals ``d`` (differences A minus B in play order), at error rate ``alpha``."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha {alpha}: an error rate lies strictly between 0 and 1")
    signs = ahead(d)
    if not len(signs):
        return Decision(UNDECIDED, 0, math.nan, math.nan, math.nan, math.nan, 1.0, alpha)
    evidence = float(np.exp(log_wealth(signs)[-1]))
    share = float(signs.mean())
    low, high = confidence_sequence(signs, alpha)
    state = UNDECIDED if evidence < 1 / alpha else (FOR_A if share > 0 else FOR_B)
    return Decision(state, len(signs), float(np.mean(d)), share, low, high, evidence, alpha)


def first_decision(d: Sequence[float] | np.ndarray, looks: Sequence[int], alpha: float = ALPHA) -> int | None:
    """The number of deals at the first look (counts of deals, increasing) where the question is decided, or None.

    A comparison looks only at the ends of its rounds; this is what it would have stopped at.
    """
    wealth = log_wealth(ahead(d))
    threshold = math.log(1 / alpha)
    return next((n for n in looks if 0 < n <= len(wealth) and wealth[n - 1] >= threshold), None)
