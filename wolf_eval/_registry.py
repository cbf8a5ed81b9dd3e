"""Inspect entry point: importing this registers the tasks and the wolfbot, llamacpp and human providers."""

from wolf_eval.providers.human import Human
from wolf_eval.providers.llamacpp import LlamaCpp
from wolf_eval.providers.wolfbot import WolfBot
from wolf_eval.tasks import dyadic, triadic, wolf

#: The task functions by name, for runners of the command line (``wolf-eval compare``).
TASKS = {"wolf": wolf, "triadic": triadic, "dyadic": dyadic}

__all__ = ["TASKS", "Human", "LlamaCpp", "WolfBot", "dyadic", "triadic", "wolf"]
