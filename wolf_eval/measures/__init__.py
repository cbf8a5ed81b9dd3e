"""Every quantity wolf-eval publishes, each defined once (docs/design.md, § Scores).

Scorers, the report and replay all compute through these modules. Per game, a function reads the
finished game (its :class:`~wolf_eval.engine.GameState`, and where needed the sample's
:class:`~wolf_eval.store.GameRecord`) and returns typed counts (``headline.GameValues`` holds a
game's: the outcome, self-sabotage, calibration, play quality, lessons, the judge's identification,
detection and deception against the truth), keyed by the vocabulary's enums where a count is per
role, kind of unit or action; a measure that does not apply is absent or NaN, never zero. A value
set that a score's metadata logs writes its flat names through ``pooling.logged_name`` and reads as
that mapping, so the pooling functions take it and counts read back from a log alike.
Pooled over games, counts are summed over the games they apply to and a rate is formed last.
The formulas themselves (accuracy, F1, self and observer rates and their gap) are written once,
in ``rates``. Which pooled figures an eval log shows is the scorers' choice; the report shows them all.

- ``rates``: the formulas, over counts that pool by addition;
- ``pooling``: sums, means and ratios of fixed-name per-game values over the games where they apply,
  and the logged names of per-game counts (``<group>_<count>``), made in one place;
- ``outcome``: winner, days, calls and fallbacks; win rates with Wilson intervals, game length,
  fallback rate and fallbacks by seat model and action, halves and the learning curve;
- ``sabotage``: the wolves' day-1 self-sabotage flags and the wolf-side outcome category;
- ``calibration``: the analysed statements as rows, and per speaker role their labels, flags,
  suspicion and types, with confidence bins and statement groups (type yield, suspicion by day and position);
- ``headline``: the few figures the eval log leads with, and every per-game value behind them;
- ``features``: day-1 wolf coordination and the Jester-win predictors (Pearson r, scipy);
- ``quality``: the Doctor's protections and the Jester's bids;
- ``lessons``: the lessons the Jester's learning loop added, by ToM order and category;
- ``identification``: the post-game judge's identification accuracy per true role;
- ``cost``: a game's tokens and their estimated price per seat model.
"""
