"""Columns for Inspect's data frames: an eval's faction models as plain ``evals_df`` columns.

``samples_df`` reads each game's faction models from the sample's short metadata by default. An eval's
metadata reaches ``evals_df`` only as one JSON column, so these column specs read the faction models the
task recorded there (``wolf_eval.agents.bindings.faction_models``) as columns of their own::

    from inspect_ai.analysis import EvalInfo, EvalModel, EvalResults, evals_df
    from wolf_eval.analysis.frames import FACTION_COLUMNS
    evals_df("logs", columns=EvalInfo + EvalModel + EvalResults + FACTION_COLUMNS)

An eval logged before 0.4.0, or whose task was built outside an eval (``wolf-eval compare``'s pairings,
whose seats the samples record), has them empty.
"""

from __future__ import annotations

from inspect_ai.analysis import EvalColumn

from wolf_eval.vocabulary import Faction

#: ``villagers_model``, ``werewolves_model``, ``jester_model``: a faction's models, " + "-joined if its seats differ.
FACTION_COLUMNS: list[EvalColumn] = [EvalColumn(f"{f.value}_model", path=f"eval.metadata.{f.value}_model")
                                     for f in Faction]

__all__ = ["FACTION_COLUMNS"]
