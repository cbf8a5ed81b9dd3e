"""Full games through Inspect whose model answers some decisions badly.

The model is ``mockllm/model`` with a scripted callable: it reads the seat's
Observation from the prompt's metadata and answers with the wolfbot ``cue``
policy, except on the requests a test chooses to corrupt, where it returns a
chosen malformed reply and remembers it. The game must go on: the eval
succeeds, every game reaches an outcome, and each corrupted reply that cannot
be used becomes exactly one fallback record carrying the raw output and the
reason, with the rules' conservative default applied (bid 0, pass, abstain, a
legal night target). Replies the parser should forgive give no fallback and
the very same game as clean replies.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from random import Random
from typing import Any

import pytest
from helpers import game_scores
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model

from wolf_eval.agents.observation import Observation
from wolf_eval.baseline.bots import POLICIES
from wolf_eval.engine import GameState, Record
from wolf_eval.providers.wolfbot import find_parts
from wolf_eval.store import logged_record
from wolf_eval.tasks import dyadic, triadic, wolf

pytestmark = pytest.mark.slow  # every test here plays an Inspect eval

TASKS = {"wolf": wolf, "triadic": triadic, "dyadic": dyadic}
#: One decision a call, in its own layout, as the papers asked: each malformed reply below is one decision's (a
#: seat's one reply shape is read by the same parser; tests/test_seat_call.py reads its parts).
SETTINGS = {"max_debate_turns": 2, "max_explanation_turns": 2, "seed": 11, "deception_analysis": False,
            "calls": "per_decision"}
MODEL = "mockllm/model"
NIGHT = ("night_kill", "protect", "investigate")
SPEECH = ("statement", "defence")
FACTIONS = ("villagers", "werewolves", "jester", "draw")

Corrupt = Callable[[Observation], "str | None"]


# =========================================================================== the scripted model


@dataclass
class Bad:
    """One corrupted reply the script sent."""

    seat: str
    action: str
    day: int
    phase: str
    turn: int
    options: tuple[str, ...]
    raw: str


@dataclass
class Script:
    """A mockllm ``custom_outputs`` callable: the cue policy, except where ``corrupt`` answers.

    Every reply that is not the clean policy reply is kept in ``bad``.
    """

    corrupt: Corrupt | None = None
    rewrite: Callable[[str], str] | None = None  # turns every clean reply into a form that must be forgiven
    calls: int = 0
    bad: list[Bad] = field(default_factory=list)

    def __call__(self, input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        parts = find_parts(input)
        assert parts is not None and len(parts) == 1, "every game prompt carries its one decision's observation"
        obs = parts[0][0]
        assert config.seed is not None, "every decision is made with a per-call seed"
        self.calls += 1
        raw = self.corrupt(obs) if self.corrupt else None
        if raw is None and self.rewrite:
            raw = self.rewrite(clean(obs, config.seed))
        if raw is None:
            raw = clean(obs, config.seed)
        else:
            self.bad.append(Bad(obs.seat, obs.action, obs.day, obs.phase, obs.turn, obs.options, raw))
        output = ModelOutput.from_content(model=MODEL, content=raw)
        output.usage = ModelUsage(input_tokens=100, output_tokens=max(1, len(raw) // 4),
                                  total_tokens=100 + max(1, len(raw) // 4))
        return output


def clean(obs: Observation, seed: int) -> str:
    return json.dumps(POLICIES["cue"](obs, Random(seed)))


def run(script: Script, tmp_path: Any, task: str = "wolf", games: int = 1, **params: Any) -> EvalLog:
    model = get_model(MODEL, custom_outputs=script, memoize=False)
    settings = {**SETTINGS, **params}
    if task == "wolf":
        settings.pop("max_explanation_turns")  # no defence in the wolf task
    logs = inspect_eval(TASKS[task](games=games, **settings), model=model,
                        display="none", log_dir=str(tmp_path))
    assert len(logs) == 1
    return logs[0]


def games_of(log: EvalLog) -> list[GameState]:
    assert log.samples is not None
    return [logged_record(s.store).game() for s in log.samples]


def check_finished(log: EvalLog, script: Script) -> list[GameState]:
    """Status success, a winner in every game, and the score's counts agree with the record and the script."""
    assert log.status == "success", log.error
    assert log.samples
    games = games_of(log)
    calls = fallbacks = 0
    by_key: Counter[str] = Counter()
    for sample, game in zip(log.samples, games, strict=True):
        assert sample.error is None
        value = game_scores(sample)["outcome"]
        assert game.outcome is not None and game.outcome.winner in FACTIONS
        assert value[game.outcome.winner] == 1.0
        assert sum(v for f, v in value.items() if f in FACTIONS and not math.isnan(v)) == 1.0
        assert value["fallbacks"] == len(fallback_records(game))
        assert sample.scores["fallback_rate"].value == round(value["fallbacks"] / value["calls"], 3)
        calls += value["calls"]
        fallbacks += value["fallbacks"]
        by_key.update(sample.scores["village_win"].metadata["fallbacks_by_model_action"])
    assert calls == script.calls
    assert sum(by_key.values()) == fallbacks
    return games


