"""The WOLF paper's event log of each logged game as NDJSON, with the game's final state beside it.

``wolf-eval export`` writes these files; the benchmarks read a logged game's final state with
:func:`game_state`. Every game record pairs with the transcript event the solver wrote for it, so a
line's timestamp is when the record happened.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalSample

from wolf_eval.agents.seat_call import logged_parts
from wolf_eval.engine import GameState
from wolf_eval.logfiles import game_samples, is_remote, local_copies, read_game_log, sample_error, written_together
from wolf_eval.records import Kind
from wolf_eval.store import logged_record

#: What a model call of several decisions asked, beside its ``decisions``.
JOINT = {"action": "joint", "subject": None}
#: The transcript sources of game records (``wolf_eval/solvers/transcript.py``); other ``wolf_eval/`` notes, such as
#: a learning run's ``wolf_eval/lessons``, say something about the game and are not records of it.
RECORD_SOURCES = frozenset(f"wolf_eval/{kind.value}" for kind in Kind)


def game_state(sample: EvalSample) -> GameState:
    """The finished game a logged sample holds; a sample without one is named in the error."""
    try:
        return logged_record(sample.store).game()
    except ValueError as err:
        raise ValueError(f"sample {sample.id}: {err}") from None


def event_stream(sample: EvalSample) -> Iterator[dict[str, Any]]:
    """The WOLF paper's event log: game records and model calls, in the order they happened.

    A provider attempt that failed (and was retried) is a ``model_error`` line, never a model call.

    Records come from the final game state (the source of truth); each takes the
    timestamp of the transcript event the solver wrote for it, in record order.
    """
    game = game_state(sample)
    records = iter(game.records)
    step = 0
    for e in sample.events:
        if e.event == "info" and e.source in RECORD_SOURCES:
            r = next(records, None)
            if r is None or e.source != f"wolf_eval/{r.kind.value}":
                raise ValueError(f"sample {sample.id}: transcript event {e.source} does not match game record "
                                 f"{None if r is None else r.kind}; the log is not a complete wolf-eval game")
            details = {"index": r.index, "visibility": r.visibility, "target": r.target, "text": r.text,
                       "data": r.data.model_dump(mode="json")}
            line = {"day": r.day, "phase": r.phase.value, "event": r.kind.value, "actor": r.actor, "details": details}
        elif (e.event == "model" and e.input and e.input[-1].metadata
                and "wolf_eval" in e.input[-1].metadata and e.error):
            obs, asked = _asked(e.input[-1].metadata["wolf_eval"])
            line = {"day": obs["day"], "phase": obs["phase"], "event": "model_error", "actor": obs["seat"],
                    "details": {**asked, "model": e.model, "error": e.error}}
        elif e.event == "model" and e.input and e.input[-1].metadata and "wolf_eval" in e.input[-1].metadata:
            obs, asked = _asked(e.input[-1].metadata["wolf_eval"])
            usage = e.output.usage.model_dump(exclude_none=True) if e.output.usage else None
            line = {"day": obs["day"], "phase": obs["phase"], "event": "model_call", "actor": obs["seat"],
                    "details": {**asked, "model": e.model,
                                "prompt": [{"role": m.role, "content": m.text} for m in e.input],
                                "raw_output": e.output.completion, "usage": usage}}
        else:
            continue
        yield {"timestamp": e.timestamp.isoformat(), "step": step, **line}
        step += 1
    left = sum(1 for _ in records)
    if left:
        raise ValueError(f"sample {sample.id}: {left} game records have no transcript event")


def _asked(meta: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A logged call's first decision's view, and what the call asked: every decision's action and subject
    under ``decisions``, beside the one decision's (or ``action`` "joint" for a call of several)."""
    parts = logged_parts(meta)
    decisions = [{"action": p["action"], "subject": p.get("subject")} for p in parts]
    return parts[0], {**(decisions[0] if len(decisions) == 1 else JOINT), "decisions": decisions}


def export(log_path: str, out_dir: str | None = None) -> list[Path]:
    """Write ``game<id>-<log>.ndjson`` and ``game<id>-<log>.state.json`` per game; return the paths.

    The default folder is beside the log, named after it; a remote log's is in the current folder.
    Each name opens with ``game``, never with the log's timestamp: Inspect takes any ``.json`` file
    whose name opens with one for a log, so a state file named after the log and written into a
    log folder would break ``inspect view``'s list, ``evals_df`` and ``wolf-eval report`` there.
    Files appear only once every game is written.
    """
    with local_copies([log_path]) as [path]:
        log = read_game_log(path, log_path)
        stem = path.stem
        default = Path(stem) if is_remote(log_path) else path.with_suffix("")
        out = Path(out_dir) if out_dir else default
        written: list[Path] = []
        with written_together(out, out_dir) as stage:
            for sample in game_samples(path):
                if sample.error is not None:
                    print(f"wolf-eval: {log_path}: game {sample.id} not exported, it failed "
                          f"({sample_error(sample.error.message)})", file=sys.stderr)
                    continue
                name = f"game{sample.id}" + (f"-epoch{sample.epoch}" if sample.epoch > 1 else "") + f"-{stem}"
                with (stage / f"{name}.ndjson").open("w", encoding="utf-8") as f:
                    for line in event_stream(sample):
                        f.write(json.dumps(line, ensure_ascii=False) + "\n")
                (stage / f"{name}.state.json").write_text(json.dumps({
                    "state": game_state(sample).model_dump(mode="json"),
                    "seat_models": logged_record(sample.store).seat_models,
                    "task": log.eval.task, "sample_id": sample.id, "epoch": sample.epoch,
                }, indent=1, ensure_ascii=False), encoding="utf-8")
                written += [out / f"{name}.ndjson", out / f"{name}.state.json"]
        return written
