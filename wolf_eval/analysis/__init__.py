"""Reading sets of logs and making the report: a store reader that skips the samples' events
(logread), the games read (corpus), the report's tables, Markdown and figures, and cross-play (compare).

Every figure the report prints is a :mod:`wolf_eval.measures` function."""
