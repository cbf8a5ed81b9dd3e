r"""How many games a comparison needs to decide, fixed against sequential, on the baseline players' own games.

    wolf-eval compare wolfbot/random wolfbot/cue wolfbot/tom wolfbot/faction --against wolfbot/tom \
      --task triadic -T games=60 -T seed=300 -T max_debate_turns=3 -T max_explanation_turns=2 \
      --log-dir logs/decisive --max-tasks 2
    python benchmarks/decisive.py logs/decisive
    python benchmarks/decisive.py logs/primary --only primary --simulations 1000

The pool: every baseline player in every faction against the same reference opponents, 60 deals
each. ``faction``'s wolves and Jester play ``tom``'s policy, so against ``tom`` their games are
``tom``'s own games record for record: the identical players. Every other pair in a faction is of
known order when the pool separates it (its mean difference over the pool's deals is at least
three standard errors from 0); the rest are left out and listed.

Simulated comparisons draw deals with replacement from the pool (both models' games on a deal
drawn together, so the pairing is the real one) and never play a game. Per pair and question:

- sequential: a comparison in rounds of ``--round`` deals, decided by the betting test of
  :mod:`wolf_eval.analysis.sequential` at ``--alpha``, capped at ``--cap`` deals; the median and 90th
  percentile of the deals (games per model) to a decision, the share decided, the share decided the
  wrong way, and whether the anytime-valid interval at the stop covered the pool's difference;
- betting on the size: the same bettor fed each deal's difference itself instead of its sign (who
  was ahead), for comparison;
- fixed, known difference: the fewest deals a fixed design needs at the same error rate, knowing the
  pool's difference, at 80% power and at the power the sequential design reached within its cap
  (simulated: the exact sign test on the deals where the two differ for a win, the paired t-test
  otherwise);
- fixed, planned: what ``wolf-eval plan`` asks for a ``--planned`` difference (0.10) at 80% power with
  the pair's spread: the fixed design a researcher commits to before knowing the difference.

Closer pairs: each known-order pair again with each deal's sign flipped at random at the rate that
shrinks its share ahead to ``--shrink`` (0.30, 0.15): a difference of known size and direction, as small
as two real models' may be, where the sequential design's savings show.

False decisions: every pair of identical players (the same games: never decided), every model in
every faction against itself (two independent deals of its own per simulated deal), and every
known-order pair with the sign of each deal's difference flipped at random (the same spread, no
difference), each ``--simulations`` times. Then the planner's games for a 0.10 village win-rate
difference from this pool, against a simulation of that many deals. Last (alone with ``--only
primary``), each per-ballot truth figure as the comparison's primary question: decided by the group
design against the win rate's fixed design, at one question's share of the error and at the primary
question's (:func:`truth_as_primary`).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wolf_eval.analysis import compare, plan, sequential
from wolf_eval.analysis.compare import FACTION_LABEL
from wolf_eval.analysis.questions import WIN, Question, asked
from wolf_eval.vocabulary import Faction


@dataclass(frozen=True)
class Pair:
    """Two models' per-deal figures for one question in one faction, against the same opponents."""

    faction: Faction
    question: Question
    a: str
    b: str
    d: np.ndarray  # A's game figure minus B's, per deal both define
    identical: bool  # every deal's two games are the same play, record for record

    @property
    def name(self) -> str:
        return f"{FACTION_LABEL[self.faction]} {self.question.name}: {self.a.split('/')[-1]} − {self.b.split('/')[-1]}"

    @property
    def separated(self) -> bool:
        se = self.d.std(ddof=1) / math.sqrt(len(self.d))
        return bool(abs(self.d.mean()) >= 3 * se > 0)


