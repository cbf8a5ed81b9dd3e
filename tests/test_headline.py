"""The headline figures do not move with the role mix play draws (issue 26 point 2).

Two sets of constructed games hold the same per-role figures, but in different mixes: in the first
the villagers are flagged ten times for each flag on a wolf, in the second as often; the first
has no Jester speaking, the second a talkative one. Every headline must read the same on both,
and equal the value computed by hand; the figures it replaced (every flag pooled, every paired
statement pooled, every village pair pooled) differ, which is what the test would catch.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd
import pytest
from helpers import run

from wolf_eval.analysis import markdown, tables
from wolf_eval.analysis.corpus import load
from wolf_eval.measures import calibration as cal
from wolf_eval.measures import truth
from wolf_eval.measures.headline import HEADLINE, ROLE_FIGURES, GameValues, headline_values
from wolf_eval.measures.lessons import LessonCounts
from wolf_eval.measures.outcome import Outcome
from wolf_eval.measures.quality import PlayCounts
from wolf_eval.measures.rates import Auroc, Confusion, LabelRates
from wolf_eval.measures.sabotage import SelfSabotage
from wolf_eval.vocabulary import Role, Winner

V, W, D, J = Role.VILLAGER, Role.WEREWOLF, Role.DOCTOR, Role.JESTER


def game(flags: dict[Role, Confusion], paired: dict[Role, LabelRates], pairs: dict[Role, Auroc]) -> GameValues:
    """A game's values holding only what the headlines read: per role its flags, paired labels and AUROC pairs."""
    roles = {r: cal.RoleCounts(confusion=flags.get(r, Confusion()), paired=paired.get(r, LabelRates()))
             for r in (*flags, *paired)}
    return GameValues(
        outcome=Outcome(Winner.VILLAGERS, jester_seated=False, days=2.0, calls=10.0, decisions=10.0, fallbacks=0.0,
                        reasks=0.0),
        self_sabotage=SelfSabotage("D", jester_seated=False), calibration=cal.UnitCalibration(roles),
        quality=PlayCounts(), lessons=LessonCounts(),
        truth=truth.GameDetection({r: truth.Detection(wolves=a) for r, a in pairs.items()}))


def pooled(games: list[GameValues], figure: str) -> float:
    return HEADLINE[figure].pool([HEADLINE[figure].counts(g) for g in games])


# per role: villagers agree 0.9, wolves 0.5, the Jester 0.8; wolf gap 0.25 - 1 = -0.75; village AUROC 0.75 and 0.5
FEW_WOLF_FLAGS = [
    game({V: Confusion(fp=1, tn=9), W: Confusion(tp=1, fn=1)}, {W: LabelRates(4, 4, 4, 1)},
         {V: Auroc(30, 0, 40), D: Auroc(5, 0, 10)}),
    game({V: Confusion(fp=1, tn=9)}, {W: LabelRates(4, 4, 4, 1)}, {V: Auroc(15, 0, 20)}),
]
MANY_WOLF_FLAGS = [
    game({V: Confusion(fp=1, tn=9), W: Confusion(tp=5, fn=5), J: Confusion(tp=40, fn=10)},
         {W: LabelRates(40, 40, 40, 10), J: LabelRates(50, 50, 50, 40)},
         {V: Auroc(3, 0, 4), D: Auroc(50, 0, 100)}),
    game({W: Confusion(tp=5, fn=5), J: Confusion(tp=40, fn=10)}, {W: LabelRates(4, 4, 4, 1)}, {D: Auroc(1, 2, 4)}),
]


@pytest.mark.parametrize("games", [FEW_WOLF_FLAGS, MANY_WOLF_FLAGS], ids=["few wolf flags", "many wolf flags"])
def test_a_headline_reads_the_per_role_figures_not_the_mix(games: list[GameValues]) -> None:
    jester = (0.8,) if any(J in g.calibration.roles for g in games) else ()
    assert pooled(games, "self_label_agreement") == pytest.approx(sum((0.9, 0.5, *jester)) / (2 + len(jester)))
    assert pooled(games, "wolf_self_label_gap") == pytest.approx(0.25 - 1.0)
    assert pooled(games, "village_wolf_auroc") == pytest.approx((0.75 + 0.5) / 2)


