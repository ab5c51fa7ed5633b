"""The adapter contract for NeMo Guardrails: `guarded_stream(rails, messages=...)` over real LLMRails (Colang 1.0)
with the model wrapped in `GatedLLM` / `CappedLLM` and the spend-cap input rail; only the model is scripted.

NeMo ends a stopped stream with its standard block frame instead of our notice chunk; the reader's view below
renders that frame as the guard's notice, set apart as every adapter sets it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import aclosing, suppress
from typing import Any

import pytest
from nemoguardrails import LLMRails
from nemoguardrails.types import LLMResponseChunk

import sluicegate_nemo as sn
from sluicegate import SentenceGate
from sluicegate._driver import NOTICE_SEPARATOR
from sluicegate.budget import CallBudget
from tests.adapter_contract import AdapterContract, Case, Ran
from tests.call.helpers import SOURCES

MESSAGES = [{"role": "user", "content": "When were the notes published?"}]


def contract_gate(context: Any = None) -> SentenceGate:
    return SentenceGate(SOURCES)


class Model:
    """A scripted NeMo model: the current case's pieces, a connection reset instead of piece `fail_at`."""

    model_name = "scripted"
    provider_name: str | None = "test"
    provider_url: str | None = None

    def __init__(self) -> None:
        self.case: Case | None = None
        self.calls = self.produced = 0
        self.closed = True

    def reset(self, case: Case) -> None:
        self.case, self.calls, self.produced, self.closed = case, 0, 0, True

    async def generate_async(self, prompt: Any, **kwargs: Any) -> Any:
        raise AssertionError("the guarded stream must stream")

    async def stream_async(self, prompt: Any, **kwargs: Any) -> AsyncIterator[LLMResponseChunk]:
        assert self.case is not None
        self.calls += 1
        self.closed = False
        try:
            for i, piece in enumerate(self.case.pieces):
                await asyncio.sleep(0)
                if i == self.case.fail_at:
                    raise ConnectionError("provider went away")
                self.produced += 1
                yield LLMResponseChunk(delta_content=piece)
        finally:
            self.closed = True


class TestNeMoContract(AdapterContract):
    @pytest.fixture(autouse=True)
    def _rails(self) -> None:
        self.model = Model()
        self.rails: dict[int, LLMRails] = {}

    def _rails_for(self, budget: CallBudget | None) -> LLMRails:
        key = id(budget)
        if key not in self.rails:
            if budget is None:
                rails = LLMRails(sn.sluicegate_config(), llm=sn.GatedLLM(self.model))
                sn.install(rails, contract_gate)
            else:
                rails = LLMRails(sn.cap_config(sn.sluicegate_config()), llm=sn.CappedLLM(self.model))
                sn.install(rails, contract_gate)
                sn.install_cap(rails, budget)
            self.rails[key] = rails
        return self.rails[key]

    def run(self, case: Case) -> Ran:
        rails = self._rails_for(case.budget)
        self.model.reset(case)
        shown: list[str] = []

        async def read() -> None:
            stream = sn.guarded_stream(rails, messages=MESSAGES)
            async with aclosing(stream.__aiter__()) as chunks:  # type: ignore[type-var]
                async for chunk in chunks:
                    if sn.is_block_frame(chunk) or sn.parse_error_frame(chunk) is not None:
                        guard = stream.outcome.guard if stream.outcome is not None else None
                        if guard is not None and guard.notice:  # a stop; an error frame shows nothing
                            shown.append(NOTICE_SEPARATOR + guard.notice if shown else guard.notice)
                        continue
                    shown.append(chunk)
                    if case.leave_after is not None and len(shown) >= case.leave_after:
                        break

        with suppress(ConnectionError):
            asyncio.run(read())
        return Ran("".join(shown), self.model.calls, self.model.closed, self.model.produced)
