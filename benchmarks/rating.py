"""Check the rating model on simulated tournaments with known strengths: order recovered, interval coverage.

    python benchmarks/rating.py --tournaments 200 --models 4 --games 5 --draws 300

Each tournament is a ``compare``-style triadic tournament drawn from the model itself
(:func:`wolf_eval.analysis.rating.simulated_games`): fresh true strengths per model and faction
(normal, sd ``--spread``), every ordered pair in every faction ``--games`` times. Per rating column
(village, wolves, Jester) it prints how often the 95% interval covered the true anchored strength
(the true strength minus the mean of the models' true strengths), Spearman's rank correlation of the
estimates with the truth, and how often the best model was rated first. The overall column has no
true value here (strengths differ by faction), so it is not scored.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import spearmanr

from wolf_eval.analysis import rating as R

ADVANTAGES = (0.0, -0.3, -1.0)  # village, wolves, Jester: the Jester wins least often, as in the baselines' games


def tournament(rng: np.random.Generator, models: int, games: int, spread: float, draws: int,
               seed: int) -> dict[str, tuple[np.ndarray, np.ndarray, float, bool]]:
    """One simulated tournament: per faction, which intervals covered the truth, their widths, Spearman's rho,
    and whether the best model came first."""
    truth = rng.normal(0.0, spread, size=(models, len(R.FACTIONS)))
    games_, _ = R.games_of(R.simulated_games(rng, truth, ADVANTAGES, games))
    out = {}
    for k, label in enumerate(R.RATINGS[:-1]):
        r = R.rating(games_, k, draws, seed, None)
        true = truth[:, k] - truth[:, k].mean()
        covered = (r.low <= true) & (true <= r.high)
        rho = float(spearmanr(r.value, true).statistic)
        out[label] = (covered, r.high - r.low, rho, bool(np.argmax(r.value) == np.argmax(true)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tournaments", type=int, default=200)
    ap.add_argument("--models", type=int, default=4)
    ap.add_argument("--games", type=int, default=5, help="games per seating (ordered pair and faction)")
    ap.add_argument("--spread", type=float, default=0.7, help="sd of the true strengths, in logits")
    ap.add_argument("--draws", type=int, default=300, help="bootstrap draws per rating")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    results = [tournament(rng, args.models, args.games, args.spread, args.draws, args.seed + i)
               for i in range(args.tournaments)]
    games = 3 * args.models * (args.models - 1) * args.games
    print(f"{args.tournaments} simulated triadic tournaments of {args.models} models, {games} games each "
          f"({args.games} per seating), true strengths sd {args.spread}, {args.draws} bootstrap draws, "
          f"{time.perf_counter() - started:.0f} s\n")
    print("| faction | 95% interval coverage | mean width | Spearman rho (median) | best model first |")
    print("|---|---|---|---|---|")
    for label in R.RATINGS[:-1]:
        covered = np.concatenate([r[label][0] for r in results])
        width = np.concatenate([r[label][1] for r in results])
        rho = np.median([r[label][2] for r in results])
        best = np.mean([r[label][3] for r in results])
        print(f"| {label} | {covered.mean():.3f} ({covered.sum()}/{covered.size}) | {width.mean():.2f} "
              f"| {rho:.2f} | {best:.2f} |")


if __name__ == "__main__":
    main()
