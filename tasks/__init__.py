"""Tasks (installed as ``wolf_eval.tasks``): ``wolf``, ``triadic`` and ``dyadic``."""

from wolf_eval.tasks.werewolf import dyadic, triadic, wolf

__all__ = ["dyadic", "triadic", "wolf"]
