"""Usage of a stopped stream is never below what the provider generated before the close (issue 22).

The provider writes a burst of tokens at once, so most of them sit unread on the client machine (h11's buffer,
the socket) when the gate stops or the reader leaves. Before the count of unread bytes, usage billed only what
the client read ("Fine text. It was 2019. ": 24 bytes against 60 tokens generated).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from sluicegate import Outcome, adrive_text, drive_text
from sluicegate import _responses as responses_module
from tests.core.unread_checks import BURST, run_async, run_sync, settle
from tests.services.provider_clients import ASYNC_OPENERS, SYNC_OPENERS
from tests.services.stop_checks import FIRST, SCRIPTS, make_filter
from tests.support import SHOWN_NOTICE

pytestmark = pytest.mark.usefixtures("no_gc")

CLIENTS = ("anthropic", "openai")


@pytest.fixture
def bursting(llm_provider: Any) -> Any:
    provider, url = llm_provider
    provider.burst = BURST
    try:
        yield provider, url
    finally:
        provider.burst = 0


@pytest.mark.parametrize("mode", ["stop", "leave"])
@pytest.mark.parametrize("client", CLIENTS)
def test_sync_usage_covers_unread_tokens(bursting: Any, client: str, mode: str) -> None:
    provider, url = bursting
    billed, generated = run_sync(provider, lambda: SYNC_OPENERS[client](url), mode)
    assert generated >= BURST
    assert billed >= generated, f"usage {billed} below the {generated} tokens generated before the close"


@pytest.mark.parametrize("mode", ["stop", "leave"])
@pytest.mark.parametrize("client", CLIENTS)
async def test_async_usage_covers_unread_tokens(bursting: Any, client: str, mode: str) -> None:
    provider, url = bursting
    billed, generated = await run_async(provider, lambda: ASYNC_OPENERS[client](url), mode)
    assert generated >= BURST
    assert billed >= generated


def test_a_failing_count_never_prevents_the_close(bursting: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(response: Any) -> bytes:
        raise RuntimeError("the count broke")

    monkeypatch.setattr(responses_module, "unread_bytes", broken)
    provider, url = bursting
    billed, generated = run_sync(provider, lambda: SYNC_OPENERS["openai"](url), "stop")
    assert generated < len(SCRIPTS["stop"])  # closed (the provider saw the disconnect, checked in run_sync)
    assert billed < generated  # and the count really did not run


def test_unread_text_reads_each_wire_format() -> None:
    data = (
        b'ent":"cut"}}]}\n\n'  # the tail of an event the client already read part of: nothing
        b'data: {"choices":[{"delta":{"content":"a"}}]}\n\n'
        b'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"b"}}\n\n'
        b'data: {"type":"response.output_text.delta","delta":"c"}\n\n'
        b"data: not json\n\n"
        b"data: [DONE]\n\n"
        b'data: {"choices":[{"delta":{"content":"never fin'
    )
    assert responses_module.unread_text(data) == ["a", "b", "c", "?"]


async def test_a_failing_count_never_prevents_the_async_close(bursting: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    def broken(data: bytes) -> list[str]:
        raise ValueError("the parse broke")

    monkeypatch.setattr(responses_module, "unread_text", broken)
    provider, url = bursting
    provider.script(SCRIPTS["leave"])
    number = len(provider.generations) + 1
    chunks = adrive_text(await ASYNC_OPENERS["anthropic"](url), make_filter(), outcome=Outcome())
    await asyncio.sleep(0.05)
    assert await chunks.__anext__() == FIRST
    await chunks.aclose()
    gen = provider.generations[number - 1]
    deadline = time.monotonic() + 10
    while not gen.done.is_set() and time.monotonic() < deadline:
        await asyncio.sleep(0.002)
    settle(gen)


def test_a_response_without_a_network_stream_has_nothing_unread() -> None:
    class Bare:
        stream = None
        extensions: dict[str, Any] = {}

    assert responses_module.unread_bytes(Bare()) == b""


def test_the_responses_api_stream_is_covered_too(bursting: Any) -> None:
    from tests.services.provider_clients import MESSAGES, openai_client

    provider, url = bursting
    provider.script(SCRIPTS["stop"])
    number = len(provider.generations) + 1
    outcome = Outcome()
    stream = openai_client(url).responses.create(model="m", input=MESSAGES[0]["content"], stream=True)
    chunks = drive_text(stream, make_filter(), outcome=outcome)
    time.sleep(0.05)
    assert list(chunks) == [FIRST, SHOWN_NOTICE]
    gen = provider.generations[number - 1]
    settle(gen)
    assert outcome.usage is not None and len(gen.sent) >= BURST
    assert outcome.usage.output_tokens >= len(gen.sent)
