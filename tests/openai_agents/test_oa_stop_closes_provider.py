"""`guarded_stream` closes the provider's connection: a real `Agent` + `Runner.run_streamed` with the SDK's
`OpenAIChatCompletionsModel` over a real `AsyncOpenAI(base_url=...)` client, against the scripted provider on
uvicorn (it speaks Chat Completions; the SDK turns its chunks into the same Responses-API raw events a Responses
model streams). Garbage collection off: the close must come from the run's cancellation, not a GC pass."""

from __future__ import annotations

import time
from typing import Any

import pytest
from agents import Agent, ModelSettings, OpenAIChatCompletionsModel, Runner

from sluicegate_openai_agents import guarded_stream
from tests.services.provider_clients import openai_aclient
from tests.services.stop_checks import FIRST, MODES, SCRIPTS, acheck, cancel_while_held, make_filter

from . import oa_fakes  # noqa: F401  (tracing off before any run)

pytestmark = pytest.mark.usefixtures("no_gc")


def agent(url: str) -> Agent[Any]:
    model = OpenAIChatCompletionsModel(model="m", openai_client=openai_aclient(url))
    return Agent(name="answer", instructions="Answer.", model=model, model_settings=ModelSettings(include_usage=True))


@pytest.mark.parametrize("mode", MODES)
async def test_chat_completions_model(llm_provider: Any, mode: str) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS[mode])
    number = len(provider.generations) + 1
    result = Runner.run_streamed(agent(url), "When is the library open?")
    stream = guarded_stream(result, make_filter())
    if mode == "stop":
        text = "".join([chunk async for chunk in stream])
        assert text.startswith(FIRST) and "2019" not in text and stream.stopped
        assert result.is_complete and result.final_output is None
        assert result.new_items == [] and result.raw_responses == []  # no message item was ever built
        figures = await acheck(provider.generations[number - 1], mode, usage=stream.usage)
        # the SDK's own record never saw this turn end; ours counts what arrived
        assert result.context_wrapper.usage.output_tokens == 0 < stream.usage.output_tokens
        assert figures["after"] <= 3
        return
    if mode == "leave":
        assert await stream.__anext__() == FIRST
        left = time.monotonic()
        await stream.aclose()
        returned = time.monotonic()
    else:
        left, returned = await cancel_while_held(stream, provider, number)
    assert stream.outcome.reason == "cancelled"
    await acheck(provider.generations[number - 1], mode, left=left, returned=returned, usage=stream.usage)


async def test_a_complete_run_reads_the_provider_usage(llm_provider: Any) -> None:
    provider, url = llm_provider
    provider.script(["Fine", " text", ". ", "More", " fine", ". "])
    result = Runner.run_streamed(agent(url), "When is the library open?")
    stream = guarded_stream(result, make_filter())
    assert "".join([chunk async for chunk in stream]) == "Fine text. More fine. "
    assert provider.last.completed
    assert stream.usage.source == "provider" and stream.usage.output_tokens == 6
    assert result.context_wrapper.usage.output_tokens == 6
