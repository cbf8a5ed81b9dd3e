"""wolf-eval: Werewolf deception and detection evaluations for Inspect AI.

The three tasks are exported here (``from wolf_eval import triadic``) and imported on first use, so that
``import wolf_eval`` alone, which every module of the package does first, does not load Inspect and the
whole game.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wolf_eval.tasks import dyadic, triadic, wolf

__version__ = "0.9.0"

__all__ = ["dyadic", "triadic", "wolf"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from wolf_eval import tasks

        return getattr(tasks, name)
    raise AttributeError(f"module 'wolf_eval' has no attribute {name!r}")
