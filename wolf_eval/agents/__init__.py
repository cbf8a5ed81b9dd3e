"""Layer 2: observations to prompts, model replies to validated decisions."""
