"""The lesson tagger against 286 labelled lessons (``tests/data/lessons_gold.jsonl``, issue 28 point 5).

Cohen's kappa is checked against a case worked by hand; the tagger's agreement on the held-out part,
which no rule was fitted to, and on the whole set has a floor, so a rule that breaks wording the
tagger used to read fails here. The floors sit a little below today's figures (README, "Jester
learning"; ``python benchmarks/tagger_agreement.py`` prints them).
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import GenerateConfig

from wolf_eval.agents.model_tagger import parse_tags
from wolf_eval.agents.parse import InvalidReply
from wolf_eval.measures.rates import Confusion, cohen_kappa
from wolf_eval.measures.tagger import CATEGORIES, Tags

# loaded from its file: putting benchmarks/ on sys.path would let its scripts shadow other modules
_SPEC = importlib.util.spec_from_file_location(
    "tagger_agreement", Path(__file__).resolve().parents[1] / "benchmarks" / "tagger_agreement.py")
agreement = importlib.util.module_from_spec(_SPEC)
sys.modules["tagger_agreement"] = agreement
_SPEC.loader.exec_module(agreement)


def test_cohen_kappa_against_a_case_worked_by_hand() -> None:
    """Ten items, 7 alike: p_o = 0.7; shares (4, 3, 3) and (4, 4, 2): p_e = (16 + 12 + 6) / 100 = 0.34;
    kappa = (0.7 - 0.34) / (1 - 0.34) = 6/11."""
    first = [1, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    second = [1, 1, 1, 2, 2, 2, 1, 3, 3, 2]
    assert cohen_kappa(list(zip(first, second, strict=True))) == pytest.approx(6 / 11)


def test_cohen_kappa_at_its_ends() -> None:
    assert cohen_kappa([(1, 1), (2, 2), (3, 3)]) == pytest.approx(1.0)
    assert cohen_kappa([(1, 2), (2, 1)]) == pytest.approx(-1.0)  # p_o = 0, p_e = 0.5
    assert cohen_kappa([(1, 1), (1, 2), (2, 1), (2, 2)]) == pytest.approx(0.0)  # agreement no better than chance
    assert math.isnan(cohen_kappa([]))
    assert math.isnan(cohen_kappa([(1, 1), (1, 1)]))  # one label throughout: no agreement beyond chance to measure


def test_precision_and_recall_of_confusion_counts() -> None:
    c = Confusion(tp=3, fp=1, fn=2, tn=4)
    assert (c.precision, c.recall) == (pytest.approx(0.75), pytest.approx(0.6))
    assert math.isnan(Confusion(fn=2).precision)


def test_the_gold_set_covers_every_order_and_category_and_holds_out_enough() -> None:
    gold = agreement.load_gold()
    fresh = agreement.load_gold(agreement.FRESH)
    assert len(gold) >= 100 and len(fresh) >= 100 and {g.split for g in fresh} == {"fresh"}
    for part in (fresh, [g for g in gold if g.split == "dev"]):
        assert set(Counter(g.order for g in part)) == {1, 2, 3}
        assert {c for g in part for c in g.categories} == set(CATEGORIES)
    texts = [g.text for g in gold + fresh]
    assert len(set(texts)) == len(texts), "no lesson is in both sets"


def test_a_label_the_tagger_cannot_give_is_refused_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "gold.jsonl"
    bad.write_text(json.dumps({"id": "x", "split": "dev", "order": 2, "categories": ["bluffing"], "text": "t"}) + "\n")
    with pytest.raises(ValueError, match=r"gold.jsonl:1: bad label .*bluffing"):
        agreement.load_gold(bad)


#: part -> (kappa on order, micro F1 over categories): floors a little below today's figures
FLOORS = {"fresh": (0.70, 0.70), "whole": (0.98, 0.83)}


@pytest.mark.parametrize("part", sorted(FLOORS))
def test_the_taggers_agreement_with_the_labels_stays_above_its_floor(part: str) -> None:
    lessons = agreement.load_gold(agreement.FRESH) if part == "fresh" else agreement.load_gold()
    measured = agreement.measure(lessons)
    kappa, f1 = FLOORS[part]
    assert measured.order_kappa >= kappa
    assert measured.categories_pooled.f1 >= f1


def test_the_script_prints_every_part(capsys: pytest.CaptureFixture[str]) -> None:
    assert agreement.main([]) == 0
    out = capsys.readouterr().out
    assert all(f"## {part}" in out for part in ("fresh, held out: 130", "development: 171",
                                                 "labelled set, whole (fitted since round 4): 286"))
    assert "Cohen's kappa" in out and "misses" not in out


# --------------------------------------------------------------------------- the optional model-based tagger

def scripted_tagger(reply: Callable[[str], str], seen: list[GenerateConfig]) -> Any:
    """A mockllm model that answers ``reply(lesson)`` for the lesson its prompt carries (usage set: no tokenizer)."""
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def answer(input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        seen.append(config)
        lesson = input[-1].text.split("The lesson:\n", 1)[1].split("\n\nReply with", 1)[0]
        out = ModelOutput.from_content(model="scripted", content=reply(lesson))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/model", custom_outputs=answer, memoize=False)


def test_the_model_tagger_is_measured_like_the_regex_one_and_an_unreadable_reply_is_a_miss() -> None:
    gold = agreement.load_gold()
    labels = {g.text: g for g in gold}
    garbled = gold[0].text

    def reply(lesson: str) -> str:
        g = labels[lesson]
        labelled = json.dumps({"order": g.order, "categories": sorted(g.categories)})
        return "I cannot say." if lesson == garbled else labelled

    seen: list[GenerateConfig] = []
    readings, unreadable = agreement.model_readings(scripted_tagger(reply, seen), gold)
    assert len(seen) == len(gold) and all(c.temperature == 0 and c.response_schema is not None for c in seen)
    assert len(unreadable) == 1 and garbled[:40] in unreadable[0] and "no JSON object" in unreadable[0]
    measured = agreement.measure(gold, readings.__getitem__)
    assert measured.order_accuracy == pytest.approx((len(gold) - 1) / len(gold))
    assert measured.order(gold[0].order).fn == 1 and measured.categories_pooled.fp == 0


@pytest.mark.parametrize(("raw", "why"), [
    ('{"order": 4, "categories": []}', "order is not 1, 2 or 3"),
    ('{"order": true, "categories": []}', "order is not 1, 2 or 3"),
    ('{"order": 2, "categories": ["bluffing"]}', "unknown categories: bluffing"),
    ('{"order": 2, "categories": "aggression"}', "categories is not a list"),
])
def test_a_model_reply_outside_the_spec_is_unreadable(raw: str, why: str) -> None:
    with pytest.raises(InvalidReply, match=why):
        parse_tags(raw)


def test_a_model_reply_is_read_in_the_taggers_category_order() -> None:
    tags = parse_tags('Here: {"order": "3", "categories": ["meta_modeling", "wolf_mimicry"]}')
    assert tags == Tags(categories=("wolf_mimicry", "meta_modeling"), order=3)
