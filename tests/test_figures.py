"""``benchmarks/figures.py`` writes the figures of the README and docs: its markers, its commands, one block's shape.

The script itself is slow (it plays every benchmark behind the figures) and is not run here; ``python
benchmarks/figures.py --check`` says which blocks are stale.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"


def _load():  # type: ignore[no-untyped-def]
    # figures.py imports its sibling scripts by name, so benchmarks/ is on sys.path while it loads
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("figures", BENCHMARKS / "figures.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["figures"] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


figures = _load()


def test_every_block_lies_on_one_page_with_well_formed_markers() -> None:
    found = figures.homes(ROOT)
    assert set(found) == set(figures.BLOCKS)
    assert found["cost_summary"][0].name == "README.md"
    for name, (_, frozen, body) in found.items():
        block = figures.BLOCKS[name]
        assert frozen == (block.render is None), name
        assert "<!--" not in body, f"{name}: a marker inside the block"
        # each block says under it what made it, in its last paragraph
        last = " ".join(body.strip().split("\n\n")[-1].split())
        assert last.startswith(f"*Block `{name}`"), f"{name}: its last paragraph does not name it: {last}"
        assert "python benchmarks/figures.py" in last, name
        if block.render is not None and not block.slow:
            assert block.command in last


def test_a_malformed_marker_is_caught() -> None:
    with pytest.raises(ValueError):
        figures.blocks_in("<!-- figures:a -->\nx\n<!-- /figures:b -->\n")
    with pytest.raises(ValueError):
        figures.blocks_in("<!-- figures:a -->\nx\n<!-- /figures:a -->\n<!-- figures:a -->\n<!-- /figures:a -->\n")


def test_every_block_names_commands_that_exist() -> None:
    for block in figures.BLOCKS.values():
        assert block.commands, block.name
        assert block.render is not None or block.note, f"{block.name}: a frozen block says what it records"
        for command in block.commands:
            words = shlex.split(command.replace("cd benchmarks && ", ""))
            if words[0] == "pytest":
                continue
            assert words[0] == "python", command
            script = words[1] if "/" in words[1] else f"benchmarks/{words[1]}"
            assert (ROOT / script).is_file(), command


def test_a_block_on_two_pages_is_caught(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("<!-- figures:x -->\na\n<!-- /figures:x -->\n", encoding="utf-8")
    (tmp_path / "docs" / "page.md").write_text("<!-- figures:x -->\nb\n<!-- /figures:x -->\n", encoding="utf-8")
    with pytest.raises(ValueError, match="two pages"):
        figures.homes(tmp_path)
    (tmp_path / "docs" / "page.md").write_text("<!-- figures:y -->\nb\n<!-- /figures:y -->\n", encoding="utf-8")
    assert {k: v[0].name for k, v in figures.homes(tmp_path).items()} == {"x": "README.md", "y": "page.md"}


def test_replace_rewrites_one_block_only() -> None:
    text = "a\n<!-- figures:x -->\nold\n<!-- /figures:x -->\nb\n<!-- figures:y frozen -->\nkept\n<!-- /figures:y -->\n"
    out = figures.replace(text, "x", "new")
    assert out == text.replace("old", "new")
    assert figures.blocks_in(out) == {"x": (False, "new"), "y": (True, "kept")}


@pytest.mark.slow
def test_the_by_day_block_renders_as_a_table() -> None:
    small = {"games": 1, "seed": 3, "max_days": 2, "max_debate_turns": 2, "max_explanation_turns": 1}
    new = figures.measure("triadic", "random", 50, **small)
    old = figures.measure("triadic", "random", 50, **small, **figures.OLD)
    text = figures.by_day_table(new, old)
    rows = [line for line in text.splitlines() if line.startswith("|")]
    header = rows[0].strip("|").split("|")
    assert [h.strip() for h in header[:4]] == ["game-day", "games", "calls, 0.3.0", f"calls, {figures.VERSION}"]
    assert rows[1] == "|" + "---|" * len(header)
    assert len(rows) >= 3
    for row in rows[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == len(header)
        assert all(re.fullmatch(r"[\d,.]+", c) for c in cells), row
    # the joint calls ask fewer calls than the decisions, on the same games
    assert new.days[1]["calls"] < old.days[1]["calls"] == new.days[1]["decisions"]


@pytest.mark.slow
def test_speed_reads_a_game_played_at_the_defaults(tmp_path: Path) -> None:
    """``benchmarks/speed.py`` read every call as asking one decision, so at 0.4.0's joint calls it stopped
    with a KeyError; a joint call is counted by what it asks and re-rendered under either history."""
    speed = _benchmark("speed")
    log = _small_game(tmp_path, words=50, max_days=1, max_debate_turns=2)
    [sample] = speed.read_eval_log(log.location).samples
    row = speed.game_row(sample, 0.0, {})
    assert row["by_action"]["bid+peer_analysis"] > 0 and row["calls"] == sum(row["by_action"].values())
    assert 0 < row["compact_ratio"] <= 1 and 0 < row["fixed"] < 1 and 0 < row["prefix"] < 1


def test_a_game_costs_its_tokens_at_the_list_prices_under_each_cache() -> None:
    """1M prompt tokens and 10k out on gpt-4.1 ($2 in, $0.50 cached, $8 out a million): with 400k tokens
    served, $1.20 + $0.20 + $0.08; with 600k, $0.80 + $0.30 + $0.08; with all, $0.50 + $0.08."""
    from wolf_eval.measures.caching import Served

    game = {"served": {"none": [Served(sent=1_000_000)], "openai": [Served(sent=1_000_000, read=400_000)],
                       "openai, every earlier call": [Served(sent=1_000_000, read=600_000)]},
            "completion": 10_000}
    run = figures.Run("triadic", "random", 50, {}, games=[game, game], game_days=[3, 4])
    assert figures.cost_under(run, "as modelled") == pytest.approx(1.48)
    assert figures.cost_under(run, "every earlier call") == pytest.approx(1.18)
    assert figures.cost_under(run, "all") == pytest.approx(0.58)


@pytest.mark.slow
def test_a_played_game_counts_the_calls_that_ask_a_bid(tmp_path: Path) -> None:
    """Every living seat's bid before every turn goes in exactly one of its calls, so the calls that ask a
    bid are as many as the bids the game's record holds."""
    from wolf_eval.ndjson import game_state

    log = _small_game(tmp_path, words=20, max_days=2, max_debate_turns=3)
    sample = _benchmark("harness").logged_games(log)[0]
    bids = sum(len(r.data.bids) for r in game_state(sample).records if r.kind.value == "bids")
    assert figures.prompts_bench.game_prompts(sample)["asks"]["bid"] == bids > 0


def _benchmark(name: str):  # type: ignore[no-untyped-def]
    """One of the scripts in ``benchmarks/``, imported as they import each other."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))


def _small_game(tmp_path: Path, words: int, max_days: int, max_debate_turns: int):  # type: ignore[no-untyped-def]
    """The log of one short seeded ``random`` triadic game at ``words``-word speech."""
    log, _ = _benchmark("harness").play(
        "triadic", str(tmp_path), model="wolfbot/random", model_args={"words": words},
        task_args={"games": 1, "seed": 3, "max_days": max_days, "max_debate_turns": max_debate_turns,
                   "max_explanation_turns": 1})
    return log
