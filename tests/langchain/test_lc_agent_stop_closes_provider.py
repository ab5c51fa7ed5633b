"""`GateMiddleware` with the real `langchain-openai` ChatOpenAI against the scripted OpenAI-compatible provider
on uvicorn: a stop, or the reader leaving, closes the provider's connection within a few tokens, sync and
async, and no event of any surface carries the withheld sentence. Garbage collection off (`no_gc`)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from agent_surfaces import INPUT
from langchain.agents import create_agent
from langchain_openai import ChatOpenAI

from sluicegate import Outcome
from sluicegate_langchain import GateMiddleware
from tests.services.stop_checks import FIRST, SCRIPTS, acheck, check, make_filter

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
        raw.append(repr(meta))
        if msg == "messages" and meta[1].get("langgraph_node") == "model":
            text += meta[0].text
    assert text.startswith(FIRST) and "2019" not in text
    assert "2019" not in " ".join(raw)
    check(provider.generations[number - 1], "stop", usage=outcomes[0].usage)


@pytest.mark.xfail(
    strict=True,
    reason="open: LangGraph's sync stream runs the model node in its own executor thread, and closing the graph's "
    "stream does not stop that node: the gated model runs (and the provider generates) to the end. Async leaving "
    "cancels the node's task and closes the provider (test_async_leave).",
)
def test_sync_leave(llm_provider: Any) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS["leave"])
    number = len(provider.generations) + 1
    stream = agent(url, []).stream(INPUT, stream_mode="messages")
    for msg, _meta in stream:
        if msg.text:
            assert msg.text == FIRST
            left = time.monotonic()
            break
    stream.close()
    returned = time.monotonic()
    check(provider.generations[number - 1], "leave", left=left, returned=returned)


async def test_async_stop_every_event(llm_provider: Any) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS["stop"])
    number = len(provider.generations) + 1
    outcomes: list[Outcome] = []
    events = [e async for e in agent(url, outcomes).astream_events(INPUT, version="v2")]
    text = "".join(e["data"]["chunk"].text for e in events if e["event"] == "on_chat_model_stream")
    assert text.startswith(FIRST) and "2019" not in text
    assert "2019" not in repr(events)
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
