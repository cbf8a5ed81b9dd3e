"""The Hawk example (examples/hawk/eval-set.yaml): Hawk's config model accepts it, and its grid plays.

Hawk (METR's runner of Inspect evals on Kubernetes) cannot be installed here, so its eval-set config
model is mirrored below, written from reading METR/inspect-action at its release v2026.04.06
(commit f69ca869c46c33701b757b9000aefd2701f4717e): hawk/core/types/evals.py (EvalSetConfig,
TaskConfig, EpochsConfig, the single-model role configs), hawk/core/types/base.py (PackageConfig,
BuiltinConfig, ModelConfig, GetModelArgs, RunnerConfig, SecretConfig, UserConfig) and
hawk/core/sanitize.py (the eval set id's form). Two deliberate differences: Hawk allows unknown
keys at the top level (it passes them to ``eval_set`` as keywords) and in a model's ``args``
(passed to ``get_model``), and its CLI only warns about them; the mirror refuses every unknown key,
so a misspelt field in the example fails here instead of reaching ``eval_set``.

The slow test plays the grid as hawk/runner/run_eval_set.py does (each task item created from
the registry with its args and bound to each model with ``task_with``, then one ``eval_set`` call
with the runner's defaults), with wolfbot players and one-day games, logging to moto's S3 server
on 127.0.0.1, and then reads the logs back with ``wolf-eval report s3://...``.
"""

from __future__ import annotations

import contextvars
import os
import re
import socket
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Annotated, Any, Literal

import inspect_ai
import pytest
import yaml
from inspect_ai import Task
from inspect_ai.model import GenerateConfig, Model, get_model
from inspect_ai.util import registry_create
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from wolf_eval.cli import main
from wolf_eval.measures.cost import price_of

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "hawk" / "eval-set.yaml"
TASKS = ("wolf", "triadic", "dyadic")

# --------------------------------------------------------------------------- Hawk's config, mirrored

_JOB_ID = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"  # Kubernetes-safe: lowercase letters, digits, inner hyphens
_K8S_QUANTITY = r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?([numkKMGTPE]i?)?$"  # "16Gi", "500m", "2"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Secret(Strict):
    name: str
    description: str | None = None


class Item(Strict):
    """A solver's or agent's item: a registry name and its arguments."""

    name: str
    args: dict[str, Any] | None = None


class TaskItem(Item):
    sample_ids: list[str | int] | None = Field(default=None, min_length=1)
    secrets: list[Secret] = []


class ModelArgs(Strict):
    """What Hawk forwards to ``get_model``: ``config`` becomes a GenerateConfig; an API key is never allowed."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    role: str | None = None
    default: str | None = None
    generate: dict[str, Any] | None = Field(default=None, alias="config")
    base_url: str | None = None
    api_key: None = None
    memoize: bool = True

    @field_validator("generate")
    @classmethod
    def _generate_config(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        unknown = sorted(set(v or {}) - set(GenerateConfig.model_fields))
        if unknown:
            raise ValueError(f"not GenerateConfig fields: {unknown}")
        GenerateConfig.model_validate(v or {})
        return v


class ModelItem(Strict):
    name: str
    args: ModelArgs | None = None


def _not_inspect_ai(package: str) -> str:
    if "inspect-ai" in package or "inspect_ai" in package:
        raise ValueError("Inspect's own items are named with `package: inspect-ai` (a builtin entry)")
    return package


#: A package to install (a PyPI name or a PEP 508 reference); Inspect's own are builtin entries instead.
Package = Annotated[str, AfterValidator(_not_inspect_ai)]


class TaskPackage(Strict):
    package: Package
    name: str
    items: list[TaskItem]


class ModelPackage(Strict):
    package: Package
    name: str
    items: list[ModelItem]


class BuiltinModels(Strict):
    package: Literal["inspect-ai"]
    items: list[ModelItem]


class ItemPackage(Strict):
    package: str
    name: str | None = None  # absent for a builtin (package: inspect-ai)
    items: list[Item]


class OneModelPackage(ModelPackage):
    items: list[ModelItem] = Field(min_length=1, max_length=1)


class OneBuiltinModel(BuiltinModels):
    items: list[ModelItem] = Field(min_length=1, max_length=1)


class Epochs(Strict):
    epochs: int
    reducer: str | list[str] | None = None


class Approver(Strict):
    name: str
    tools: list[str]


class Approval(Strict):
    approvers: list[Approver]


class Runner(Strict):
    image_tag: str | None = None
    memory: str | None = Field(default=None, pattern=_K8S_QUANTITY)
    cpu: str | None = Field(default=None, pattern=_K8S_QUANTITY)
    secrets: list[Secret] = []
    environment: dict[str, str] = {}


class HawkEvalSet(Strict):
    """Hawk's EvalSetConfig with its UserConfig fields (tags, metadata, runner)."""

    name: str | None = Field(default=None, min_length=1)
    eval_set_id: str | None = Field(default=None, min_length=1, max_length=43, pattern=_JOB_ID)
    packages: list[str] | None = None
    tasks: list[TaskPackage]
    models: list[ModelPackage | BuiltinModels] | None = None
    model_roles: dict[str, OneModelPackage | OneBuiltinModel] | None = None
    solvers: list[ItemPackage] | None = None
    agents: list[ItemPackage] | None = None
    approval: str | Approval | None = None
    score: bool = True
    limit: int | tuple[int, int] | None = None
    sample_shuffle: bool | int | None = None
    epochs: int | Epochs | None = None
    message_limit: int | None = None
    token_limit: int | None = None
    time_limit: int | None = None
    working_limit: int | None = None
    secrets: list[Secret] = []  # deprecated in Hawk for runner.secrets
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None
    runner: Runner = Runner()


