"""Both NeMo designs close the provider's connection, with real clients, within one piece of a stop or a leave.

(a) the app passes the SDK's stream object itself as `generator=` (OpenAI's `AsyncStream`, Anthropic's
`AsyncMessageStreamManager`): the driver closes that object. (b) NeMo calls its own OpenAI model
(`models:` in the config, `gate_llm`). The reader's `aclose()` while the gate holds a long sentence used to
wait (and the model to stream) until the gate released text: the leave is now checked at every model piece.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from nemoguardrails import LLMRails, RailsConfig

import sluicegate_nemo as sn
from tests.services.provider_clients import ASYNC_OPENERS
from tests.services.stop_checks import FIRST, HELD_TOKENS, MODES, SCRIPTS, acheck, await_tokens, make_filter

pytestmark = pytest.mark.usefixtures("no_gc")

MESSAGES = [
    {"role": "context", "content": {"sources": ["The library opens at nine."]}},
    {"role": "user", "content": "When is the library open?"},
]


@pytest.fixture(scope="module")
def app_rails() -> LLMRails:
    rails = LLMRails(sn.sluicegate_config())
    sn.install(rails, make_filter)
    return rails


@pytest.fixture(scope="module")
def nemo_rails(llm_provider: Any) -> LLMRails:
    _, url = llm_provider
    yaml = (
        "models:\n  - type: main\n    engine: openai\n    model: m\n    parameters:\n"
        f"      base_url: {url}/v1\n      api_key: test\n      max_retries: 0\n"
    )
    rails = LLMRails(sn.sluicegate_config(RailsConfig.from_content(yaml_content=yaml)))
    sn.gate_llm(rails)
    sn.install(rails, make_filter)
    return rails


DESIGNS = ["generator-openai", "generator-anthropic-manager", "nemo-openai"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("design", DESIGNS)
async def test_closes(llm_provider: Any, app_rails: LLMRails, nemo_rails: LLMRails, design: str, mode: str) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS[mode])
    number = len(provider.generations) + 1
    if design == "nemo-openai":
        stream = sn.guarded_stream(nemo_rails, messages=MESSAGES)
    else:
        upstream = await ASYNC_OPENERS[design.removeprefix("generator-")](url)
        stream = sn.guarded_stream(app_rails, messages=MESSAGES, generator=upstream)
    if mode == "stop":
        chunks = [c async for c in stream]
        assert chunks[0] == FIRST and sn.is_block_frame(chunks[-1])
        await acheck(provider.generations[number - 1], mode, usage=stream.outcome.usage)
        return
    it = stream.__aiter__()
    assert await it.__anext__() == FIRST
    if mode == "leave":
        left = time.monotonic()
        await stream.aclose()
        returned = time.monotonic()
    else:  # the reader waits for text the gate holds; the app calls aclose() from another task
        task = asyncio.ensure_future(it.__anext__())
        await await_tokens(provider, 3 + HELD_TOKENS, number)
        left = time.monotonic()
        await stream.aclose()
        returned = time.monotonic()
        await asyncio.gather(task, return_exceptions=True)
    assert stream.outcome.reason == "cancelled"
    await acheck(provider.generations[number - 1], mode, left=left, returned=returned, usage=stream.outcome.usage)
