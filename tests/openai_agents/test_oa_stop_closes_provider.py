"""`guarded_stream` closes the provider's connection: a real `Agent` + `Runner.run_streamed` with each of the SDK's
two OpenAI models (`OpenAIResponsesModel`, `OpenAIChatCompletionsModel`, which turns Chat Completions chunks into
the same Responses-API raw events) over a real `AsyncOpenAI(base_url=...)` client, against the scripted provider
on uvicorn (both wire formats). Garbage collection off: the close must come from the run's cancellation."""

from __future__ import annotations

import time
from typing import Any

import pytest
from agents import Agent, ModelSettings, OpenAIChatCompletionsModel, OpenAIResponsesModel, Runner

from sluicegate_openai_agents import guarded_stream
from tests.services.provider_clients import openai_aclient
from tests.services.stop_checks import FIRST, MODES, SCRIPTS, acheck, cancel_while_held, make_filter

from . import oa_fakes  # noqa: F401  (tracing off before any run)

pytestmark = pytest.mark.usefixtures("no_gc")


KINDS = ("chat", "responses")
API = {"chat": "openai", "responses": "responses"}


def agent(url: str, kind: str = "chat") -> Agent[Any]:
    model_class = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    model = model_class(model="m", openai_client=openai_aclient(url))
    return Agent(name="answer", instructions="Answer.", model=model, model_settings=ModelSettings(include_usage=True))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS)
async def test_openai_models(llm_provider: Any, kind: str, mode: str) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS[mode])
    number = len(provider.generations) + 1
    result = Runner.run_streamed(agent(url, kind), "When is the library open?")
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
        assert provider.generations[number - 1].api == API[kind]  # the wire format that model speaks
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


@pytest.mark.parametrize("kind", KINDS)
async def test_a_complete_run_reads_the_provider_usage(llm_provider: Any, kind: str) -> None:
    provider, url = llm_provider
    provider.script(["Fine", " text", ". ", "More", " fine", ". "])
    result = Runner.run_streamed(agent(url, kind), "When is the library open?")
    stream = guarded_stream(result, make_filter())
    assert "".join([chunk async for chunk in stream]) == "Fine text. More fine. "
    assert provider.last.completed and provider.last.api == API[kind]
    assert stream.usage.source == "provider" and stream.usage.output_tokens == 6
    assert result.context_wrapper.usage.output_tokens == 6
