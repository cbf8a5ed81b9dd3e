"""Information sets, proven on full games: every prompt to every seat shows only what that seat may know.

Seats play a baseline policy, but every private text they write carries a canary
token naming its owner and channel. A prompt may contain a canary only if its
seat is entitled to it, and the records a prompt shows must be exactly the
records the seat could see at that moment. Every reply also carries the model's
private reasoning (a ``ContentReasoning`` block), whose canary no seat is entitled
to, its own author included; the game's record keeps every one of them.
"""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest
from helpers import final_state, run
from inspect_ai.log import resolve_sample_attachments
from inspect_ai.model import (
    ChatMessageAssistant,
    ContentReasoning,
    ContentText,
    ModelOutput,
    ModelUsage,
    get_model,
)

from wolf_eval.agents.seat_call import logged_parts
from wolf_eval.baseline.bots import POLICIES
from wolf_eval.baseline.chaos import chaos_reply
from wolf_eval.engine import GameState, Role
from wolf_eval.providers.human_input import Question, Scripted, answers_from
from wolf_eval.providers.wolfbot import answer as wolfbot_answer
from wolf_eval.providers.wolfbot import find_parts
from wolf_eval.records import Kind
from wolf_eval.store import logged_record

pytestmark = pytest.mark.slow  # every test here plays an Inspect eval

CANARY = re.compile(r"CANARY-(NOTE|PACK|DOC|SEER|THINK)-([A-Za-z]+)-\d+")


def canary_model(policy: str):
    counter = itertools.count()

    def reply_for(obs, seed):
        if policy == "chaos":  # hostile replies; those that are JSON objects carry the canaries too
            raw, _ = chaos_reply(obs, random.Random(seed))
            try:
                reply = json.loads(raw)
            except ValueError:
                reply = raw
        else:
            reply = POLICIES[policy](obs, random.Random(seed))
        n = next(counter)
        if isinstance(reply, dict):
            reply["notes"] = f"CANARY-NOTE-{obs.seat}-{n}"
            channel = {"night_kill": "PACK", "protect": "DOC", "investigate": "SEER"}.get(obs.action)
            if channel:
                reply["reason"] = f"CANARY-{channel}-{obs.seat}-{n}"
        return json.dumps(reply) if isinstance(reply, dict) else str(reply)

    def answer(input, tools, tool_choice, config):
        assert config.reasoning_history == "none", "a seat's call replays no reasoning"
        views = find_parts(input) or []
        thought = f"CANARY-THINK-{views[0][0].seat if views else 'nobody'}-{next(counter)}"
        content = [ContentReasoning(reasoning=thought),
                   ContentText(text=wolfbot_answer(reply_for, input, config.seed))]
        out = ModelOutput.from_message(ChatMessageAssistant(content=content, model="canary", source="generate"))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/model", custom_outputs=answer)


def entitled(game: GameState, seat: str, channel: str, owner: str) -> bool:
    role = game.player(seat).role
    if channel == "THINK":  # private reasoning reaches no prompt, its own author's included
        return False
    if channel == "NOTE":
        return owner == seat
    if channel == "PACK":
        return role is Role.WEREWOLF
    if channel == "DOC":
        return owner == seat and role is Role.DOCTOR
    return owner == seat and role is Role.SEER


def prompts(sample):
    """(metadata, full prompt text) of each game call; attachments resolved, so the text is what the model read."""
    for e in resolve_sample_attachments(sample).events:
        if e.event == "model" and e.input and e.input[-1].metadata:
            meta = e.input[-1].metadata["wolf_eval"]
            text = "\n".join(m.text for m in e.input) + "\n" + json.dumps(meta)
            for part in logged_parts(meta):  # each decision's view, one prompt
                yield part, text


