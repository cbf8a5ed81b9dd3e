"""Reading sets of logs: a store reader that skips the samples' events, and the report.

Every figure the report prints is a :mod:`wolf_eval.measures` function."""