def pairs(rows: pd.DataFrame) -> Iterator[Pair]:
    """Every pair of compared models in every faction and question, against the same reference opponent."""
    for key, ga, gb in compare.matchups(rows):
        if key["held"] == compare.CROSSPLAY:
            continue
        for q in asked(key["faction"]):
            x, y = q.per_game(ga[list(q.columns)].to_numpy(float)), q.per_game(gb[list(q.columns)].to_numpy(float))
            keep = ~(np.isnan(x) | np.isnan(y))
            if keep.sum() > 1:
                same = bool(np.all(ga["play"].to_numpy() == gb["play"].to_numpy()))
                yield Pair(key["faction"], q, key["a"], key["b"], (x - y)[keep], same)


def stops(rng: np.random.Generator, d: np.ndarray, args: argparse.Namespace) -> np.ndarray:
    """Deals to a decision in each simulated comparison (``cap + 1`` where undecided), signed by its direction."""
    looks = list(range(args.round, args.cap + 1, args.round))
    out = []
    for _ in range(args.simulations):
        drawn = rng.choice(d, size=args.cap)
        n = sequential.first_decision(drawn, looks, args.alpha)
        out.append(args.cap + 1 if n is None else n * (1 if np.sign(drawn[:n]).mean() > 0 else -1))
    return np.array(out)


def _size_decision(d: np.ndarray, looks: list[int], alpha: float) -> int:
    """Deals to a decision for a bettor on each deal's difference itself, not its sign (the cap where undecided)."""
    wealth = sequential.log_wealth(d)
    return next((n for n in looks if wealth[n - 1] >= math.log(1 / alpha)), len(d))


def covered(rng: np.random.Generator, d: np.ndarray, args: argparse.Namespace, simulations: int) -> float:
    """How often the anytime-valid interval at the stop (or the cap) covers the pool's share ahead."""
    looks = list(range(args.round, args.cap + 1, args.round))
    hits = 0
    for _ in range(simulations):
        drawn = rng.choice(d, size=args.cap)
        n = sequential.first_decision(drawn, looks, args.alpha) or args.cap
        low, high = sequential.confidence_sequence(sequential.ahead(drawn[:n]), args.alpha)
        hits += low <= np.sign(d).mean() <= high
    return hits / simulations


def fixed_power(rng: np.random.Generator, d: np.ndarray, n: int, alpha: float, simulations: int) -> float:
    """The power of a fixed design of ``n`` deals drawn from the pool, decided the right way: the exact sign test
    on the deals where the two differ for a 0/1 figure (McNemar's), the paired t-test otherwise."""
    from scipy.stats import binom, t

    drawn = rng.choice(d, size=(simulations, n))
    right = np.sign(drawn.mean(axis=1)) == np.sign(d.mean())
    if np.isin(d, (-1.0, 0.0, 1.0)).all():
        ahead, behind = (drawn > 0).sum(axis=1), (drawn < 0).sum(axis=1)
        p = np.minimum(1.0, 2 * binom.cdf(np.minimum(ahead, behind), ahead + behind, 0.5))
        return float(np.mean((p <= alpha) & (ahead + behind > 0) & right))
    sd = drawn.std(axis=1, ddof=1)
    stat = np.divide(drawn.mean(axis=1), sd / math.sqrt(n), out=np.zeros(simulations), where=sd > 0)
    return float(np.mean((np.abs(stat) > t.ppf(1 - alpha / 2, n - 1)) & right))


def fixed_games(rng: np.random.Generator, d: np.ndarray, power: float, alpha: float) -> int:
    """The fewest deals a fixed design needs to reach ``power`` on this pool (simulated, 1,000 draws a size)."""
    n = 2
    while n < 4000 and fixed_power(rng, d, n, alpha, 1000) < power:
        n = n + 1 if n < 30 else int(n * 1.1)
    return n


