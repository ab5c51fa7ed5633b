"""The Chat Completions path over HTTP gives the same gated text as the whole string, for several chunkings:
`OpenAIChatCompletionsModel` + a real `AsyncOpenAI` against the scripted provider, gate and redactor."""

from __future__ import annotations

from typing import Any

import pytest
from agents import Runner

from sluicegate_openai_agents import guarded_stream

from .test_oa_stop_closes_provider import agent
from .test_oa_stream import ANSWER, PLANTED, make_filter, oracle


@pytest.mark.parametrize("size", [1, 3, 7, 16, 40])
async def test_gated_text_over_http_is_the_whole_string_s(llm_provider: Any, size: int) -> None:
    provider, url = llm_provider
    provider.script([ANSWER[i : i + size] for i in range(0, len(ANSWER), size)])
    stream = guarded_stream(Runner.run_streamed(agent(url), "When?"), make_filter())
    chunks = [chunk async for chunk in stream]
    assert "".join(chunks) == oracle(ANSWER)
    assert not any(value in chunk for chunk in chunks for value in PLANTED)
    if size <= 7:  # many tokens still to come after the stop: the stop closed the stream before the script ran out
        assert provider.last.wait().disconnected is not None and not provider.last.completed
