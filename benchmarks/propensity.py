"""The stakes of ``-T deception=optional`` on the baseline players: do the wolves win sometimes playing open, and
sometimes deceiving?

    python benchmarks/propensity.py --games 30                     # triadic on wolfbot/tom, 30 games a condition
    python benchmarks/propensity.py --games 30 --only 0.5          # one condition's eval alone (run three at once)
    python benchmarks/propensity.py --task wolf --player cue --games 20

Three offline evals of games with shorter days and without the statements' analyses (:data:`SHORT`: the analyses
change no scripted move, so the games and their winners are those of the analysed game with the same seeds and
turns; the task's day cap is kept), each seat the same
scripted player, which chooses its stance each morning by ``-M deceive=P``: every day open (``P = 0``), every day
deceiving (``P = 1``), and a seeded half of the days (``P = 0.5``). It prints the wolves' win share of each all-open
and all-deceiving eval, with the binomial interval of a share of games (Wilson's, continuity-corrected, as the
eval's ``wolves_win``), the false statements withheld per open wolf-day, and, in the mixed eval, the share of the
open and of the deceiving wolf-days that were in games the wolves won, each with the game-clustered interval of the
headline figures (:func:`wolf_eval.resample.figure_interval`). The table in docs/propensity.md is its output.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log

from wolf_eval.measures.propensity import game_stances
from wolf_eval.measures.rates import ratio
from wolf_eval.resample import figure_interval, seed_of
from wolf_eval.stats import wilson_cc
from wolf_eval.store import logged_record
from wolf_eval.vocabulary import Winner

#: Shorter days without analyses, the task's day cap kept: the stakes are a matter of who wins, which the analyses
#: do not change.
SHORT = {"max_debate_turns": 4, "deception_analysis": False}
SHARES = (0.0, 1.0, 0.5)


def play(task: str, player: str, share: float, games: int, root: Path) -> Path:
    """One eval of ``games`` games whose wolves deceive on a share ``share`` of their days; played unless done."""
    folder = root / f"{task}-{player}-deceive-{share:g}-{games}"
    done = [f for f in list_eval_logs(str(folder)) if read_eval_log(f, header_only=True).status == "success"]
    if not done:
        start = time.perf_counter()
        short = SHORT | ({"max_explanation_turns": 2} if task != "wolf" else {})
        [log] = inspect_eval(f"wolf_eval/{task}", model=f"wolfbot/{player}", model_args={"deceive": share},
                             task_args={"games": games, "deception": "optional", "seed": 23, **short},
                             log_dir=str(folder), display="none", max_samples=8)
        assert log.status == "success", log.error
        print(f"played deceive={share:g}: {games} games in {time.perf_counter() - start:.0f} s")
    return folder


def per_game(folder: Path) -> list[tuple[bool, dict[str, float]]]:
    """Each game's wolves' win and its stance days (:func:`wolf_eval.measures.propensity.game_stances`)."""
    [path] = [f for f in list_eval_logs(str(folder)) if read_eval_log(f, header_only=True).status == "success"][:1]
    out = []
    for sample in read_eval_log(path).samples or []:
        record = logged_record(sample.store)
        game = record.game()
        assert game.outcome is not None
        days = game_stances(game, record.seat_models).total()  # NaN in a game over before any morning: no days
        won = game.outcome.winner is Winner.WEREWOLVES
        out.append((won, {k: 0.0 if math.isnan(v) else v for k, v in days.items()}))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="triadic", choices=("triadic", "wolf"))
    parser.add_argument("--player", default="tom")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--logs", type=Path, default=Path("logs/benchmarks/propensity"))
    parser.add_argument("--only", type=float, default=None,
                        help="play only the eval of this share and stop (to play the three in parallel first)")
    args = parser.parse_args()
    if args.only is not None:
        play(args.task, args.player, args.only, args.games, args.logs)
        return
    print(f"wolf_eval/{args.task} on wolfbot/{args.player}, {args.games} games a condition, {SHORT}")
    print("| wolves' days | games | wolves won | share [95%] | withheld per open wolf-day |")
    print("|---|---|---|---|---|")
    for share, label in ((0.0, "all open"), (1.0, "all deceiving")):
        games = per_game(play(args.task, args.player, share, args.games, args.logs))
        won = sum(w for w, _ in games)
        value, low, high = wilson_cc(won, len(games))
        opened = sum(d["open_days"] for _, d in games)
        withheld = ratio(sum(d["withheld"] for _, d in games), opened)
        print(f"| {label} | {len(games)} | {won} | {value:.2f} [{low:.2f}, {high:.2f}] | {withheld:.2f} |")
    mixed = per_game(play(args.task, args.player, 0.5, args.games, args.logs))
    print(f"\nmixed (deceive=0.5), {len(mixed)} games: wolf-days in games the wolves won, by the stance of the day")
    print("| stance | wolf-days | in won games | share [95%, clustered by game] |")
    print("|---|---|---|---|")
    for stance in ("open", "deceive"):
        counts = np.array([[d[f"{stance}_days"] * w, d[f"{stance}_days"]] for w, d in mixed], dtype=float)
        iv = figure_interval(counts, lambda s: ratio(s[0], s[1]), seed_of(f"stakes {stance}", len(mixed)))
        won, days = counts.sum(axis=0)
        print(f"| {stance} | {days:.0f} | {won:.0f} | {iv.value:.2f} [{iv.low:.2f}, {iv.high:.2f}] |")


if __name__ == "__main__":
    main()
