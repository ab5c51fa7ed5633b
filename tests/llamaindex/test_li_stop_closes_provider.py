"""`GatedSynthesizer` with LlamaIndex's real OpenAI LLM (`llama-index-llms-openai`) closes the provider.

That LLM iterates `client.chat.completions.create(..., stream=True)` in a generator and never closes the SDK
stream, so closing LlamaIndex's generator (which the synthesizer does at once) left the provider generating until
a GC pass. The driver now closes the HTTP response the LLM opened while we read it (`sluicegate._responses`).
The scripted provider on uvicorn, garbage collection off, sync and async, the three ways to end early.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from llama_index.core import get_response_synthesizer
from llama_index.core.schema import NodeWithScore, TextNode
from llama_index.llms.openai import OpenAI

from sluicegate_llamaindex import GATED_QA_TEMPLATE, GatedSynthesizer
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

NODES = [NodeWithScore(node=TextNode(text="The library opens at nine."), score=1.0)]


def synthesizer(url: str) -> GatedSynthesizer:
    llm = OpenAI(model="gpt-4o-mini", api_base=url + "/v1", api_key="test", max_retries=0)
    inner = get_response_synthesizer(
        llm=llm, streaming=True, response_mode="compact", text_qa_template=GATED_QA_TEMPLATE
    )
    return GatedSynthesizer(inner, filter_factory=make_filter)


@pytest.mark.parametrize("mode", MODES)
def test_sync(llm_provider: Any, mode: str) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS[mode])
    number = len(provider.generations) + 1
    response = synthesizer(url).synthesize("When is the library open?", NODES)
    if mode == "stop":
        text = "".join(response.response_gen)
        assert text.startswith(FIRST) and "2019" not in text
        check(provider.generations[number - 1], mode, usage=response.guard.usage)
        return
    for text in response.response_gen:  # the docs' early stop: a fresh wrapper each access, closed at `break`
        assert text == FIRST
        left = time.monotonic()
        break
    returned = time.monotonic()
    check(provider.generations[number - 1], mode, left=left, returned=returned, usage=response.guard.usage)


@pytest.mark.parametrize("mode", MODES)
async def test_async(llm_provider: Any, mode: str) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS[mode])
    number = len(provider.generations) + 1
    response = await synthesizer(url).asynthesize("When is the library open?", NODES)
    gen = response.async_response_gen()
    if mode == "stop":
        text = "".join([t async for t in gen])
        assert text.startswith(FIRST) and "2019" not in text
        await acheck(provider.generations[number - 1], mode, usage=response.guard.usage)
        return
    if mode == "leave":
        assert await gen.__anext__() == FIRST
        left = time.monotonic()
        await gen.aclose()
        returned = time.monotonic()
    else:
        left, returned = await cancel_while_held(gen, provider, number)
    await acheck(provider.generations[number - 1], mode, left=left, returned=returned, usage=response.guard.usage)
