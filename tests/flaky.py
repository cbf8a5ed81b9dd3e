"""``wolfeval_flaky/<policy>``: a test provider that plays a wolfbot policy but fails like a real API.

- ``transient_every=N``: the first attempt of every call whose seed is divisible by N raises
  ``TransientError``, which ``should_retry`` accepts, so Inspect retries it (with no wait).
- ``permanent_every=N``: the first time this process sees a day-1 ballot call whose seed is divisible
  by N, it raises ``PermanentError``, which is not retried: the sample fails. The same call
  succeeds when the sample is run again (as ``inspect eval-set`` does on a retry).
"""

from __future__ import annotations

import json
from random import Random
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo
from tenacity.wait import wait_none

from wolf_eval.baseline.bots import POLICIES
from wolf_eval.providers.wolfbot import answer, find_parts

ATTEMPTS: dict[tuple[Any, ...], int] = {}
FAILED_ONCE: set[tuple[Any, ...]] = set()


class TransientError(RuntimeError):
    pass


class PermanentError(RuntimeError):
    pass


@modelapi(name="wolfeval_flaky")
class Flaky(ModelAPI):
    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig = GenerateConfig(), transient_every: int = 0,  # noqa: B008
                 permanent_every: int = 0, **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.policy = POLICIES[model_name]
        self.transient_every = transient_every
        self.permanent_every = permanent_every

    def should_retry(self, ex: Exception) -> bool:
        return isinstance(ex, TransientError)

    def retry_wait(self) -> Any:
        return wait_none()

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        parts = find_parts(input)
        assert parts is not None and config.seed is not None
        obs = parts[0][0]  # a call of several decisions fails or not as one call
        key = (obs.seat, obs.action, obs.day, obs.phase, obs.turn, obs.subject, config.seed)
        ATTEMPTS[key] = ATTEMPTS.get(key, 0) + 1
        if self.transient_every and config.seed % self.transient_every == 0 and ATTEMPTS[key] == 1:
            raise TransientError(f"503 Service Unavailable (simulated) for {obs.seat} {obs.action}")
        if (self.permanent_every and obs.action == "vote" and obs.day == 1
                and config.seed % self.permanent_every == 0 and key not in FAILED_ONCE):
            FAILED_ONCE.add(key)
            raise PermanentError(f"400 invalid request (simulated) for {obs.seat} {obs.action}")
        content = answer(lambda view, seed: json.dumps(self.policy(view, Random(seed))), input, config.seed)
        out = ModelOutput.from_content(model=f"wolfeval_flaky/{self.model_name}", content=content)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out