#: What Hawk's runner passes to ``eval_set`` beside the config (EvalSetInfraConfig's defaults at v2026.04.06).
RUNNER_DEFAULTS: dict[str, Any] = {"max_samples": 1_000, "max_tasks": 1_000, "log_shared": True,
                                   "continue_on_fail": True, "retry_cleanup": False, "log_level": "notset",
                                   "bundle_overwrite": False, "log_dir_allow_dirty": False}


def example() -> dict[str, Any]:
    return yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- the config


def test_hawks_config_model_accepts_the_example() -> None:
    config = HawkEvalSet.model_validate(example())
    assert config.runner.memory and config.name


def test_the_example_names_wolf_evals_three_tasks_and_two_priced_models() -> None:
    config = HawkEvalSet.model_validate(example())
    [tasks] = config.tasks
    assert re.fullmatch(r"wolf-eval( @ git\+\S+)?", tasks.package), "the package to install is wolf-eval"
    assert tasks.name in {e.name for e in entry_points(group="inspect_ai") if e.value == "wolf_eval._registry"}
    assert [t.name for t in tasks.items] == list(TASKS)
    for item in tasks.items:  # the args pass wolf-eval's own settings check (it raises on a bad one)
        assert isinstance(registry_create("task", f"{tasks.name}/{item.name}", **(item.args or {})), Task)
    models = [f"{m.name}/{i.name}" for m in config.models or [] if isinstance(m, ModelPackage) for i in m.items]
    assert len(models) == 2 and all(price_of(m) is not None for m in models), models


@pytest.mark.parametrize(("change", "refused"), [
    ({"max_samples": 10}, "max_samples"),  # Hawk would pass it to eval_set beside its own: a TypeError there
    ({"runner": {"memory": "16GB"}}, "memory"),  # Kubernetes writes 16Gi
    ({"eval_set_id": "Wolf_Eval"}, "eval_set_id"),
    ({"tasks": [{"package": "inspect-ai", "name": "x", "items": [{"name": "y"}]}]}, "builtin entry"),
    ({"models": [{"package": "openai", "name": "openai",
                  "items": [{"name": "gpt-4.1", "args": {"config": {"max_connection": 20}}}]}]}, "max_connection"),
    ({"models": [{"package": "openai", "name": "openai",
                  "items": [{"name": "gpt-4.1", "args": {"api_key": "sk-x"}}]}]}, "api_key"),
])
def test_the_mirror_refuses_what_hawk_refuses_or_would_warn_about(change: dict[str, Any], refused: str) -> None:
    with pytest.raises(ValidationError, match=refused):
        HawkEvalSet.model_validate(example() | change)


# --------------------------------------------------------------------------- the grid, played as Hawk plays it


