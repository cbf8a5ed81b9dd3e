r"""The sequential designs against a fixed one, on simulated comparisons with a known answer (no game is played).

    python benchmarks/designs.py                        # 1,000 comparisons a row
    python benchmarks/designs.py --comparisons 2000

Every comparison is decided by the shipped decision function
(:func:`wolf_eval.analysis.sequential.first_decision`), each question at the error rate the comparison
gives it (:class:`wolf_eval.analysis.rounds.Stopping`), looked at after every round of 10 deals.

A deal is drawn as ``compare`` plays one against reference opponents: for each faction of ``triadic``
(village, wolves, Jester), each model's game gives a win and a per-ballot truth figure in [0, 1]
(detection, evasion, rank in suspicion). The deal itself moves every model's game on it alike (a latent
normal shared by the models, weight ``--rho``), so two models' games on a deal correlate as they do
against a fixed reference; a game's truth figure moves with its own win. A model's win rate in a
faction is the chance its latent falls below the rate's normal quantile.

1. False decisions. Models that do not differ (every rate and figure the same), two or three of them:
   the share of comparisons in which *any* question of any pair is decided, by design and by how the
   error rate is shared (the comparison's, split among its questions; or each question's alone).
2. A 0.10 win-rate difference. One pair whose village win rates differ by 0.10 (0.55 against 0.45, and
   0.37 against 0.27), every other question as in (1): the power (decided the right way within the cap),
   the mean and 90th percentile of the games per model to a decision (an undecided comparison counted at
   the cap), against the fixed design that reaches 80% power at the same error rate
   (:func:`wolf_eval.analysis.plan.games_needed`, the paired normal approximation), for the group design
   under each spending function of :data:`SPENDINGS`, each capped where the planner caps it
   (:func:`wolf_eval.analysis.plan.group_cap`), and the anytime test. The two models' wins on a deal are
   drawn with the same-deal correlation given (:func:`wolf_eval.analysis.plan.paired_outcomes`), as the
   planner assumes. Last, a true difference of 0.20 where the cap was planned for 0.10, and the spending the
   stated criterion picks (:func:`choose`): the default's measurement.
3. The futility bound. The group design under the default spending, with each futility bound of
   :data:`FUTILITIES` (its beta spending; ``none``: no futility bound) and capped where the planner caps it
   for that bound, at true win-rate differences 0, 0.05, 0.10 and 0.20 of a cap planned for 0.10: the power,
   the share stopped as smaller than planned, the mean and 90th percentile of the games per model (each
   comparison counted where it stopped), and at 0.10 the mean over the fixed design's at 80% power and at the
   power reached; then the bound the stated criterion picks (:func:`choose_futility`). The null table (1) has the
   default bound's rows: the whole comparison's false decisions with it on.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from wolf_eval.analysis import plan, rounds, sequential
from wolf_eval.analysis.rounds import ROUND_GAMES

#: Each faction's win rate, and its truth figure's mean and game-to-game spread, as the baseline pools show them.
FACTIONS = {"village": (0.45, 0.60, 0.15), "wolves": (0.35, 0.40, 0.15), "Jester": (0.20, 0.55, 0.20)}


@dataclass(frozen=True)
class World:
    """The models' true figures: each model's win rate per faction (the truth figures' means do not differ)."""

    rates: list[dict[str, float]]
    rho: float


def deals(rng: np.random.Generator, world: World, n: int) -> dict[tuple[int, str, str], np.ndarray]:
    """``n`` deals' per-game figures: (model, faction, "win" or "truth") -> one value per deal."""
    out = {}
    shared = {f: rng.standard_normal(n) for f in FACTIONS}
    for m, rates in enumerate(world.rates):
        for f, (_, mean, sd) in FACTIONS.items():
            latent = math.sqrt(world.rho) * shared[f] + math.sqrt(1 - world.rho) * rng.standard_normal(n)
            won = (latent < ndtri(rates[f])).astype(float)
            out[m, f, "win"] = won
            out[m, f, "truth"] = np.clip(mean + sd * (0.5 * latent + rng.standard_normal(n)) / 1.118, 0.0, 1.0)
    return out


def comparison(drawn: dict[tuple[int, str, str], np.ndarray], stopping: rounds.Stopping) -> dict[
        tuple[int, int, str, str], int | None]:
    """One simulated comparison of the deals ``drawn``: every question of every pair, and the deals at which each was
    decided (None: stopped as smaller than planned, or undecided)."""
    looks = list(range(stopping.round_games, stopping.max_games + 1, stopping.round_games))
    models = 1 + max(m for m, _, _ in drawn)
    out: dict[tuple[int, int, str, str], int | None] = {}
    for a, b in itertools.combinations(range(models), 2):
        for f, q in itertools.product(FACTIONS, ("win", "truth")):
            n, state = sequential.first_stop(drawn[a, f, q] - drawn[b, f, q], looks, stopping.question_alpha,
                                             stopping.design, stopping.max_games, stopping.spending, stopping.futile)
            out[a, b, f, q] = n if state in (sequential.FOR_A, sequential.FOR_B) else None
    return out


def null_world(models: int, rho: float) -> World:
    return World([{f: r for f, (r, _, _) in FACTIONS.items()} for _ in range(models)], rho)


def false_decisions(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print("### Models that do not differ: how often any question of the comparison is decided\n")
    print(f"Every question of `triadic` (a win rate and a truth figure per faction), same-deal correlation "
          f"{args.rho}; cap {args.cap} games per model, rounds of {ROUND_GAMES}; {args.comparisons} comparisons, "
          "every design of a number of models deciding the same ones. The binomial interval is the 95% "
          "Clopper-Pearson interval of the share.\n")
    print("| models | questions | design | error rate shared | each question at | comparisons with a false decision "
          "| share [95% interval] | questions falsely decided, per question |")
    print("|---|---|---|---|---|---|---|---|")
    for models in (2, 3):
        spendings = SPENDINGS if models == 2 else (sequential.SPENDING,)
        world = null_world(models, args.rho)
        drawn = [deals(rng, world, args.cap) for _ in range(args.comparisons)]  # every design decides the same deals
        default = sequential.futility(sequential.FUTILITY, plan.DIFFERENCE, plan.POWER)
        for design, per_question, spending, futile in (*((sequential.GROUP, False, s, None) for s in spendings),
                                                       (sequential.GROUP, False, sequential.SPENDING, default),
                                                       (sequential.ANYTIME, False, sequential.SPENDING, None),
                                                       (sequential.ANYTIME, True, sequential.SPENDING, None)):
            k = rounds.family("triadic", [str(m) for m in range(models)], ["r"])
            stopping = rounds.Stopping(max_games=args.cap, alpha=args.alpha, design=design, questions=k,
                                       per_question=per_question, spending=spending, futile=futile)
            runs = [comparison(d, stopping) for d in drawn]
            wrong = sum(any(v is not None for v in r.values()) for r in runs)
            each = sum(v is not None for r in runs for v in r.values()) / (len(runs) * k)
            low, high = clopper_pearson(wrong, len(runs))
            name = spending if design == sequential.GROUP else design
            name += f", futility {futile.spending}" if futile else ""
            print(f"| {models} | {k} | {name} "
                  f"| {'each question alone' if per_question else 'the comparison'} "
                  f"| {stopping.question_alpha:.4f} | {wrong} of {len(runs)} | {wrong / len(runs):.3f} "
                  f"[{low:.3f}, {high:.3f}] | {each:.4f} |", flush=True)


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    from scipy.stats import beta

    tail = (1 - level) / 2
    return (float(beta.ppf(tail, k, n - k + 1)) if k else 0.0, float(beta.isf(tail, k + 1, n - k)) if k < n else 1.0)


#: The spending functions the group design is measured with: Lan and DeMets's O'Brien-Fleming-like and Pocock-like,
#: and Hwang, Shih and DeCani's family between them.
SPENDINGS = (sequential.OBRIEN_FLEMING, "hsd:-4", "hsd:-3", "hsd:-2", "hsd:-1", "hsd:0", sequential.POCOCK)
#: The planned rows (a 0.10 difference: two win rates, the same-deal correlation), and the widest cap a spending may
#: ask for them, over the fixed design's games.
PLANNED = ((0.55, 0.45, 0.0), (0.37, 0.27, 0.0), (0.37, 0.27, 0.24))
LARGER = ((0.60, 0.40, 0.0),)
CAP_LIMIT = 1.3
#: Mean games (over the fixed design's) closer than this to the least are not told apart (about the standard error of
#: the six rows' average at 1,000 comparisons a row), and the lower cap is preferred: a run whose models differ less
#: than planned, or not at all, plays to the cap.
CLOSE = 0.005


def difference(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print("\n### A 0.10 village win-rate difference: games to a decision against the fixed design\n")
    print(f"One pair, the village win rate at the comparison's error rate {args.alpha} shared by the 6 questions of "
          f"`triadic` (or alone at {args.alpha}). Fixed: the games per model a fixed design needs for 80% power at "
          "the same error rate to detect 0.10 (also where the true difference is 0.20). Group: capped at "
          "`wolf-eval plan`'s cap for that fixed design and spending function; anytime: at the default spending's "
          f"cap. Every design of a row decides the same simulated deals. {args.comparisons} comparisons a row.\n")
    print("| win rates | same-deal rho | questions sharing the error | design | fixed design (80%) | cap | cap / fixed "
          "| power | mean games (90th percentile) | mean / fixed |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios: dict[str, list[float]] = {s: [] for s in SPENDINGS}
    widest: dict[str, float] = {s: 0.0 for s in SPENDINGS}
    for high, low, rho in (*PLANNED, *LARGER):
        for k in (6, 1):
            each = args.alpha / k
            planned = high - 0.10  # the fixed design and the cap are planned for 0.10, whatever the true difference
            fixed = plan.games_needed(math.sqrt(high * (1 - high)), rho, 0.10, each, 0.80,
                                      math.sqrt(planned * (1 - planned)))
            caps = {s: plan.group_cap(fixed, each, 0.80, s) for s in SPENDINGS}
            drawn = [plan.paired_outcomes(rng, high, low, rho, max(caps.values())) for _ in range(args.comparisons)]
            for design, spending in [*((sequential.GROUP, s) for s in SPENDINGS),
                                     (sequential.ANYTIME, sequential.SPENDING)]:
                cap = caps[spending]
                stops, right = [], 0
                for d in drawn:
                    n = sequential.first_decision(d[:cap], list(range(ROUND_GAMES, cap + 1, ROUND_GAMES)), each,
                                                  design, cap, spending)
                    stops.append(cap if n is None else n)
                    right += n is not None and d[:n].sum() > 0
                mean = float(np.mean(stops))
                if design == sequential.GROUP and (high, low, rho) in PLANNED:
                    ratios[spending].append(mean / fixed)
                    widest[spending] = max(widest[spending], cap / fixed)
                name = spending if design == sequential.GROUP else design
                print(f"| {high:.2f} against {low:.2f} | {rho} | {k} | {name} | {fixed} | {cap} | {cap / fixed:.2f} "
                      f"| {right / len(drawn):.3f} | {mean:.0f} ({np.quantile(stops, 0.9):.0f}) | {mean / fixed:.3f} |",
                      flush=True)
    choose(ratios, widest)


def choose(ratios: dict[str, list[float]], widest: dict[str, float]) -> None:
    """The default spending by the stated criterion: the least mean games over the fixed design's, averaged over the
    planned rows, among the spendings whose cap stays within :data:`CAP_LIMIT` times the fixed design's on every row;
    of those within :data:`CLOSE` of the least, the one with the lowest cap."""
    print(f"\nMean games over the fixed design's at the planned difference, averaged over its {2 * len(PLANNED)} rows, "
          f"and the widest cap over the fixed design's:\n")
    print("| spending | mean / fixed, averaged | widest cap / fixed |")
    print("|---|---|---|")
    for s in SPENDINGS:
        print(f"| {s} | {np.mean(ratios[s]):.3f} | {widest[s]:.2f} |")
    allowed = [s for s in SPENDINGS if widest[s] <= CAP_LIMIT]
    least = min(float(np.mean(ratios[s])) for s in allowed)
    best = min((s for s in allowed if np.mean(ratios[s]) <= least + CLOSE), key=lambda s: widest[s])
    print(f"\nThe least mean games with the cap within {CAP_LIMIT} times the fixed design's, and of those within "
          f"{CLOSE} of the least the lowest cap: **{best}** (the default is {sequential.SPENDING}).")


#: The futility bounds measured (beta spending; ``none``: no bound), the true differences each is measured at (of a cap
#: planned for 0.10), and each planned row's lower win rate at a difference of 0 and its same-deal correlation: the
#: two rates lie either side of it, as far apart as the difference.
FUTILITIES = (sequential.NO_FUTILITY, "hsd:-4", "hsd:-2", "hsd:0", "hsd:1")
DIFFERENCES = (0.0, 0.05, 0.10, 0.20)
CENTRES = ((0.50, 0.0), (0.32, 0.0), (0.32, 0.24))


def futility_table(args: argparse.Namespace, rng: np.random.Generator) -> None:
    """The group design with each futility bound, at the differences of :data:`DIFFERENCES`."""
    each = args.alpha / 6
    print("\n### The futility bound: games to a decision or to a stop as smaller than planned\n")
    print(f"One pair, the village win rate at the comparison's error rate {args.alpha} shared by the 6 questions of "
          f"`triadic` ({each:.4f} each), the group design's {sequential.SPENDING} spending, planned for a 0.10 "
          "difference at 80% power: capped where `wolf-eval plan` caps it for each futility bound, and the true "
          "difference 0, 0.05, 0.10 or 0.20. Fixed: the games per model a fixed design needs for 80% power at 0.10 "
          "(the normal approximation for two proportions, `wolf-eval plan`'s count); at the power reached: the same "
          "count at the power the design reached. Every bound of a row decides the same simulated deals. "
          f"{args.comparisons} comparisons a row.\n")
    print("| win rates | same-deal rho | futility bound | fixed design (80%) | cap | cap / fixed | power "
          "| stopped as smaller | mean games (90th percentile) | mean / fixed | fixed at the power reached "
          "| mean / that |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    ratios: dict[str, list[float]] = {f: [] for f in FUTILITIES}
    powers: dict[str, list[float]] = {f: [] for f in FUTILITIES}
    widest: dict[str, float] = {f: 0.0 for f in FUTILITIES}
    for centre, rho in CENTRES:
        low, high = centre - 0.05, centre + 0.05
        fixed = plan.games_needed(math.sqrt(high * (1 - high)), rho, 0.10, each, 0.80, math.sqrt(low * (1 - low)))
        caps = {f: plan.group_cap(fixed, each, 0.80, sequential.SPENDING, futility=f) for f in FUTILITIES}
        widest = {f: max(widest[f], caps[f] / fixed) for f in FUTILITIES}
        for difference in DIFFERENCES:
            a, b = centre + difference / 2, centre - difference / 2
            drawn = [plan.paired_outcomes(rng, a, b, rho, max(caps.values())) for _ in range(args.comparisons)]
            for f in FUTILITIES:
                runs = stops(drawn, caps[f], each, sequential.futility(f, 0.10, 0.80))
                power = np.mean(runs[1] == 1) if difference else np.mean(np.abs(runs[1]) == 1)  # at 0: either way
                smaller = np.mean(runs[1] == 0)
                mean, p90 = float(runs[0].mean()), float(np.quantile(runs[0], 0.9))
                same = plan.games_needed(math.sqrt(a * (1 - a)), rho, difference, each, power,
                                         math.sqrt(b * (1 - b))) if difference and 0 < power < 1 else math.nan
                if difference == 0.10:
                    ratios[f].append(mean / fixed)
                    powers[f].append(float(power))
                at_same = "n/a | n/a" if math.isnan(same) else f"{same:.0f} | {mean / same:.3f}"
                print(f"| {a:.3f} against {b:.3f} | {rho} | {f} | {fixed} | {caps[f]} | {caps[f] / fixed:.2f} "
                      f"| {power:.3f} | {smaller:.3f} | {mean:.0f} ({p90:.0f}) | {mean / fixed:.3f} | {at_same} |",
                      flush=True)
    choose_futility(ratios, powers, widest, args.comparisons * len(CENTRES))


def stops(drawn: list[np.ndarray], cap: int, alpha: float, futile: sequential.Futility | None) -> tuple[
        np.ndarray, np.ndarray]:
    """Each comparison's games at its stop and how it stopped (1 decided for A, the better model; -1 for B; 0 stopped
    as smaller than planned; 2 undecided at the cap), by the shipped decision function."""
    looks = list(range(ROUND_GAMES, cap + 1, ROUND_GAMES))
    code = {sequential.FOR_A: 1, sequential.FOR_B: -1, sequential.SMALLER: 0, sequential.UNDECIDED: 2}
    out = [sequential.first_stop(d[:cap], looks, alpha, sequential.GROUP, cap, sequential.SPENDING, futile)
           for d in drawn]
    return np.array([n for n, _ in out], dtype=float), np.array([code[state] for _, state in out])


def choose_futility(ratios: dict[str, list[float]], powers: dict[str, list[float]], widest: dict[str, float],
                    comparisons: int) -> None:
    """The default futility bound by the stated criterion: among the bounds whose power at the planned difference,
    averaged over the planned rows, is held where the planner's cap holds it without a bound (at least that less the
    binomial sd of 80% over those ``comparisons``), the least mean games over the fixed design's there; of those
    within :data:`CLOSE` of the least, the lowest cap."""
    floor = float(np.mean(powers[sequential.NO_FUTILITY])) - math.sqrt(plan.POWER * (1 - plan.POWER) / comparisons)
    print("\nAt the planned difference (0.10), averaged over the rows above, and the widest cap over the fixed "
          "design's:\n")
    print("| futility bound | power | mean / fixed | widest cap / fixed |")
    print("|---|---|---|---|")
    for f in FUTILITIES:
        print(f"| {f} | {np.mean(powers[f]):.3f} | {np.mean(ratios[f]):.4f} | {widest[f]:.2f} |")
    held = [f for f in FUTILITIES if np.mean(powers[f]) >= floor]
    least = min(float(np.mean(ratios[f])) for f in held)
    best = min((f for f in held if np.mean(ratios[f]) <= least + CLOSE), key=lambda f: widest[f])
    print(f"\nThe least mean games with the power held (at least {floor:.3f}, no bound's less the binomial sd), and of "
          f"those within {CLOSE} of the least the lowest cap: **{best}** (the default is {sequential.FUTILITY}).")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--comparisons", type=int, default=1000, help="simulated comparisons a row")
    ap.add_argument("--cap", type=int, default=200, help="games per model of the null comparisons")
    ap.add_argument("--alpha", type=float, default=sequential.ALPHA)
    ap.add_argument("--rho", type=float, default=0.24, help="the deal's share of a game's latent (same-deal rho)")
    ap.add_argument("--seed", type=int, default=45)
    ap.add_argument("--only", choices=("null", "difference", "futility"), help="one of the three tables")
    args = ap.parse_args()
    started = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    if args.only in (None, "null"):
        false_decisions(args, rng)
    if args.only in (None, "difference"):
        difference(args, rng)
    if args.only in (None, "futility"):
        futility_table(args, np.random.default_rng(args.seed))  # its own draws: the same with --only futility
    print(f"\n<!-- {time.perf_counter() - started:.0f} s -->")


if __name__ == "__main__":
    main()
