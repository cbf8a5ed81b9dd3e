"""The type checker's exceptions stay few: at most 20 ``type: ignore`` comments in the checked code.

mypy (``[tool.mypy]`` in pyproject.toml, run by ``.ci/run``) checks wolf_eval/; an ignore there silences
it for one line, so each is counted here and each names its error code (mypy's ``ignore-without-code``)
and says why in a comment on the line above it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("wolf_eval",)
MOST = 20
IGNORE = re.compile(r"#\s*type:\s*ignore\b")


def ignores(unexplained: bool = False) -> list[str]:
    """Each ``type: ignore`` in the checked folders, as ``path:line: text`` (``unexplained``: only those
    whose line above is not a comment)."""
    found = []
    for folder in CHECKED:
        for p in sorted((ROOT / folder).rglob("*.py")):
            lines = p.read_text(encoding="utf-8").splitlines()
            for n, line in enumerate(lines, 1):
                said = n > 1 and lines[n - 2].strip().startswith("#")
                if IGNORE.search(line) and not (unexplained and said):
                    found.append(f"{p.relative_to(ROOT)}:{n}: {line.strip()}")
    return found


def test_at_most_twenty_type_ignores_in_the_checked_code() -> None:
    found = ignores()
    assert len(found) <= MOST, "\n".join(found)


def test_every_type_ignore_says_why_on_the_line_above() -> None:
    assert ignores(unexplained=True) == []


def test_the_count_sees_an_ignore() -> None:
    assert IGNORE.search("x = f()  # type: ignore[arg-type]  # why")
    assert not IGNORE.search("# the type checker ignores nothing here")
