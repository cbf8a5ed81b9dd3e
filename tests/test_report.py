"""`wolf-eval report` on logs of games built by hand: every table against values worked out by hand.

Three cells: wolfbot/cue on triadic (games T1-T4, with a judge), the same with
``jester_learning=true`` (T5, T6) and wolfbot/tom on the wolf task (W1). The games are in
tests/handmade.py; the real scorers score them inside real Inspect evals. The tokens and cost
tables are checked on played wolfbot games instead, whose providers report usage.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import handmade as hm
import helpers as hp
import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import Generate, TaskState, solver

from wolf_eval.analysis import report
from wolf_eval.cli import main
from wolf_eval.engine import GameState
from wolf_eval.measures import cost
from wolf_eval.settings import Settings, condition
from wolf_eval.stats import wilson_cc
from wolf_eval.store import TokenUsage, current_record, logged_record
from wolf_eval.tasks import game_scorers

CALLS = 100
A = ("wolfbot/cue", "triadic", "default")
B = ("wolfbot/cue", "triadic", "jester_learning=true")
C = ("wolfbot/tom", "wolf", "default")
JUDGE_GUESS = {"Ava": "werewolf", "Ben": "jester", "Cleo": "villager", "Dan": "doctor", "Eve": "villager",
               "Fay": "werewolf", "Ivo": "jester"}


@solver
def plant(games: dict[int, GameState]):  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        record = current_record()
        game = games[int(state.sample_id)]
        record.state = game.model_dump(mode="json")
        record.seat_models = {p.name: "wolfbot/cue" for p in game.players}
        record.calls = CALLS
        return state
    return solve


def _judge_model():  # type: ignore[no-untyped-def]
    def answer(input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        out = ModelOutput.from_content(model="judge", content=json.dumps({"roles": JUDGE_GUESS}))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out
    return get_model("mockllm/model", custom_outputs=answer, memoize=False)


def _eval(name: str, games: list[GameState], model: str, log_dir: Path, **kwargs) -> Path:  # type: ignore[no-untyped-def]
    planted = dict(enumerate(games, start=1))
    task = Task(name=name, dataset=MemoryDataset([Sample(id=i, input=f"game {i}") for i in planted]),
                solver=plant(planted), scorer=game_scorers())
    [log] = inspect_eval(task, model=model, log_dir=str(log_dir), display="none", **kwargs)
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report_logs")
    _eval("triadic",
          [hm.t1_jester_by_wolf_vote(), hm.t2_jester_killed(), hm.t3_jester_by_village(), hm.t4_wolves_win()],
          "wolfbot/cue", folder, model_roles={"judge": _judge_model()})
    learning = _eval("triadic", [hm.t5_draw(), hm.t6_jester_by_wolf_vote()], "wolfbot/cue", folder)
    log = read_eval_log(str(learning))
    log.eval.task_args = {"games": 2, "jester_learning": True}  # the condition a learning run would record
    write_eval_log(log, str(learning))
    _eval("wolf", [hm.w1_village_wins()], "wolfbot/tom", folder)
    return folder


@pytest.fixture(scope="module")
def tables(logs: Path) -> dict:
    return report.build(report.load(logs))


def row(df, cell, **where):  # type: ignore[no-untyped-def]
    m, t, c = cell
    sel = df[(df["model"] == m) & (df["task"] == t) & (df["condition"] == c)]
    for k, v in where.items():
        sel = sel[sel[k] == v]
    assert len(sel) == 1, f"{cell} {where}: {len(sel)} rows"
    return sel.iloc[0]


def close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, abs_tol=1e-9)


@pytest.mark.slow
def test_cells_and_order(tables: dict) -> None:
    rates = tables["win_rates"]
    assert list(zip(rates["model"], rates["task"], rates["condition"], strict=True)) == [C, A, B]
    assert list(rates["games"]) == [1, 4, 2]


@pytest.mark.slow
def test_win_rates_with_wilson_intervals(tables: dict) -> None:
    a = row(tables["win_rates"], A)
    for faction, wins in (("villagers", 1), ("werewolves", 1), ("jester", 2), ("draw", 0)):
        assert (a[faction], a[f"{faction}_low"], a[f"{faction}_high"]) == pytest.approx(wilson_cc(wins, 4))
    assert a["days"] == pytest.approx((1 + 2 + 1 + 1) / 4)
    b = row(tables["win_rates"], B)
    assert (b["jester"], b["draw"], b["villagers"]) == (0.5, 0.5, 0.0)
    c = row(tables["win_rates"], C)
    assert c["villagers"] == 1.0 and math.isnan(c["jester"])  # no Jester seated: not applicable, never 0


@pytest.mark.slow
def test_wolf_loss_categories(tables: dict) -> None:
    a = row(tables["wolf_loss"], A)
    assert [a[k] for k in "WABCDX"] == [1, 1, 1, 1, 0, 0]
    b = row(tables["wolf_loss"], B)
    assert [b[k] for k in "WABCDX"] == [0, 1, 0, 0, 0, 1]
    c = row(tables["wolf_loss"], C)
    assert [c[k] for k in "WDX"] == [0, 1, 0] and all(math.isnan(c[k]) for k in "ABC")


@pytest.mark.slow
def test_day1_coordination(tables: dict) -> None:
    # T1 split (Ivo, Dan); T2 both Cleo; T3 both Dan; T4 Eve and the partner Ava.
    a = row(tables["coordination"], A)
    assert (a["games"], a["unanimous"], a["voted_partner"], a["wolves_won"]) == (4, 0.5, 0.25, 0.25)
    # T2's Jester was killed on night 1, so no ballot could name it: Voted Jester is over T1 T3 T4, not 4 games.
    assert (a["voted_jester"], a["jester_games"]) == (pytest.approx(1 / 3), 3)
    b = row(tables["coordination"], B)
    assert (b["unanimous"], b["voted_jester"], b["voted_partner"]) == (1.0, 1.0, 0.0)
    c = row(tables["coordination"], C)
    assert c["unanimous"] == 1.0 and math.isnan(c["voted_jester"])


@pytest.mark.slow
def test_calibration_by_role(tables: dict) -> None:
    cal = tables["calibration"]
    cal = cal[cal["unit"] == "all units"]
    assert set(cal["comparable"]) == {"Triadic paper"}  # every handmade unit is a debate statement of a triadic game
    # Ivo (T1): self deceptive; 3 of 5 observers flag it; ratings 0.9 0.8 0.4 1.0 0.2.
    j = row(cal, A, role="jester")
    assert (j["statements"], j["self_rate"], j["observer_rate"], j["accuracy"], j["f1"]) == pytest.approx(
        (1, 1, 0.6, 0.6, 0.75))
    assert j["gap"] == pytest.approx(-0.4) and j["suspicion"] == pytest.approx(0.66)
    assert (j["paired"], j["coverage"], j["labels"], j["suspicion_n"]) == (1, 1.0, 5, 1)
    # Ava (T1): deceptive, flagged by 2 of 5 (ratings sum 2.5); Ben (T2): honest, flagged by 2 of 3 (sum 1.8).
    w = row(cal, A, role="werewolf")
    assert w["self_rate"] == 0.5
    assert w["observer_rate"] == pytest.approx((0.4 + 2 / 3) / 2)
    assert w["gap"] == pytest.approx((0.4 + 2 / 3) / 2 - 0.5)
    assert w["accuracy"] == pytest.approx(3 / 8)  # tp 2, fn 3, fp 2, tn 1
    assert w["f1"] == pytest.approx(4 / 9)
    assert w["suspicion"] == pytest.approx((2.5 / 5 + 1.8 / 3) / 2)  # per statement, not per rating (4.3 / 8)
    assert set(cal["role"]) == {"jester", "werewolf"}  # roles that never spoke have no row


@pytest.mark.slow
def test_confidence_bins(tables: dict) -> None:
    bins = tables["confidence_bins"]
    bins = bins[bins["unit"] == "all units"]
    assert row(bins, A, bin="0.0–0.2")["flags"] == 0 and math.isnan(row(bins, A, bin="0.0–0.2")["hit_rate"])
    b1 = row(bins, A, bin="0.2–0.4")
    assert (b1["flags"], b1["confidence"], b1["hit_rate"]) == pytest.approx((1, 0.3, 1.0))
    b3 = row(bins, A, bin="0.6–0.8")
    assert (b3["flags"], b3["confidence"], b3["hit_rate"]) == pytest.approx((1, 0.7, 0.0))
    b4 = row(bins, A, bin="0.8–1.0")  # Ava 0.9, Eve 0.85, Fay 0.95 on deceptive statements; Eve 0.9 on Ben's honest one
    assert (b4["flags"], b4["confidence"], b4["hit_rate"]) == pytest.approx((4, 0.9, 0.75))


@pytest.mark.slow
def test_deception_type_yield(tables: dict) -> None:
    y = tables["type_yield"]
    y = y[y["unit"] == "all units"]
    j = row(y, A, role="jester", type="strategic_deception")
    assert (j["statements"], j["share"], j["suspicion"], j["flag_rate"]) == pytest.approx((1, 1.0, 0.66, 0.6))
    mis = row(y, A, role="werewolf", type="misdirection")
    assert (mis["statements"], mis["share"], mis["suspicion"], mis["flag_rate"]) == pytest.approx((1, 0.5, 0.5, 0.4))
    none = row(y, A, role="werewolf", type="none")
    assert (none["share"], none["suspicion"], none["flag_rate"]) == pytest.approx((0.5, 0.6, 2 / 3))


@pytest.mark.slow
def test_suspicion_by_role_day_and_position(tables: dict) -> None:
    by_day = tables["suspicion_by_day"]
    by_day = by_day[by_day["unit"] == "all units"]
    assert row(by_day, A, role="werewolf")[["day 1", "day 2"]].tolist() == pytest.approx([0.5, 0.6])
    assert row(by_day, A, role="werewolf")[["day 1 n", "day 2 n"]].tolist() == [1, 1]
    j = row(by_day, A, role="jester")
    assert j["day 1"] == pytest.approx(0.66) and math.isnan(j["day 2"])
    by_pos = tables["suspicion_by_position"]
    by_pos = by_pos[by_pos["unit"] == "all units"]
    assert row(by_pos, A, role="werewolf")["position 1–5"] == pytest.approx((0.5 + 0.6) / 2)


@pytest.mark.slow
def test_jester_win_predictors_within_each_cell_and_stratified(tables: dict) -> None:
    p = tables["predictors"]
    within = p[p["model"] != report.POOLED_CELLS["model"]]
    assert not (within["n"] > 4).any()  # no per-cell row pools the games of different cells (A has 4, B 2)
    cell_a = p[(p["model"] == A[0]) & (p["task"] == A[1]) & (p["condition"] == A[2])].set_index("feature")
    # T2's Jester was killed on night 1, so no ballot could name it: T1 T3 T4 give x = 1 0 0, y = 1 1 0.
    vj = cell_a.loc[report.PREDICTORS["voted_jester"]]
    assert (vj["won"], vj["lost"], vj["n"]) == pytest.approx((1 / 2, 0, 3))
    assert vj["r"] == pytest.approx(0.5)  # covariance sum 1/3 over variance sums 2/3 each
    # 3 games, 2 won: the permutation p shuffles the wins over the 3 orders; each is as extreme (|r| = 1/2)
    assert vj["p_perm"] == pytest.approx(1.0) and "p" not in p.columns
    # Vote suspicion rank exists only where statements were analysed before a ballot: T1 13/6, T2 7/4.
    rank = cell_a.loc[report.PREDICTORS["vote_suspicion_rank"]]
    assert (rank["won"], rank["lost"], rank["n"]) == pytest.approx((13 / 6, 7 / 4, 2))
    assert math.isnan(rank["r"])  # fewer than three games
    statements = cell_a.loc[report.PREDICTORS["jester_statements"]]  # T1 T3 T4: x = 1 0 0, y = 1 1 0
    assert statements["n"] == 3 and statements["r"] == pytest.approx(0.5)
    assert not (p["task"] == C[1]).any()  # no Jester in the wolf task
    # Stratified by cell: A centred as above (x sum of squares 2/3, y 2/3, cross 1/3); B (T5 x=1 y=0, T6 x=1 y=1)
    # centres to x = 0 0, y = -1/2 1/2. r = (1/3) / sqrt(2/3 * 7/6) = 1/sqrt(7).
    # (Pooled naively the five games would give r = 1/6.)
    pooled = p[p["model"] == report.POOLED_CELLS["model"]].set_index("feature")
    sv = pooled.loc[report.PREDICTORS["voted_jester"]]
    assert (sv["r"], sv["n"], sv["cells"]) == pytest.approx((1 / math.sqrt(7), 5, 2))
    assert math.isnan(sv["won"]) and math.isnan(sv["lost"])


@pytest.mark.slow
def test_first_and_second_half(tables: dict) -> None:
    a = row(tables["halves"], A)  # T1 T2 | T3 T4
    assert (a["villagers_first"], a["villagers_second"], a["villagers_change"]) == (0.5, 0.0, -0.5)
    assert (a["jester_first"], a["jester_second"], a["jester_change"]) == (0.5, 0.5, 0.0)
    assert (a["werewolves_first"], a["werewolves_second"]) == (0.0, 0.5)
    b = row(tables["halves"], B)  # T5 | T6
    assert (b["jester_first"], b["jester_second"]) == (0.0, 1.0)


@pytest.mark.slow
def test_play_quality(tables: dict) -> None:
    q = row(tables["play_quality"], A)
    assert q["calls"] == CALLS
    assert q["fallback_rate"] == pytest.approx(1 / (4 * CALLS))
    assert q["doctor_self_protect"] == pytest.approx(4 / 6)
    assert q["doctor_save_rate"] == pytest.approx(1 / 6)
    assert q["jester_first_bid"] == pytest.approx((9 + 2 + 5) / 3)
    assert q["jester_spoke_d1"] == pytest.approx(1 / 3)  # T1 of T1 T3 T4; T2's Jester died on night 1
    assert (q["doctor_protects"], q["jester_first_bid_n"], q["jester_spoke_d1_n"]) == (6, 3, 3)


@pytest.mark.slow
def test_fallbacks_by_seat_model_and_action(tables: dict) -> None:
    f = tables["fallbacks"]
    assert len(f) == 1  # T4: Fay's unreadable final vote
    one = row(f, A)
    assert (one["seat_model"], one["action"], one["fallbacks"], one["per_game"]) == ("wolfbot/cue", "vote", 1, 0.25)


@pytest.mark.slow
def test_judge_accuracy(tables: dict) -> None:
    j = tables["judge"]
    assert len(j) == 1  # only cell A had a judge
    a = row(j, A)
    assert (a["villager"], a["werewolf"], a["doctor"], a["jester"]) == pytest.approx((2 / 3, 0.5, 1.0, 1.0))
    assert a["all"] == pytest.approx(5 / 7) and a["unreadable"] == 0.0 and math.isnan(a["seer"])


@pytest.mark.slow
def test_cli_writes_markdown_and_figures(logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(logs), "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "| wolfbot/cue | triadic | default | 0.0025 | 4 | 0.25 [" in printed  # T4's one fallback in 400 calls
    text = (tmp_path / "report.md").read_text()
    for heading in ("Win rates", "Headline scores and their roles", "Wolf-side outcomes", "Day-1 wolf coordination",
                    "Calibration and agreement with the speaker's own label",
                    "Observer confidence calibration", "Deception-type yield", "Suspicion attracted by role and day",
                    "position in the day", "predictors of a Jester win", "First half versus second half",
                    "Fallbacks by seat model and action",
                    "Judge identification accuracy"):
        assert f"## {heading}" in text or heading in text, heading
    assert ("| wolfbot/cue | triadic | jester_learning=true | 0.0000 | 2 | 0 (0.00) | 1 (0.50) | 0 (0.00) | 0 (0.00) | "
            "0 (0.00) | 1 (0.50) |") in text
    assert "| wolfbot/tom | wolf | default | 0.0000 | 1 | 0 (0.00) | – | – | – | 1 (1.00) | 0 (0.00) |" in text
    for png in ("win_rates.png", "suspicion_by_day.png"):
        assert (tmp_path / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"]({png})" in text


def test_cli_rejects_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "no such log file or folder" in capsys.readouterr().err


def test_cli_on_a_folder_without_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "out")]) == 1
    assert "no finished games" in capsys.readouterr().err


def test_condition_is_what_differs_from_the_task_defaults() -> None:
    assert report.condition_label("triadic", {"games": 20, "seed": 3, "max_days": 10, "temperature": 1.0}) == "default"
    unset = report.condition_label("triadic", {"max_days": 5, "temperature": None})
    assert unset.startswith("max_days=5, temperature=")  # as wolf_eval.settings.condition spells it
    assert unset == condition(Settings.from_task_args("triadic", max_days=5, temperature=None))
    assert report.condition_label("wolf", {"max_statement_words": 50}) == "max_statement_words=50"
    assert report.condition_label("triadic", {"max_statement_words": 50}) == "default"
    config = {"temperature": 0.2, "max_connections": 4}
    assert report.condition_label("triadic", {}, None, config) == "--temperature=0.2"
    assert report.condition_label("triadic", {"games": 2, "jester_learning": True}) == "jester_learning=true"
    recorded = Settings.from_task_args("triadic", max_days=3, history="full").model_dump(mode="json")
    assert report.condition_label("triadic", {"max_days": 3}, {"settings": recorded}) == "history=full, max_days=3"
    assert report.condition_label("custom", {"note": None}).startswith("unknown settings")  # not a wolf-eval task


@pytest.mark.slow
def test_statement_tables_follow_the_cell_order_then_role_order(tables: dict) -> None:
    for key in ("type_yield", "suspicion_by_day", "suspicion_by_position"):
        df = tables[key]
        assert list(dict.fromkeys(zip(df["model"], df["task"], df["condition"], strict=True))) == [A], key
        assert list(dict.fromkeys(df["role"])) == ["werewolf", "jester"], key


# --------------------------------------------------------------------------- tokens and cost, on played games

SHORT = {"max_debate_turns": 2, "max_explanation_turns": 1, "max_days": 2, "deception_analysis": False}
#: US dollars per million tokens for the test's priced model (cache writes fall back to the input price).
CUE_PRICE = {"input": 2.0, "cache_read": 0.5, "output": 8.0}
TOM_IGNORES = "seed (this test's provider takes none)"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list]]:
    """Two triadic games on wolfbot/cue, and one wolf game whose wolves are wolfbot/tom, a provider said to ignore
    the requested seed (its seats' metadata records it, as a real provider's would)."""
    folder = tmp_path_factory.mktemp("cost_logs")
    triadic = hp.run("triadic", "wolfbot/cue", folder, task_args={"games": 2, **SHORT})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("wolf_eval.solvers.play.ignored_settings",
                   lambda model, config, temperature: [TOM_IGNORES] if model == "wolfbot/tom" else [])
        wolf = hp.run("wolf", "wolfbot/cue", folder, task_args={"games": 1, **SHORT},
                      model_roles={"werewolf": "wolfbot/tom"})
    assert triadic.status == wolf.status == "success"
    return folder, {"triadic": list(triadic.samples or []), "wolf": list(wolf.samples or [])}


def _price_cue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prices = tmp_path / "prices.json"  # a fresh path: the price table is cached per override path
    prices.write_text(json.dumps({"wolfbot/cue": CUE_PRICE}))
    monkeypatch.setenv(cost.PRICES_ENV, str(prices))


def _by_hand(usage: TokenUsage, price: dict[str, float] | None) -> tuple[int, int, int, float]:
    """(in, cached, out, USD) of one model's usage, worked out from the price per million tokens."""
    dollars = math.nan if price is None else (
        (usage.input + usage.cache_write) * price["input"] + usage.cache_read * price["cache_read"]
        + usage.output * price["output"]) / 1e6
    return usage.input + usage.cache_write, usage.cache_read, usage.output, dollars