def grid(config: HawkEvalSet) -> list[Task]:
    """Every task item bound to every model, as the runner loads them (wolf-eval's tasks bring their own
    solver, so the config's solvers and agents are not applied here)."""
    models = [_model(pkg, item) for pkg in config.models or [] for item in pkg.items]
    return [inspect_ai.task_with(registry_create("task", f"{pkg.name}/{item.name}", **(item.args or {})), model=model)
            for pkg in config.tasks for item in pkg.items for model in models]


def _model(pkg: ModelPackage | BuiltinModels, item: ModelItem) -> Model:
    """A model by Hawk's qualified name: ``<package's name>/<item>``, or the item alone for a builtin."""
    name = f"{pkg.name}/{item.name}" if isinstance(pkg, ModelPackage) else item.name
    return get_model(name, **_model_args(item.args))


def _model_args(args: ModelArgs | None) -> dict[str, Any]:
    if args is None:
        return {}
    kwargs = args.model_dump(exclude={"generate"})
    return kwargs | ({"config": GenerateConfig.model_validate(args.generate)} if args.generate else {})


def eval_set_kwargs(config: HawkEvalSet, log_dir: str, eval_set_id: str) -> dict[str, Any]:
    """The config's own ``eval_set`` arguments, with the runner's log folder and defaults."""
    metadata = (config.metadata or {}) | ({"name": config.name} if config.name else {})
    roles = {role: _model(pkg, pkg.items[0]) for role, pkg in (config.model_roles or {}).items()} or None
    return {"eval_set_id": eval_set_id, "log_dir": log_dir, "tags": config.tags or [], "metadata": metadata,
            "model_roles": roles,
            "epochs": config.epochs, "score": config.score, "limit": config.limit,
            "sample_shuffle": config.sample_shuffle, "message_limit": config.message_limit,
            "token_limit": config.token_limit, "time_limit": config.time_limit,
            "working_limit": config.working_limit, **RUNNER_DEFAULTS}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def s3_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An S3 server (moto's) on a free local port, with boto, s3fs and any subprocess pointed at it."""
    from moto.server import ThreadedMotoServer
    from s3fs import S3FileSystem

    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
           "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    S3FileSystem.clear_instance_cache()
    try:
        S3FileSystem().mkdir("wolf-logs")
        yield "wolf-logs"
    finally:
        S3FileSystem.clear_instance_cache()
        server.stop()


@pytest.mark.slow
def test_the_examples_grid_plays_to_s3_and_reports_from_there(s3_server: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    raw = example()
    for item in raw["tasks"][0]["items"]:
        item["args"] = {"games": 1, "max_days": 1, "deception_analysis": False}
    bots = iter(("cue", "tom"))
    for pkg in raw["models"]:  # wolfbot in place of the two providers, each model's args kept
        pkg["package"], pkg["name"] = "wolf-eval", "wolfbot"
        for item in pkg["items"]:
            item["name"] = next(bots)
    config = HawkEvalSet.model_validate(raw)
    log_dir = f"s3://{s3_server}/evals/wolf-eval-local"

    # in a copy of the context, as a runner process would be: an eval set with no eval model leaves
    # Inspect's `none` model active, and wolf-eval refuses a task built under it
    ok, logs = contextvars.copy_context().run(inspect_ai.eval_set, grid(config), display="none",
                                              **eval_set_kwargs(config, log_dir, "wolf-eval-local"))

    assert ok and [log.status for log in logs] == ["success"] * 6
    played = sorted((log.eval.task.split("/")[-1], log.eval.model) for log in logs)
    assert played == sorted((t, f"wolfbot/{b}") for t in TASKS for b in ("cue", "tom"))
    assert all(log.location.startswith(log_dir) and "wolf-eval" in log.eval.tags for log in logs)
    assert {log.eval.model_generate_config.max_connections for log in logs} == {20}
    assert main(["report", log_dir, "--out", str(tmp_path)]) == 0  # wolf-eval report s3://...
    out = capsys.readouterr().out
    headline = out.split("Tokens (prompt, cached and output)")[0]  # the headline table, not the cost block
    rows = [line for line in headline.splitlines() if line.startswith("| wolfbot/")]
    assert sorted(row.split(" | ")[:2] for row in rows) == sorted([f"| wolfbot/{b}", t] for t in TASKS
                                                                  for b in ("cue", "tom"))
    assert "6 games; full report:" in out and (tmp_path / "report.md").is_file()
