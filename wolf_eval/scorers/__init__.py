"""Scorers (installed as ``wolf_eval.scorers``)."""
