"""The adapter contract for `GateMiddleware` in a real `create_agent` agent, sync (`stream(stream_mode=
"messages")`) and async (`astream(stream_mode="messages")`); only the chat model is scripted. It takes no spend
cap and runs no preflight (the agent's own tools retrieve), so those scenarios are skipped by the suite."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain.agents import create_agent
from langchain_core.outputs import ChatGenerationChunk
from lc_agent_fakes import AgentScriptedModel, turn

from sluicegate_langchain import GateMiddleware
from tests.adapter_contract import AdapterContract, Case, Ran, aread, read
from tests.call.helpers import SOURCES

INPUT = {"messages": [("user", "When did she publish?")]}


class FailingModel(AgentScriptedModel):
    """The scripted model whose provider connection resets instead of piece `fail_at`."""

    fail_at: int | None = None

    def _stream(self, *args: Any, **kw: Any) -> Iterator[ChatGenerationChunk]:
        for i, chunk in enumerate(super()._stream(*args, **kw)):
            if i == self.fail_at:
                raise ConnectionError("provider went away")
            yield chunk

    async def _astream(self, *args: Any, **kw: Any) -> AsyncIterator[ChatGenerationChunk]:
        i = 0
        async for chunk in super()._astream(*args, **kw):
            if i == self.fail_at:
                raise ConnectionError("provider went away")
            i += 1
            yield chunk


def _agent(case: Case) -> tuple[Any, FailingModel]:
    model = FailingModel(turns=[turn(case.pieces)], fail_at=case.fail_at)
    return create_agent(model, [], middleware=[GateMiddleware(SOURCES)]), model


def _ran(shown: str, model: FailingModel) -> Ran:
    produced = sum(1 for p in model.produced if p)
    return Ran(shown, model.calls, any(model.closed), produced)


def _texts(stream: Any) -> Iterator[str]:
    for msg, meta in stream:
        if meta.get("langgraph_node") == "model" and msg.text:
            yield msg.text


class TestAgentMiddlewareContract(AdapterContract):
    supports_budget = False

    def run(self, case: Case) -> Ran:
        a, model = _agent(case)
        return _ran(read(_texts(a.stream(INPUT, stream_mode="messages")), case), model)


class TestAgentMiddlewareAsyncContract(AdapterContract):
    supports_budget = False

    def run(self, case: Case) -> Ran:
        a, model = _agent(case)

        async def texts() -> AsyncIterator[str]:
            async for msg, meta in a.astream(INPUT, stream_mode="messages"):
                if meta.get("langgraph_node") == "model" and msg.text:
                    yield msg.text

        async def open_chunks() -> Any:
            return texts()

        return _ran(aread(open_chunks, case), model)
