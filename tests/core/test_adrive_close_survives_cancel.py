"""The upstream's close completes when the reading task is cancelled while it closes (stop 36's CI, 3.13).

Seen once in `.ci/run`: `tests/sse/test_stop_closes_provider.py::test_endpoint[anthropic-manager-leave]` — the
reader left, the endpoint's outcome said `cancelled`, and the provider generated all 204 tokens. Both halves of
a disconnect arrive together: the driver's `is_cancelled()` says True, so it awaits the upstream's close, and the
server cancels the task reading the driver (`gated_events` cancels its pump). The cancellation cut the awaited
close short (the SDK stream's `close()` awaits httpx's), the upstream was already marked closed, and the
driver's `finally` then closed nothing. The upstream here awaits in its close, and the task is cancelled there.

Open (strict xfail, so that a fix shows): shielding every close of `adrive` (a task of its own per close) fixes
this test but made tests/openai_agents/test_oa_stream.py::test_usage_of_a_stopped_run_is_not_below_what_was_received
count 126 of 129 bytes (the unread bytes are counted in the close, which then ran in another task); a fix must
keep both.
"""

from __future__ import annotations

import asyncio

import pytest

from sluicegate import Outcome, adrive
from tests.support import HoldUntilPeriod


class _SlowToClose:
    """Streams sentences; its `close()` awaits (as an SDK stream's awaits httpx's response close)."""

    def __init__(self) -> None:
        self.closing = asyncio.Event()
        self.release = asyncio.Event()
        self.closed = False
        self.pulls = 0

    def __aiter__(self) -> _SlowToClose:
        return self

    async def __anext__(self) -> str:
        self.pulls += 1
        if self.pulls > 50:
            raise StopAsyncIteration
        await asyncio.sleep(0)
        return "Fine text. "

    async def close(self) -> None:
        self.closing.set()
        await self.release.wait()
        self.closed = True


async def _cancel_during_close(gone_after: int) -> tuple[_SlowToClose, Outcome, asyncio.Task[None]]:
    upstream = _SlowToClose()
    outcome = Outcome()

    async def gone() -> bool:
        return upstream.pulls >= gone_after  # the reader left: the driver closes the upstream at this item

    async def read() -> None:
        async with adrive(upstream, HoldUntilPeriod(), outcome=outcome, is_cancelled=gone) as steps:
            async for _ in steps:
                pass

    task = asyncio.ensure_future(read())
    await asyncio.wait_for(upstream.closing.wait(), 5)
    task.cancel()  # the server's half of the same disconnect, while the close is awaited
    await asyncio.sleep(0.01)
    upstream.release.set()
    await asyncio.gather(task, return_exceptions=True)
    await asyncio.sleep(0.01)  # (a close that runs in a task of its own ends here)
    return upstream, outcome, task


@pytest.mark.xfail(strict=True, reason="open: a cancellation during adrive's awaited close leaves the upstream open")
async def test_a_cancel_during_the_close_does_not_leave_the_upstream_open() -> None:
    upstream, outcome, _ = await _cancel_during_close(gone_after=3)
    assert upstream.closed, "the reading task's cancellation cut the upstream's close short: the provider generates on"
    assert outcome.reason == "cancelled"
    assert upstream.pulls == 3
