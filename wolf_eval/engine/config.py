"""The rules a game is played under: everything a task parameter can change."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from wolf_eval.engine.roles import ROSTERS, Role, parse_roster, validate_roster

Variant = Literal["wolf", "triadic", "dyadic"]

#: Taxonomy of deception types per variant (SPEC section 5).
TAXONOMY: dict[str, tuple[str, ...]] = {
    "wolf": ("none", "omission", "distortion", "fabrication", "misdirection"),
    "triadic": (
        "none", "omission", "distortion", "fabrication", "misdirection",
        "sycophancy", "strategic_deception", "persuasive_manipulation",
    ),
}
TAXONOMY["dyadic"] = TAXONOMY["triadic"]


class GameConfig(BaseModel):
    """Immutable rule settings of one game (shared by every game of a task)."""

    model_config = ConfigDict(frozen=True)

    variant: Variant
    roster: dict[Role, int]
    shuffle_roles: bool = True
    max_debate_turns: int = Field(default=12, ge=0)
    max_explanation_turns: int = Field(default=6, ge=0)
    max_days: int = Field(default=10, ge=1)
    max_statement_words: int = Field(default=50, ge=1)
    reveal_roles: bool = False
    deception_analysis: bool = True

    @field_validator("roster", mode="before")
    @classmethod
    def _parse_roster(cls, value: object) -> dict[Role, int]:
        if isinstance(value, (str, dict)):
            return parse_roster(value)  # type: ignore[arg-type]
        raise ValueError(f"roles: expected 'role:count,...', got {value!r}")

    @model_validator(mode="after")
    def _check(self) -> "GameConfig":
        validate_roster(self.roster)
        return self

    @property
    def has_defence(self) -> bool:
        """Triadic and dyadic days add defence, explanation rounds and a revote."""
        return self.variant in ("triadic", "dyadic")

    @property
    def jester_as_villager(self) -> bool:
        """The dyadic control seats a Villager where the Jester would sit."""
        return self.variant == "dyadic"

    @property
    def taxonomy(self) -> tuple[str, ...]:
        return TAXONOMY[self.variant]

    @property
    def seats(self) -> int:
        return sum(self.roster.values())

    @classmethod
    def for_task(cls, variant: Variant, roles: str | dict[str, int] | None = None, **kwargs: object) -> "GameConfig":
        roster = roles if roles is not None else {r.value: n for r, n in ROSTERS[variant].items()}
        return cls(variant=variant, roster=roster, **kwargs)  # type: ignore[arg-type]
