"""Seeded randomness keyed by what it decides, not by call order.

Every random choice in a game is drawn from a generator derived from the game
seed and a key naming the decision (day, phase, turn, purpose). Concurrent
model calls can finish in any order and a replay can skip straight to any
point: the same key always gives the same draw.
"""

from __future__ import annotations

import hashlib
import random


def derive_seed(*parts: object) -> int:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def derive_rng(*parts: object) -> random.Random:
    return random.Random(derive_seed(*parts))