def known_order(pool: list[Pair], args: argparse.Namespace, rng: np.random.Generator) -> dict[str, float]:
    """The sequential-against-fixed table of the pairs of known order; the medians by pair and question."""
    print("### Pairs of known order\n")
    print(f"Deals are games per model. Sequential: rounds of {args.round} deals, error rate {args.alpha}, cap "
          f"{args.cap} deals, {args.simulations} simulated comparisons each; the median deals to a decision (90th "
          "percentile), the share decided (the wrong way), and how often the anytime-valid interval at the stop "
          "covered the pool's share ahead. Betting on the size: the same bettor fed each deal's difference itself "
          "instead of its sign. "
          "Fixed, known difference: the fewest deals a fixed design needs, knowing the pool's difference, at 80% "
          "power and at the power the sequential design reached (simulated; exact sign test for wins, paired "
          f"t-test otherwise). Fixed, planned: what `wolf-eval plan` asks for a {args.planned:g} difference at 80% "
          "power with this pair's spread, the design a researcher fixes before knowing the difference.\n")
    print("| pair | deals | difference | sd | sequential median (90%) | decided (wrong way) | interval covered "
          "| betting on the size: median | fixed, known difference: 80% / its power | fixed, planned "
          "| median / fixed known / fixed planned |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    medians = {}
    looks = list(range(args.round, args.cap + 1, args.round))
    for p in pool:
        s = stops(rng, p.d, args)
        n = np.abs(s)
        decided = float(np.mean(n <= args.cap))
        wrong = np.mean((n <= args.cap) & (np.sign(s) != np.sign(np.sign(p.d).mean())))
        median = float(np.median(np.minimum(n, args.cap)))
        size = np.median([_size_decision(rng.choice(p.d, args.cap), looks, args.alpha)
                          for _ in range(args.simulations)])
        sd = float(p.d.std(ddof=1))
        at80, matched = fixed_games(rng, p.d, 0.80, args.alpha), fixed_games(rng, p.d, min(decided, 0.99), args.alpha)
        planned = plan.games_needed(sd / math.sqrt(2), 0.0, args.planned, args.alpha, 0.80)
        medians[p.name] = median
        print(f"| {p.name} | {len(p.d)} | {p.d.mean():+.3f} | {sd:.3f} "
              f"| {median:.0f} ({np.quantile(np.minimum(n, args.cap), 0.9):.0f}) | {decided:.3f} ({wrong:.3f}) "
              f"| {covered(rng, p.d, args, 100):.2f} | {size:.0f} | {at80} / {matched} | {planned} "
              f"| {median / matched:.2f} / {median / planned:.2f} |")
    return medians


def shrunk(pool: list[Pair], args: argparse.Namespace, rng: np.random.Generator) -> None:
    """Pairs of known order made closer, by a known amount: each deal drawn from the pool has its difference's
    sign flipped with the chance that shrinks the share ahead to each of ``--shrink`` (the figure's difference
    shrinks by the same factor). The baseline players differ by so much that any design decides in a few
    deals; these are the small differences a comparison of two real models meets."""
    targets = [float(t) for t in args.shrink.split(",") if t]
    if not targets:
        return
    print(f"\n### Pairs of known order made closer: the share ahead shrunk to {', '.join(map(str, targets))}\n")
    print("| pair | share ahead | difference | sequential median (90%) | decided (wrong way) | fixed, known "
          "difference: 80% / its power | median / fixed at its power |")
    print("|---|---|---|---|---|---|---|")
    for p in pool:
        ahead = float(np.sign(p.d).mean())
        for target in targets:
            if abs(ahead) <= target:
                continue
            flip = (1 - target / abs(ahead)) / 2
            drawn = rng.choice(p.d, 20000) * np.where(rng.random(20000) < flip, -1.0, 1.0)
            s = stops(rng, drawn, args)
            n = np.abs(s)
            decided = float(np.mean(n <= args.cap))
            wrong = float(np.mean((n <= args.cap) & (np.sign(s) != np.sign(ahead))))
            median = float(np.median(np.minimum(n, args.cap)))
            at80 = fixed_games(rng, drawn, 0.80, args.alpha)
            matched = fixed_games(rng, drawn, min(decided, 0.99), args.alpha)
            print(f"| {p.name} | {np.sign(ahead) * target:+.2f} | {drawn.mean():+.3f} "
                  f"| {median:.0f} ({np.quantile(np.minimum(n, args.cap), 0.9):.0f}) | {decided:.3f} ({wrong:.3f}) "
                  f"| {at80} / {matched} | {median / matched:.2f} |", flush=True)


def false_decisions(pool: list[Pair], rows: pd.DataFrame, args: argparse.Namespace,
                    rng: np.random.Generator) -> None:
    """The share of simulated comparisons of players that do not differ that decided anyway."""
    print(f"\n### False decisions between players that do not differ (error rate {args.alpha})\n")
    print("| null | comparisons | decided | share |")
    print("|---|---|---|---|")
    total = decided = 0
    for p in pool:
        if p.identical:
            s = stops(rng, p.d, args)
            k = int(np.sum(np.abs(s) <= args.cap))
            print(f"| {p.name} (identical games) | {len(s)} | {k} | {k / len(s):.3f} |")
            total, decided = total + len(s), decided + k
    for p in pool:
        if p.separated:
            k = sum(sequential.first_decision(rng.choice(p.d, args.cap) * rng.choice([-1.0, 1.0], args.cap),
                                              range(args.round, args.cap + 1, args.round), args.alpha) is not None
                    for _ in range(args.simulations))
            print(f"| {p.name}, each deal's sign flipped | {args.simulations} | {k} | {k / args.simulations:.3f} |")
            total, decided = total + args.simulations, decided + k
    for (model, faction, opponent), g in rows.groupby(["model", "faction", "opponent"]):
        if model == opponent:
            continue
        for q in asked(faction):
            x = q.per_game(g[list(q.columns)].to_numpy(float))
            x = x[~np.isnan(x)]
            if len(x) < 2 or np.all(x == x[0]):
                continue
            k = sum(sequential.first_decision(rng.choice(x, args.cap) - rng.choice(x, args.cap),
                                              range(args.round, args.cap + 1, args.round), args.alpha) is not None
                    for _ in range(args.simulations))
            print(f"| {model.split('/')[-1]} as {FACTION_LABEL[faction]} {q.name} against itself "
                  f"| {args.simulations} | {k} | {k / args.simulations:.3f} |")
            total, decided = total + args.simulations, decided + k
    se = math.sqrt(args.alpha * (1 - args.alpha) / max(total, 1))
    print(f"| **all** | {total} | {decided} | **{decided / max(total, 1):.4f}** (the error rate's binomial sd at "
          f"this count: {se:.4f}) |")


def truth_against_wins(pool: list[Pair], medians: dict[str, float], args: argparse.Namespace,
                       rng: np.random.Generator) -> None:
    """Per pair of known order on a per-ballot truth figure (detection for the village, evasion for the wolves,
    rank in suspicion for the Jester), its games to a decision over the same pair's win rate's in that faction.
    A win-rate pair the pool does not order is simulated all the same at the pool's own difference: how many
    games the win rate would need where the truth figure decided."""
    print("\n### The per-ballot truth figures against the win rate, pairs of known order on the truth figure\n")
    print("| pair | figure | win: pool difference | win: median deals (decided) | figure: median deals "
          "| figure / win |")
    print("|---|---|---|---|---|---|")
    wins = {(p.faction, p.a, p.b): p for p in pool if p.question is WIN}
    for p in pool:
        win = wins.get((p.faction, p.a, p.b))
        if p.question is WIN or p.name not in medians or win is None:
            continue
        n = np.abs(stops(rng, win.d, args))
        median = float(np.median(np.minimum(n, args.cap)))
        print(f"| {FACTION_LABEL[p.faction]} {p.name.split(': ')[1]} | {p.question.name} | {win.d.mean():+.3f}"
              f"{'' if win.separated else ' (not ordered)'} | {median:.0f} ({np.mean(n <= args.cap):.2f}) "
              f"| {medians[p.name]:.0f} | {medians[p.name] / median:.2f} |")


def joint_deals(rows: pd.DataFrame) -> Iterator[tuple[Faction, Question, str, str, np.ndarray, np.ndarray]]:
    """Per pair and faction with a per-ballot truth figure: each deal's two wins (A's, B's: shape (2, deals)) and
    truth-figure difference (A minus B), on the deals where the figure is defined for both, in deal order."""
    for key, ga, gb in compare.matchups(rows):
        if key["held"] == compare.CROSSPLAY:
            continue
        for q in asked(key["faction"]):
            if q is WIN:
                continue
            x, y = q.per_game(ga[list(q.columns)].to_numpy(float)), q.per_game(gb[list(q.columns)].to_numpy(float))
            won = np.array([WIN.per_game(g[list(WIN.columns)].to_numpy(float)) for g in (ga, gb)])
            keep = ~(np.isnan(x) | np.isnan(y) | np.isnan(won).any(axis=0))
            if keep.sum() > 1:
                yield key["faction"], q, key["a"], key["b"], won[:, keep], (x - y)[keep]


def truth_as_primary(rows: pd.DataFrame, args: argparse.Namespace, rng: np.random.Generator) -> None:
    """The per-ballot truth figure as a comparison's primary question, against the win rate's fixed design.

    Per pair and faction with a truth figure: the win rate's fixed design is what ``wolf-eval plan`` asks for a
    ``--planned`` win-rate difference at 80% power (the pool's win rate in that faction, the two models' same-deal
    correlation of wins on the pool). The truth figure is decided by the group design (default spending), capped
    where the planner caps that win-rate design, at its share of the comparison's error: one of the six questions
    of ``triadic`` (``alpha / 6``), or the primary question of a weighted Bonferroni (half of alpha; the win rate's
    fixed design then at the same level). Deals are drawn from the pool with both models' games together, as the
    pool has them, and again with the models swapped on a random share of deals so that the figure's share ahead
    shrinks to each of ``--shrink``: closer pairs, where the figure's savings would run out. Reported: the power,
    the mean and 90th percentile of the games per model (undecided at the cap), and the mean over the win rate's
    fixed design."""
    print(f"\n### The truth figure as the primary question, against the win rate's fixed design for a "
          f"{args.planned:g} win-rate difference at 80% power\n")
    print("| pair | figure | pool: win difference, figure difference, figure's share ahead | share ahead drawn "
          "| error rate | win's fixed design | cap | power | mean games (90th percentile) | mean / win's fixed |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    targets = [float(t) for t in args.shrink.split(",") if t]
    for faction, q, a, b, won, figure in joint_deals(rows):
        share = float(np.sign(figure).mean())
        rate = float(won.mean())
        rho = float(np.corrcoef(won)[0, 1]) if won[0].std() > 0 and won[1].std() > 0 else 0.0
        pair = (f"| {FACTION_LABEL[faction]} {a.split('/')[-1]} − {b.split('/')[-1]} | {q.name} "
                f"| {won[0].mean() - won[1].mean():+.2f}, {figure.mean():+.3f}, {share:+.2f} ")
        for target in [abs(share), *(t for t in targets if t < abs(share))]:
            swap = (1 - target / abs(share)) / 2 if share else 0.0
            for name, level in (("one of 6", args.alpha / 6), ("primary", args.alpha / 2)):
                fixed = plan.games_needed(WIN.spread_at(rate), rho, args.planned, level, 0.80,  # type: ignore[misc]
                                          WIN.spread_at(plan.alternative(rate, args.planned)))  # type: ignore[misc]
                cap = plan.group_cap(fixed, level, 0.80)
                power, stops = _primary_runs(rng, figure, swap, cap, level, args)
                print(f"{pair}| {np.sign(share) * target:+.2f} | {name}, {level:.4f} | {fixed} | {cap} | {power:.3f} "
                      f"| {np.mean(stops):.0f} ({np.quantile(stops, 0.9):.0f}) | {np.mean(stops) / fixed:.2f} |",
                      flush=True)


def _primary_runs(rng: np.random.Generator, figure: np.ndarray, swap: float, cap: int, level: float,
                  args: argparse.Namespace) -> tuple[float, list[int]]:
    """Simulated comparisons of one truth figure by the group design: the power (decided the pool's way) and the
    games per model each took (the cap where undecided)."""
    looks = list(range(args.round, cap + 1, args.round))
    stops, right = [], 0
    for _ in range(args.simulations):
        d = figure[rng.integers(0, len(figure), cap)] * np.where(rng.random(cap) < swap, -1.0, 1.0)
        n = sequential.first_decision(d, looks, level, sequential.GROUP, cap)
        stops.append(cap if n is None else n)
        right += n is not None and np.sign(np.sign(d[:n]).sum()) == np.sign(np.sign(figure).mean())
    return right / args.simulations, stops


def planner_check(rows: pd.DataFrame, args: argparse.Namespace, rng: np.random.Generator) -> None:
    """The planner's games for a 0.10 village win-rate difference from this pool, and a simulation of them."""
    table = plan.plan(rows, 0.10, 0.80, args.alpha)
    village = table[(table["question"] == "win") & (table["faction"] == Faction.VILLAGERS)].set_index("design")
    print("\n### The planner on this pool: a 0.10 village win-rate difference at 80% power\n")
    print("| design | rho | games per model (planner) | simulated power at that size |")
    print("|---|---|---|---|")
    base = float(village.iloc[0]["value"])
    for design in plan.DESIGNS:
        r = village.loc[design]
        n = int(r["games_per_model"])
        d = np.array([plan.paired_outcomes(rng, plan.alternative(base, 0.10), base, float(r["rho"]), n)
                      for _ in range(2000)])
        sd = d.std(axis=1, ddof=1)
        z = np.divide(d.mean(axis=1), sd / math.sqrt(n), out=np.zeros(len(d)), where=sd > 0)
        print(f"| {design} | {r['rho']:.2f} | {n} | {np.mean(np.abs(z) > 1.96):.3f} |")
    half = plan.games_needed(0.5, 0.0, 0.10, args.alpha, 0.80, math.sqrt(0.24))
    print(f"\n(village win rate in the pool {base:.2f}, against {plan.alternative(base, 0.10):.2f}; 0.50 against "
          f"0.60 with nothing shared: {half} games a side)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("logs", nargs="+", help="the pool's logs (the compare command above)")
    ap.add_argument("--simulations", type=int, default=400, help="simulated comparisons per pair and null")
    ap.add_argument("--round", type=int, default=10, help="deals per round of the sequential design")
    ap.add_argument("--cap", type=int, default=400, help="deals after which a sequential comparison stops undecided")
    ap.add_argument("--alpha", type=float, default=sequential.ALPHA)
    ap.add_argument("--planned", type=float, default=plan.DIFFERENCE,
                    help="the difference the fixed design is planned for, as wolf-eval plan's --difference")
    ap.add_argument("--shrink", default="0.3,0.15",
                    help="shares ahead the known-order pairs are also shrunk to (comma-separated; empty for none)")
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--only", choices=("primary",), help="only the truth figure as the primary question")
    args = ap.parse_args()
    started = time.perf_counter()
    rows, _ = compare.comparison_rows(args.logs)
    everyone = list(pairs(rows))
    print(f"Pool: {rows[['log', 'sample', 'epoch']].drop_duplicates().shape[0]} games in {', '.join(args.logs)}; "
          f"{len(everyone)} pairs of models by faction and question against the same opponents\n")
    separated = [p for p in everyone if p.separated]
    unclear = [p.name for p in everyone if not p.separated and not p.identical]
    rng = np.random.default_rng(args.seed)
    if args.only == "primary":
        truth_as_primary(rows, args, rng)
        print(f"\n<!-- {time.perf_counter() - started:.0f} s -->")
        return
    medians = known_order(separated, args, rng)
    if unclear:
        print(f"\nLeft out, the pool does not order them (mean difference under 3 standard errors): "
              f"{'; '.join(unclear)}")
    shrunk(separated, args, rng)
    false_decisions(everyone, rows, args, rng)
    truth_against_wins(everyone, medians, args, rng)
    planner_check(rows, args, rng)
    truth_as_primary(rows, args, rng)
    print(f"\n<!-- {time.perf_counter() - started:.0f} s -->")


if __name__ == "__main__":
    main()
