"""Pools of baseline games played once and kept: what the coverage benchmark resamples and the deception
figures are read from.

    python benchmarks/pools.py                      # play every pool missing from logs/pools/
    python benchmarks/pools.py --only triadic-cue   # one pool

Each pool is one eval of the default task settings on the offline ``wolfbot`` players, seeded, so it
is the same games on every machine. A pool whose log is complete (every game finished) is not
played again; ``logs/`` is never committed.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from harness import play
from inspect_ai.log import list_eval_logs, read_eval_log

#: Where the pools are kept, one folder each.
POOLS_DIR = Path(__file__).resolve().parent.parent / "logs" / "pools"


@dataclass(frozen=True)
class Pool:
    """One eval of baseline games: every seat ``model`` but the roles bound in ``roles``."""

    name: str
    task: str
    model: str
    games: int
    roles: dict[str, str] = field(default_factory=dict)
    settings: dict[str, int] = field(default_factory=dict)  # task parameters beyond the games and the seed


QUICK = {"max_debate_turns": 1, "max_explanation_turns": 1}
#: The pools: two self-play pools for coverage, and the wolves of each baseline policy against fixed
#: observers (every seat that is not a wolf) for the deception figures, all on one seed so the deals match.
POOLS = (
    Pool("triadic-cue", "triadic", "wolfbot/cue", 300),
    Pool("triadic-tom", "triadic", "wolfbot/tom", 100),
    Pool("triadic-cue-wolves-tom", "triadic", "wolfbot/cue", 30, {"werewolf": "wolfbot/tom"}),
    Pool("triadic-cue-wolves-random", "triadic", "wolfbot/cue", 30, {"werewolf": "wolfbot/random"}),
    Pool("triadic-cue-wolves-faction", "triadic", "wolfbot/cue", 30, {"werewolf": "wolfbot/faction"}),
    Pool("triadic-tom-wolves-cue", "triadic", "wolfbot/tom", 30, {"werewolf": "wolfbot/cue"}),
    # the same two populations with one debate and one explanation turn a day: a game plays in about a second
    # of CPU, so every headline's coverage is measured in minutes on a loaded machine
    Pool("triadic-cue-quick", "triadic", "wolfbot/cue", 200, settings=QUICK),
    Pool("triadic-tom-quick", "triadic", "wolfbot/tom", 100, settings=QUICK),
)
SEED = 35


def pool_dir(pool: Pool, root: Path = POOLS_DIR) -> Path:
    return root / pool.name


def complete(pool: Pool, root: Path = POOLS_DIR) -> bool:
    """Whether the pool's folder holds a finished eval of all its games."""
    for info in list_eval_logs(str(pool_dir(pool, root))):
        log = read_eval_log(info, header_only=True)
        if log.status == "success" and log.results is not None and log.results.completed_samples == pool.games:
            return True
    return False


def ensure(pool: Pool, root: Path = POOLS_DIR) -> Path:
    """The pool's folder, its eval played first if it is not there yet."""
    where = pool_dir(pool, root)
    if not complete(pool, root):
        for stale in where.glob("*.eval"):
            stale.unlink()
        print(f"playing {pool.name}: {pool.games} games of {pool.task} on {pool.model} {pool.roles or ''}",
              flush=True)
        _, wall = play(pool.task, where, pool.name, model=pool.model, model_roles=pool.roles or None,
                       task_args={"games": pool.games, "seed": SEED, **pool.settings})
        print(f"  {wall:.0f} s", flush=True)
    return where


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated pool names (default: all)")
    ap.add_argument("--root", type=Path, default=POOLS_DIR)
    args = ap.parse_args()
    wanted = set(filter(None, args.only.split(",")))
    for pool in POOLS:
        if not wanted or pool.name in wanted:
            print(f"{pool.name}: {ensure(pool, args.root)}")


if __name__ == "__main__":
    main()