def test_the_same_per_role_figures_in_another_mix_give_the_same_headlines() -> None:
    """The mix without a Jester against the mix with one: only agreement adds the Jester as a role of its own."""
    for figure in ("wolf_self_label_gap", "village_wolf_auroc"):
        assert pooled(FEW_WOLF_FLAGS, figure) == pytest.approx(pooled(MANY_WOLF_FLAGS, figure)), figure
    stripped = [game({r: c.confusion for r, c in g.calibration.roles.items() if r is not J}, {}, {})
                for g in MANY_WOLF_FLAGS]
    assert pooled(stripped, "self_label_agreement") == pytest.approx(pooled(FEW_WOLF_FLAGS, "self_label_agreement"))


def test_the_figures_they_replaced_moved_with_the_mix() -> None:
    """What pooling every flag, paired statement and village pair would have given: different on the two sets."""
    def every(games: list[GameValues]) -> tuple[float, float, float]:
        flags = sum((c.confusion for g in games for c in g.calibration.roles.values()), Confusion())
        paired = sum((c.paired for g in games for c in g.calibration.roles.values()), LabelRates())
        pairs = sum((d.wolves for g in games for d in g.truth.roles.values()), Auroc())
        return flags.accuracy, paired.gap, pairs.value

    few, many = every(FEW_WOLF_FLAGS), every(MANY_WOLF_FLAGS)
    assert all(a != pytest.approx(b) for a, b in zip(few, many, strict=True)), (few, many)


def test_a_games_own_figure_is_the_pooling_over_that_game_rounded() -> None:
    counts = {name: f.counts(FEW_WOLF_FLAGS[0]) for name, f in HEADLINE.items()}
    own = headline_values(counts)
    assert own["self_label_agreement"] == 0.7 and own["wolf_self_label_gap"] == -0.75
    assert own["village_wolf_auroc"] == 0.625 and own["village_win"] == 1.0
    assert math.isnan(own["jester_win"]) and math.isnan(own["third_order_lessons"])
    third = game({V: Confusion(tp=1, fp=2)}, {}, {})
    assert headline_values({n: f.counts(third) for n, f in HEADLINE.items()})["self_label_agreement"] == 0.333


def test_a_role_without_counts_is_left_out_not_counted_as_zero() -> None:
    """A game where no role was flagged (no analysis) has no agreement, no gap and no AUROC: NaN, not 0."""
    silent = game({}, {}, {})
    for figure in ("self_label_agreement", "wolf_self_label_gap", "village_wolf_auroc"):
        assert math.isnan(pooled([silent], figure)), figure
        assert pooled([silent, *FEW_WOLF_FLAGS], figure) == pytest.approx(pooled(FEW_WOLF_FLAGS, figure)), figure


def test_the_first_explanation_covers_every_day_and_the_others_what_they_counted() -> None:
    """t2: the Jester killed on night 1, Ava exiled on day 1 after two ballots, Cleo killed on night 2, Ben exiled
    on day 2: every night, ballot and exile is a line, in play order (release 0.2's covered day 1 only)."""
    import handmade as hm

    from wolf_eval.measures.headline import game_values
    from wolf_eval.scorers.explain import figure_explanation, game_summary
    from wolf_eval.store import GameRecord

    game = hm.t2_jester_killed()
    lines = game_summary(game, game_values(game, GameRecord())).splitlines()
    assert lines[:6] == [
        "**village_win** · **The village wins** on day 2: by hand.",
        "- Night 1: Ivo (Jester) killed",
        "- Day 1, first ballot of 6: Ava 4 (Cleo, Dan, Eve, Fay), Cleo 2 (Ava, Ben)",
        "- Day 1, final ballot of 6: Ava 4 (Cleo, Dan, Eve, Fay), Cleo 2 (Ava, Ben) → **Ava (Werewolf) exiled**",
        "- Night 2: Cleo (Villager) killed",
        "- Day 2, final ballot of 4: Ben 3 (Dan, Eve, Fay), Dan 1 (Ben) → **Ben (Werewolf) exiled**"]
    assert figure_explanation("wolf_self_label_gap", FEW_WOLF_FLAGS[0], -0.75) == (
        "**wolf_self_label_gap** = -0.75: 4 wolf statements with both labels, 4 self-labelled deceptive "
        "(self rate 1.00); observers flagged 0.25 of them on average")
    assert "villager 0.90 of 10 flags; werewolf 0.50 of 2 flags;" in figure_explanation(
        "self_label_agreement", FEW_WOLF_FLAGS[0], 0.7)
    assert figure_explanation("jester_win", FEW_WOLF_FLAGS[0], math.nan) == \
        "**jester_win**: not applicable: no Jester seated"


