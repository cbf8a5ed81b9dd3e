"""wolf-eval: tools that read Inspect logs of wolf-eval games and Jester lessons files, and run fair cross-play."""

from __future__ import annotations

import argparse
import contextvars
import sys
import traceback
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalSample

from wolf_eval.logfiles import (
    BadInput,
    NoResult,
    game_samples,
    is_remote,
    local_copies,
    not_a_file,
    read_game_log,
    sample_error,
    written_together,
)
from wolf_eval.ndjson import export, game_state
from wolf_eval.refusal import missing_provider, one_line


def main(argv: list[str] | None = None) -> int:
    """Run one command: 0 on success, 1 when there was nothing to produce, 2 on bad input."""
    parser = argparse.ArgumentParser(prog="wolf-eval", description=__doc__)
    parser.add_argument("--debug", action="store_true", help="on an error, show its traceback")
    commands = parser.add_subparsers(dest="command", required=True)
    ex = commands.add_parser("export", help="write each game of a log as NDJSON events plus a final-state JSON")
    ex.add_argument("log", help="an Inspect log (.eval or .json; a local path or any fsspec location, e.g. s3://...)")
    ex.add_argument("--out", help="output folder (default: beside the log, named after it)")
    rep = commands.add_parser("report", help="the papers' tables (Markdown and PNG figures) from a folder of logs")
    rep.add_argument("logdir", nargs="+", help="Inspect log files or folders (searched recursively; local or s3://...)")
    rep.add_argument("--out", help="output folder (default: report/ inside the first local log folder, else ./report)")
    rep.add_argument("--keep-duplicates", action="store_true",
                     help="count games that are another game record for record, with the same seat models and "
                          "judge (by default each is counted once and the report lists the repeats it set aside)")
    _add_rate(commands)
    _add_learn(commands)
    _add_compare(commands)
    _add_plan(commands)
    _add_play(commands)
    rp = commands.add_parser("replay", help="re-play every game of a log from its recorded replies and check it "
                                            "reaches the same records, final state and scores")
    rp.add_argument("log", help="an Inspect log (.eval or .json; a local path or any fsspec location)")
    _add_prompt(commands)
    args = parser.parse_args(argv)
    try:
        if args.command == "replay":
            return _replay(args.log)
        if args.command == "learn":
            return _learn(args)
        if args.command == "lessons":
            return _tag_lessons(args.file, args.model)
        if args.command == "compare":
            return _compare(args)
        if args.command == "rate":
            return _rate(args)
        if args.command == "plan":
            return _plan(args)
        if args.command == "prompt":
            return _prompt(args.log, args.game, args.seat, args.call)
        if args.command == "play":
            return _play_seat(args)
        if args.command == "report":
            return _report(args.logdir, args.out, args.keep_duplicates)
        for path in export(args.log, args.out):
            print(path)
        return 0
    except BadInput as err:
        return _fail(args, str(err), 2)
    except NoResult as err:
        return _fail(args, str(err), 1)
    except Exception as err:  # anything else is still one line, unless --debug asks for the traceback
        if extra := missing_provider(err):
            return _fail(args, extra, 2)
        return _fail(args, f"{type(err).__name__}: {one_line(err)} (--debug shows the traceback)", 1)


def _add_rate(commands: Any) -> None:
    """The ``rate`` command's arguments."""
    rat = commands.add_parser("rate", help="per-model ratings by faction and overall, with bootstrap intervals, from "
                                           "every game of the logs (self-play, cross-play, mixed seats)")
    rat.add_argument("logs", nargs="*", help="Inspect log files or folders (searched recursively; local or s3://...)")
    rat.add_argument("--draws", type=int, default=None, help="bootstrap resamplings of the games (default 1000)")
    rat.add_argument("--seed", type=int, default=0, help="the bootstrap's seed")
    rat.add_argument("--anchor", help="a model rated 0 in every column (default: each column's mean is 0)")
    rat.add_argument("--out", help="also write leaderboard.md and cost_rating.png into this folder")
    rat.add_argument("--keep-duplicates", action="store_true", help="count games that repeat another record for "
                                                                     "record (as for report)")


