"""Check the rating model: coverage of its printed intervals on simulated tournaments, and on real logs its fit and
the ratings of two identical policies whatever the pool.

    python benchmarks/rating.py --tournaments 100 --games 1 5 10 --draws 200
    python benchmarks/rating.py --logs logs/rate-compare --pair wolfbot/faction wolfbot/tom --draws 300

Simulated: each tournament is a ``compare``-style cross-play triadic tournament drawn from the model
itself (:func:`wolf_eval.analysis.rating.simulated_games`): fresh true strengths per model and
faction (normal, sd ``--spread``), every ordered pair in every faction ``--games`` times. Per
games-a-seating and rating column it prints how many ratings were printed with an interval (the
rest "not identified": the games bound them on one side only, so only the prior would give a
value), how often a printed 95% interval covered the true anchored strength (the true strength
minus the mean of the models' true strengths), its mean width, and how often the goodness-of-fit
test rejected the (true) model at 5%. Intervals are widened by the fit's unexplained variance, as
the leaderboard prints them.

Logs: the fit of every column on the logs' games, then the ratings of ``--pair`` (two models that
play the same policy in some factions) in the full pool and with each other model left out.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from wolf_eval.analysis import rating as R

ADVANTAGES = (0.0, -0.3, -1.0)  # village, wolves, Jester: the Jester wins least often, as in the baselines' games


def tournament(rng: np.random.Generator, models: int, games: int, spread: float, draws: int, seed: int,
               simulations: int) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, bool]]:
    """One simulated tournament: per faction, which ratings were printed, which of those covered the truth,
    their widths, and whether the fit was rejected."""
    truth = rng.normal(0.0, spread, size=(models, len(R.FACTIONS)))
    played, _ = R.games_of(R.simulated_games(rng, truth, ADVANTAGES, games))
    checked = R.column_fit(played, True, simulations, seed)
    out = {}
    for k, (label, r) in enumerate(zip(R.RATINGS[:-1], R.columns(played, range(3), draws, seed, None, checked),
                                       strict=True)):
        true = truth[:, k] - truth[:, k].mean()
        shown = ~np.isnan(r.value)
        out[label] = (shown, ((r.low <= true) & (true <= r.high))[shown], (r.high - r.low)[shown], not checked.fits)
    return out


def simulated(args: argparse.Namespace) -> None:
    print(f"{args.tournaments} simulated triadic cross-play tournaments of {args.models} models per row, true "
          f"strengths "
          f"sd {args.spread}, {args.draws} bootstrap draws, fit p-values from {args.simulations} simulations\n")
    print("| games a seating | games | faction | printed | 95% interval coverage | mean width | fit rejected at 5% |")
    print("|---|---|---|---|---|---|---|")
    for games in args.games:
        rng = np.random.default_rng(args.seed + games)
        started = time.perf_counter()
        results = [tournament(rng, args.models, games, args.spread, args.draws, args.seed + i, args.simulations)
                   for i in range(args.tournaments)]
        played = 3 * args.models * (args.models - 1) * games
        for label in R.RATINGS[:-1]:
            shown = np.concatenate([r[label][0] for r in results])
            covered = np.concatenate([r[label][1] for r in results])
            width = np.concatenate([r[label][2] for r in results])
            rejected = np.mean([r[label][3] for r in results])
            print(f"| {games} | {played} | {label} | {shown.sum()}/{shown.size} "
                  f"| {covered.mean():.3f} ({covered.sum()}/{covered.size}) | {width.mean():.2f} | {rejected:.3f} |")
        print(f"<!-- {games} a seating: {time.perf_counter() - started:.0f} s -->")


def _cell(r: R.Rating, m: int) -> str:
    if np.isnan(r.value[m]):
        side = "above" if r.open_above[m] and not r.open_below[m] else "below" if r.open_below[m] else "both sides"
        return f"not identified (open {side})" if r.same_result[m] else "not identified"
    return f"{r.value[m]:+.2f} [{r.low[m]:+.2f}, {r.high[m]:+.2f}]"


def on_logs(args: argparse.Namespace) -> None:
    from wolf_eval.analysis.corpus import load

    rows, _ = R.rating_rows(load(args.logs).games)
    everyone = sorted({m for _, seats, _ in rows for ms in seats.values() for m in ms})
    pools = [("every model", everyone)] + [(f"without {m}", [x for x in everyone if x != m])
                                          for m in everyone if m not in args.pair]
    print(f"Logs {', '.join(args.logs)}: the ratings of {' and '.join(args.pair)} in each pool\n")
    print("| pool | games | fit by faction: G² (df), p | " + " | ".join(
        f"{label}: {m.split('/')[-1]}" for label in R.RATINGS[:-1] for m in args.pair) + " |")
    print("|---|---|---|" + "---|" * 3 * len(args.pair))
    for name, pool in pools:
        kept = [r for r in rows if all(m in pool for ms in r[1].values() for m in ms)]
        games, _ = R.games_of(kept)
        checked = R.column_fit(games, True, args.simulations, args.seed)
        rated = R.columns(games, range(3), args.draws, args.seed, None, checked)
        cells = [_cell(r, games.models.index(m)) for r in rated for m in args.pair]
        print(f"| {name} | {len(games.winner)} | {checked.g2:.1f} ({checked.df}), {checked.p:.3f} | "
              + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tournaments", type=int, default=100)
    ap.add_argument("--models", type=int, default=4)
    ap.add_argument("--games", type=int, nargs="+", default=[1, 5, 10], help="games per seating (ordered pair and "
                                                                             "faction); one row block each")
    ap.add_argument("--spread", type=float, default=0.7, help="sd of the true strengths, in logits")
    ap.add_argument("--draws", type=int, default=200, help="bootstrap draws per rating")
    ap.add_argument("--simulations", type=int, default=R.FIT_SIMULATIONS, help="tournaments behind a fit's p-value")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--logs", nargs="+", help="rate these logs instead of simulating")
    ap.add_argument("--pair", nargs=2, default=["wolfbot/faction", "wolfbot/tom"],
                    help="with --logs: the two models whose ratings are followed across pools")
    args = ap.parse_args()
    if args.logs:
        on_logs(args)
    else:
        simulated(args)


if __name__ == "__main__":
    main()