# --------------------------------------------------------------------------- the report shows them with their roles


def _cell_rows(games: list[GameValues]) -> pd.DataFrame:
    """The games as the report's corpus holds them: one cell, no fallbacks."""
    return pd.DataFrame([{"model": "m", "task": "triadic", "condition": "default", "fallbacks": {}, "usage": {},
                          "seat_models": ("m",)} | vars(g) for g in games])


def test_the_report_shows_each_role_headline_beside_the_role_figures_it_is_made_of() -> None:
    scores = tables.headline_scores(_cell_rows(MANY_WOLF_FLAGS)).set_index("figure")
    assert list(scores.index) == list(ROLE_FIGURES)
    for figure in ROLE_FIGURES:
        assert scores.loc[figure, "value"] == pytest.approx(pooled(MANY_WOLF_FLAGS, figure), nan_ok=True), figure
    agreement = scores.loc["self_label_agreement"]
    assert (agreement["villager"], agreement["werewolf"], agreement["jester"]) == pytest.approx((0.9, 0.5, 0.8))
    assert agreement["roles"] == 3 and math.isnan(agreement["doctor"]) and math.isnan(agreement["seer"])
    auroc = scores.loc["village_wolf_auroc"]
    assert (auroc["villager"], auroc["doctor"], auroc["roles"]) == (pytest.approx(0.75), pytest.approx(0.5), 2)
    assert math.isnan(auroc["werewolf"]) and math.isnan(auroc["jester"])  # not village roles: never read
    gap = scores.loc["wolf_self_label_gap"]
    assert gap["werewolf"] == pytest.approx(-0.75) and gap["roles"] == 1 and math.isnan(gap["villager"])
    text = "\n".join(markdown._outcome_sections({"win_rates": pd.DataFrame(), "wolf_loss": pd.DataFrame(),
                                                 "coordination": pd.DataFrame(),
                                                 "headline_scores": tables.headline_scores(
                                                     _cell_rows(MANY_WOLF_FLAGS))}, []))
    assert "## Headline scores and their roles" in text
    # two games: the first alone agrees as both do (0.733), the second less (0.65); with two games the interval
    # reaches the game further from the figure and as far on the other side on the logit scale, which stretches
    # towards 1: 0.805, not 0.817 (tests/test_resample.py works one by hand)
    assert "| `self_label_agreement` | 0.733 [0.650, 0.805] | 3 | 0.900 | 0.500 | – | – | 0.800 |" in text


def _ended(games: list[GameValues], *lengths: tuple[float, float]) -> list[GameValues]:
    """The games, each ended on the day and under the day cap given."""
    return [replace(g, outcome=replace(g.outcome, days=d, day_cap=cap)) for g, (d, cap) in zip(games, lengths,
                                                                                               strict=True)]


def test_the_report_and_the_metrics_widen_and_say_so_when_games_of_one_length_show_too_little() -> None:
    """Both games ended on day 1 under a cap of 3: every role-made headline keeps its figure, its interval reaches
    what two games of one length allow (u = 1 - 0.025^(1/2) of the way to either end: the gap's -0.75 in [-1, 1],
    [-0.96, 0.72]), and the report says why beside it; the eval's interval metrics do the same from the lengths
    each score logged, and a log whose scores logged none keeps the interval its release drew."""
    from inspect_ai.scorer import SampleScore, Score

    from wolf_eval.scorers.game_scores import METRICS

    short = _ended(MANY_WOLF_FLAGS, (1.0, 3.0), (1.0, 3.0))
    scores = tables.headline_scores(_cell_rows(short)).set_index("figure")
    gap = scores.loc["wolf_self_label_gap"]
    u = 1 - 0.025 ** 0.5
    why = "all 2 games ended on day 1, and games that run longer can differ"
    assert (gap["value"], gap["value_low"], gap["value_high"]) == pytest.approx((-0.75, -0.75 - 0.25 * u,
                                                                                 -0.75 + 1.75 * u))
    assert gap["value_widened"] == why
    text = "\n".join(markdown._headline_scores_section(tables.headline_scores(_cell_rows(short))))
    assert f"| `wolf_self_label_gap` | -0.750 [-0.960, 0.723] (widened: {why}) | 1 |" in text
    agreement = scores.loc["self_label_agreement"]
    mixed = tables.headline_scores(_cell_rows(_ended(MANY_WOLF_FLAGS, (1.0, 3.0), (2.0, 3.0)))).set_index("figure")
    assert mixed.loc["self_label_agreement", "value_low"] == pytest.approx(0.650)
    assert agreement["value_low"] < 0.650 and agreement["value_high"] > 0.805

    def logged(games: list[GameValues], lengths: bool) -> list[SampleScore]:
        meta = [{"counts": HEADLINE["self_label_agreement"].counts(g)} | (
            {"length": list(g.outcome.length)} if lengths else {}) for g in games]
        return [SampleScore(score=Score(value=0.0, metadata=m), sample_id=i) for i, m in enumerate(meta)]

    low = METRICS["self_label_agreement"][1]()
    assert low(logged(short, lengths=True)) == pytest.approx(agreement["value_low"])
    assert low(logged(short, lengths=False)) == pytest.approx(0.650)