def _add_learn(commands: Any) -> None:
    """The ``learn`` command's arguments, and the ``lessons tag`` command's, which reads what it writes."""
    ln = commands.add_parser("learn", help="play a Jester learning run: one eval per game, in order, each game "
                                           "reading the lessons of the games before it (run it again to resume)")
    ln.add_argument("task", choices=("wolf", "triadic", "dyadic"), help="the task (one that seats a Jester)")
    ln.add_argument("--model", required=True, help="the eval's model, e.g. openai/gpt-4.1")
    ln.add_argument("--games", type=int, required=True,
                    help="play until the Jester model's lessons hold this many games")
    ln.add_argument("-T", dest="task_args", action="append", default=[], metavar="NAME=VALUE",
                    help="a task parameter, as for inspect eval (YAML values)")
    ln.add_argument("--model-role", dest="model_roles", action="append", default=[], metavar="ROLE=MODEL",
                    help="a role's model, as for inspect eval")
    ln.add_argument("--log-dir", help="where each game's log goes (Inspect's default if not given)")
    ln.add_argument("--display", help="Inspect's display (full, rich, plain, log, none)")
    les = commands.add_parser("lessons", help="work with a Jester lessons snapshot")
    les_cmd = les.add_subparsers(dest="lessons_command", required=True)
    tag_cmd = les_cmd.add_parser("tag", help="print every lesson of a lessons snapshot with its ToM order and "
                                             "categories")
    tag_cmd.add_argument("file", help="a lessons snapshot (JSON, as wolf-eval learn writes), or a model's folder of "
                                      "them (its latest)")
    tag_cmd.add_argument("--model", help="also tag every lesson with this model (one call each, temperature 0), "
                                         "beside the regex tagger's reading, e.g. openai/gpt-4.1")


def _learn(args: argparse.Namespace) -> int:
    """Play the learning run; 1, naming the game and why, when it cannot go on."""
    from wolf_eval.lessons.run import learn
    from wolf_eval.refusal import Refusal

    task_args = _task_args(args.task_args)
    if given := sorted({"games", "jester_learning", "learning_step"} & set(task_args)):
        raise BadInput(f"learn: -T {', '.join(given)}: set by wolf-eval learn (--games N plays until the lessons "
                       "hold N games)")
    roles = dict(pair.partition("=")[::2] for pair in args.model_roles)
    if bad := [pair for pair in args.model_roles if not pair.partition("=")[2].strip()]:
        raise BadInput(f"learn: --model-role {bad[0]}: expected ROLE=MODEL")
    extra = {"display": args.display} if args.display else {}
    try:
        logs = learn(args.task, args.model, args.games, task_args, args.log_dir, model_roles=roles or None, **extra)
    except Refusal as err:
        raise NoResult(err.message) from err
    done = f"games {args.games - len(logs) + 1} to {args.games} kept, one log each" if logs else "nothing to play"
    print(f"wolf-eval learn: {done}; the Jester's lessons hold {args.games} game{'s' * (args.games != 1)} or more")
    return 0


def _add_compare(commands: Any) -> None:
    """The ``compare`` command's arguments."""
    from wolf_eval.analysis.compare import DEFAULT_AGAINST
    from wolf_eval.analysis.plan import DIFFERENCE, POWER
    from wolf_eval.analysis.sequential import ALPHA, DESIGNS, FUTILITY, GROUP, NO_FUTILITY, SPENDING, SPENDINGS

    cmp = commands.add_parser("compare", help="every model plays every faction against the same reference opponents "
                                              "(or, with --crossplay, against every other model) on the same games, "
                                              "as one inspect eval-set; then the per-model and head-to-head tables")
    cmp.add_argument("models", nargs="*", help="two or more models, e.g. wolfbot/cue wolfbot/tom")
    cmp.add_argument("--task", default="triadic", choices=("wolf", "triadic", "dyadic"))
    cmp.add_argument("--log-dir", required=True, help="the eval set's folder (run the same command again to resume)")
    design = cmp.add_mutually_exclusive_group()
    design.add_argument("--against", action="append", metavar="MODEL[,MODEL...]",
                        help=f"the reference opponents every model plays each faction against (default "
                             f"{', '.join(DEFAULT_AGAINST)}; several make a panel, each a block of its own)")
    design.add_argument("--crossplay", action="store_true",
                        help="each model plays each faction against each other model instead: a faction's "
                             "difference then mixes both models' play of every faction")
    cmp.add_argument("-T", dest="task_args", action="append", default=[], metavar="NAME=VALUE",
                     help="a task parameter, as for inspect eval (YAML values; games and seed included; with "
                          "--sequential, games is the games per eval in each round)")
    cmp.add_argument("--sequential", action="store_true",
                     help="play in rounds and stop each question once it is decided at --alpha, or at a cap")
    cmp.add_argument("--design", choices=DESIGNS, help=f"--sequential: {GROUP} spends the error over --max-games "
                                                       "(fewer games at the difference planned for); anytime bets, "
                                                       f"valid at any look with no cap planned (default {GROUP})")
    cmp.add_argument("--spending", metavar="FUNCTION",
                     help=f"--sequential, {GROUP} design: how its error is spent over the rounds: "
                          f"{', '.join(SPENDINGS)} (default {SPENDING}; the cap is planned for it)")
    cmp.add_argument("--futility", metavar="FUNCTION",
                     help=f"--sequential, {GROUP} design: the beta spending of the bound that stops a question as "
                          f"smaller than planned (no difference as large as --difference): {', '.join(SPENDINGS)}, "
                          f"or {NO_FUTILITY} to play every undecided question to the cap (default {FUTILITY}; the cap "
                          "is planned for it)")
    cmp.add_argument("--alpha", type=float, help=f"--sequential: the comparison's error rate, shared by every "
                                                 f"question of every pair (default {ALPHA})")
    cmp.add_argument("--per-question", action="store_true",
                     help="--sequential: test each question at --alpha alone (the comparison's error then grows with "
                          "the number of questions)")
    cmp.add_argument("--primary", metavar="[FACTION:]QUESTION",
                     help="--sequential: the question named in advance as the comparison's primary one (e.g. "
                          "wolves:evasion, village:detection, village:win), tested at half of --alpha, the other "
                          "questions sharing the other half")
    cmp.add_argument("--difference", type=float, help=f"--sequential: the win-rate difference --max-games is planned "
                                                      f"to detect (default {DIFFERENCE})")
    cmp.add_argument("--power", type=float, help=f"--sequential: the chance of detecting it (default {POWER})")
    cmp.add_argument("--max-games", type=int,
                     help="--sequential: games per eval after which a question stops undecided (default: what "
                          "wolf-eval plan's group design needs for --difference at --power, a win rate at its "
                          "widest spread, nothing shared)")
    cmp.add_argument("--max-usd", type=float,
                     help="--sequential: stop every question before a round would take the comparison past this many "
                          "US dollars (the seat models with a price)")
    cmp.add_argument("--max-tasks", type=int, help="evals played at once (Inspect's default if not given)")
    cmp.add_argument("--retry-attempts", type=int, default=10, help="eval-set retries of failed games")
    cmp.add_argument("--display", help="Inspect's display (full, rich, plain, log, none)")
    cmp.add_argument("--tables-only", action="store_true",
                     help="play nothing: read the comparison's logs in --log-dir and print the tables")


