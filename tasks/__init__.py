"""Tasks (installed as ``wolf_eval.tasks``)."""
