"""How often ``wolf_refusal_rate``'s 95% interval covers the true rate, on simulated evals with a known answer.

    python benchmarks/refusal_coverage.py                 # 1000 simulated evals of 10 games for each setting
    python benchmarks/refusal_coverage.py --sims 200 --games 20

Each simulated game gives its wolves 8 to 29 replies and a refusal probability drawn from a Beta
distribution with mean ``rate`` (the true figure: replies and their probability are drawn apart, so the
pooled share's target is the mean) and concentration ``spread`` (small: refusals bunch in a few games, as a
model that refuses in some games and not others; large: every game alike). The interval is the eval's own
(:func:`wolf_eval.resample.figure_interval` over the score's logged counts).
"""

from __future__ import annotations

import argparse

import numpy as np

from wolf_eval.measures.headline import HEADLINE
from wolf_eval.resample import figure_interval, seed_of

#: (true rate, concentration of the per-game rate) of each setting printed.
SETTINGS = ((0.15, 50.0), (0.15, 3.0), (0.40, 3.0), (0.05, 3.0))


def coverage(rate: float, spread: float, games: int, sims: int, seed: int = 11) -> float:
    """The share of ``sims`` simulated evals of ``games`` games whose interval holds ``rate``."""
    figure = HEADLINE["wolf_refusal_rate"]
    rng = np.random.default_rng(seed)
    held = 0
    for sim in range(sims):
        logged = []
        for _ in range(games):
            replies = int(rng.integers(8, 30))
            p = rng.beta(spread * rate, spread * (1 - rate))
            logged.append({"wolf_replies": float(replies), "wolf_refused": float(rng.binomial(replies, p))})
        iv = figure_interval(figure.sums(logged), figure.of_sums, seed_of("refusal coverage", sim), figure.per_game,
                             figure.bounds)
        held += iv.low <= rate <= iv.high
    return held / sims


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000)
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    print(f"| true rate | spread | coverage ({args.sims} evals of {args.games} games) |")
    print("|---|---|---|")
    for rate, spread in SETTINGS:
        print(f"| {rate:.2f} | {spread:g} | {coverage(rate, spread, args.games, args.sims):.3f} |")


if __name__ == "__main__":
    main()
