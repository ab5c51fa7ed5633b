"""The adapter contract for Guardrails AI: `sg.stream`/`sg.astream(guard, llm_api, cap=..., messages=...)` with a
real `Guard`/`AsyncGuard` and the `StreamGate` validator (on_fail="fix"); only the model callable is scripted."""

from __future__ import annotations

import asyncio
from contextlib import aclosing, suppress
from typing import Any

from guardrails import AsyncGuard, Guard

import sluicegate_guardrails as sg
from sluicegate import SentenceGate
from tests.adapter_contract import AdapterContract, Case, Ran
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


def _ran(shown: list[str], model: Model) -> Ran:
    return Ran("".join(shown), model.calls, model.closed or model.calls == 0, model.produced)


class TestGuardrailsContract(AdapterContract):
    def run(self, case: Case) -> Ran:
        model = Model(case)
        stream = sg.stream(
            Guard().use(sg.StreamGate(filter=contract_gate, on_fail="fix")), model, cap=case.budget, messages=MESSAGES
        )
        shown: list[str] = []
        chunks = iter(stream)
        with suppress(ConnectionError):
            for chunk in chunks:
                shown.append(chunk)
                if case.leave_after is not None and len(shown) >= case.leave_after:
                    break
        close = getattr(chunks, "close", None)
        if callable(close):
            close()
        return _ran(shown, model)


class TestGuardrailsAsyncContract(AdapterContract):
    def run(self, case: Case) -> Ran:
        model = Model(case)
        shown: list[str] = []

        async def read() -> None:
            guard = AsyncGuard().use(sg.StreamGate(filter=contract_gate, on_fail="fix"))
            stream = await sg.astream(guard, model.acall, cap=case.budget, messages=MESSAGES)
            async with aclosing(stream.__aiter__()) as chunks:  # type: ignore[type-var]
                async for chunk in chunks:
                    shown.append(chunk)
                    if case.leave_after is not None and len(shown) >= case.leave_after:
                        break

        with suppress(ConnectionError):
            asyncio.run(read())
        return _ran(shown, model)
