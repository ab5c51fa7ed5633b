"""LangChain wirings as docs/langchain.md shows them close the provider's connection, with the real chat models.

`langchain-openai`'s ChatOpenAI closes its SDK stream (`with ... as response`); `langchain-anthropic`'s
ChatAnthropic iterates its `Stream` without ever closing it, so only `sluicegate._responses` (the driver closing
the HTTP response the model opened while we read it) stops that provider before a GC pass. Both models, both
documented shapes (`assign(answer=SourceGate(prompt | model))`, `prompt | model | GateStep`), sync and async,
the three ways to end early; the scripted provider on uvicorn, garbage collection off.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.prompts import ChatPromptTemplate
from langchain_openai import ChatOpenAI

from sluicegate import Outcome
from sluicegate_langchain import GateStep, SourceGate, assign
from tests.services.stop_checks import (
    FIRST,
    MODES,
    SCRIPTS,
    acheck,
    cancel_while_held,
    check,
    make_filter,
)

pytestmark = pytest.mark.usefixtures("no_gc")

PROMPT = ChatPromptTemplate.from_messages([("human", "{context}\n\n{question}")])
INPUT = {"question": "When is the library open?", "sources": ["The library opens at nine."]}


def model(kind: str, url: str) -> Any:
    if kind == "openai":
        return ChatOpenAI(model="m", base_url=url + "/v1", api_key="test", max_retries=0)  # type: ignore[arg-type]
    return ChatAnthropic(model_name="m", base_url=url, api_key="test", max_retries=0)  # type: ignore[arg-type, call-arg]


def chain(shape: str, kind: str, url: str, outcomes: list[Outcome]) -> Any:
    if shape == "SourceGate":
        return assign(
            answer=SourceGate(PROMPT | model(kind, url), filter_factory=make_filter, on_outcome=outcomes.append)
        )
    gate = GateStep(sources=INPUT["sources"], filter_factory=make_filter, on_outcome=outcomes.append)
    return PROMPT.partial(context="[S1] The library opens at nine.") | model(kind, url) | gate


def _text(chunk: Any) -> str:
    return chunk.get("answer", "") if isinstance(chunk, dict) else chunk


def _input(shape: str) -> dict[str, Any]:
    return INPUT if shape == "SourceGate" else {"question": INPUT["question"]}


CASES = [(shape, kind) for shape in ("SourceGate", "GateStep") for kind in ("openai", "anthropic")]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("shape", "kind"), CASES)
def test_sync(llm_provider: Any, shape: str, kind: str, mode: str) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS[mode])
    number = len(provider.generations) + 1
    outcomes: list[Outcome] = []
    runnable = chain(shape, kind, url, outcomes)
    if mode == "stop":
        text = "".join(_text(c) for c in runnable.stream(_input(shape)))
        assert text.startswith(FIRST) and "2019" not in text
        check(provider.generations[number - 1], mode, usage=outcomes[0].usage)
        return
    for chunk in runnable.stream(_input(shape)):
        if _text(chunk):
            assert _text(chunk) == FIRST
            left = time.monotonic()
            break  # the loop drops the stream: LangChain's generators close by reference count
    returned = time.monotonic()
    check(provider.generations[number - 1], mode, left=left, returned=returned, usage=outcomes[0].usage)


# ChatOpenAI's async path wraps each chunk in `asyncio.wait_for` (`stream_chunk_timeout`), which on Python 3.11
# swallows a cancellation that lands in the same loop turn as a chunk (CPython gh-86296): the `held` cases here
# are the regression tests of the driver honouring that lost cancellation (`sluicegate.cancellation_swallowed`).
ASYNC_CASES = [(shape, kind, mode) for shape, kind in CASES for mode in MODES]


@pytest.mark.parametrize(("shape", "kind", "mode"), ASYNC_CASES)
async def test_async(llm_provider: Any, shape: str, kind: str, mode: str) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS[mode])
    number = len(provider.generations) + 1
    outcomes: list[Outcome] = []
    stream = chain(shape, kind, url, outcomes).astream(_input(shape))
    if mode == "stop":
        text = "".join([_text(c) async for c in stream])
        assert text.startswith(FIRST) and "2019" not in text
        await acheck(provider.generations[number - 1], mode, usage=outcomes[0].usage)
        return
    if mode == "leave":
        async for chunk in stream:
            if _text(chunk):
                break
        left = time.monotonic()
        await stream.aclose()
        returned = time.monotonic()
    else:
        left, returned = await cancel_while_held(stream, provider, number, shown=lambda chunk: bool(_text(chunk)))
    await acheck(provider.generations[number - 1], mode, left=left, returned=returned)
    for _ in range(50):  # the outcome is reported once LangChain's run has closed (a few loop turns)
        if outcomes:
            break
        await asyncio.sleep(0.002)
    assert outcomes and outcomes[0].usage is not None
    assert outcomes[0].usage.output_tokens >= len(provider.generations[number - 1].sent)