def fallback_records(game: GameState) -> list[Record]:
    return [r for r in game.records if r.kind == "fallback"]


# =========================================================================== what a fallback did


_NIGHT_KIND = {"night_kill": "wolf_proposal", "protect": "protect", "investigate": "investigate"}


def check_fallback_effect(game: GameState, fb: Record) -> None:
    """The record the seat's decision produced shows the rules' default for a reply that could not be used."""
    later = game.records[fb.index + 1:]
    seat, action = fb.actor, fb.data.action
    assert seat is not None
    if action == "bid":
        bids = next(r for r in later if r.kind == "bids")
        assert bids.data.bids[seat] == 0
    elif action in SPEECH:
        spoke = next(r for r in later if r.actor == seat and r.kind in ("statement", "defence", "pass"))
        assert spoke.kind == "pass"
    elif action == "vote":
        ballot = next(r for r in later if r.kind == "vote" and r.actor == seat)
        assert ballot.target is None, f"{seat}'s fallback vote should abstain"
    else:
        done = next(r for r in later if r.actor == seat and r.kind == _NIGHT_KIND[action])
        assert done.target in night_options(game, fb), f"night fallback target {done.target} is not legal"


def night_options(game: GameState, at: Record) -> list[str]:
    """The legal targets of ``at.actor``'s night action when record ``at`` was written."""
    gone = {r.target for r in game.records[:at.index] if r.kind in ("death", "exile")}
    living = [n for n in game.names if n not in gone]
    action = at.data.action
    if action == "night_kill":
        return [n for n in living if n not in game.wolves()]
    if action == "investigate":
        return [n for n in living if n != at.actor]
    return living


def check_fallbacks(games: list[GameState], script: Script, why: str) -> Counter[str]:
    """One moderator-only fallback record per corrupted reply, with its raw output, reason and effect."""
    records = [(g, r) for g in games for r in fallback_records(g)]
    assert len(records) == len(script.bad)
    raws = Counter(b.raw for b in script.bad)
    assert Counter(r.data.raw for _, r in records) == raws
    for game, r in records:
        assert r.visibility == "moderator"
        assert r.actor in game.names
        assert r.text and why in r.text, r.text
        check_fallback_effect(game, r)
    return Counter(r.data.action for _, r in records)


# =========================================================================== which requests to corrupt


def seat_index(obs: Observation) -> int:
    return obs.players.index(obs.seat)


def sometimes(obs: Observation) -> bool:
    """About half the requests: every night action on night 1, then by seat/day/turn parity.

    Speech uses the other parity than bids: a seat whose bid fell back to 0 does not get the floor.
    """
    if obs.action in NIGHT:
        return obs.day == 1 or (seat_index(obs) + obs.day) % 2 == 0
    flip = 1 if obs.action in SPEECH else 0
    return (seat_index(obs) + obs.day + obs.turn + flip) % 2 == 0


