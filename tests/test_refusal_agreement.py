"""A judge measured on the labelled replies (``python benchmarks/refusal_agreement.py --judge MODEL``), offline.

The ``wolfbot`` judge answers a reading with the rules' own classes, so its figures must be the rules' on every row:
that tests the path (the prompt, the writer's role, the parser, the batches put back in order), not a reader. A
scripted ``mockllm`` judge tests what is lost: a batch it answers unreadably, or whose call fails, is counted lost
with its reason and never filled in; a judge that reads nothing stops the command with a non-zero exit.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model

from wolf_eval.agents.reply_reading import READING_METADATA_KEY, ReplyReading
from wolf_eval.measures.role_play import Playing
from wolf_eval.vocabulary import Role

# loaded from its file: putting benchmarks/ on sys.path would let its scripts shadow other modules
_SPEC = importlib.util.spec_from_file_location(
    "refusal_agreement", Path(__file__).resolve().parents[1] / "benchmarks" / "refusal_agreement.py")
agreement = importlib.util.module_from_spec(_SPEC)  # type: ignore[arg-type]
sys.modules["refusal_agreement"] = agreement
_SPEC.loader.exec_module(agreement)  # type: ignore[union-attr]

REPLIES = agreement.load()
LABELS = {(str(r.role), r.text): str(r.label) for r in REPLIES}


def scripted_judge(reply: Callable[[ReplyReading], str]) -> Model:
    """A mockllm judge answering ``reply(reading)`` to each reading (usage set: no tokenizer download offline)."""

    def answer(input: list[ChatMessage], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        reading = ReplyReading.model_validate(input[-1].metadata[READING_METADATA_KEY])  # type: ignore[index]
        out = ModelOutput.from_content(model="scripted", content=reply(reading))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/model", custom_outputs=answer, memoize=False)


def labelled(reading: ReplyReading) -> str:
    """The hand labels of a batch's replies, as a judge that reads like the labeller would answer."""
    return json.dumps({"classes": [LABELS[pair] for pair in reading.replies]})


def test_batches_mix_rounds_and_classes_and_are_the_same_every_run() -> None:
    got = agreement.batches(REPLIES)
    assert got == agreement.batches(REPLIES)
    assert sorted(map(id, (r for b in got for r in b))) == sorted(map(id, REPLIES))  # every reply once
    assert [len(b) for b in got[:-1]] == [agreement.BATCH] * (len(got) - 1)
    for batch in got:
        assert len({r.label for r in batch}) >= 2 and len({r.round for r in batch}) >= 2, batch


def test_the_wolfbot_judge_reads_as_the_rules_on_every_row_and_loses_nothing(capsys: pytest.CaptureFixture[str]
                                                                             ) -> None:
    reading = agreement.judge_reading(get_model("wolfbot/cue", memoize=False), REPLIES, size=7)
    assert reading.lost == () and reading.batches == 51 and len(reading.read) == len(REPLIES)
    rules = [(r, agreement.rules(r)) for r in REPLIES]
    assert sorted(reading.read, key=lambda x: REPLIES.index(x[0])) == rules
    assert agreement.table(reading.read) == agreement.table(rules)
    assert agreement.main(["--judge", "wolfbot/cue"]) == 0
    out = capsys.readouterr().out
    judge, rules_table = (part.split("\n\n", 1)[1].split("\n\n", 1)[0] for part in out.split("## ")[1:])
    assert judge == rules_table and judge.count("\n") == 12  # header, rule, 8 rounds, 2 splits, all
    assert "lost 0 replies in 0 of 18 batches" in out and "agreement 1.000, Cohen's kappa 1.000" in out
    assert "its 18 calls: " in out and "no list price known" in out  # wolfbot reports o200k tokens, has no price


def test_a_batch_the_judge_cannot_be_read_in_is_lost_and_the_rest_is_read() -> None:
    batches = agreement.batches(REPLIES)
    garbled, failing = batches[2][0].text, batches[5][0].text

    def reply(reading: ReplyReading) -> str:
        texts = [text for _, text in reading.replies]
        if failing in texts:
            raise RuntimeError("the judge's provider is down")
        return '{"classes": ["played"]}' if garbled in texts else labelled(reading)

    reading = agreement.judge_reading(scripted_judge(reply), REPLIES)
    assert [(n, size) for n, size, _ in reading.lost] == [(3, len(batches[2])), (6, len(batches[5]))]
    assert "unreadable reply" in reading.lost[0][2] and "is not a list of 20 classes" in reading.lost[0][2]
    assert "the call failed" in reading.lost[1][2] and "provider is down" in reading.lost[1][2]
    read = [r for r, _ in reading.read]
    assert len(read) == len(REPLIES) - len(batches[2]) - len(batches[5])
    assert not {id(r) for r in batches[2] + batches[5]} & {id(r) for r in read}  # lost, never filled in
    assert all(got is r.label for r, got in reading.read)
    assert (reading.tokens.calls, reading.tokens.input) == (17, 17)  # the failed call reported no tokens
    report = "\n".join(agreement.judge_report("scripted", reading))
    assert f"lost {len(batches[2]) + len(batches[5])} replies in 2 of 18 batches" in report
    assert f"| all | {len(read)} | 1.000 | 1.000 |" in report  # the judge read as labelled, over what it read


def test_a_judge_that_reads_nothing_stops_with_a_non_zero_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agreement, "get_model", lambda name: scripted_judge(lambda reading: "I'd rather not."))
    with pytest.raises(SystemExit) as stopped:
        agreement.main(["--judge", "mockllm/model"])
    assert isinstance(stopped.value.code, str)  # a message: exit status 1
    assert "read no reply (18 of 18 batches lost: batch 1: unreadable reply" in stopped.value.code


def test_the_judge_is_offered_the_rules_classes_and_each_writers_role() -> None:
    """The same three classes the rules give, so its classes and theirs compare; each reply with its writer's role."""
    seen: list[ReplyReading] = []

    def watched(reading: ReplyReading) -> str:
        seen.append(reading)
        return labelled(reading)

    both = [next(r for r in REPLIES if r.role is role) for role in (Role.JESTER, Role.WEREWOLF)]
    agreement.judge_reading(scripted_judge(watched), both, size=2)
    assert seen[0].classes == tuple(str(c) for c in Playing)
    assert sorted(seen[0].replies) == sorted((str(r.role), r.text) for r in both)  # each with its writer's role
