"""The adapter contract for `GateMiddleware` in a real `create_agent` agent, sync (`stream_agent(agent, ...,
stream_mode="messages")`: `agent.stream` whose close stops the model) and async (`astream(stream_mode=
"messages")`); only the chat model is scripted. The spend cap reserves on the contract's real SQLite store
(`cap=`), and the layers before the model run on the core's `Preflight` (refusal rules, an in-memory
retriever over the seed's passage, the evidence threshold) for the question in the human message."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain.agents import create_agent
from langchain_core.outputs import ChatGenerationChunk
from lc_agent_fakes import AgentScriptedModel, turn

from sluicegate_langchain import GateMiddleware, stream_agent
from tests.adapter_contract import AdapterContract, Case, Ran, aread, read
from tests.call.helpers import SOURCES, preflight


def _input(case: Case) -> dict[str, Any]:
    return {"messages": [("user", case.question or "When did she publish?")]}


class FailingModel(AgentScriptedModel):
    """The scripted model whose provider connection resets instead of piece `fail_at`. Sync, it runs in
    LangGraph's node thread beside the reader: `pace` seconds a piece keep it from finishing before a reader
    who leaves could be heard (as a provider's pace would)."""

    fail_at: int | None = None
    pace: float = 0.0

    def _stream(self, *args: Any, **kw: Any) -> Iterator[ChatGenerationChunk]:
        for i, chunk in enumerate(super()._stream(*args, **kw)):
            if i == self.fail_at:
                raise ConnectionError("provider went away")
            time.sleep(self.pace)
            yield chunk

    async def _astream(self, *args: Any, **kw: Any) -> AsyncIterator[ChatGenerationChunk]:
        i = 0
        async for chunk in super()._astream(*args, **kw):
            if i == self.fail_at:
                raise ConnectionError("provider went away")
            i += 1
            yield chunk


def _agent(case: Case) -> tuple[Any, FailingModel]:
    model = FailingModel(turns=[turn(case.pieces)], fail_at=case.fail_at, pace=0.02 if case.leave_after else 0.0)
    if case.question is None:
        gate = GateMiddleware(SOURCES, cap=case.budget)
    else:
        gate = GateMiddleware(preflight=preflight(), cap=case.budget)
    return create_agent(model, [], middleware=[gate]), model


def _ran(shown: str, model: FailingModel) -> Ran:
    produced = sum(1 for p in model.produced if p)
    return Ran(shown, model.calls, any(model.closed), produced)


def _texts(stream: Any) -> Iterator[str]:
    for msg, meta in stream:
        if meta.get("langgraph_node") == "model" and msg.text:
            yield msg.text


class TestAgentMiddlewareContract(AdapterContract):
    supports_preflight = True

    def run(self, case: Case) -> Ran:
        a, model = _agent(case)
        return _ran(read(_texts(stream_agent(a, _input(case), stream_mode="messages")), case), model)


class TestAgentMiddlewareAsyncContract(AdapterContract):
    supports_preflight = True

    def run(self, case: Case) -> Ran:
        a, model = _agent(case)

        async def texts() -> AsyncIterator[str]:
            async for msg, meta in a.astream(_input(case), stream_mode="messages"):
                if meta.get("langgraph_node") == "model" and msg.text:
                    yield msg.text

        async def open_chunks() -> Any:
            return texts()

        return _ran(aread(open_chunks, case), model)
