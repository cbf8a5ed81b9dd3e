"""Replay a logged game: feed its recorded replies back through the engine and check where it lands.

A game is a pure function of its rules, its seed and its players' replies, so re-running the
engine with the replies the log recorded (each turned into a decision or a fallback exactly as in
play) must reproduce every game record, the final state and the scores computed from it. Any
difference means the log and the code disagree: a changed rule, a lost reply, a hand-edited log.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.log import EvalSample

from wolf_eval.agents.prompts import METADATA_KEY
from wolf_eval.agents.seat_call import Layout, decisions_from_reply, logged_layout, logged_parts
from wolf_eval.engine import Action, Decision, GameState, Phase, Request, advance, new_game, pending
from wolf_eval.measures.headline import game_values, headline_counts, headline_values, rounded
from wolf_eval.measures.honesty import moderated
from wolf_eval.store import logged_record

#: Per-game values whose definition changed after a release logged them as scores, so a replay of
#: such a log does not compare them: the suspicion a statement attracted is now its raters' mean
#: (0.1.0 summed every rating).
REDEFINED: dict[str, tuple[str, ...]] = {"calibration": ("suspicion_sum", "suspicion_n")}

#: Headline scores whose definition changed, with the release that first logged today's definition.
#: A log written by an earlier release may hold the old value; the replay names such a difference
#: rather than failing on it (the records and the final state are still compared exactly).
#: ``day1_self_sabotage`` is not applicable (NaN), no longer 0, when the Jester died on night 1;
#: ``calibration_gap`` is over the statements with both analyses. Since 0.3.0 a game's figure is logged
#: rounded to :data:`~wolf_eval.measures.headline.DIGITS` places, so a replay compares rounded values.
#: ``fallback_rate`` is fallbacks per decision asked since 0.4.0 (per model call before; a joint call asks
#: several decisions), which for a log written before, whose every call asked one, reads the same.
#: ``third_order_lessons`` is read by the tagger's rules of round 4 since 0.4.1 (issue 28: 5), which call
#: more lessons 3rd order than 0.4.0's did; a game's tags are logged as it was played. Since 0.6.0 a wolf's or
#: the Jester's unusable reply that refuses its role is counted as a refusal, not in ``fallback_rate``.
SCORES_SINCE: dict[str, str] = {"day1_self_sabotage": "0.2.0", "calibration_gap": "0.2.0", "fallback_rate": "0.6.0",
                                "third_order_lessons": "0.4.1"}

#: Headline scores that a release replaced, with the release and what replaced them: a log written
#: before holds them, and a replay names them as not compared. The first two pooled over every speaker
#: role, so they moved with the role mix play drew; ``draw`` repeated the three win shares (its place
#: went to ``jester_suspicion_rank``, the Jester's deception against the truth).
RETIRED: dict[str, tuple[str, str]] = {
    "calibration_gap": ("0.3.0", "wolf_self_label_gap, the wolves' own gap"),
    "detection_f1": ("0.3.0", "self_label_agreement, an equal-weight mean over speaker roles"),
    "draw": ("0.5.0", "nothing: the share of draws is what village_win, wolves_win and jester_win leave of 1"),
}


@dataclass
class Replay:
    sample: Any
    problems: list[str] = field(default_factory=list)
    replies: int = 0
    waves: int = 0
    records: int = 0

    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def redefined_since(score: str, release: str | None) -> str | None:
    """The release that redefined ``score`` after the one that wrote the log, if any."""
    since = SCORES_SINCE.get(score)
    if since is None or release is None:
        return None
    return since if _release(release) < _release(since) else None


#: The release from which a seat's reply cut off before its object closed is read as far as it finished
#: (:func:`wolf_eval.agents.parse.closed_cut`); a log of an earlier release is replayed as it was read then.
CUT_REPLIES_READ_SINCE = "0.8.0"


def reads_cut_replies(release: str | None) -> bool:
    """Whether the release that wrote a log read a cut-off reply as far as it finished (an unknown one: today's)."""
    return release is None or _release(release) >= _release(CUT_REPLIES_READ_SINCE)


@dataclass
class Recorded:
    """A recorded reply, the decisions its call answered, the call's layout, and the reply of the call that
    asked again the decisions it left unanswered, if any."""

    raw: str
    keys: tuple[str, ...]
    layout: Layout = "own"
    again: Recorded | None = None


class MissingReply(LookupError):
    """The log lacks a reply the game asked for."""


def _request(meta: dict[str, Any]) -> Request:
    return Request(seat=meta["seat"], action=Action(meta["action"]), day=meta["day"], phase=Phase(meta["phase"]),
                   turn=meta["turn"], subject=meta.get("subject"), withheld=meta.get("withheld", False))


def recorded_replies(sample: EvalSample) -> dict[str, Recorded]:
    """Each game decision's recorded call, by request key (the lessons call is not a game decision), with
    the call that asked some of them again attached to it."""
    replies: dict[str, Recorded] = {}
    for e in sample.events:
        if e.event != "model" or not e.input:
            continue
        meta = (e.input[-1].metadata or {}).get(METADATA_KEY)
        if not meta:
            continue
        parts = logged_parts(meta)
        if not parts or parts[0].get("action") == Action.LESSONS:
            continue
        got = Recorded(e.output.completion or "", tuple(_request(m).key for m in parts), logged_layout(meta))
        if meta.get("again") and got.keys[0] in replies:
            replies[got.keys[0]].again = got
            continue
        for key in got.keys:
            replies[key] = got
    return replies


def recorded_decisions(state: GameState, requests: list[Request], replies: dict[str, Recorded],
                       close_cut: bool = True) -> list[Decision]:
    """A wave's decisions from the recorded replies, each read as in play (``close_cut``: :func:`reads_cut_replies`),
    with the call that asked it and, for a decision its reply left unanswered, the call that asked it again."""
    out: dict[str, Decision] = {}
    for request in requests:
        if request.key in out:
            continue
        got = replies[request.key]
        asked = [r for r in requests if r.key in got.keys]
        first = decisions_from_reply(state, asked, got.raw, got.layout, last=False, close_cut=close_cut)
        unanswered = [r for r, d in zip(asked, first, strict=True) if d is None]
        if unanswered and got.again is None:
            raise MissingReply(f"no recorded reply asking again for {unanswered[0].key}: the log is missing a call")
        again = (decisions_from_reply(state, unanswered, got.again.raw, got.layout, close_cut=close_cut)
                 if got.again and unanswered else [])
        # a last asking falls back: never None
        answered = {r.key: d for r, d in zip(unanswered, again, strict=True) if d is not None}
        out.update((r.key, d if d is not None else answered[r.key]) for r, d in zip(asked, first, strict=True))
    return [out[r.key] for r in requests]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def replay_sample(sample: EvalSample, logged: GameState, release: str | None = None) -> Replay:
    """Re-play one logged game; ``problems`` lists every way the replay differs from the log.

    ``release``: the wolf-eval version that wrote the log (its ``eval.packages``). A score that a
    later release redefined and that differs goes to ``notes``, not ``problems``.
    """
    out = Replay(sample=sample.id)
    replies = recorded_replies(sample)
    state = new_game(logged.config, logged.seed)
    used: set[str] = set()
    while not state.over:
        requests = pending(state)
        missing = next((r.key for r in requests if r.key not in replies), None)
        if missing is not None:
            out.problems.append(f"no recorded reply for {missing}: the log is missing a call")
            return out
        used.update(r.key for r in requests)
        try:
            decided = recorded_decisions(state, requests, replies, reads_cut_replies(release))
        except MissingReply as err:
            out.problems.append(str(err))
            return out
        state = advance(state, moderated(state, decided))
        n = len(state.records)
        if state.records != logged.records[:n]:
            # not strict: the replay may have run past the log's last record, or stopped short of it
            pairs = zip(state.records, logged.records, strict=False)
            i = next((i for i, (a, b) in enumerate(pairs) if a != b), len(logged.records))
            got = state.records[i] if i < n else None
            want = logged.records[i] if i < len(logged.records) else None
            out.problems.append(f"record {i} differs: replay {_brief(got)}, log {_brief(want)}")
            return out
    out.replies, out.waves, out.records = len(used), state.waves, len(state.records)
    if state != logged:
        diff = [k for k in GameState.model_fields if getattr(state, k) != getattr(logged, k)]
        out.problems.append(f"final state differs in: {', '.join(diff)}")
    unused = sorted(set(replies) - used)
    if unused:
        out.problems.append(f"{len(unused)} recorded replies were never asked for, e.g. {unused[0]}")
    record = logged_record(sample.store)
    values = game_values(state, record)
    again = {**values.flat(), **headline_values(headline_counts(values))}
    _compare_scores(out, sample, again, release)
    return out


def _compare_scores(out: Replay, sample: EvalSample, again: dict[str, Any], release: str | None) -> None:
    """Each logged score against the replay's: a problem where one differs, a note where a release since
    the log's redefined or retired it."""
    logged_scores = sample.scores or {}
    out.notes += [f"{name} not compared: retired in {since}, replaced by {by}"
                  for name, (since, by) in RETIRED.items() if name in logged_scores and name not in again]
    scores = {k: v for k, v in logged_scores.items() if k in again and k != "judge"}
    if not scores:
        out.problems.append("the log has none of the game's scores")
    for name, score in scores.items():
        logged = score.value
        if isinstance(logged, dict):  # a release that logged the per-game values as scores
            bad = [k for k in again[name] if k in logged and not _same(again[name][k], logged[k])
                   and not k.endswith(REDEFINED.get(name, ()))]  # values added since that release are not compared
            if bad:
                out.problems.append(f"{name} differs in {len(bad)} values, e.g. {bad[0]}: "
                                    f"replay {again[name][bad[0]]}, log {logged.get(bad[0])}")
        elif not isinstance(logged, int | float):
            out.problems.append(f"{name}: the log's score is not a number ({logged!r})")
        elif not _same(float(again[name]), rounded(float(logged))):
            since = redefined_since(name, release)
            if since:
                out.notes.append(f"{name} not compared: redefined in {since}, after the log's release {release} "
                                 f"(replay {again[name]}, log {logged})")
            else:
                out.problems.append(f"{name} differs: replay {again[name]}, log {logged}")


def _brief(r: Any) -> str:
    return "nothing" if r is None else f"{r.kind.value} by {r.actor} ({(r.text or '')[:40]!r})"
