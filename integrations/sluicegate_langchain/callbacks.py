"""A usage callback that also counts stopped streams.

On a stop, LangChain ends the model run with `on_llm_error(GeneratorExit, response=<partial>)` and never calls
`on_llm_end`, so the stock `UsageMetadataCallbackHandler` records nothing although the text was generated and
billed. This handler meters every model run from its tokens and closes the books on end *and* on error: the
provider's figure where one arrived, else one token per UTF-8 byte of the received text.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import ChatGeneration, LLMResult

from sluicegate import Usage, UsageMeter

from ._chunks import text_of, usage_of


@dataclass(frozen=True)
class RunUsage:
    """Usage of one model run and how it ended ("end" or "error", which includes a stop or cancellation)."""

    run_id: UUID
    usage: Usage
    ended: str


class UsageCallbackHandler(BaseCallbackHandler):
    """Records `RunUsage` for every chat model / LLM run it sees. Thread-safe; reuse one per request or app."""

    # Called in the event loop's own thread under async: LangChain otherwise hands a sync handler to an
    # executor, and a stopped run's record could land after the consumer's stream has already ended.
    run_inline = True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._meters: dict[UUID, UsageMeter] = {}
        self._streamed: set[UUID] = set()
        self.runs: list[RunUsage] = []

    @property
    def output_tokens(self) -> int:
        """Output tokens of all finished runs (provider figures where reported, estimates elsewhere)."""
        with self._lock:
            return sum(r.usage.output_tokens for r in self.runs)

    def _meter(self, run_id: UUID) -> UsageMeter:
        with self._lock:
            return self._meters.setdefault(run_id, UsageMeter())

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._meter(run_id)

    def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._meter(run_id)

    def on_llm_new_token(
        self,
        token: str | list[str | dict[str, Any]],
        *,
        chunk: Any = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        meter = self._meter(run_id)
        with self._lock:
            self._streamed.add(run_id)
        meter.observe(text_of(chunk) if chunk is not None else str(token))
        if chunk is not None:
            usage_of(chunk, meter)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        self._close(run_id, response, "end")

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._close(run_id, kwargs.get("response"), "error")

    def _close(self, run_id: UUID, response: LLMResult | None, ended: str) -> None:
        meter = self._meter(run_id)
        with self._lock:
            streamed = run_id in self._streamed
        for generation in _generations(response):
            if not streamed:  # invoke(): no tokens were seen, the text arrives here whole
                is_chat = isinstance(generation, ChatGeneration)
                meter.observe(text_of(generation.message) if is_chat else str(generation.text))
            usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
            if usage:  # the merged message carries the summed (cumulative) figures
                meter.report(
                    output_tokens=usage.get("output_tokens"), input_tokens=usage.get("input_tokens"), cumulative=True
                )
        with self._lock:
            self._meters.pop(run_id, None)
            self._streamed.discard(run_id)
            self.runs.append(RunUsage(run_id, meter.usage, ended))


def _generations(response: LLMResult | None) -> list[Any]:
    if response is None:
        return []
    return [g for batch in response.generations for g in batch]
