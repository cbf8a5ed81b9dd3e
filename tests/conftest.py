"""Shared fixtures: games are played offline on wolfbot with short days to keep the suite fast."""

from __future__ import annotations

import pytest

FAST = {"max_debate_turns": 3, "max_explanation_turns": 2}


@pytest.fixture
def fast_args() -> dict[str, int]:
    return dict(FAST)
