"""`GateMiddleware` with the real `langchain-openai` ChatOpenAI against the scripted OpenAI-compatible provider
on uvicorn: a stop, or the reader leaving (sync through `stream_agent`, async by `aclose()` or by cancelling
the reader's task while the gate holds text), closes the provider's connection within a few tokens, and no
event of any surface carries the withheld sentence. Garbage collection off (`no_gc`)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from agent_surfaces import INPUT, masked
from langchain.agents import create_agent
from langchain_openai import ChatOpenAI

from sluicegate import Outcome
from sluicegate_langchain import GateMiddleware, stream_agent
from tests.services.stop_checks import FIRST, SCRIPTS, acheck, cancel_while_held, check, make_filter

pytestmark = pytest.mark.usefixtures("no_gc")


def agent(url: str, outcomes: list[Outcome]) -> Any:
    model = ChatOpenAI(model="m", base_url=url + "/v1", api_key="test", max_retries=0)  # type: ignore[arg-type]
    return create_agent(model, [], middleware=[GateMiddleware(filter_factory=make_filter, on_outcome=outcomes.append)])


def test_sync_stop(llm_provider: Any) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS["stop"])
    number = len(provider.generations) + 1
    outcomes: list[Outcome] = []
    raw: list[str] = []
    text = ""
    for msg, meta in agent(url, outcomes).stream(INPUT, stream_mode=["messages", "values", "updates"]):
        raw.append(masked(meta))
        if msg == "messages" and meta[1].get("langgraph_node") == "model":
            text += meta[0].text
    assert text.startswith(FIRST) and "2019" not in text
    assert "2019" not in " ".join(raw)
    check(provider.generations[number - 1], "stop", usage=outcomes[0].usage)


def _leave_sync(provider: Any, url: str, stream_of: Any) -> list[Outcome]:
    provider.script(SCRIPTS["leave"])
    number = len(provider.generations) + 1
    outcomes: list[Outcome] = []
    stream = stream_of(agent(url, outcomes))
    for msg, _meta in stream:
        if msg.text:
            assert msg.text == FIRST
            left = time.monotonic()
            break
    stream.close()
    returned = time.monotonic()
    check(provider.generations[number - 1], "leave", left=left, returned=returned)
    return outcomes


@pytest.mark.xfail(
    strict=True,
    reason="LangGraph limit: its sync stream runs the model node in an executor thread, and closing the graph's "
    "stream waits for that node without telling it anything (no cancel, no flag; on_chain_error only after the "
    "node ended), so the provider generates to the end. stream_agent() is the way (test_sync_leave_stream_agent).",
)
def test_sync_leave_graph_stream(llm_provider: Any) -> None:
    _leave_sync(*llm_provider, lambda a: a.stream(INPUT, stream_mode="messages"))


def test_sync_leave_stream_agent(llm_provider: Any) -> None:
    outcomes = _leave_sync(*llm_provider, lambda a: stream_agent(a, INPUT, stream_mode="messages"))
    assert [o.reason for o in outcomes] == ["cancelled"]  # the model call ended by the leave, once


async def test_async_stop_every_event(llm_provider: Any) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS["stop"])
    number = len(provider.generations) + 1
    outcomes: list[Outcome] = []
    events = [e async for e in agent(url, outcomes).astream_events(INPUT, version="v2")]
    text = "".join(e["data"]["chunk"].text for e in events if e["event"] == "on_chat_model_stream")
    assert text.startswith(FIRST) and "2019" not in text
    assert "2019" not in masked(events)
    await acheck(provider.generations[number - 1], "stop", usage=outcomes[0].usage)


async def test_async_leave(llm_provider: Any) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS["leave"])
    number = len(provider.generations) + 1
    stream = agent(url, []).astream(INPUT, stream_mode="messages")
    async for msg, _meta in stream:
        if msg.text:
            assert msg.text == FIRST
            break
    left = time.monotonic()
    await stream.aclose()  # type: ignore[attr-defined]
    returned = time.monotonic()
    await acheck(provider.generations[number - 1], "leave", left=left, returned=returned)


async def test_async_cancel_while_held(llm_provider: Any) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS["held"])
    number = len(provider.generations) + 1
    outcomes: list[Outcome] = []
    stream = agent(url, outcomes).astream(INPUT, stream_mode="messages")
    left, returned = await cancel_while_held(stream, provider, number, shown=lambda item: bool(item[0].text))
    await acheck(provider.generations[number - 1], "held", left=left, returned=returned)
    assert outcomes and outcomes[0].reason == "cancelled"
