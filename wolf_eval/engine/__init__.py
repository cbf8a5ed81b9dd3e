"""Layer 1: the game rules, pure and deterministic (no model calls, no Inspect)."""

from wolf_eval.engine.config import GameConfig
from wolf_eval.engine.game import IllegalAction, advance, fallback_decision, new_game, pending
from wolf_eval.engine.roles import FACTION_OF, NAMES, Faction, Role
from wolf_eval.engine.state import (
    Action,
    Analysis,
    Decision,
    Fallback,
    GameState,
    Outcome,
    Phase,
    Player,
    Record,
    Request,
)
from wolf_eval.engine.variants import VARIANTS, Variant, variant

__all__ = [
    "FACTION_OF", "NAMES", "VARIANTS", "Action", "Analysis", "Decision", "Faction", "Fallback",
    "GameConfig", "GameState", "IllegalAction", "Outcome", "Phase", "Player", "Record", "Request",
    "Role", "Variant", "advance", "fallback_decision", "new_game", "pending", "variant",
]