def _add_plan(commands: Any) -> None:
    """The ``plan`` command's arguments."""
    from wolf_eval.analysis.plan import DIFFERENCE, POWER
    from wolf_eval.analysis.sequential import ALPHA, DESIGNS, FUTILITY, GROUP, NO_FUTILITY, SPENDING, SPENDINGS

    pl = commands.add_parser("plan", help="from any logs (a pilot), the games and dollars a comparison needs to "
                                          "detect a given difference at a given power, per headline figure and design")
    pl.add_argument("logs", nargs="*", help="Inspect log files or folders (searched recursively; local or s3://...)")
    pl.add_argument("--difference", type=float, default=DIFFERENCE,
                    help=f"the difference between two models to detect (default {DIFFERENCE})")
    pl.add_argument("--power", type=float, default=POWER, help=f"the chance of detecting it (default {POWER})")
    pl.add_argument("--alpha", type=float, default=ALPHA, help=f"the comparison's error rate, two-sided, shared by "
                                                               f"every question of every pair (default {ALPHA})")
    pl.add_argument("--models", type=int, default=2, help="models the comparison compares (every pair's questions "
                                                          "share the error rate; default 2)")
    pl.add_argument("--design", choices=DESIGNS, default=GROUP, help=f"compare --sequential's design to simulate "
                                                                     f"(default {GROUP})")
    pl.add_argument("--spending", metavar="FUNCTION", default=SPENDING,
                    help=f"the group design's error spending: {', '.join(SPENDINGS)} (default {SPENDING})")
    pl.add_argument("--futility", metavar="FUNCTION", default=FUTILITY,
                    help=f"the group design's futility bound, its beta spending: {', '.join(SPENDINGS)}, or "
                         f"{NO_FUTILITY} (default {FUTILITY})")
    pl.add_argument("--max-games", type=int, help="the sequential design's cap, games per eval (default: the group "
                                                  "design's for each figure)")
    pl.add_argument("--priced-as", metavar="MODEL",
                    help="price every seat's tokens at this model's list price (e.g. openai/gpt-4.1), for a pilot "
                         "played by baseline players or a model without a price")


def _add_prompt(commands: Any) -> None:
    pr = commands.add_parser("prompt", help="print the prompt a seat saw at one of its calls in a logged game: the "
                                            "system message, the user message and the response schema, as sent")
    pr.add_argument("log", help="an Inspect log (.eval or .json; a local path or any fsspec location)")
    pr.add_argument("--game", type=int, help="the game (the sample id; needed when the log holds several)")
    pr.add_argument("--seat", help="the player (without it, each seat and its number of calls is listed)")
    pr.add_argument("--call", type=int, help="the seat's call number, from 1 (without it, the seat's calls are "
                                             "listed by number and what each asked)")


