"""Every quantity wolf-eval publishes, each defined once (docs/design.md, § Scores).

Scorers, the report and replay all compute through these modules. Per game, a ``*_values``
function reads the finished game (its :class:`~wolf_eval.engine.GameState`, and where needed the
sample's :class:`~wolf_eval.store.GameRecord`) and returns counts keyed by name, NaN where the
measure does not apply. Pooled over games, a function of the per-game values (a sequence of
mappings) sums numerators over denominators, skipping games where a value is NaN. Which pooled
figures an eval log shows is the scorers' choice; the report shows them all.

- ``pooling``: sums, means and ratios of per-game values over the games where they apply;
- ``outcome``: winner, days, calls and fallbacks; win rates with Wilson intervals, game length,
  fallback rate and fallbacks by seat model and action, halves and the learning curve;
- ``sabotage``: the wolves' day-1 self-sabotage flags and the wolf-side outcome category;
- ``calibration``: the analysed statements as rows; self-rate, observer rate, gap, detection,
  suspicion attracted, type shares, confidence bins, type yield and suspicion by day and position;
- ``features``: day-1 wolf coordination and the Jester-win predictors (Pearson r, scipy);
- ``quality``: the Doctor's protections and the Jester's bids;
- ``lessons``: the lessons the Jester's learning loop added, by ToM order and category;
- ``judge``: the post-game judge's identification accuracy per true role;
- ``cost``: a game's tokens and their estimated price per seat model.
"""
