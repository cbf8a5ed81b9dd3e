"""Readings of finished games and of sets of logs: per-statement rows, game features, the report."""