def _prompt(location: str, game: int | None, seat: str | None, call: int | None) -> int:
    """Print a seat's prompt at one call, or list what there is to pick from."""
    from inspect_ai.log import read_eval_log_sample, read_eval_log_sample_summaries

    from wolf_eval.logged_prompt import NoSuchCall, calls_text, logged_prompt, prompt_text

    with local_copies([location]) as [path]:
        read_game_log(path, location)
        ids = sorted({s.id for s in read_eval_log_sample_summaries(str(path))}, key=str)
        if game is None and len(ids) > 1:
            raise BadInput(f"{location} holds {len(ids)} games: name one with --game ({', '.join(map(str, ids))})")
        chosen = ids[0] if game is None else next((i for i in ids if str(i) == str(game)), None)
        if chosen is None:
            raise BadInput(f"{location} has no game {game} (games: {', '.join(map(str, ids))})")
        sample = read_eval_log_sample(str(path), chosen, resolve_attachments=True)
    try:
        if seat is None or call is None:
            print(calls_text(sample, seat))
        else:
            print(prompt_text(logged_prompt(sample, seat, call)))
    except NoSuchCall as err:
        raise BadInput(str(err)) from err
    return 0


def _add_play(commands: Any) -> None:
    """The ``play`` command's arguments."""
    from wolf_eval.human_game import OPPONENTS

    pl = commands.add_parser("play", help="play one game yourself in a seat, against scripted players (offline) "
                                          "or models; logged and scored like any game (docs/human.md)")
    pl.add_argument("--task", default="triadic", choices=("wolf", "triadic", "dyadic"))
    pl.add_argument("--name", default="player", help="your name in the log: your seat is bound as human/NAME")
    pl.add_argument("--role", help="the role you play (default: drawn among the roles one player holds)")
    pl.add_argument("--opponents", default=OPPONENTS, help=f"the model of every other seat (default {OPPONENTS})")
    pl.add_argument("--seed", type=int, help="the game's seed (default: a new game each time)")
    pl.add_argument("--timeout", type=float, help="seconds you have for each decision (default: no limit)")
    pl.add_argument("--no-judging", action="store_true",
                    help="do not ask you to label each statement (left unjudged, recorded as missing)")
    pl.add_argument("--log-dir", default="logs", help="where the game's log is written (default logs)")
    pl.add_argument("-T", dest="task_args", action="append", default=[], metavar="NAME=VALUE",
                    help="a task parameter, as for inspect eval (games and seed are the command's own)")


def _play_seat(args: argparse.Namespace) -> int:
    """One game with the person in a seat; 1 when it did not finish."""
    from inspect_ai.model import get_model

    from wolf_eval.human_game import play, summary
    from wolf_eval.refusal import ValueRefused

    options: dict[str, Any] = {"judging": not args.no_judging}
    if args.timeout is not None:
        options["timeout"] = args.timeout
    try:  # the person's model, made here as the one model the command's user names (no eval runs yet)
        person = get_model(f"human/{args.name}", memoize=False, **options)
        log, role, seed = play(args.task, person, args.role, args.opponents, args.seed, args.log_dir,
                               _task_args(args.task_args))
    except ValueRefused as err:
        raise BadInput(f"play: {err}") from err
    print(f"\nYou played the {role} (human/{args.name}) in {args.task} game {seed}.")
    print("\n".join(summary(log, args.name)))
    if log is not None:
        print(f"Log: {log.location}")
    return 0 if log is not None and log.status == "success" else 1


def _fail(args: argparse.Namespace, message: str, status: int) -> int:
    if args.debug:
        traceback.print_exc()
    print(f"wolf-eval: {message}", file=sys.stderr)
    return status


def _replay(location: str) -> int:
    """0 when every finished game replays exactly, 1 when one does not."""
    with local_copies([location]) as [path]:
        release = read_game_log(path, location).eval.packages.get("wolf-eval")
        failed = sum(_replay_game(sample, release) for sample in game_samples(path))
    return 1 if failed else 0


def _replay_game(sample: EvalSample, release: str | None) -> bool:
    """Replay one game and print how it went; True when it could not be replayed or differs."""
    from wolf_eval.replay import replay_sample

    if sample.error is not None:
        print(f"game {sample.id}: not replayed, the sample failed ({sample_error(sample.error.message)})")
        return False
    try:
        logged = game_state(sample)
    except ValueError as err:
        print(f"game {sample.id}: not replayed, {err}")
        return True
    result = replay_sample(sample, logged, release)
    if result.ok:
        equal = "scores equal" if not result.notes else "scores equal but for redefined ones"
        print(f"game {sample.id}: replays exactly ({result.replies} replies, {result.waves} waves, "
              f"{result.records} records, {equal})")
        for note in result.notes:
            print(f"  - {note}")
        return False
    print(f"game {sample.id}: DIFFERS")
    for problem in result.problems:
        print(f"  - {problem}")
    return True


