"""Shared fixtures: games are played offline on wolfbot with short days to keep the suite fast."""

from __future__ import annotations

import pytest

# Game mechanics are tested without the analysis waves (they triple the calls); tests/test_deception.py
# and the information-set test play with them on.
FAST = {"max_debate_turns": 3, "max_explanation_turns": 2, "max_days": 4, "deception_analysis": False}


@pytest.fixture
def fast_args() -> dict[str, int]:
    return dict(FAST)
