"""`drive_text`/`adrive_text` given the official clients' stream objects close the provider's connection.

Real parts: the scripted provider under uvicorn on loopback, the OpenAI, Anthropic and litellm clients as an app
opens them, garbage collection off. Before the fix the driver closed `iter(stream)`, a fresh generator, so the
OpenAI SDK's response stayed open until a GC pass (the stream refers to itself), and the async SDK streams
(awaitable `close()`, no `aclose()`) were never closed at all.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from sluicegate import Outcome, adrive_text, drive_text
from sluicegate._responses import OpenResponses
from tests.services.provider_clients import ASYNC_OPENERS, SYNC_OPENERS, openai_adeltas, openai_deltas
from tests.services.stop_checks import (
    FIRST,
    MODES,
    SCRIPTS,
    acheck,
    cancel_while_held,
    check,
    make_filter,
)
from tests.support import SHOWN_NOTICE

pytestmark = pytest.mark.usefixtures("no_gc")

SYNC = {**SYNC_OPENERS, "app-generator": openai_deltas}
ASYNC = {**ASYNC_OPENERS, "app-generator": None}


def _read_sync(provider: Any, url: str, client: str, mode: str) -> dict[str, float]:
    provider.script(SCRIPTS[mode])
    number = len(provider.generations) + 1
    outcome = Outcome()
    chunks = drive_text(SYNC[client](url), make_filter(), outcome=outcome)
    if mode == "stop":
        assert list(chunks) == [FIRST, SHOWN_NOTICE]
        assert outcome.reason == "stopped"
        return check(provider.generations[number - 1], mode, usage=outcome.usage)
    assert next(chunks) == FIRST  # "held": the model is inside the long sentence now
    left = time.monotonic()
    chunks.close()
    returned = time.monotonic()
    assert outcome.reason == "cancelled"
    return check(provider.generations[number - 1], mode, left=left, returned=returned, usage=outcome.usage)


async def _open_async(client: str, url: str) -> Any:
    if client == "app-generator":
        return openai_adeltas(url)
    return await ASYNC[client](url)


async def _read_async(provider: Any, url: str, client: str, mode: str) -> dict[str, float]:
    provider.script(SCRIPTS[mode])
    number = len(provider.generations) + 1
    outcome = Outcome()
    chunks = adrive_text(await _open_async(client, url), make_filter(), outcome=outcome)
    if mode == "stop":
        assert [c async for c in chunks] == [FIRST, SHOWN_NOTICE]
        return await acheck(provider.generations[number - 1], mode, usage=outcome.usage)
    if mode == "leave":
        assert await chunks.__anext__() == FIRST
        left = time.monotonic()
        await chunks.aclose()
        returned = time.monotonic()
    else:  # the reader's task waits for text while the gate holds the long sentence; then it is cancelled
        left, returned = await cancel_while_held(chunks, provider, number)
    assert outcome.reason == "cancelled"
    return await acheck(provider.generations[number - 1], mode, left=left, returned=returned, usage=outcome.usage)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("client", sorted(SYNC))
def test_sync_clients_are_closed(llm_provider: Any, client: str, mode: str) -> None:
    provider, url = llm_provider
    _read_sync(provider, url, client, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("client", sorted(ASYNC))
async def test_async_clients_are_closed(llm_provider: Any, client: str, mode: str) -> None:
    provider, url = llm_provider
    await _read_async(provider, url, client, mode)


def test_a_complete_stream_reports_the_providers_usage(llm_provider: Any) -> None:
    provider, url = llm_provider
    provider.script(["Fine", " text", ". "] * 3)
    outcome = Outcome()
    stream = SYNC_OPENERS["anthropic"](url)
    assert "".join(drive_text(stream, make_filter(), outcome=outcome)) == FIRST * 3
    assert outcome.usage is not None and outcome.usage.source == "provider"
    assert (outcome.usage.output_tokens, outcome.usage.input_tokens) == (9, 10)


def test_a_stopped_anthropic_stream_is_not_billed_by_the_start_placeholder(llm_provider: Any) -> None:
    """`message_start` says output_tokens=1 (a placeholder); a stream stopped before `message_delta` is billed
    by what arrived, never by that 1."""
    provider, url = llm_provider
    provider.script(SCRIPTS["stop"])
    outcome = Outcome()
    list(drive_text(SYNC_OPENERS["anthropic"](url), make_filter(), outcome=outcome))
    assert outcome.usage is not None and outcome.usage.source == "estimate"
    assert outcome.usage.input_tokens == 10 and outcome.usage.output_tokens >= 6  # the 6 tokens read, not 1


def test_responses_are_tracked_only_while_pulling(llm_provider: Any) -> None:
    """Outside a pull, the wrapped httpx send records nothing (another request of the app is not ours)."""
    provider, url = llm_provider
    provider.script(["Fine", " text", ". "])
    responses = OpenResponses()
    with responses.pulling():
        pass
    stream = SYNC_OPENERS["openai"](url)  # opened outside any pull
    assert len(responses) == 0
    with responses.pulling():
        inside = SYNC_OPENERS["openai"](url)
    assert len(responses) == 1
    responses.close()
    assert inside.response.is_closed and not stream.response.is_closed
    stream.close()
