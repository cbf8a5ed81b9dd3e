"""wolf-eval: Werewolf deception and detection evaluations for Inspect AI."""

__version__ = "0.5.0"
