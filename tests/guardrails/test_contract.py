"""The adapter contract for Guardrails AI: `sg.stream`/`sg.astream(guard, llm_api, cap=..., messages=...)` with a
real `Guard`/`AsyncGuard` and the `StreamGate` validator (on_fail="fix"); only the model callable is scripted."""

from __future__ import annotations

import asyncio
from typing import Any

from guardrails import AsyncGuard, Guard

import sluicegate_guardrails as sg
from sluicegate import SentenceGate
from tests.adapter_contract import AdapterContract, Case, Ran, aread, read
from tests.call.helpers import SOURCES

MESSAGES = [{"role": "system", "content": "Answer from the sources."}, {"role": "user", "content": "When?"}]


def contract_gate(metadata: Any = None) -> SentenceGate:
    return SentenceGate(SOURCES)


class Model:
    """A scripted model callable: its pieces, a connection reset instead of piece `fail_at`; counts its calls."""

    def __init__(self, case: Case) -> None:
        self.pieces = case.pieces
        self.fail_at = case.fail_at
        self.calls = 0
        self.produced = 0
        self.closed = False

    def _next(self, i: int) -> str:
        if i == self.fail_at:
            raise ConnectionError("provider went away")
        self.produced += 1
        return self.pieces[i]

    def __call__(self, *, messages: Any = None, **kwargs: Any) -> Any:
        self.calls += 1
        try:
            for i in range(len(self.pieces)):
                yield self._next(i)
        finally:
            self.closed = True

    async def acall(self, *, messages: Any = None, **kwargs: Any) -> Any:
        self.calls += 1

        async def gen() -> Any:
            try:
                for i in range(len(self.pieces)):
                    await asyncio.sleep(0)
                    yield self._next(i)
            finally:
                self.closed = True

        return gen()


def _ran(shown: str, model: Model) -> Ran:
    return Ran(shown, model.calls, model.closed or model.calls == 0, model.produced)


class TestGuardrailsContract(AdapterContract):
    def run(self, case: Case) -> Ran:
        model = Model(case)
        guard = Guard().use(sg.StreamGate(filter=contract_gate, on_fail="fix"))
        stream = sg.stream(guard, model, cap=case.budget, messages=MESSAGES)
        return _ran(read(iter(stream), case), model)


class TestGuardrailsAsyncContract(AdapterContract):
    def run(self, case: Case) -> Ran:
        model = Model(case)

        async def open_chunks() -> Any:
            guard = AsyncGuard().use(sg.StreamGate(filter=contract_gate, on_fail="fix"))
            stream = await sg.astream(guard, model.acall, cap=case.budget, messages=MESSAGES)
            return stream.__aiter__()

        return _ran(aread(open_chunks, case), model)