def dead(obs: Observation) -> list[str]:
    return [n for n in obs.players if n not in obs.alive]


def only(actions: tuple[str, ...], make: Corrupt) -> Corrupt:
    def corrupt(obs: Observation) -> str | None:
        return make(obs) if obs.action in actions and sometimes(obs) else None
    return corrupt


def name_reply(obs: Observation, name: str) -> str:
    key = "vote" if obs.action == "vote" else "target"
    return json.dumps({key: name, "reason": "a hunch"})


PROSE = "After some thought I am fairly sure Ben is hiding something, so that is my choice for now."
ALL = ("bid", "statement", "defence", "vote", *NIGHT)


@dataclass(frozen=True)
class Case:
    id: str
    corrupt: Corrupt
    why: str  # what the fallback reason must say
    covers: tuple[str, ...]  # actions that must have fallen back at least once
    task: str = "wolf"


CASES = [
    Case("prose", only(ALL, lambda o: PROSE), "no JSON object", ("bid", "statement", "vote", *NIGHT)),
    Case("prose-triadic", only(ALL, lambda o: PROSE), "no JSON object",
         ("bid", "statement", "defence", "vote", "night_kill", "protect"), task="triadic"),
    Case("wrong-keys", only(ALL, lambda o: json.dumps({"foo": 1})), "missing key",
         ("bid", "statement", "vote", *NIGHT)),
    Case("dead-name", only(("vote", *NIGHT), lambda o: name_reply(o, dead(o)[0]) if dead(o) else None),
         "is not a legal choice", ("vote", "night_kill")),
    Case("unknown-name", only(("vote", *NIGHT), lambda o: name_reply(o, "Zed")), "is not a player in this game",
         ("vote", *NIGHT)),
    Case("own-name-vote", only(("vote",), lambda o: name_reply(o, o.seat)), "is not a legal choice", ("vote",)),
    Case("own-name-investigate", only(("investigate",), lambda o: name_reply(o, o.seat)), "is not a legal choice",
         ("investigate",)),
    Case("bid-out-of-range", only(("bid",), lambda o: json.dumps({"bid": 11})), "outside 0-10", ("bid",)),
    Case("bid-negative", only(("bid",), lambda o: '{"bid": -1}'), "outside 0-10", ("bid",)),
    Case("empty", only(ALL, lambda o: ""), "empty reply", ("bid", "statement", "vote", *NIGHT)),
    Case("whitespace", only(ALL, lambda o: "  \n\t  \n"), "empty reply", ("bid", "statement", "vote", *NIGHT)),
]


# =========================================================================== tests


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[GameState]]:
    """Clean games (the cue policy throughout) for each task, the reference for forgiving parses."""
    out = {}
    for task in ("wolf", "triadic"):
        script = Script()
        log = run(script, tmp_path_factory.mktemp(f"clean-{task}"), task=task)
        games = check_finished(log, script)
        assert script.bad == [] and all(not fallback_records(g) for g in games), "clean replies never fall back"
        out[task] = games
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_malformed_reply_falls_back(case: Case, tmp_path: Any) -> None:
    script = Script(case.corrupt)
    log = run(script, tmp_path, task=case.task)
    games = check_finished(log, script)
    assert script.bad, "the case corrupted no reply: nothing was tested"
    by_action = check_fallbacks(games, script, case.why)
    assert set(case.covers) <= set(by_action), f"no fallback seen for {set(case.covers) - set(by_action)}"
    assert by_action == Counter(b.action for b in script.bad)
    metadata = log.samples[0].scores["village_win"].metadata["fallbacks_by_model_action"]  # type: ignore[index]
    assert metadata == {f"{MODEL}|{a}": n for a, n in by_action.items()}


def test_two_games_count_their_own_fallbacks(tmp_path: Any) -> None:
    script = Script(only(ALL, lambda o: json.dumps({"foo": 1})))
    log = run(script, tmp_path, games=2)
    games = check_finished(log, script)
    assert len(games) == 2 and all(fallback_records(g) for g in games)
    check_fallbacks(games, script, "missing key")