def _tag_lessons(file: str, model: str | None = None) -> int:
    """Print each lesson's regex tags, and with ``model`` that model's reading beside them."""
    from wolf_eval.lessons.book import NotALessonsFile, latest, read_snapshot
    from wolf_eval.measures.tagger import tag

    folder = Path(file).is_dir()
    if not folder and (kind := not_a_file(Path(file), "lessons file")) is not None:  # a pipe would hang the read
        raise BadInput(f"{file}: {kind}")
    try:
        stored = latest(file, None) if folder else read_snapshot(file)
    except NotALessonsFile as err:
        raise BadInput(f"{file}: not a wolf-eval lessons file (expected the JSON that jester_learning writes: "
                       f"{err.reason})") from err
    except OSError as err:
        raise BadInput(f"{file}: cannot be read ({err.strerror or type(err).__name__})") from err
    if stored is None:
        raise BadInput(f"{file}: a folder, not a lessons file, and it holds no lessons snapshot (000001.json, ...)"
                       if folder else f"{file}: no such file")
    if not stored.lessons:
        raise NoResult(f"{file}: the file holds no lessons")
    readings = _model_readings(model, [x.text for x in stored.lessons]) if model else None
    print(f"{stored.model}: {len(stored.lessons)} lessons\n")
    extra = " model order | model categories |" if readings else ""
    print(f"| # | list | ToM order | categories |{extra} lesson |")
    print("|---|---|---|---|" + ("---|---|" if readings else "") + "---|")
    for i, lesson in enumerate(stored.lessons, start=1):
        t = tag(lesson.text)
        text = lesson.text.replace("|", "\\|")
        mine = ""
        if readings:
            r = readings[i - 1]
            mine = (f" {r.order} | {', '.join(r.categories) or '–'} |" if r.order is not None
                    else f" lost | {(r.problem or '').replace('|', '/')} |")
        print(f"| {i} | {lesson.list} | {t.order} | {', '.join(t.categories) or '–'} |{mine} {text} |")
    if readings:
        _summarise_readings(model or "", readings, [tag(x.text).order for x in stored.lessons])
    return 0


def _model_readings(model: str, lessons: list[str]) -> list[Any]:
    """``model``'s reading of every lesson, one call each at seed 0 (as ``benchmarks/tagger_agreement.py``)."""
    import asyncio

    from inspect_ai.model import get_model

    from wolf_eval.agents.model_tagger import tagger_readings

    try:
        tagger = get_model(model)
    except Exception as err:
        raise BadInput(f"--model {model}: cannot be used ({type(err).__name__}: {str(err).strip()[:160]})") from err
    return asyncio.run(tagger_readings(tagger, lessons, [0] * len(lessons)))


def _summarise_readings(model: str, readings: list[Any], regex_orders: list[int]) -> None:
    """How many readings were lost and how often the model's order is the regex tagger's; fails when all were lost."""
    given = [(r.order, o) for r, o in zip(readings, regex_orders, strict=True) if r.order is not None]
    same = sum(1 for mine, theirs in given if mine == theirs)
    print(f"\nmodel tagger {model}: {len(given)} of {len(readings)} lessons read "
          f"({len(readings) - len(given)} lost: an unreadable reply, never replaced by the regex reading); "
          f"its ToM order is the regex tagger's on {same} of {len(given)}")
    if not given:
        raise NoResult(f"--model {model}: no reply could be read as tags, so there is no model reading")


def _report(locations: list[str], out: str | None, keep_duplicates: bool = False) -> int:
    from wolf_eval.analysis.corpus import values
    from wolf_eval.analysis.markdown import headline_markdown, money_markdown
    from wolf_eval.analysis.report import CELL_FILES, REPORT_FILES, write_report

    with local_copies(locations) as paths:
        for shown, p in zip(locations, paths, strict=True):
            if p.is_file():
                read_game_log(p, shown)  # a file named on the command line must be a finished wolf-eval log
        first = paths[0]
        local = not is_remote(locations[0])
        beside = (first if first.is_dir() else first.parent) / "report"
        folder = Path(out) if out else (beside if local else Path("report"))
        earlier = [f.name for f in folder.glob(CELL_FILES)] if folder.is_dir() else []
        with written_together(folder, out, replaces=[*REPORT_FILES, *earlier]) as stage:
            corpus, tables, _ = write_report(paths, stage, keep_duplicates)
            for why in corpus.skipped:
                print(f"wolf-eval: left out {why}", file=sys.stderr)
            if corpus.duplicates:
                how = "kept (--keep-duplicates)" if keep_duplicates else "set aside (--keep-duplicates counts them)"
                print(f"wolf-eval: {len(corpus.duplicates)} duplicate games {how}: each is a game already counted, "
                      "record for record, with the same seat models and judge", file=sys.stderr)
            if not tables:
                raise NoResult(f"no finished games in {', '.join(locations)}: no wolf-eval game there finished; "
                               "no report written")
    print(headline_markdown(tables["win_rates"]))
    print(f"\n{money_markdown(values(corpus.games, 'usage'))}")
    print(f"\n{len(corpus.games)} games; full report: {folder / 'report.md'}")
    return 0


