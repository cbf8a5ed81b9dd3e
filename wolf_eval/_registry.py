"""Inspect entry point: importing this registers the tasks and the wolfbot and llamacpp providers."""

from wolf_eval.providers.llamacpp import LlamaCpp
from wolf_eval.providers.wolfbot import WolfBot
from wolf_eval.tasks.werewolf import dyadic, triadic, wolf

__all__ = ["LlamaCpp", "WolfBot", "dyadic", "triadic", "wolf"]
