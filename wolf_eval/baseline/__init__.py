"""The baseline players: scripted bots that play every seat from its observation alone.

The ``wolfbot`` provider (``wolf_eval/providers/wolfbot.py``) answers a model call with them, so a
game on wolfbot needs no model and replays exactly.
"""
