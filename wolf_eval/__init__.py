"""wolf-eval: Werewolf deception and detection evaluations for Inspect AI."""

__version__ = "0.4.2"
