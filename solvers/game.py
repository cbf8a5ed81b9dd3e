"""The solver: drive the engine with the seats' decisions, one concurrent wave at a time."""

from __future__ import annotations

from inspect_ai.log import transcript
from inspect_ai.model import ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, collect, span, store_as
from pydantic import Field

from wolf_eval.agents.observation import view
from wolf_eval.agents.player import MAX_RAW_CHARS, Agent, Seat, resolve_temperature, seat_model
from wolf_eval.agents.prompts import quote, render_record
from wolf_eval.engine import GameConfig, GameState, Phase, Record, Request, Role, advance, new_game, pending
from wolf_eval.engine.rng import derive_seed
from wolf_eval.solvers.learning import Learning, ask_for_lessons, describe_lessons, lessons_by_list, turnstile


class GameRecord(StoreModel):
    """What a finished game leaves in the sample: its final state and who played it."""

    state: dict | None = Field(default=None)
    seat_models: dict[str, str] = Field(default_factory=dict)
    seat_temperatures: dict[str, float | None] = Field(default_factory=dict)
    calls: int = Field(default=0)
    lessons_file: str | None = Field(default=None)  # jester_learning: the Jester model's lessons file
    learning_step: int | None = Field(default=None)  # this game's place in the learning sequence
    lessons_read: list[dict] = Field(default_factory=list)
    lessons_added: list[dict] = Field(default_factory=list)
    lessons_reply: str | None = Field(default=None)
    lessons_problem: str | None = Field(default=None)


def finished_game() -> GameState:
    """The current sample's finished game, for scorers; refuses a sample whose game never ended."""
    record = store_as(GameRecord)
    if record.state is None:
        raise RuntimeError("no finished game in this sample (the solver did not complete)")
    return GameState.model_validate(record.state)


def game_seed(seed: int, sample_id: object, epoch: int = 1) -> int:
    """Each game's seed derives from the task seed, the sample id and the epoch (epochs are new games)."""
    parts = (seed, sample_id) if epoch == 1 else (seed, sample_id, epoch)
    return derive_seed(*parts) % 2**31


def describe(r: Record) -> str:
    """One readable line per record for the transcript: public records as the players read them."""
    who = r.actor or ""
    if r.kind == "bids":
        return "Bids: " + ", ".join(f"{n} {b}" for n, b in r.data["bids"].items())
    if r.kind == "floor":
        return f"**{who}** takes the floor (bid {r.data['bid']})"
    if r.kind == "fallback":
        return f"⚠ fallback for **{who}** ({r.data['action']}): {r.text}"
    if r.kind == "night_result":
        return f"Night result: victim {r.data['victim']}, protected {r.data['protected']}"
    if r.kind in ("protect", "investigate", "note", "role"):
        what = {"protect": f"protects {r.target}", "investigate": f"investigates: {r.text}",
                "note": f"private note: {quote(r.text or '')}", "role": r.text}[r.kind]
        return f"[{who}] {what}"
    line = render_record(view(r))
    if r.kind == "vote":
        line += f" ({r.data.get('ballot')} ballot)"
    return line


def describe_analysis(r: Record) -> str:
    """One line per analysed statement: the speaker's own label and what the others made of it."""
    d = r.data
    own = d["self"]
    label = "missing" if own is None else (
        f"{'deceptive, ' + own['deception_type'] if own['is_deceptive'] else 'honest'}, confidence {own['confidence']:.2f}")
    peers = [a for a in d["peers"].values() if a is not None]
    if peers:
        mean = sum(a["suspicion"] for a in peers) / len(peers)
        others = f"mean peer suspicion {mean:.2f} · {sum(a['is_deceptive'] for a in peers)}/{len(peers)} peers flag it"
    else:
        others = "no peer analysis"
    missing = f" · {len(d['missing'])} missing" if d["missing"] else ""
    return (f"🔎 **{r.actor}** ({d['speaker_role']}, {d['kind']} {d['position'] + 1} of day {d['statement_day']}):"
            f" self {label} · {others}{missing}")


