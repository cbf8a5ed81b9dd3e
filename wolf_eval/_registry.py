"""Inspect entry point: importing this registers the tasks and the wolfbot provider."""

from wolf_eval.providers.wolfbot import WolfBot
from wolf_eval.tasks.werewolf import dyadic, triadic, wolf

__all__ = ["WolfBot", "dyadic", "triadic", "wolf"]
