"""Time ``wolf-eval report`` on a folder of logs, stage by stage, and its peak memory.

    python benchmarks/report.py LOGDIR [LOGDIR ...]

Prints the games and cells read, seconds to read the logs (evals_df + samples_df + game
per-game values), to build the tables, to draw the figures and write the Markdown, and the peak
resident memory of the process.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

from wolf_eval.analysis import report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("logdir", nargs="+")
    args = ap.parse_args()
    t0 = time.perf_counter()
    corpus = report.load(args.logdir)
    t1 = time.perf_counter()
    tables = report.build(corpus)
    t2 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        drawn = report.figures(tables, Path(tmp))
        (Path(tmp) / "report.md").write_text(report.render_markdown(corpus, tables, drawn))
    t3 = time.perf_counter()
    files = [p for d in map(Path, args.logdir) for p in ([d] if d.is_file() else d.rglob("*.eval"))]
    size = sum(p.stat().st_size for p in files)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if sys.platform == "darwin":
        peak_mb /= 1024
    print(f"games: {len(corpus.games)} in {len(report.cells(corpus.games))} cells;"
          f" statements: {int(corpus.games['analysed'].sum()) if len(corpus.games) else 0}; logs: {size / 1e6:.1f} MB")
    print(f"read logs: {t1 - t0:.1f} s; tables: {t2 - t1:.2f} s; figures and Markdown: {t3 - t2:.2f} s;"
          f" total: {t3 - t0:.1f} s; peak memory: {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