def _where(state: GameState, requests: list[Request]) -> tuple[str, Phase]:
    """The span a wave belongs to: ("night N" or "day N", phase); an analysis wave belongs to its statement's phase."""
    phase = requests[0].phase if requests else state.phase
    return f"{'night' if phase is Phase.NIGHT else 'day'} {state.day}", phase


@solver
def play_game(
    config: GameConfig, seed: int = 0, temperature: float | None = 1.0, structured_output: bool = True,
    learning: Learning | None = None,
) -> Solver:
    """Play one complete game per sample and keep its record in the sample's store.

    With ``learning`` the Jester reads its model's lessons before the game and adds new ones
    after it, and the games sharing a lessons file are played one after another.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        game = new_game(config, game_seed(seed, state.sample_id, state.epoch))
        seats: dict[str, Seat] = {}
        for p in game.players:
            model = seat_model(p.role)
            seats[p.name] = Seat(name=p.name, role=p.role, model=model,
                                 temperature=resolve_temperature(model, temperature))
        record = store_as(GameRecord)
        record.seat_models = {n: s.model_name for n, s in seats.items()}
        record.seat_temperatures = {n: s.temperature for n, s in seats.items()}
        jester = next((seats[p.name] for p in game.players if p.role is Role.JESTER), None)
        if learning is None or jester is None:
            await _play(game, Agent(seats=seats, structured_output=structured_output), state)
            return state
        async with turnstile(learning.path(jester.model_name)):
            known = learning.read(jester.model_name)
            record.lessons_file = str(learning.path(jester.model_name))
            record.learning_step = learning.next_step(jester.model_name)
            record.lessons_read = describe_lessons(known)
            transcript().info({"lessons_file": record.lessons_file, "step": record.learning_step,
                               "read": [x.text for x in known]}, source="wolf_eval/lessons")
            agent = Agent(seats=seats, structured_output=structured_output, jester_lessons=lessons_by_list(known))
            game = await _play(game, agent, state)
            source = {"eval_id": _eval_id(), "sample": state.sample_id, "epoch": state.epoch, "seed": game.seed,
                      "winner": game.outcome.winner if game.outcome else None}
            async with span("lessons", type="phase"):
                added, raw, problem = await ask_for_lessons(game, jester, known, learning, source)
            record.calls += 1
            record.lessons_added = describe_lessons(added)
            record.lessons_reply = raw[:MAX_RAW_CHARS]
            record.lessons_problem = problem
        return state

    return solve


def _eval_id() -> str | None:
    try:
        from inspect_ai.log._samples import sample_active

        active = sample_active()
        return active.eval_id if active else None
    except Exception:  # the id is provenance only; never fail a game over it
        return None


async def _play(game: GameState, agent: Agent, state: TaskState) -> GameState:
    record = store_as(GameRecord)
    _emit(game.records)

    requests = pending(game)
    while requests:
        block, _ = _where(game, requests)
        async with span(block, type="phase"):
            while requests and _where(game, requests)[0] == block:
                here = _where(game, requests)
                async with span(here[1].value, type="phase"):
                    while requests and _where(game, requests) == here:
                        decisions = await collect(*(agent.decide(game, r) for r in requests))
                        nxt = advance(game, decisions)
                        _emit(nxt.records[len(game.records):])
                        game, requests = nxt, pending(nxt)

    record.state = game.model_dump(mode="json")
    record.calls = agent.calls
    assert game.outcome is not None
    state.output = ModelOutput.from_content(
        model="wolf_eval", content=f"Winner: {game.outcome.winner} on day {game.outcome.day} ({game.outcome.reason})."
    )
    state.completed = True
    return game


def _emit(records: tuple[Record, ...]) -> None:
    """One transcript event per record; an analysis carries its details (expandable in inspect view)."""
    for r in records:
        if r.kind == "deception":
            details = {k: r.data[k] for k in ("text", "self", "peers", "missing", "statement", "position")}
            transcript().info({"summary": describe_analysis(r), **details}, source=f"wolf_eval/{r.kind}")
        else:
            transcript().info(describe(r), source=f"wolf_eval/{r.kind}")
