"""The run behind both "usage covers unread tokens" test files (plain HTTP and TLS): the provider bursts its
tokens, the gate stops or the reader leaves, and the test compares what was billed with what was generated."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from sluicegate import Outcome, adrive_text, drive_text
from tests.services.stop_checks import FIRST, SCRIPTS, make_filter
from tests.support import SHOWN_NOTICE

BURST = 60  # tokens the provider writes at once


def settle(gen: Any) -> None:
    gen.wait(timeout=10)
    assert not gen.completed and gen.disconnected is not None


def _begin(provider: Any, mode: str) -> int:
    provider.script(SCRIPTS[mode])
    return len(provider.generations) + 1


def _figures(provider: Any, number: int, outcome: Outcome) -> tuple[int, int]:
    gen = provider.generations[number - 1]
    settle(gen)
    assert outcome.usage is not None
    return outcome.usage.output_tokens, len(gen.sent)


def run_sync(provider: Any, open_stream: Any, mode: str) -> tuple[int, int]:
    """(billed, generated) after a sync stop or leave; `open_stream()` returns the SDK's stream."""
    number = _begin(provider, mode)
    outcome = Outcome()
    chunks = drive_text(open_stream(), make_filter(), outcome=outcome)
    time.sleep(0.05)  # the burst is on this machine before the first read
    if mode == "stop":
        assert list(chunks) == [FIRST, SHOWN_NOTICE]
    else:
        assert next(chunks) == FIRST
        chunks.close()
    return _figures(provider, number, outcome)


async def run_async(provider: Any, open_stream: Any, mode: str) -> tuple[int, int]:
    """(billed, generated) after an async stop or leave; `await open_stream()` returns the SDK's stream."""
    number = _begin(provider, mode)
    outcome = Outcome()
    chunks = adrive_text(await open_stream(), make_filter(), outcome=outcome)
    await asyncio.sleep(0.05)
    if mode == "stop":
        assert [c async for c in chunks] == [FIRST, SHOWN_NOTICE]
    else:
        assert await chunks.__anext__() == FIRST
        await chunks.aclose()
    gen = provider.generations[number - 1]
    deadline = time.monotonic() + 10
    while not gen.done.is_set() and time.monotonic() < deadline:
        await asyncio.sleep(0.002)
    return _figures(provider, number, outcome)
