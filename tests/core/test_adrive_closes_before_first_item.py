"""Review C: an async stream dropped before its first item closes the upstream, as the sync twin does."""

from __future__ import annotations

import asyncio
import gc

from sluicegate._driver import adrive, adrive_text, drive
from sluicegate.redaction import Redactor


class _AsyncUpstream:
    def __init__(self) -> None:
        self.closed = False

    def __aiter__(self) -> _AsyncUpstream:
        return self

    async def __anext__(self) -> str:
        return "x"

    async def aclose(self) -> None:
        self.closed = True


class _SyncUpstream:
    def __init__(self) -> None:
        self.closed = False

    def __iter__(self) -> _SyncUpstream:
        return self

    def __next__(self) -> str:
        return "x"

    def close(self) -> None:
        self.closed = True


def test_sync_stream_dropped_unread_closes_the_upstream() -> None:
    up = _SyncUpstream()
    steps = drive(up, Redactor())
    del steps
    gc.collect()
    assert up.closed


def test_async_streams_dropped_unread_close_the_upstream() -> None:
    async def main() -> tuple[bool, bool]:
        a, b = _AsyncUpstream(), _AsyncUpstream()
        steps = adrive(a, Redactor())
        text = adrive_text(b, Redactor())
        del steps, text
        gc.collect()
        for _ in range(3):
            await asyncio.sleep(0)
        return a.closed, b.closed

    assert asyncio.run(main()) == (True, True)