def _rate(args: argparse.Namespace) -> int:
    """Print (and with --out write) the leaderboard of every model the logs' games seat; 1 when none can be rated."""
    import time

    from wolf_eval.analysis.corpus import load
    from wolf_eval.analysis.figures import cost_rating
    from wolf_eval.analysis.markdown import ratings_markdown
    from wolf_eval.analysis.rating import DRAWS, NothingToRate, leaderboard

    if not args.logs:
        raise NoResult("rate: no logs named: give the Inspect logs or folders of the games to rate")
    if args.draws is not None and args.draws < 1:
        raise BadInput(f"--draws {args.draws}: must be at least 1")
    started = time.perf_counter()
    with local_copies(args.logs) as paths:
        for shown, p in zip(args.logs, paths, strict=True):
            if p.is_file():
                read_game_log(p, shown)
        corpus = load(paths, args.keep_duplicates)
    if corpus.games.empty:
        more = len(corpus.skipped) - 2
        reasons = "; ".join(corpus.skipped[:2]) + (f"; {more} more" if more > 0 else "")
        raise NoResult(f"rate: no finished game in {', '.join(args.logs)}, nothing to rate ({reasons})")
    for why in corpus.skipped:
        print(f"wolf-eval: left out {why}", file=sys.stderr)
    try:
        ratings = leaderboard(corpus.games, args.draws or DRAWS, args.seed, args.anchor)
    except NothingToRate as err:
        raise NoResult(f"rate: {err}") from err
    figure = None
    if args.out:
        with written_together(Path(args.out)) as stage:
            figure = cost_rating(ratings.board, stage)
            (stage / "leaderboard.md").write_text("\n".join(ratings_markdown(ratings, figure=figure)), encoding="utf-8")
    print("\n".join(ratings_markdown(ratings, figure=figure)))
    print(f"{len(ratings.board)} models rated from {ratings.games} games in {time.perf_counter() - started:.1f} s"
          + (f"; written to {args.out}" if args.out else ""))
    return 0


def _task_args(pairs: list[str]) -> dict[str, Any]:
    import yaml

    args: dict[str, Any] = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq or not name.strip():
            raise BadInput(f"-T {pair}: expected NAME=VALUE")
        parsed = yaml.safe_load(value)
        args[name.strip()] = parsed.split(",") if isinstance(parsed, str) and "," in parsed else parsed
    return args


def _compare(args: argparse.Namespace) -> int:
    """Play (unless --tables-only) and tabulate a comparison; 1 when a game is missing or failed, naming it."""
    from wolf_eval.analysis import compare

    folder = Path(args.log_dir)
    against = [] if args.crossplay else [m.strip() for a in (args.against or [",".join(compare.DEFAULT_AGAINST)])
                                         for m in a.split(",") if m.strip()]
    task_args = _task_args(args.task_args)
    try:
        plan = compare.pairings(args.models, args.task, against) if args.models or not args.tables_only else []
        stopping = _stopping(args, task_args, against)
    except ValueError as err:
        raise BadInput(f"compare: {err}") from err
    if args.tables_only and not folder.is_dir():
        raise BadInput(f"{folder}: no such folder")
    if stopping is not None:
        return _compare_in_rounds(args, folder, plan, against, task_args, stopping)
    expected = [] if args.tables_only else _play(args, folder, plan, task_args)
    rows = _comparison_rows(folder, expected)
    if args.models:
        rows = rows[rows["model"].isin([*args.models, *against]) & rows["opponent"].isin([*args.models, *against])]
    table, pairs = compare.by_model(_compared(rows, args.models)), compare.head_to_head(rows)
    if pairs.empty:
        raise NoResult(f"{folder}: no two models played the same faction on the same deals; no comparison written")
    return _write_comparison(folder, rows, compare.markdown(table, pairs, compare.monitor_table(rows),
                                                           compare.role_play_table(rows)))


