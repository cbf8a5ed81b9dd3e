"""Every file or folder the README names is in the repository (issue 29: it once named a workflow it lacked).

A task or scorer's registry name (``wolf_eval/triadic``, ``wolf_eval/village_win``) is not a path, and
the smoke workflow is a file the README tells a user to save, in words that say so.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMED = re.compile(r"(?<![\w/.-])((?:benchmarks|tests|docs|wolf_eval|examples|solvers|scorers|tasks|\.ci|\.github)"
                   r"/[\w./-]*\w)")
#: Registry names: ``wolf_eval/<task or scorer>`` with no further folder and no file extension.
REGISTRY = re.compile(r"wolf_eval/\w+")


def named_paths(text: str) -> set[str]:
    return {p for p in NAMED.findall(text) if not REGISTRY.fullmatch(p)}


def test_every_path_the_readme_names_exists() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    to_save = {p for p in named_paths(text) if re.search(rf"save it as `{re.escape(p)}`", text)}
    missing = sorted(p for p in named_paths(text) - to_save if not (ROOT / p).exists())
    assert missing == []
    assert len(named_paths(text)) > 40


def test_a_missing_path_is_caught() -> None:
    assert named_paths("run `benchmarks/nope.py` on `wolf_eval/triadic` then `docs/x.png`") == \
        {"benchmarks/nope.py", "docs/x.png"}
