"""The docs' parameter table, written from the parameter table in ``wolf_eval.settings``.

Any Markdown file may carry the table between the two marker lines below (each a line of its own);
this module rewrites what stands between them, so the docs cannot drift from the task's own parameters::

    python -m wolf_eval.parameters            # rewrite README.md and docs/*.md where they carry the markers
    python -m wolf_eval.parameters --check    # exit 1, naming each stale file, if a block is out of date

Files may be named on the command line instead. A run that finds no marked file exits 1: it did nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, get_args

from wolf_eval.engine.variants import VariantName
from wolf_eval.settings import PARAMETERS, Settings, task_signature

BEGIN = "<!-- Parameters: Automatically Generated -->"
END = "<!-- /Parameters: Automatically Generated -->"


def _shown(value: Any) -> str:
    """A default as ``-T`` takes it: YAML's true/false/null."""
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _default(name: str) -> str:
    """The default each task's signature gives, or each task's where they differ (``wolf: 20; triadic, dyadic: 50``)."""
    by_value: dict[str, list[str]] = {}
    for variant in get_args(VariantName):
        value = task_signature(variant).parameters[name].default
        applies = value is not None or getattr(Settings.defaults(variant), name) is None
        by_value.setdefault(f"`{_shown(value)}`" if applies else "does not apply", []).append(variant)
    if len(by_value) == 1:
        return next(iter(by_value))
    return "; ".join(f"{', '.join(names)}: {shown}" for shown, names in by_value.items())


def parameter_table() -> str:
    """The task parameters as a Markdown table: name, default, what it accepts, what it does."""
    rows = ["| Parameter | Default | Accepts | What it does |", "| --- | --- | --- | --- |"]
    for name, row in PARAMETERS.items():
        note = "" if row.condition else " Not a condition: games with another value share a report cell."
        rows.append(f"| `{name}` | {_default(name)} | {row.accepts} | {row.does}{note} |")
    return "\n".join(rows)


def refreshed(text: str, where: str = "the file") -> str:
    """``text`` with the table written between each pair of marker lines; a marker without its pair is refused.

    A marker counts only as a line of its own, so a page may quote it in a sentence or a code span.
    """
    out: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        if line.strip() == BEGIN and not inside:
            out += [line, parameter_table() + "\n"]
            inside = True
        elif line.strip() == END and inside:
            out.append(line)
            inside = False
        elif line.strip() in (BEGIN, END):
            raise ValueError(f"{where}: {line.strip()} where {END if inside else BEGIN} was expected")
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{where}: {BEGIN} has no {END} after it")
    return "".join(out)


def marked(paths: Sequence[Path]) -> list[Path]:
    """The files among ``paths`` that carry the opening marker as a line of its own."""
    return [p for p in paths if p.is_file() and BEGIN in p.read_text(encoding="utf-8").splitlines()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wolf_eval.parameters", description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="Markdown files (default: README.md and docs/*.md)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a block is out of date")
    args = parser.parse_args(argv)
    files = marked(args.files or [Path("README.md"), *sorted(Path("docs").glob("*.md"))])
    if not files:
        print(f"no file carries {BEGIN}: nothing written", file=sys.stderr)
        return 1
    stale = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            new = refreshed(text, str(path))
        except ValueError as err:
            print(err, file=sys.stderr)
            return 1
        if new != text:
            stale.append(path)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    verb = "out of date" if args.check else "rewritten"
    for path in stale:
        print(f"{path}: parameter table {verb}" + (" (run python -m wolf_eval.parameters)" if args.check else ""))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
