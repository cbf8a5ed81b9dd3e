"""Every file, folder and link the README and the docs name is in the repository, and the user guide speaks to a user.

A task or scorer's registry name (``wolf_eval/triadic``, ``wolf_eval/village_win``) is not a path, and the smoke
workflow is a file the docs tell a user to save, in words that say so. A link to a page's section names a heading
the page has (GitHub's anchors). History (commit hashes, issue numbers) belongs in CHANGELOG.md, not in the guide.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NAMED = re.compile(r"(?<![\w/.-])((?:benchmarks|tests|docs|wolf_eval|examples|solvers|scorers|tasks|\.ci|\.github)"
                   r"/[\w./-]*\w)")
#: Registry names: ``wolf_eval/<task or scorer>`` with no further folder and no file extension.
REGISTRY = re.compile(r"wolf_eval/\w+")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
#: What a user guide does not hold: a commit hash in backticks or after "commit", an issue number, a tool of the
#: project's own workshop.
HISTORY = re.compile(r"\bcommit [0-9a-f]{7,40}\b|`[0-9a-f]{7,40}`|\b(?:issue|PR|pull request) #?\d+"
                     r"|farm-(?:studio|bench)|\bduplicates --")


def named_paths(text: str) -> set[str]:
    return {p for p in NAMED.findall(text) if not REGISTRY.fullmatch(p)}


def anchors(page: Path) -> set[str]:
    """GitHub's anchor of each heading: lower case, punctuation but hyphens dropped, spaces as hyphens."""
    out, seen = set(), dict[str, int]()
    for line in page.read_text(encoding="utf-8").splitlines():
        if m := re.match(r"#{1,6} (.*)", line):
            slug = re.sub(r"[^\w\- ]", "", m[1].strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def broken_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    out = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):  # http(s): the network is not the repository's
            continue
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            out.append(target)
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            out.append(target)
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_path_a_page_names_exists(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    to_save = {p for p in named_paths(text) if re.search(rf"save it as `{re.escape(p)}`", text)}
    missing = sorted(p for p in named_paths(text) - to_save if not (ROOT / p).exists())
    assert missing == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_a_page_makes_exists(page: Path) -> None:
    assert broken_links(page) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_guide_holds_no_history(page: Path) -> None:
    assert HISTORY.findall(page.read_text(encoding="utf-8")) == []


def test_the_readme_is_a_short_guide_that_links_every_docs_page() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    linked = {t.partition("#")[0] for t in LINK.findall(text)}
    assert {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} <= linked
    assert "CHANGELOG.md" in linked


def test_a_missing_path_a_broken_link_and_history_are_caught(tmp_path: Path) -> None:
    assert named_paths("run `benchmarks/nope.py` on `wolf_eval/triadic` then `docs/x.png`") == \
        {"benchmarks/nope.py", "docs/x.png"}
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n## Its part\n\n[a](page.md#its-part) [b](nope.md) [c](#no-such) "
                    "[d](https://example.org)\n", encoding="utf-8")
    assert broken_links(page) == ["nope.md", "#no-such"]
    assert HISTORY.findall("at commit d6d08f1, see issue 36, timed with farm-bench") == \
        ["commit d6d08f1", "issue 36", "farm-bench"]
