"""wolf-eval: tools that read Inspect logs of wolf-eval games and Jester lessons files (never a live game)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalSample, read_eval_log

from wolf_eval.engine import GameState
from wolf_eval.store import logged_record


def game_state(sample: EvalSample) -> GameState:
    try:
        return logged_record(sample.store).game()
    except ValueError as err:
        raise ValueError(f"sample {sample.id}: {err}") from None


def event_stream(sample: EvalSample) -> Iterator[dict[str, Any]]:
    """The WOLF paper's event log: game records and model calls, in the order they happened.

    Records come from the final game state (the source of truth); each takes the
    timestamp of the transcript event the solver wrote for it, in record order.
    """
    game = game_state(sample)
    records = iter(game.records)
    step = 0
    for e in sample.events:
        if e.event == "info" and (e.source or "").startswith("wolf_eval/"):
            r = next(records, None)
            if r is None or e.source != f"wolf_eval/{r.kind.value}":
                raise ValueError(f"sample {sample.id}: transcript event {e.source} does not match game record "
                                 f"{None if r is None else r.kind}; the log is not a complete wolf-eval game")
            details = {"index": r.index, "visibility": r.visibility, "target": r.target, "text": r.text,
                       "data": r.data.model_dump(mode="json")}
            line = {"day": r.day, "phase": r.phase.value, "event": r.kind.value, "actor": r.actor, "details": details}
        elif e.event == "model" and e.input and e.input[-1].metadata and "wolf_eval" in e.input[-1].metadata:
            obs = e.input[-1].metadata["wolf_eval"]
            usage = e.output.usage.model_dump(exclude_none=True) if e.output.usage else None
            line = {"day": obs["day"], "phase": obs["phase"], "event": "model_call", "actor": obs["seat"],
                    "details": {"action": obs["action"], "subject": obs.get("subject"), "model": e.model,
                                "prompt": [{"role": m.role, "content": m.text} for m in e.input],
                                "raw_output": e.output.completion, "usage": usage}}
        else:
            continue
        yield {"timestamp": e.timestamp.isoformat(), "step": step, **line}
        step += 1
    left = sum(1 for _ in records)
    if left:
        raise ValueError(f"sample {sample.id}: {left} game records have no transcript event")


def export(log_path: str, out_dir: str | None = None) -> list[Path]:
    """Write ``<log>-game<id>.ndjson`` and ``<log>-game<id>.state.json`` per game; return the paths."""
    log = read_eval_log(log_path, resolve_attachments=True)
    out = Path(out_dir) if out_dir else Path(log_path).with_suffix("")
    out.mkdir(parents=True, exist_ok=True)
    stem = Path(log_path).stem
    written: list[Path] = []
    for sample in log.samples or []:
        if sample.error is not None:
            print(f"skipping sample {sample.id}: it failed ({sample.error.message})", file=sys.stderr)
            continue
        name = f"{stem}-game{sample.id}" + (f"-epoch{sample.epoch}" if sample.epoch > 1 else "")
        events = out / f"{name}.ndjson"
        with events.open("w", encoding="utf-8") as f:
            for line in event_stream(sample):
                f.write(json.dumps(line, ensure_ascii=False) + "\n")
        snapshot = out / f"{name}.state.json"
        snapshot.write_text(json.dumps({
            "state": game_state(sample).model_dump(mode="json"),
            "seat_models": logged_record(sample.store).seat_models,
            "task": log.eval.task, "sample_id": sample.id, "epoch": sample.epoch,
        }, indent=1, ensure_ascii=False), encoding="utf-8")
        written += [events, snapshot]
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wolf-eval", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    ex = commands.add_parser("export", help="write each game of a log as NDJSON events plus a final-state JSON")
    ex.add_argument("log", help="an Inspect log file (.eval or .json)")
    ex.add_argument("--out", help="output folder (default: beside the log, named after it)")
    rep = commands.add_parser("report", help="the papers' tables (Markdown and PNG figures) from a folder of logs")
    rep.add_argument("logdir", nargs="+", help="Inspect log files or folders (searched recursively)")
    rep.add_argument("--out", help="output folder (default: report/ inside the first log folder)")
    les = commands.add_parser("lessons", help="work with a Jester lessons file")
    les_cmd = les.add_subparsers(dest="lessons_command", required=True)
    tag_cmd = les_cmd.add_parser("tag", help="print every lesson of a lessons file with its ToM order and categories")
    tag_cmd.add_argument("file", help="a lessons file (JSON, as written with jester_learning)")
    rp = commands.add_parser("replay", help="re-play every game of a log from its recorded replies and check it "
                                            "reaches the same records, final state and scores")
    rp.add_argument("log", help="an Inspect log file (.eval or .json)")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return _replay(args.log)
    if args.command == "lessons":
        return _tag_lessons(args.file)
    if args.command == "report":
        return _report(args.logdir, args.out)
    if not Path(args.log).is_file():
        print(f"wolf-eval: no log file at {args.log}", file=sys.stderr)
        return 2
    try:
        for path in export(args.log, args.out):
            print(path)
    except ValueError as err:
        print(f"wolf-eval: {err}", file=sys.stderr)
        return 2
    return 0


def _replay(path: str) -> int:
    """0 when every finished game replays exactly, 1 when one does not, 2 when the log cannot be read."""
    from wolf_eval.replay import replay_sample

    if not Path(path).is_file():
        print(f"wolf-eval: no log file at {path}", file=sys.stderr)
        return 2
    log = read_eval_log(path, resolve_attachments=True)
    failed = 0
    for sample in log.samples or []:
        if sample.error is not None:
            print(f"game {sample.id}: not replayed, the sample failed ({sample.error.message[:120]})")
            continue
        try:
            logged = game_state(sample)
        except ValueError as err:
            print(f"game {sample.id}: not replayed, {err}")
            continue
        result = replay_sample(sample, logged)
        if result.ok:
            print(f"game {sample.id}: replays exactly ({result.replies} replies, {result.waves} waves, "
                  f"{result.records} records, scores equal)")
        else:
            failed += 1
            print(f"game {sample.id}: DIFFERS")
            for problem in result.problems:
                print(f"  - {problem}")
    if not log.samples:
        print(f"wolf-eval: {path} holds no games", file=sys.stderr)
        return 2
    return 1 if failed else 0


def _tag_lessons(file: str) -> int:
    from wolf_eval.lessons.store import read_lessons
    from wolf_eval.lessons.tagger import tag

    try:
        stored = read_lessons(file)
    except ValueError as err:
        print(f"wolf-eval: {err}", file=sys.stderr)
        return 2
    if stored is None:
        print(f"wolf-eval: no lessons file at {file}", file=sys.stderr)
        return 2
    print(f"{stored.model}: {len(stored.lessons)} lessons\n")
    print("| # | list | ToM order | categories | lesson |")
    print("|---|---|---|---|---|")
    for i, lesson in enumerate(stored.lessons, start=1):
        t = tag(lesson.text)
        text = lesson.text.replace("|", "\\|")
        print(f"| {i} | {lesson.list} | {t.order} | {', '.join(t.categories) or '–'} | {text} |")
    return 0


def _report(logdirs: list[str], out: str | None) -> int:
    from wolf_eval.analysis.report import headline_markdown, write_report

    missing = [p for p in logdirs if not Path(p).exists()]
    if missing:
        print(f"wolf-eval: no such log file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    first = Path(logdirs[0])
    folder = Path(out) if out else (first if first.is_dir() else first.parent) / "report"
    corpus, tables, path = write_report(logdirs, folder)
    for why in corpus.skipped:
        print(f"wolf-eval: left out {why}", file=sys.stderr)
    if not tables:
        print(f"wolf-eval: no finished games in {', '.join(logdirs)}", file=sys.stderr)
        return 1
    print(headline_markdown(tables["win_rates"]))
    print(f"\n{len(corpus.games)} games; full report: {path}")
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