def _stopping(args: argparse.Namespace, task_args: dict[str, Any], against: list[str]) -> Any:
    """When a comparison in rounds stops; None without --sequential (whose options are then refused)."""
    from dataclasses import replace

    from wolf_eval.analysis import plan
    from wolf_eval.analysis.rounds import Stopping, family, pairs_asked, primary_question
    from wolf_eval.analysis.sequential import ALPHA, ANYTIME, FUTILITY, GROUP, NO_FUTILITY, SPENDING, futility
    from wolf_eval.settings import Settings

    options = ("design", "spending", "futility", "primary", "alpha", "difference", "power", "max_games", "max_usd")
    given = [f"--{n.replace('_', '-')}" for n in options if getattr(args, n) is not None]
    if args.per_question:
        given.append("--per-question")
    if not args.sequential:
        if given:
            raise ValueError(f"{', '.join(given)} only {'go' if len(given) > 1 else 'goes'} with --sequential")
        return None
    _check_priced(args, list(dict.fromkeys([*args.models, *against])))
    games = Settings.from_task_args(args.task, **task_args).games
    design = args.design or GROUP
    alpha = ALPHA if args.alpha is None else args.alpha
    questions = family(args.task, args.models, against)
    if design == ANYTIME and any(v is not None for v in (args.difference, args.power, args.spending, args.futility)):
        raise ValueError("--difference, --power, --spending and --futility plan the group design's cap and bounds; "
                         "the anytime design needs none")
    spending = args.spending or SPENDING
    difference, power = args.difference or plan.DIFFERENCE, args.power or plan.POWER
    if not (0 < difference < 1 and 0 < power < 1):
        raise ValueError(f"--difference {difference:g} and --power {power:g}: each lies strictly between 0 and 1")
    if args.primary is not None and args.per_question:
        raise ValueError("--primary takes a larger share of --alpha for one question; --per-question tests each at "
                         "--alpha alone")
    primary = None if args.primary is None else primary_question(args.task, args.primary)
    beta_spending = (args.futility or FUTILITY) if design == GROUP else None
    stopping = Stopping(max_games=args.max_games or games, round_games=games, alpha=alpha, max_usd=args.max_usd,
                        design=design, spending=spending, questions=questions, per_question=args.per_question,
                        primary=primary, primaries=pairs_asked(args.models, against) if primary else 0,
                        futile=futility(beta_spending, difference, power))
    if args.max_games is not None:
        return stopping
    cap = plan.planned_cap(difference, power, stopping.question_alpha, spending, games,  # the other questions' level
                           stopping.futile.spending if stopping.futile else NO_FUTILITY)
    return replace(stopping, max_games=cap)


def _check_priced(args: argparse.Namespace, models: list[str]) -> None:
    """--max-usd needs a model with a price; say which are left out of the count."""
    from wolf_eval.measures.cost import price_of

    if args.max_usd is None:
        return
    priced = [m for m in models if price_of(m) is not None]
    if not priced:
        raise ValueError(f"--max-usd: no model of the comparison has a known price ({', '.join(models)}; "
                         "WOLF_EVAL_PRICES adds one)")
    if len(priced) < len(models):
        print(f"wolf-eval: --max-usd counts {', '.join(priced)} only: no price known for "
              f"{', '.join(m for m in models if m not in priced)}", file=sys.stderr)


def _play(args: argparse.Namespace, folder: Path, plan: list[Any], task_args: dict[str, Any],
          rounds: list[list[Any]] | None = None) -> list[Any]:
    """Run the comparison's evals as one eval set (every round's, with ``rounds``: the seed goes up by one a
    round); the evals it plans, for :func:`wolf_eval.analysis.compare.missing_games`."""
    from inspect_ai import eval_set

    from wolf_eval._registry import TASKS
    from wolf_eval.analysis import compare
    from wolf_eval.settings import Settings

    base = Settings.from_task_args(args.task, **task_args).seed
    tasks, expected = [], []
    try:
        for k, evals in enumerate(rounds or [plan]):
            at = task_args | {"seed": base + k}
            tasks += compare.comparison_tasks(evals, TASKS[args.task], args.task, at)
            expected += compare.planned_evals(evals, args.task, at)
    except (ValueError, TypeError) as err:
        raise BadInput(f"compare: {err}") from err
    try:
        # in a copy of this context: eval_set leaves its (absent) eval model set in the caller's, where a
        # wolf-eval task built later in the same process would take it for an eval started without a model
        # without Inspect's live sample buffer (every event of every game also written to a SQLite database
        # for inspect view to show samples still playing): it took a fifth of a baseline game's CPU time, and a
        # comparison says where it is in its own progress lines; the logs, written as each game ends, are the same
        contextvars.copy_context().run(eval_set, tasks, log_dir=str(folder), retry_attempts=args.retry_attempts,
                                       max_tasks=args.max_tasks, display=args.display, log_realtime=False)
    except KeyboardInterrupt:
        print("wolf-eval: compare interrupted", file=sys.stderr)
    return expected


def _comparison_rows(folder: Path, expected: list[Any]) -> Any:
    """The folder's comparison rows; NoResult naming every game still missing, or when there are none."""
    from wolf_eval.analysis import compare
    from wolf_eval.logfiles import inspect_logs

    rows, skipped = compare.comparison_rows([folder])
    for why in skipped:
        print(f"wolf-eval: left out {why}", file=sys.stderr)
    logs, _ = inspect_logs([folder])
    gaps = compare.missing_games(logs, rows, expected)
    if gaps:
        for gap in gaps:
            print(f"wolf-eval: missing: {gap}", file=sys.stderr)
        lost = sum(g.missing for g in gaps)
        raise NoResult(f"{folder}: the comparison is not complete: {lost} game{'s' if lost != 1 else ''} missing in "
                       f"{len(gaps)} eval{'s' if len(gaps) != 1 else ''} (listed above); no tables written: run the "
                       "same command again to resume")
    if rows.empty:
        raise NoResult(f"{folder}: no finished game with one model per faction; no comparison written")
    return rows


