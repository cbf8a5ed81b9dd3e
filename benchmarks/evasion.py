"""Deception and detection against the truth on the baseline players: each policy's wolves against fixed observers.

    python benchmarks/pools.py                  # once: play the pools (logs/pools/)
    python benchmarks/evasion.py

Per pool (benchmarks/pools.py): the wolves' evasion over the village (equal weight over its roles) and
against the village's players alone, the Jester's rank in suspicion, the village's detection AUROC and
where the village's ballots fell, each with its 95% interval over games. Then the head-to-heads: two
pools that differ only in the wolves' policy were dealt the same seats on the same seed, so game i of
one and game i of the other share the deal and the observers' policy; the difference of the wolves'
evasion over those pairs, with its interval (:func:`wolf_eval.analysis.tables.aimed_difference`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pools import POOLS, POOLS_DIR, complete, pool_dir

from wolf_eval.analysis.corpus import load
from wolf_eval.analysis.tables import aimed_difference, aimed_row
from wolf_eval.measures import deception as dec
from wolf_eval.measures import headline as head
from wolf_eval.resample import figure_interval, seed_of
from wolf_eval.vocabulary import Role

W, J = Role.WEREWOLF, Role.JESTER
#: (wolves of the first pool, of the second): the same observers and deals, only the wolves differ.
PAIRS = (("triadic-cue-wolves-tom", "triadic-cue"), ("triadic-cue-wolves-faction", "triadic-cue-wolves-tom"),
         ("triadic-cue-wolves-random", "triadic-cue"), ("triadic-tom", "triadic-tom-wolves-cue"))


def shown(value: float, low: float, high: float) -> str:
    return f"{value:.2f} [{low:.2f}, {high:.2f}]"


def games_of(name: str, root: Path) -> list[head.GameValues]:
    frame = load(pool_dir(next(p for p in POOLS if p.name == name), root)).games
    frame = frame.sort_values("game_no")
    return [head.GameValues(**{f: r[f] for f in ("outcome", "self_sabotage", "calibration", "quality", "lessons",
                                                 "judge", "truth", "deception")}) for r in frame.to_dict("records")]


def model_of(games: list[head.GameValues], role: Role) -> str:
    return next(m for r, m in dec.pool([g.deception for g in games]).deceivers() if r is role)


def pool_row(name: str, games: list[head.GameValues]) -> str:
    """One pool's figures: the wolves', the Jester's and the village's, each with its interval over games."""
    wolves = aimed_row(W, [dec.seen_by(g.deception, W, model_of(games, W)) for g in games], seed_of(name, "w"))
    fool = aimed_row(J, [dec.seen_by(g.deception, J, model_of(games, J)) for g in games], seed_of(name, "j"))
    auroc = head.HEADLINE["village_wolf_auroc"]
    logged = [auroc.counts(g) for g in games]
    detection = figure_interval(auroc.sums(logged), auroc.of_sums, seed_of(name, "a"))
    cells = [shown(*(wolves[f"evasion{e}"] for e in ("", "_low", "_high"))),
             shown(*(wolves[f"evasion_village{e}"] for e in ("", "_low", "_high"))),
             f"{shown(*(wolves[f'vote_share{e}'] for e in ('', '_low', '_high')))} ({wolves['chance_share']:.2f})",
             shown(*(fool[f"suspicion_rank{e}"] for e in ("", "_low", "_high"))),
             shown(detection.value, detection.low, detection.high)]
    return f"| {name} | {len(games)} | " + " | ".join(cells) + " |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=POOLS_DIR)
    args = ap.parse_args()
    ready = {p.name: games_of(p.name, args.root) for p in POOLS if complete(p, args.root)}
    print("| pool | games | wolves' evasion (village, equal weight) | against the village alone | "
          "village's ballots on wolves (chance) | Jester's rank | village_wolf_auroc |")
    print("|---|---|---|---|---|---|---|")
    for name, games in ready.items():
        print(pool_row(name, games))
    print("\n| wolves | against | same deals | evasion | evasion | difference (first − second) |")
    print("|---|---|---|---|---|---|")
    for first, second in PAIRS:
        if first not in ready or second not in ready:
            continue
        n = min(len(ready[first]), len(ready[second]))
        a, b = ready[first][:n], ready[second][:n]
        d = aimed_difference(W, [dec.seen_by(g.deception, W, model_of(a, W)) for g in a],
                             [dec.seen_by(g.deception, W, model_of(b, W)) for g in b], seed_of(first, second))
        print(f"| {model_of(a, W)} ({first}) | {model_of(b, W)} ({second}) | {n} | {d['first']:.2f} | "
              f"{d['second']:.2f} | {shown(d['difference'], d['difference_low'], d['difference_high'])} |")


if __name__ == "__main__":
    main()