# --------------------------------------------------------------------------- forgiven replies


def fenced(reply: str) -> str:
    return f"Here is my decision.\n```json\n{reply}\n```\nThanks!"


def near_miss(reply: str) -> str:
    """Keys in other case, spacing and words; names inside a sentence or shouted; the bid as text."""
    keys = {"bid": " Bid ", "statement": "text", "vote": "VOTE_FOR", "target": "Target",
            "reason": " REASON ", "notes": "Notes", "is_deceptive": "Is-Deceptive", "deception_type": "type",
            "suspicion": "SUSPICION", "confidence": "Confidence", "reasoning": "Reasoning"}
    out: dict[str, Any] = {}
    for k, v in json.loads(reply).items():
        if k == "vote":
            v = f"I vote for {v}."
        elif k == "target":
            v = v.upper() + "!"
        elif k == "bid":
            v = str(v)
        out[keys[k]] = v
    return json.dumps(out)


@pytest.mark.parametrize("task", ["wolf", "triadic"])
@pytest.mark.parametrize("rewrite", [fenced, near_miss], ids=["fenced", "near-miss-keys"])
def test_forgiven_replies_are_accepted(rewrite: Callable[[str], str], task: str,
                                       tmp_path: Any, baseline: dict[str, list[GameState]]) -> None:
    script = Script(rewrite=rewrite)
    log = run(script, tmp_path, task=task)
    games = check_finished(log, script)
    assert len(script.bad) == script.calls > 0  # every reply was rewritten
    assert all(not fallback_records(g) for g in games)
    assert game_scores(log.samples[0])["outcome"]["fallbacks"] == 0  # type: ignore[index]
    assert log.samples[0].scores["village_win"].metadata["fallbacks_by_model_action"] == {}  # type: ignore[index]
    # Parsed into the very same decisions: the game is the clean game, record for record.
    assert [g.records for g in games] == [g.records for g in baseline[task]]


# --------------------------------------------------------------------------- nothing usable at all


GARBAGE = (
    "",
    "   \n\t ",
    PROSE,
    '{"foo": 1}',
    "[1, 2, 3]",
    "```json\n{}\n```",
    '{"bid": 11, "vote": "Zed", "target": "Zed", "statement": 5}',
    '{"vote": "nobody", "target": "?!", "bid": "lots", "statement": ["hi"]}',
)


def garbage(obs: Observation) -> str:
    return GARBAGE[(seat_index(obs) + obs.day + obs.turn + len(obs.records)) % len(GARBAGE)]


@pytest.mark.parametrize("task", ["wolf", "triadic"])
def test_every_reply_garbage_still_ends(task: str, tmp_path: Any) -> None:
    script = Script(garbage)
    log = run(script, tmp_path, task=task, max_days=4)
    games = check_finished(log, script)
    (game,) = games
    score = log.samples[0].scores["village_win"]  # type: ignore[index]
    assert script.calls == len(script.bad) > 0
    outcome = score.metadata["values"]["outcome"]
    assert outcome["fallbacks"] == outcome["calls"] == script.calls
    assert sum(score.metadata["fallbacks_by_model_action"].values()) == script.calls
    assert log.samples[0].scores["fallback_rate"].value == 1.0
    assert game.outcome is not None and game.outcome.day <= 4
    for r in fallback_records(game):
        check_fallback_effect(game, r)
    # Nobody ever speaks or votes: every bid is 0 and every ballot abstains.
    assert not [r for r in game.records if r.kind in ("statement", "defence", "exile")]
    assert all(r.target is None for r in game.records if r.kind == "vote")


# --------------------------------------------------------------------------- odd digit strings


def test_odd_bid_string_falls_back(tmp_path: Any) -> None:
    script = Script(only(("bid",), lambda o: '{"bid": "--5"}'))
    log = run(script, tmp_path)
    games = check_finished(log, script)
    check_fallbacks(games, script, "bid")
