"""A reader's cancellation that code below the driver swallows is honoured at the next item (issue 22).

Python 3.11's `asyncio.wait_for` returns the inner result when it completes in the same loop turn as the
cancellation of the waiting task (CPython gh-86296); `langchain-openai` wraps every async chunk in it. The
upstream below reproduces that deterministically: it catches the `CancelledError` and returns an item anyway,
without `uncancel()`, as `wait_for` does. The reader's task must still end cancelled, the upstream must be closed
at once, and the item that came back is billed.
"""

from __future__ import annotations

import asyncio

from sluicegate import Outcome, UsageMeter, adrive
from tests.support import HoldUntilPeriod


class _SwallowingUpstream:
    """Streams "word " (50 pulls at most); a pull that is cancelled returns an item as if it had not been."""

    def __init__(self) -> None:
        self.closed = False
        self.pulls = 0
        self.swallowed = 0
        self.waiting = asyncio.Event()

    def __aiter__(self) -> _SwallowingUpstream:
        return self

    async def __anext__(self) -> str:
        if self.closed or self.pulls == 50:  # bounded, so a driver that ignores the cancel fails, not hangs
            raise StopAsyncIteration
        self.pulls += 1
        if self.pulls == 1:
            return "Fine text. "
        self.waiting.set()
        try:
            await asyncio.sleep(0.001)
        except asyncio.CancelledError:
            self.swallowed += 1  # no uncancel(): the request stays pending on the task, as after wait_for
        return "word "

    async def aclose(self) -> None:
        self.closed = True


async def test_a_swallowed_cancel_ends_the_read_and_closes_the_upstream() -> None:
    upstream = _SwallowingUpstream()
    outcome = Outcome()
    meter = UsageMeter()
    shown: list[str] = []

    async def read() -> None:
        async with adrive(upstream, HoldUntilPeriod(), meter=meter, outcome=outcome) as steps:
            async for step in steps:
                shown.append(step.text)

    task = asyncio.ensure_future(read())
    while upstream.pulls < 5:  # the gate now holds "word word word" (no period)
        await upstream.waiting.wait()
        upstream.waiting.clear()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert upstream.swallowed == 1
    assert task.cancelled(), "the reader went on reading after its task was cancelled"
    assert upstream.closed
    assert upstream.pulls == 5, "the driver pulled again after the cancelled pull returned"
    assert outcome.reason == "cancelled"
    assert "".join(shown) == "Fine text. "
    # the swallowed pull's item was billed too (the meter estimates a token per byte)
    assert meter.usage.output_tokens >= len("Fine text. ") + 4 * len("word ")