def _write_comparison(folder: Path, rows: Any, text: str) -> int:
    with written_together(folder / "compare") as stage:
        (stage / "compare.md").write_text(text, encoding="utf-8")
    print(text)
    games = rows[["log", "sample", "epoch"]].drop_duplicates().shape[0]
    print(f"{games} games; tables: {folder / 'compare' / 'compare.md'}")
    return 0


def _compare_in_rounds(args: argparse.Namespace, folder: Path, plan: list[Any], against: list[str],
                       task_args: dict[str, Any], stopping: Any) -> int:
    """Play round after round until every question is decided or capped (resuming any round under way)."""
    import pandas as pd

    from wolf_eval.analysis import compare, rounds
    from wolf_eval.settings import Settings

    if not args.models:
        raise BadInput("compare --sequential: name the models compared (with the same options as when it played)")
    base = Settings.from_task_args(args.task, **task_args).seed
    rows = compare.comparison_rows([folder])[0] if folder.is_dir() else pd.DataFrame()
    now = rounds.standing(args.task, rows, plan, args.models, against, stopping, base)
    pace = rounds.Pace()
    while not (now.finished or args.tables_only):
        print(f"wolf-eval: {pace.line(now, stopping)}", file=sys.stderr, flush=True)
        rows = _comparison_rows(folder, _play(args, folder, plan, task_args, now.rounds))
        before, now = now, rounds.standing(args.task, rows, plan, args.models, against, stopping, base)
        pace.played(now.games - before.games)
        if now.complete == before.complete:  # every game finished, yet the round is not: they seat someone else
            raise NoResult(f"{folder}: round {now.complete + 1} finished without the games it plans (a log there "
                           "from another comparison?); no tables written")
    if args.tables_only and not now.finished:
        raise NoResult(f"{folder}: round {now.complete + 1} is not complete; no tables written: run the command "
                       "without --tables-only to play it")
    done = rounds.round_rows(rows, base, now.complete)
    decided = rounds.decisions_markdown(now.questions, now, stopping)
    return _write_comparison(folder, done, compare.model_markdown(compare.by_model(_compared(done, args.models)))
                             + "\n" + decided)


def _compared(rows: Any, models: list[str]) -> Any:
    """The rows of the models compared (not a reference opponent's own side of their games); all without names."""
    return rows[rows["model"].isin(models)] if models else rows


def _plan(args: argparse.Namespace) -> int:
    """Print what a comparison costs, per headline figure and design, from the pilot's games; 1 when none apply."""
    from wolf_eval.analysis import compare, plan
    from wolf_eval.measures import cost as cost_

    if not args.logs:
        raise NoResult("plan: no logs named: give the Inspect logs or folders of a pilot's games")
    if args.priced_as and cost_.price_of(args.priced_as) is None:
        raise BadInput(f"--priced-as {args.priced_as}: no price known for that model (WOLF_EVAL_PRICES adds one)")
    with local_copies(args.logs) as paths:
        for shown, p in zip(args.logs, paths, strict=True):
            if p.is_file():
                read_game_log(p, shown)
        rows, skipped = compare.comparison_rows(paths)
    for why in skipped:
        print(f"wolf-eval: left out {why}", file=sys.stderr)
    if rows.empty:
        raise NoResult(f"plan: no finished game with one model per faction in {', '.join(args.logs)}: nothing to "
                       "measure a spread from")
    if args.models < 2 or (args.max_games is not None and args.max_games < 1):
        raise BadInput("plan: --models counts two or more models, --max-games one game or more")
    questions = args.models * (args.models - 1) // 2 * plan.pair_questions(rows)
    try:
        table = plan.plan(rows, args.difference, args.power, args.alpha, args.priced_as, args.design, questions,
                          args.max_games, args.spending, args.futility)
    except ValueError as err:
        raise BadInput(f"plan: {err}") from err
    if table.empty:
        raise NoResult("plan: no headline figure varies in the pilot's games (at least two games of one model and "
                       "opponent are needed)")
    unpriced = cost_.unpriced(list(rows["usage"]))
    usd_note = (f"USD: every seat's tokens at {args.priced_as}'s list price." if args.priced_as else
                f"USD: n/a, no price known for {', '.join(unpriced)} (--priced-as MODEL prices the pilot's tokens)."
                if unpriced else "USD: every seat's tokens at its model's list price; against free baseline "
                                 "opponents only the compared models' seats are paid.")
    games = rows[["log", "sample", "epoch"]].drop_duplicates().shape[0]
    print(plan.plan_markdown(table, args.difference, args.power, args.alpha, games, usd_note))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