def _figures(r) -> tuple[float, ...]:  # type: ignore[no-untyped-def]
    return tuple(float(r[k]) for k in ("input_tokens", "cached_tokens", "output_tokens", "usd"))


def _same(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return len(a) == len(b) and all(close(float(x), float(y)) for x, y in zip(a, b, strict=True))


@pytest.mark.slow
def test_cost_per_seat_model_and_per_game_from_the_stored_usage(played, tmp_path, monkeypatch) -> None:
    folder, samples = played
    _price_cue(tmp_path, monkeypatch)
    tables = report.build(report.load(folder))
    prices = {"wolfbot/cue": CUE_PRICE, "wolfbot/tom": None}

    games = tables["game_costs"]
    for task, logged in samples.items():
        for sample in logged:
            record = logged_record(sample.store)
            parts = [_by_hand(u, prices[m]) for m, u in record.usage.items()]
            want = tuple(sum(p[i] for p in parts) for i in range(4))
            got = games[(games["task"] == task) & (games["id"] == str(sample.id))]
            assert len(got) == 1 and got.iloc[0]["days"] == record.game().outcome.days
            assert _same(_figures(got.iloc[0]), want), (task, sample.id)
            assert want[0] > 0 and want[2] > 0  # wolfbot reports its tokens (4 characters a token)

    by_model = tables["cost_by_model"]
    cue = [_by_hand(logged_record(s.store).usage["wolfbot/cue"], CUE_PRICE) for s in samples["triadic"]]
    total = tuple(sum(c[i] for c in cue) for i in range(4))
    row = by_model[(by_model["task"] == "triadic") & (by_model["seat_model"] == "wolfbot/cue")].iloc[0]
    assert row["games"] == 2 and _same(_figures(row), total)
    assert _same(tuple(float(row[f"{k}_per_game"]) for k in ("input_tokens", "cached_tokens", "output_tokens", "usd")),
                 tuple(t / 2 for t in total))
    wolf = by_model[by_model["task"] == "wolf"].set_index("seat_model")
    assert list(wolf.index) == ["wolfbot/cue", "wolfbot/tom", report.ALL_SEATS]
    usage = logged_record(samples["wolf"][0].store).usage
    assert _same(_figures(wolf.loc["wolfbot/tom"]), _by_hand(usage["wolfbot/tom"], None))
    assert math.isnan(wolf.loc["wolfbot/tom", "usd"]) and math.isnan(wolf.loc[report.ALL_SEATS, "usd"])
    assert wolf.loc[report.ALL_SEATS, "input_tokens"] == sum(u.input + u.cache_write for u in usage.values())

    text = report.render_markdown(report.load(folder), tables, [])
    days, (t_in, t_cached, t_out, t_usd) = logged_record(samples["triadic"][0].store).game().outcome.days, cue[0]
    assert f"| 1 | 1 | {days} | {t_in:,} | {t_cached:,} | {t_out:,} | {t_usd:.4f} |" in text  # triadic game 1
    assert (f"| wolfbot/cue | 2 | {total[0]:,} | {total[1]:,} | {total[2]:,} | {total[3]:.4f} | "
            f"{total[0] / 2:,.0f} |") in text
    tom_in, _, tom_out, _ = _by_hand(usage["wolfbot/tom"], None)
    assert f"| wolfbot/tom | 1 | {tom_in:,} | 0 | {tom_out:,} | n/a | {tom_in:,} | 0 | {tom_out:,} | n/a |" in text
    assert "n/a: no known price for `wolfbot/tom`." in text and f"`{cost.PRICES_ENV}=/path/to/it.json`" in text
    assert "`wolfbot/cue`" not in text.split("n/a: no known price for")[1].splitlines()[0]


@pytest.mark.slow
def test_the_ignored_settings_note_names_the_model_and_what_it_ignored(played) -> None:
    folder, samples = played
    seats = samples["wolf"][0].metadata["seats"]
    assert {s["model"] for s in seats if s["ignored"]} == {"wolfbot/tom"}
    assert samples["wolf"][0].scores["village_win"].metadata["ignored_settings"] == {"wolfbot/tom": [TOM_IGNORES]}
    corpus = report.load(folder)
    text = report.render_markdown(corpus, report.build(corpus), [])
    assert f"- `wolfbot/tom` ignored the requested {TOM_IGNORES}" in text
    assert text.index("## Tokens and cost by seat model") < text.index("ignored the requested") \
        < text.index("## Tokens and cost per game")
    triadic_only = report.load(next(folder.glob("*triadic*.eval")))
    assert "ignored the requested" not in report.render_markdown(triadic_only, report.build(triadic_only), [])


@pytest.mark.slow
def test_each_sample_carries_its_tokens_and_cost_in_the_outcome_metadata(played) -> None:
    _, samples = played
    for sample in samples["triadic"]:
        usage = logged_record(sample.store).usage
        logged = sample.scores["village_win"].metadata["cost"]
        parts = [_by_hand(u, None) for u in usage.values()]
        assert _same(_figures(logged), tuple(sum(p[i] for p in parts) for i in range(4)))  # unpriced while played
        assert sample.scores["village_win"].metadata["ignored_settings"] == {}
