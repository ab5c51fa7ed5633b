"""A scripted provider: a fake model that streams a fixed answer in pieces and shows whether it was stopped.

For demos and tests of anything that must stop a generation (the SSE endpoint, a Stop button): it counts the
pieces it has produced and records when it was closed, which is what "a stop stops the bill" means to observe.
It is a fake *model*, never a fake of the code under test.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence

from ._errors import SluicegateError
from ._public import publish

__all__ = ["ProviderError", "ScriptedProvider"]


class ProviderError(SluicegateError, ConnectionError):
    """The scripted provider 'died' (as a provider's connection reset would look)."""


class ScriptedProvider:
    """`stream()` yields `pieces` with `delay` seconds before each; `fail_at=i` raises before piece i.

    `produced` counts pieces generated so far, `closed` becomes True when the stream is closed or ends, and
    `exhausted` only when every piece was produced. `on_piece(n)` runs after each piece (a live counter).
    `hold_at=i` makes the stream wait forever before piece i (an idle provider), until it is closed.
    """

    def __init__(
        self,
        pieces: Sequence[str],
        *,
        delay: float = 0.0,
        fail_at: int | None = None,
        hold_at: int | None = None,
        on_piece: Callable[[int], None] | None = None,
    ) -> None:
        self.pieces = list(pieces)
        self.delay = delay
        self.fail_at = fail_at
        self.hold_at = hold_at
        self.on_piece = on_piece
        self.produced = 0
        self.closed = False
        self.exhausted = False
        self.closed_event = asyncio.Event()

    @classmethod
    def of(cls, text: str, size: int, **kwargs: object) -> ScriptedProvider:
        """`text` cut into `size`-character pieces."""
        return cls([text[i : i + size] for i in range(0, len(text), size)], **kwargs)  # type: ignore[arg-type]

    async def stream(self) -> AsyncIterator[str]:
        try:
            for index, piece in enumerate(self.pieces):
                if index == self.fail_at:
                    raise ProviderError("scripted provider failure (connection reset)")
                if index == self.hold_at:
                    await asyncio.Event().wait()  # idle until closed (the wait is cancelled or the stream closed)
                await asyncio.sleep(self.delay)
                self.produced += 1
                if self.on_piece is not None:
                    self.on_piece(self.produced)
                yield piece
            self.exhausted = True
        finally:
            self.closed = True
            self.closed_event.set()


publish(__name__, globals())  # one documented place per public name (docs/api.md)
