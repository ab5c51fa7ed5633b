"""A scripted NeMo `LLMModel` (a fake *model*, not a fake of ours): streams given pieces, or returns them joined."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from nemoguardrails.types import LLMResponse, LLMResponseChunk


class ScriptedModel:
    """Each call pops the next script (a list of pieces). Records whether a stream was closed early."""

    def __init__(self, *scripts: list[str], routes: dict[str, list[str]] | None = None) -> None:
        self.scripts = list(scripts)
        self.routes = routes or {}  # question -> pieces, for concurrent streams (call order is not fixed)
        self.pulled = 0  # pieces handed out, to show the upstream stops being read after a stop
        self.closed_early = False

    model_name = "scripted"
    provider_name: str | None = "test"
    provider_url: str | None = None

    def push(self, *scripts: list[str]) -> None:
        self.scripts.extend(scripts)

    async def generate_async(self, prompt: Any, *, stop: list[str] | None = None, **kwargs: Any) -> LLMResponse:
        return LLMResponse(content="".join(self.scripts.pop(0)))

    async def stream_async(
        self, prompt: Any, *, stop: list[str] | None = None, **kwargs: Any
    ) -> AsyncIterator[LLMResponseChunk]:
        route = next((k for k in self.routes if k in str(prompt)), None)
        pieces = self.routes[route] if route is not None else self.scripts.pop(0)
        finished = False
        try:
            for piece in pieces:
                await asyncio.sleep(0)
                self.pulled += 1
                yield LLMResponseChunk(delta_content=piece)
            finished = True
        finally:
            if not finished:
                self.closed_early = True


async def agen(pieces: list[str], log: list[str] | None = None) -> AsyncIterator[str]:
    """The app's own model stream (design (a)); `log` records what was pulled."""
    for piece in pieces:
        await asyncio.sleep(0)
        if log is not None:
            log.append(piece)
        yield piece