@pytest.mark.parametrize("task,policy,history,deception", [
    *[(t, p, "full", "dealt") for t in ("wolf", "triadic", "dyadic")
      for p in ("random", "cue", "tom", "faction", "chaos")],
    ("triadic", "random", "compact", "dealt"), ("wolf", "chaos", "compact", "dealt"),
    ("triadic", "cue", "full", "optional"),  # each wolf's stance of the day, and its withheld words, are its own
])
def test_every_prompt_respects_the_information_set(tmp_path, task, policy, history, deception):
    log = run(task, canary_model(policy), tmp_path,
              task_args={"games": 1, "max_debate_turns": 3, "max_explanation_turns": 2, "max_days": 3, "seed": 3,
                         "history": history, "deception": deception})
    assert log.status == "success"
    checked = 0
    for sample in log.samples:
        game = final_state(sample)
        private_seen = set()
        for meta, text in prompts(sample):
            seat = meta["seat"]
            me = game.player(seat)
            checked += 1

            for channel, owner in CANARY.findall(text):
                assert entitled(game, seat, channel, owner), f"{seat} ({me.role}) was shown {channel} text of {owner}"
                private_seen.add((seat, channel))

            shown = meta["records"]  # the indices of the records the prompt was built from
            upto = max(shown)
            allowed = [r.index for r in game.records if r.index <= upto and game.can_see(seat, r)]
            assert shown == allowed, f"{seat}'s prompt records differ from its information set"

            assert meta["role"] == me.role.value
            mates = sorted(n for n in game.wolves() if n != seat)
            if me.role is Role.WEREWOLF:
                assert sorted(meta["fellow_wolves"]) == mates
                assert all(m in text for m in mates)
            else:
                assert meta["fellow_wolves"] == []
                assert "Wolves' channel" not in text and "fellow Werewolves:" not in text
            if me.role is not Role.SEER:
                assert "your investigation shows" not in text
            if me.role is not Role.DOCTOR:
                assert "you protected" not in text
            own = [r for r in game.records if r.kind in (Kind.STANCE, Kind.WITHHELD) and r.index in shown]
            assert all(r.actor == seat for r in own), "a stance or withheld words reach their wolf alone"
            if not any(r.kind is Kind.STANCE for r in own):
                assert "you play open today" not in text and "you play to deceive today" not in text
            for other in game.players:
                if other.name != seat:
                    assert f"{other.name} was a " not in text, "roles of the dead are hidden"
        # the canaries did travel where they should: each seat saw its own notes
        assert any(channel == "NOTE" for _, channel in private_seen)
        # and every call's reasoning was kept in the game's record, under its own seat
        kept = logged_record(sample.store).reasoning
        assert kept and all(t.kind == "reasoning" and CANARY.fullmatch(t.text) for t in kept)
        assert all(CANARY.fullmatch(t.text)[2] == t.seat for t in kept)  # type: ignore[index]
    assert checked > 50
    actions = {meta["action"] for s in log.samples for meta, _ in prompts(s)}
    assert {"self_analysis", "peer_analysis"} <= actions, "analysis prompts are covered too"
    if deception == "optional":
        assert "stance" in actions
        assert any(r.kind is Kind.STANCE for s in log.samples for r in final_state(s).records)


def test_revealed_roles_reach_everyone_only_when_asked(tmp_path):
    log = run("triadic", canary_model("cue"), tmp_path,
              task_args={"games": 2, "max_debate_turns": 2, "max_explanation_turns": 1, "reveal_roles": True,
                         "deception_analysis": False})
    announced = 0
    for sample in log.samples:
        game = final_state(sample)
        seen = list(prompts(sample))
        for r in game.records:
            if r.kind not in ("death", "exile"):
                continue
            later = [text for meta, text in seen if max(meta["records"]) > r.index]
            if later:
                phrase = f"{r.target} was a {game.player(r.target).role.value}"
                assert all(phrase in t for t in later)
                announced += 1
    assert announced > 0


def test_a_persons_screens_show_only_what_their_seat_may_know(tmp_path):
    """A person at both Werewolf seats (``human/ann``) among canary-writing players: every page and question they
    are shown carries only canaries their seat is entitled to; their own pack's reasons (canaries they typed as
    one wolf) do reach them as the other wolf, so the check is not vacuous."""
    count = itertools.count()

    def answer(question: Question) -> str:
        if question.kind == "name":
            return question.options[0]
        if question.kind == "reason":
            return f"CANARY-PACK-{screens[-1]}-{next(count)}" if "Enter for none" in question.text else "Quiet."
        return {"bid": "5", "statement": "I listen.",
                "analysis": "none 0.6 0.5" if "suspect" in question.text else "none 0.9"}.get(question.kind, "")

    screens: list[str] = []
    source = Scripted(rest=answer)
    original = source.screen

    def screen(header: str):  # the seat whose screen this is: "Ava (werewolf) · day 2"
        screens.append(header.split(" (")[0])
        return original(header)

    source.screen = screen  # type: ignore[method-assign]
    with answers_from(source):
        log = run("triadic", canary_model("cue"), tmp_path, model_roles={"werewolf": "human/ann"},
                  task_args={"games": 1, "max_debate_turns": 3, "max_explanation_turns": 2, "max_days": 3, "seed": 3})
    assert log.status == "success"
    game = final_state(log.samples[0])
    seat, pack_seen = None, 0
    for text in source.shown:
        if text.split(" (")[0] in screens and " · " in text:
            seat = text.split(" (")[0]
            continue
        for channel, owner in CANARY.findall(text):
            assert entitled(game, seat, channel, owner), f"the person at {seat} was shown {channel} text of {owner}"
            pack_seen += channel == "PACK" and owner != seat
    assert pack_seen > 0
