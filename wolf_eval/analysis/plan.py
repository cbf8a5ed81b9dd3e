"""Know the price first (``wolf-eval plan``): from any logs, the games and dollars a comparison needs.

A pilot (any finished games: self-play evals, a short ``compare``) gives, per headline figure
(each question of :mod:`wolf_eval.analysis.questions` in each faction it applies to), the spread of
one game's contribution and how much two models' games on the same deal move together. A fixed
design of ``n`` deals per model then detects a true difference ``delta`` at two-sided error rate
``alpha`` with the chance ``power`` when

    n = (z[1 - alpha/2] + z[power])^2 * (sd_A^2 + sd_B^2 - 2 * rho * sd_A * sd_B) / delta^2

(the normal approximation to the test of a paired difference), ``alpha`` being each question's share of
the comparison's error rate (Bonferroni over every question of every pair, as ``compare`` tests them).
``sd`` is the per-game standard deviation of the figure as the tables pool it (a ratio of sums: a
game's jackknife pseudo-value, so a game with many pairs weighs more), measured within each (model,
opponent, faction) of the pilot so that differences between the pilot's models do not pass for
noise, and the same for both models; a win rate's is fixed by the rate, sqrt(p (1 - p)), at the
pilot's rate and at the rate ``delta`` away towards 0.5 (so 0.50 against 0.60 takes 385 games a side). ``rho`` is the
correlation of two models' pseudo-values on the same deal, measured on the pilot's pairs of games
of each design (at least :data:`MIN_DEALS` of them):

- two separate runs: nothing shared, ``rho`` = 0;
- against reference opponents (``compare``'s default): the deal and every other seat's player are
  shared;
- cross-play (``compare --crossplay``): the deal is shared, the other seats swap players;
- self-play (one eval per model): the deal is shared, but every seat changes player, so a faction's
  difference is not that faction's play.

A design the pilot has no pairs of is planned with ``rho`` = 0 and says so. The sequential design
(``compare --sequential``, against reference opponents) has no formula: its games to a decision (mean and
90th percentile) and its power at the cap are simulated here from the same spread and correlation by the
shipped decision function (:func:`sequential_games`); the group design's cap is the fixed design's games times
the inflation its spending function (and its futility bound, which stops some comparisons of the planned
difference as smaller) needs to keep the power at a look every round, computed on the normal
approximation the fixed design's count uses (:func:`group_cap`, :func:`inflation`), and ``compare
--sequential`` without ``--max-games`` takes the same cap for a win rate at its widest spread
(:func:`planned_cap`). Dollars are games times the pilot's mean cost per game, every seat's tokens at their
model's price (or at ``priced_as``'s, for a pilot of baseline players).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.special import ndtr
from scipy.stats import norm

from wolf_eval.analysis import sequential
from wolf_eval.analysis.compare import CROSSPLAY, FACTION_LABEL, deal_order, matchups
from wolf_eval.analysis.questions import QUESTIONS, WIN, Question, asked
from wolf_eval.analysis.rounds import ROUND_GAMES
from wolf_eval.measures import cost as cost_
from wolf_eval.vocabulary import Faction

#: The difference a plan detects and the chance it detects it with, unless told otherwise.
DIFFERENCE = 0.10
POWER = 0.80
#: The designs a plan prices, in the order it prints them.
SEPARATE, REFERENCE, CROSS, SELF = "two separate runs", "against reference opponents", "cross-play", "self-play"
DESIGNS = (SEPARATE, REFERENCE, CROSS, SELF)
#: Fewest same-deal pairs a correlation is measured on before a plan uses it.
MIN_DEALS = 20
#: Simulated comparisons behind a sequential estimate, and their seed.
SIMULATIONS = 400
SIMULATION_SEED = 35


@dataclass(frozen=True)
class Spread:
    """What a pilot says of one figure: its value, its per-game spread, and the same-deal correlation per design."""

    question: Question
    faction: Faction
    games: int
    value: float
    sd: float  # of a game's pseudo-value, pooled within (model, opponent) groups
    game_sd: float  # of a game's own figure (what the sequential test differences), pooled alike
    rho: dict[str, tuple[float, int]]  # design -> (correlation, deals it was measured on)

    @property
    def label(self) -> str:
        return f"{FACTION_LABEL[self.faction]} {self.question.label}"


def pseudo_values(counts: np.ndarray, q: Question) -> np.ndarray:
    """Each game's jackknife pseudo-value of the pooled figure: n * value - (n - 1) * value without that game.

    Their mean is (nearly) the pooled figure and their spread its per-game spread, for any figure of
    summed counts; games whose removal leaves the figure undefined are NaN.
    """
    n = len(counts)
    total = counts.sum(axis=0)
    whole = float(q.figure(total))
    if n < 2 or math.isnan(whole):
        return np.full(n, np.nan)
    without = np.asarray(q.figure((total[None, :] - counts).T), dtype=float)
    return n * whole - (n - 1) * without


def _pseudo(games: pd.DataFrame, q: Question) -> np.ndarray:
    return pseudo_values(games[list(q.columns)].to_numpy(float), q)


def _pooled_sd(groups: Sequence[np.ndarray]) -> float:
    """The standard deviation pooled within groups (each group's own mean taken out)."""
    kept = [g[~np.isnan(g)] for g in groups]
    df = sum(len(g) - 1 for g in kept if len(g) > 1)
    if df < 1:
        return math.nan
    return math.sqrt(sum(float(((g - g.mean()) ** 2).sum()) for g in kept if len(g) > 1) / df)


def _correlation(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[float, int]:
    """The correlation of paired values pooled over matchups (each centred on its own means), and the pairs."""
    sxy = sxx = syy = 0.0
    n = 0
    for x, y in pairs:
        keep = ~(np.isnan(x) | np.isnan(y))
        x, y = x[keep], y[keep]
        if len(x) < 2:
            continue
        x, y = x - x.mean(), y - y.mean()
        sxy, sxx, syy, n = sxy + float(x @ y), sxx + float(x @ x), syy + float(y @ y), n + len(x)
    return (sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else math.nan), n


def _self_play_pairs(rows: pd.DataFrame, faction: Faction) -> list[tuple[pd.DataFrame, pd.DataFrame]]:
    """Pairs of two models' self-play games on the same deals, each model seen in the faction."""
    mine = rows[(rows["model"] == rows["opponent"]) & (rows["faction"] == faction)]
    models = sorted(set(mine["model"]))
    out = []
    for i, a in enumerate(models):
        for b in models[i + 1:]:
            ga, gb = deal_order(mine[mine["model"] == a]), deal_order(mine[mine["model"] == b])
            both = ga.index.intersection(gb.index, sort=False)
            if len(both) > 1:
                out.append((ga.loc[both], gb.loc[both]))
    return out


def spread(rows: pd.DataFrame, q: Question, faction: Faction) -> Spread | None:
    """What the pilot's rows say of one figure; None where no game of the pilot defines it."""
    mine = rows[rows["faction"] == faction]
    groups = [g[list(q.columns)].to_numpy(float) for _, g in mine.groupby(["task", "model", "opponent"])]
    defined = [g for g in groups if not np.isnan(q.per_game(g)).all()]
    if not defined:
        return None
    value = float(q.figure(np.concatenate(defined).sum(axis=0)))
    rho: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    for key, ga, gb in matchups(mine):
        design = CROSS if key["held"] == CROSSPLAY else REFERENCE
        rho.setdefault(design, []).append((_pseudo(ga, q), _pseudo(gb, q)))
    for ga, gb in _self_play_pairs(mine, faction):
        rho.setdefault(SELF, []).append((_pseudo(ga, q), _pseudo(gb, q)))
    return Spread(q, faction, sum(len(g) for g in defined), value,
                  _pooled_sd([pseudo_values(g, q) for g in defined]), _pooled_sd([q.per_game(g) for g in defined]),
                  {d: _correlation(p) for d, p in rho.items()})


def games_needed(sd: float, rho: float, difference: float, alpha: float, power: float,
                 other_sd: float | None = None) -> int:
    """Deals per model for a fixed design to detect ``difference`` (the formula in the module's docstring, with
    ``2 sd^2 (1 - rho)`` the variance of a deal's difference; ``other_sd`` the second model's where it differs)."""
    z = norm.ppf(1 - alpha / 2) + norm.ppf(power)
    b = sd if other_sd is None else other_sd
    return math.ceil(z * z * (sd * sd + b * b - 2 * rho * sd * b) / difference ** 2)


def alternative(value: float, difference: float) -> float:
    """The second model's value: ``difference`` away from the pilot's, towards the middle of [0, 1] (where a
    rate's spread is largest, so the plan errs long)."""
    return value + difference if value + difference <= 1 and (value < 0.5 or value - difference < 0) \
        else value - difference


def spreads(s: Spread, difference: float) -> tuple[float, float]:
    """One game's sd for each of the two models: the pilot's, or where the value fixes it (a win rate), at the
    pilot's value and at the alternative."""
    at = s.question.spread_at
    return (s.sd, s.sd) if at is None else (at(s.value), at(alternative(s.value, difference)))


def paired_outcomes(rng: np.random.Generator, p_a: float, p_b: float, rho: float, n: int) -> np.ndarray:
    """``n`` deals' differences of two 0/1 outcomes with rates ``p_a`` and ``p_b`` and correlation ``rho``
    (clipped to what the two rates allow)."""
    both = p_a * p_b + rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    both = min(max(both, max(0.0, p_a + p_b - 1)), min(p_a, p_b))
    u = rng.random(n)
    only_a, only_b = p_a - both, p_b - both
    return np.where(u < only_a, 1.0, np.where(u < only_a + only_b, -1.0, 0.0))


def _grid(looks: int) -> tuple[np.ndarray, float]:
    """Where the normal walk's density is kept over ``looks`` equal looks: a tenth of a look's sd apart, to +-8."""
    spacing = math.sqrt(1.0 / looks) / 10
    return np.arange(-math.ceil(8 / spacing), math.ceil(8 / spacing) + 1) * spacing, spacing


def _inside(grid: np.ndarray, spacing: float, bound: float) -> np.ndarray:
    """Each grid point's share of the walk's values within +-``bound``: its cell's length inside (the midpoint rule,
    the cell the bound cuts counted only up to the bound)."""
    return np.clip(np.minimum(grid + spacing / 2, bound) - np.maximum(grid - spacing / 2, -bound), 0.0, None)


def _crossing(mass: np.ndarray, grid: np.ndarray, step: float, drift: float, bound: float) -> float:
    """The chance that a walk with point masses ``mass`` at ``grid`` moves by N(drift, step) beyond +-``bound``."""
    root = math.sqrt(step)
    return float(mass @ (ndtr((-bound - grid - drift) / root) + ndtr((grid + drift - bound) / root)))


def _carry(mass: np.ndarray, spacing: float, step: float, drift: float) -> np.ndarray:
    """The density on the grid after one step of N(drift, step) from the point masses ``mass``."""
    reach = int(math.ceil(9 * math.sqrt(step) / spacing))
    offsets = np.arange(-reach, reach + 1) * spacing
    kernel = norm.pdf((offsets - drift) / math.sqrt(step)) / math.sqrt(step)
    return np.convolve(mass, kernel, mode="same")


@lru_cache(maxsize=256)
def normal_bounds(looks: int, alpha: float, spending: str = sequential.SPENDING) -> tuple[float, ...]:
    """The bounds the spending sets at ``looks`` equally spaced looks, on a normal walk with variance 1 at the cap and
    no drift: at each look the size beyond which the walk's chance of first reaching it is the error spent there."""
    grid, spacing = _grid(looks)
    step = 1.0 / looks
    density = norm.pdf(grid / math.sqrt(step)) / math.sqrt(step)
    bounds: list[float] = []
    for k in range(1, looks + 1):
        budget = sequential.spent(k / looks, alpha, spending) - sequential.spent((k - 1) / looks, alpha, spending)
        if k == 1:
            bound = math.sqrt(step) * float(norm.isf(max(budget, 1e-300) / 2))
        else:
            mass = density * _inside(grid, spacing, bounds[-1])
            bound = _bound(mass, grid, step, budget)
            density = _carry(mass, spacing, step, 0.0)
        bounds.append(bound)
    return tuple(bounds)


def _bound(mass: np.ndarray, grid: np.ndarray, step: float, budget: float) -> float:
    """The size a walk with point masses ``mass`` first reaches, one step on, with chance ``budget`` (12: never)."""
    if _crossing(mass, grid, step, 0.0, 12.0) >= budget:
        return 12.0
    return float(brentq(lambda b: _crossing(mass, grid, step, 0.0, b) - budget, 0.0, 12.0, xtol=1e-7))


def normal_stops(bounds: Sequence[float], drift: float, smaller: Sequence[float] | None = None) -> np.ndarray:
    """The chance that a normal walk with ``drift`` at the cap (variance 1 there) first crosses each look's bound.

    With ``smaller``, the futility bounds as z (:func:`wolf_eval.analysis.sequential.futility_bounds`), a walk also
    stops at a look of share ``t`` where it lies within +-(drift t - bound sqrt(t)): where the runtime rule stops a
    question as smaller than planned when ``drift`` is what the planned difference gives at the cap."""
    looks = len(bounds)
    grid, spacing = _grid(looks)
    step, root = 1.0 / looks, math.sqrt(1.0 / looks)
    density = norm.pdf((grid - drift * step) / root) / root
    chances = [float(ndtr((-bounds[0] - drift * step) / root) + ndtr((drift * step - bounds[0]) / root))]
    for k, (before, bound) in enumerate(zip(bounds, bounds[1:], strict=False), start=1):
        futile = 0.0 if smaller is None else max(0.0, drift * k * step - smaller[k - 1] * math.sqrt(k * step))
        mass = density * (_inside(grid, spacing, before) - _inside(grid, spacing, min(futile, before)))
        chances.append(_crossing(mass, grid, step, drift * step, bound))
        density = _carry(mass, spacing, step, drift * step)
    return np.array(chances)


@lru_cache(maxsize=256)
def inflation(looks: int, alpha: float, power: float, spending: str = sequential.SPENDING,
              futility: str = sequential.NO_FUTILITY) -> float:
    """How many times a fixed design's deals the group design needs for the same power, looked at ``looks`` times
    equally spaced: the drift at which its chance of crossing a bound is ``power``, over the fixed design's
    z[1 - alpha/2] + z[power], squared. With a ``futility`` bound (its beta-spending) a walk that stops as smaller
    first is not decided, so more deals are needed: the futility bound is non-binding, the decision bounds stay
    where they were. Bounds and chances are the normal approximation to the walk (Armitage, McPherson and Rowe's
    recursion on a grid), as the fixed design's count is."""
    bounds = normal_bounds(looks, alpha, spending)
    smaller = None if futility == sequential.NO_FUTILITY else \
        sequential.futility_bounds(tuple(k / looks for k in range(1, looks + 1)), 1 - power, futility)
    fixed = float(norm.isf(alpha / 2) + norm.ppf(power))
    drift = float(brentq(lambda x: normal_stops(bounds, x, smaller).sum() - power, 0.5 * fixed, 3 * fixed,
                         xtol=1e-6))
    return (drift / fixed) ** 2


def group_cap(fixed: int, alpha: float, power: float, spending: str = sequential.SPENDING,
              round_games: int = ROUND_GAMES, futility: str = sequential.NO_FUTILITY) -> int:
    """The group design's cap for a question a fixed design of ``fixed`` deals decides at ``alpha`` with ``power``:
    the spending's :func:`inflation` (with the ``futility`` bound's) times it at a look every round, up to a whole
    round (the looks depend on the cap, so the two are solved together)."""
    rounds_ = max(1, math.ceil(fixed / round_games))
    for _ in range(8):
        grown = inflation(rounds_, alpha, power, spending, futility)
        cap = round_games * max(1, math.ceil(grown * fixed / round_games))
        if cap == rounds_ * round_games:
            break
        rounds_ = cap // round_games
    return cap


def planned_cap(difference: float, power: float, alpha: float, spending: str = sequential.SPENDING,
                round_games: int = ROUND_GAMES, futility: str = sequential.NO_FUTILITY) -> int:
    """``compare --sequential``'s cap without a pilot: the group design's for a win rate at its widest spread
    (0.50 against 0.50 plus the difference), nothing shared, each question at ``alpha``."""
    at = cast(Callable[[float], float], WIN.spread_at)
    return group_cap(games_needed(at(0.5), 0.0, difference, alpha, power, at(alternative(0.5, difference))), alpha,
                     power, spending, round_games, futility)


@dataclass(frozen=True)
class Sequential:
    """What simulated comparisons in rounds of one design cost and decide at a true difference."""

    mean: float  # games per model, a comparison stopped as smaller or undecided counted where it stopped
    p90: float  # the 90th percentile of the same
    power: float  # the share decided the right way within the cap
    cap: int
    smaller: float = 0.0  # the share stopped as smaller than planned (a futility bound's)


def sequential_games(s: Spread, rho: float, difference: float, alpha: float, cap: int,
                     design: str = sequential.GROUP, simulations: int = SIMULATIONS,
                     round_games: int = ROUND_GAMES, spending: str = sequential.SPENDING,
                     futile: sequential.Futility | None = None) -> Sequential:
    """Games per model a comparison in rounds needs to decide a true ``difference``, by the shipped decision
    function (:func:`wolf_eval.analysis.sequential.first_stop`) on simulated deals, with the group design's
    ``futile`` bound if given.

    A win is drawn as two correlated 0/1 outcomes at the pilot's rate and that rate plus the difference;
    any other figure as a normal difference of the games' own figures (mean ``difference``, spread from
    the pilot's and ``rho``), clipped to [-1, 1].
    """
    rng = np.random.default_rng(SIMULATION_SEED)
    looks = list(range(round_games, cap + 1, round_games))
    stops, right, smaller = [], 0, 0
    better = sequential.FOR_A if s.question is not WIN or alternative(s.value, difference) > s.value \
        else sequential.FOR_B
    for _ in range(simulations):
        if s.question is WIN:
            d = paired_outcomes(rng, alternative(s.value, difference), s.value, rho, cap)
        else:
            d = np.clip(rng.normal(difference, s.game_sd * math.sqrt(2 * (1 - rho)), cap), -1.0, 1.0)
        n, state = sequential.first_stop(d, looks, alpha, design, cap, spending, futile)
        stops.append(n)
        right += state == better
        smaller += state == sequential.SMALLER
    done = np.array(stops, dtype=float)
    return Sequential(float(done.mean()), float(np.quantile(done, 0.9)), right / simulations, cap,
                      smaller / simulations)


def usd_per_game(rows: pd.DataFrame, priced_as: str | None = None) -> float:
    """The pilot's mean cost per game, every seat's tokens at their model's price (or ``priced_as``'s); NaN where a
    seat model has no price."""
    games = rows.drop_duplicates(["log", "sample", "epoch"])
    if games.empty:
        return math.nan
    if priced_as is None:
        return float(np.mean([cost_.game_cost(u)["usd"] for u in games["usage"]]))
    return float(np.mean([math.fsum(cost_.usd(priced_as, x) for x in u.values()) for u in games["usage"]]))


def pair_questions(rows: pd.DataFrame) -> int:
    """The questions a comparison of two models on the pilot's factions asks (against one reference opponent)."""
    return max(1, sum(len(asked(f)) for f in set(rows["faction"])))


def plan(rows: pd.DataFrame, difference: float = DIFFERENCE, power: float = POWER, alpha: float = sequential.ALPHA,
         priced_as: str | None = None, design: str = sequential.GROUP, questions: int = 1,
         max_games: int | None = None, spending: str = sequential.SPENDING,
         futility: str = sequential.FUTILITY) -> pd.DataFrame:
    """Per headline figure the pilot defines and per design: the correlation used, games per model and in all,
    and dollars, each question at ``alpha`` shared by the comparison's ``questions`` (Bonferroni); then the
    sequential ``design``'s simulated games (mean and 90th percentile) and its power at its cap (``max_games``,
    else the group design's for that figure, spending its error by ``spending``), the group design stopping a
    question as smaller than planned by the beta-spending ``futility`` names (:data:`sequential.NO_FUTILITY`:
    never)."""
    if not 0 < difference < 1 or not 0 < power < 1 or not 0 < alpha < 1:
        raise ValueError("the difference, the power and alpha must each lie strictly between 0 and 1")
    futility = futility if design == sequential.GROUP else sequential.NO_FUTILITY
    futile = sequential.futility(futility, difference, power)
    usd, each = usd_per_game(rows, priced_as), alpha / questions
    out = []
    for q in QUESTIONS:
        for f in Faction:
            s = spread(rows, q, f) if q.applies(f) and f in set(rows["faction"]) else None
            if s is None or math.isnan(s.sd) or (q.spread_at is None and s.sd == 0):
                continue
            sd, other = spreads(s, difference)
            base = {"figure": s.label, "question": q.name, "faction": f, "pilot_games": s.games, "value": s.value,
                    "sd": sd, "other_sd": other, "sd_from": "rate" if q.spread_at else "pilot", "alpha": each}
            for d in DESIGNS:
                rho, deals = (0.0, 0) if d == SEPARATE else s.rho.get(d, (math.nan, 0))
                measured = not math.isnan(rho) and (deals >= MIN_DEALS or d == SEPARATE)
                n = games_needed(sd, rho if measured else 0.0, difference, each, power, other)
                out.append(base | {"design": d, "rho": rho if measured else 0.0, "rho_deals": deals,
                                   "rho_measured": measured or d == SEPARATE, "games_per_model": n,
                                   "games": 2 * n, "usd": 2 * n * usd})
            rho, deals = s.rho.get(REFERENCE, (math.nan, 0))
            rho = 0.0 if math.isnan(rho) or deals < MIN_DEALS else rho
            cap = max_games or group_cap(games_needed(sd, rho, difference, each, power, other), each, power, spending,
                                         futility=futility)
            run = sequential_games(s, rho, difference, each, cap, design, spending=spending, futile=futile)
            label = f"{design}-sequential" + (f" with a futility bound ({futility})" if futile else "")
            out.append(base | {"design": f"{label}, {REFERENCE}", "rho": rho, "rho_deals": 0,
                               "rho_measured": deals >= MIN_DEALS, "games_per_model": run.mean, "p90": run.p90,
                               "power": run.power, "smaller": run.smaller, "cap": cap, "games": 2 * run.mean,
                               "usd": 2 * run.mean * usd, "usd_p90": 2 * run.p90 * usd})
    return pd.DataFrame(out)


PLAN_NOTE = (
    "Games per model: deals each of the two models plays for a fixed design to detect the difference with the "
    "power asked, each question at the comparison's error rate shared by its questions (normal approximation; "
    "rho the correlation of two models' games on the same deal, measured on the pilot's pairs of that design, "
    "else 0 assumed). sd per game: what sets the count. A win rate's is fixed by the rate, so it is taken at the "
    "pilot's rate and at the rate the difference away (a pilot whose models won all and none of their games "
    "still has the spread of its pooled rate); any other figure's is one game's spread as the tables pool it, "
    "measured within each model and opponent of the pilot. In all: both models' games. Sequential: "
    "`compare --sequential` against reference opponents, simulated by its own decision function from the same "
    "spread and correlation: the mean games per model (each comparison counted where it stopped: decided, stopped "
    "as smaller than planned by the group design's futility bound, or undecided at the cap), the 90th "
    "percentile, the power at the cap, and the share stopped as smaller at the planned difference. Self-play "
    "shares the deal but changes every seat's player, so its difference is not one faction's play.")


def _usd(v: float) -> str:
    return "n/a" if math.isnan(v) else f"${v:,.2f}"


def _rho(r: Mapping[Hashable, Any]) -> str:
    if r["design"] == SEPARATE:
        return "0"
    if r["rho_measured"]:
        return f"{r['rho']:.2f} ({r['rho_deals']} deals)" if r["rho_deals"] else f"{r['rho']:.2f}"
    return (f"0 (only {r['rho_deals']} deals in the pilot)" if 0 < r["rho_deals"] < MIN_DEALS else
            "0 (the pilot's pairs do not vary)" if r["rho_deals"] else "0 (not in the pilot)")


def _sd(r: Mapping[Hashable, Any], difference: float) -> str:
    if r["sd_from"] == "rate":
        return (f"{r['sd']:.2f} and {r['other_sd']:.2f} (the rates {r['value']:.2f} and "
                f"{alternative(r['value'], difference):.2f})")
    return f"{r['sd']:.2f} (pilot)"


def _games(r: Mapping[Hashable, Any]) -> tuple[str, str]:
    """A row's games per model and its dollars: the sequential design's mean, 90th percentile, cap and power."""
    if "p90" not in r or math.isnan(r["p90"]):
        return f"{r['games_per_model']:.0f}", _usd(r["usd"])
    smaller = f", {r['smaller']:.2f} stopped as smaller than planned" if r["smaller"] else ""
    return (f"{r['games_per_model']:.0f} on average, 90% by {r['p90']:.0f}; power {r['power']:.2f} at "
            f"--max-games {r['cap']:.0f}{smaller}", f"{_usd(r['usd'])} (90%: {_usd(r['usd_p90'])})")


def plan_markdown(table: pd.DataFrame, difference: float, power: float, alpha: float, pilot_games: int,
                  usd_note: str) -> str:
    """The plan as Markdown, closing with the figure that sets the comparison's count."""
    each = float(table["alpha"].iloc[0])
    lines = [f"### What a comparison costs: a difference of {difference:g} at power {power:g}, error rate {alpha:g}",
             "", f"From {pilot_games} pilot games; each question at {each:.3g} (the error rate shared by "
                 f"{round(alpha / each)} question{'s' if round(alpha / each) > 1 else ''}). {PLAN_NOTE} {usd_note}", "",
             "| figure | pilot value | sd per game | design | rho (same deal) | games per model | games in all | USD |",
             "|---|---|---|---|---|---|---|---|"]
    for r in table.to_dict("records"):
        games, usd = _games(r)
        lines.append(f"| {r['figure']} | {r['value']:.2f} | {_sd(r, difference)} | {r['design']} | {_rho(r)} "
                     f"| {games} | {r['games']:.0f} | {usd} |")
    ahead = table[table["design"] == REFERENCE].sort_values("games_per_model").iloc[-1]
    lines += ["", f"The count is set by the figure that needs the most games: {ahead['figure']} "
                  f"({ahead['games_per_model']:.0f} games per model against reference opponents); the others need "
                  "fewer."]
    return "\n".join(lines) + "\n"
