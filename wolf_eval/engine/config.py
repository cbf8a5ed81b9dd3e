"""The rules a game is played under: the part of the task's settings the engine reads.

Built only from ``wolf_eval.settings.Settings.rules``, which declares every parameter, its
default per task and its check; so this model declares no defaults of its own and does not
parse or check the roster again.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from wolf_eval.engine.variants import VARIANTS, Variant, VariantName
from wolf_eval.vocabulary import Role

#: Who sits where and how prompts list the players (``wolf_eval.engine.seating``).
Seating = Literal["shuffled", "fixed"]
#: The layout every game logged before ``seating`` existed was played on (the task parameter's legacy value too).
SEATING_BEFORE: Seating = "fixed"
#: Whether a wolf must deceive as dealt, or chooses each morning to play open or to deceive (``wolf_eval.settings``).
DeceptionRule = Literal["dealt", "optional"]
#: The rule of every game logged before ``deception`` existed.
DECEPTION_BEFORE: DeceptionRule = "dealt"


class GameConfig(BaseModel):
    """Immutable rule settings of one game (shared by every game of a task)."""

    model_config = ConfigDict(frozen=True)

    variant: VariantName
    roster: dict[Role, int]
    shuffle_roles: bool
    max_debate_turns: int = Field(ge=0)
    max_explanation_turns: int = Field(ge=0)
    max_days: int = Field(ge=1)
    max_statement_words: int = Field(ge=1)
    reveal_roles: bool
    deception_analysis: bool
    seating: Seating
    deception: DeceptionRule

    @model_validator(mode="before")
    @classmethod
    def _recorded_before_seating(cls, data: Any) -> Any:
        """A game logged before ``seating`` existed was played on the fixed layout, and replays on it; one logged
        before ``deception`` existed dealt the wolves their lies."""
        if isinstance(data, dict) and "seating" not in data:
            data = {**data, "seating": SEATING_BEFORE}
        if isinstance(data, dict) and "deception" not in data:
            data = {**data, "deception": DECEPTION_BEFORE}
        return data

    @property
    def optional(self) -> bool:
        """Whether each living wolf chooses each morning to play open or to deceive (``deception=optional``)."""
        return self.deception == "optional"

    @property
    def game(self) -> Variant:
        """The variant's own rules (roster, taxonomy, day protocol)."""
        return VARIANTS[self.variant]

    @property
    def has_defence(self) -> bool:
        """Triadic and dyadic days add defence, explanation rounds and a revote."""
        return self.game.two_ballots

    @property
    def jester_as_villager(self) -> bool:
        """The dyadic control seats a Villager where the Jester would sit."""
        return self.game.jester_as_villager

    @property
    def roles_dealt(self) -> tuple[Role, ...]:
        """The roles at least one seat is dealt, in the vocabulary's order: the roles a model can be bound to."""
        dealt = {Role.VILLAGER if self.jester_as_villager and r is Role.JESTER else r
                 for r, n in self.roster.items() if n}
        return tuple(r for r in Role if r in dealt)

    @property
    def taxonomy(self) -> tuple[str, ...]:
        return self.game.taxonomy

    @property
    def seats(self) -> int:
        return sum(self.roster.values())