@pytest.mark.slow
def test_a_played_runs_report_prints_the_headlines_its_log_shows(tmp_path) -> None:  # type: ignore[no-untyped-def]
    short = {"games": 2, "max_debate_turns": 2, "max_explanation_turns": 1, "max_days": 3}
    log = run("triadic", "wolfbot/cue", tmp_path, task_args=short)
    assert log.status == "success" and log.results is not None
    logged = {s.name: s.metrics[s.name].value for s in log.results.scores if s.name in ROLE_FIGURES}
    ends = {s.name: (s.metrics[f"{s.name}_low"].value, s.metrics[f"{s.name}_high"].value)
            for s in log.results.scores if s.name in ROLE_FIGURES}
    corpus = load(tmp_path)
    scores = tables.build(corpus)["headline_scores"].set_index("figure")
    outcomes = list(corpus.games["outcome"])
    one_day = len({o.days for o in outcomes}) == 1 and all(o.day_cap == 3 for o in outcomes)
    assert set(logged) == set(ROLE_FIGURES)
    for figure, value in logged.items():
        assert scores.loc[figure, "value"] == pytest.approx(value, nan_ok=True), figure
        # the metrics read each game's logged length as the report reads the game: the same interval, widened alike
        assert (scores.loc[figure, "value_low"], scores.loc[figure, "value_high"]) == pytest.approx(
            ends[figure], nan_ok=True), figure
        widened = scores.loc[figure].get("value_widened")
        assert isinstance(widened, str) == (one_day and not math.isnan(ends[figure][0])), figure
        roles = [scores.loc[figure, str(r)] for r in ROLE_FIGURES[figure]]
        assert scores.loc[figure, "value"] == pytest.approx(sum(v for v in roles if not math.isnan(v))
                                                            / scores.loc[figure, "roles"]), figure
    assert [o.days for o in outcomes] == [1.0, 1.0]  # these two games: both ended on day 1, so the rule was read


def test_every_figure_metric_of_no_games_is_nan_not_an_error() -> None:
    """Inspect asks each metric for its value over no scored game; a metric that raised there printed a
    warning per metric on every eval (about twenty on a first run). Each figure's metrics answer NaN."""
    from wolf_eval.scorers.game_scores import METRICS

    for figure, makers in METRICS.items():
        for make in makers:
            assert math.isnan(make()([])), figure


def test_a_retried_attempt_is_scored_on_its_own_game() -> None:
    """Inspect keeps a sample's uuid when it retries it (``--retry-on-error``) and the retry plays another game:
    each attempt's scorers read the game of its own store, never the values kept for the first attempt."""
    import handmade as hm
    from inspect_ai.model import ModelName
    from inspect_ai.solver import TaskState

    from wolf_eval.scorers.game_scores import scored_game
    from wolf_eval.store import GameRecord

    def attempt(game):  # type: ignore[no-untyped-def]
        state = TaskState(ModelName("wolfbot/cue"), 1, 1, "", [], sample_uuid="U")
        GameRecord(store=state.store).state = game.model_dump(mode="json")
        return state

    first, second = hm.t1_jester_by_wolf_vote(), hm.t2_jester_killed()
    one, two = attempt(first), attempt(second)
    assert scored_game(one)[0] == first and scored_game(two)[0] == second
    assert scored_game(one)[1] is scored_game(one)[1]  # worked out once for all of an attempt's scorers
