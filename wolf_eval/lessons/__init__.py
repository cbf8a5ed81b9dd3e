"""The Jester's lessons: the per-model lessons files and the deterministic lesson tagger."""
