"""The collector's schedule while games are played: thresholds only ever raised, a switched-off collector left off."""

from __future__ import annotations

import gc

from wolf_eval.solvers.play import COLLECTOR_THRESHOLDS, collect_rarely


def test_the_collector_thresholds_only_rise_and_a_switched_off_collector_stays_off() -> None:
    saved = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)  # Python's defaults
        collect_rarely()
        assert gc.get_threshold() == COLLECTOR_THRESHOLDS == (10_000, 20, 20)
        gc.set_threshold(50_000, 5, 100)  # a process that chose its own: each larger one kept
        collect_rarely()
        assert gc.get_threshold() == (50_000, 20, 100)
        gc.set_threshold(0, 10, 10)  # threshold 0 switches collection off
        collect_rarely()
        assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*saved)
