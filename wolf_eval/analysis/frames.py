"""Columns for Inspect's data frames: an eval's faction models as plain ``evals_df`` columns.

``samples_df`` reads each game's faction models from the sample's short metadata by default. These
column specs read them for ``evals_df`` from what the log's own eval spec says was bound (``eval.model``,
``eval.model_roles``), through the one table the game seats by (:class:`wolf_eval.bindings.Bindings`)::

    from inspect_ai.analysis import EvalInfo, EvalModel, EvalResults, evals_df
    from wolf_eval.analysis.frames import FACTION_COLUMNS
    evals_df("logs", columns=EvalInfo + EvalModel + EvalResults + FACTION_COLUMNS)

A faction the eval seats no player of (the Jester in ``dyadic``), and a log of another task, has them empty.
"""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai.analysis import EvalColumn
from inspect_ai.log import EvalLog

from wolf_eval.bindings import Bindings, faction_column
from wolf_eval.engine.variants import VARIANTS
from wolf_eval.settings import Settings
from wolf_eval.vocabulary import Faction


def faction_model(faction: Faction) -> Callable[[EvalLog], str | None]:
    """The models the log's eval seated in ``faction`` (" + "-joined if its seats differ), from its spec."""
    column = faction_column(faction.value)

    def read(log: EvalLog) -> str | None:
        task = log.eval.task.split("/")[-1]
        if task not in VARIANTS:
            return None
        rules = Settings.from_log(task, log.eval.task_args, log.eval.metadata).rules
        return Bindings.from_spec(log.eval).faction_models(rules).get(column)

    return read


#: ``villagers_model``, ``werewolves_model``, ``jester_model``: a faction's models, " + "-joined if its seats differ.
FACTION_COLUMNS: list[EvalColumn] = [EvalColumn(faction_column(f.value), path=faction_model(f)) for f in Faction]

__all__ = ["FACTION_COLUMNS", "faction_model"]
