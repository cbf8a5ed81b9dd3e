"""One eval of a wolf-eval task, timed in a process of its own: the child of ``speed.py --releases``.

    path/to/checkout/.venv/bin/python benchmarks/timed_eval.py triadic wolfbot/cue '{"games": 10}'

Written against Inspect's public API and the standard library alone, so that any release's checkout
runs it with its own interpreter and installed package (the release being timed is the one that
interpreter imports). Prints one JSON line: the release's version, the games and model calls the log
holds, and the wall and CPU seconds of the eval alone (the interpreter's start and imports are
timed apart, as ``startup``); CPU is the process's, every thread of it, so it is what the eval cost
however loaded the machine was.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time


def main() -> None:
    start = (time.perf_counter(), time.process_time())
    from inspect_ai import eval as inspect_eval
    from inspect_ai.log import read_eval_log_samples

    import wolf_eval

    task, model, task_args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    ready = (time.perf_counter(), time.process_time())
    with tempfile.TemporaryDirectory() as tmp:
        [log] = inspect_eval(f"wolf_eval/{task}", model=model, task_args=task_args, log_dir=tmp, display="none")
        done = (time.perf_counter(), time.process_time())
        if log.status != "success":
            raise SystemExit(f"{task} on {model}: eval {log.status}: {log.error}")
        games = calls = 0
        for sample in read_eval_log_samples(log.location):
            games += 1
            calls += sum(1 for e in sample.events if e.event == "model")
    print(json.dumps({"version": wolf_eval.__version__, "games": games, "calls": calls,
                      "wall": done[0] - ready[0], "cpu": done[1] - ready[1],
                      "startup_wall": ready[0] - start[0], "startup_cpu": ready[1] - start[1]}))


if __name__ == "__main__":
    main()
