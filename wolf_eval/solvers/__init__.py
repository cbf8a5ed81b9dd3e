"""Solvers (installed as ``wolf_eval.solvers``)."""
