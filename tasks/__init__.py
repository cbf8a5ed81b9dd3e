"""Tasks (installed as ``wolf_eval.tasks``): ``wolf``, ``triadic`` and ``dyadic``."""

from .werewolf import dyadic, triadic, wolf

__all__ = ["dyadic", "triadic", "wolf"]
