"""Provider usage carried by NeMo's `LLMResponseChunk.usage` is what both designs record, stopped or not."""

from __future__ import annotations

import asyncio

import pytest
from nemoguardrails import LLMRails
from nemoguardrails.types import LLMResponseChunk, UsageInfo

import sluicegate_nemo as sn
from sluicegate.testing import pieces_of
from tests.nemo.test_stream import USER
from tests.support import BAD, GOOD


async def provider(pieces: list[str]):
    """A provider stream whose chunks report cumulative usage (as OpenAI-style APIs do)."""
    for i, piece in enumerate(pieces, 1):
        await asyncio.sleep(0)
        usage = UsageInfo(input_tokens=9, output_tokens=100 + i, total_tokens=0)
        yield LLMResponseChunk(delta_content=piece, usage=usage)


@pytest.mark.parametrize("text", [GOOD, BAD])
async def test_app_stream_records_the_provider_usage(app_rails: LLMRails, text: str) -> None:
    pieces = pieces_of(text, 4)
    pulled: list[str] = []

    async def logged():
        async for chunk in provider(pieces):
            pulled.append(chunk.delta_content)
            yield chunk

    s = sn.guarded_stream(app_rails, messages=USER, generator=logged())
    [c async for c in s]
    usage = s.outcome.usage
    assert usage is not None and usage.source == "provider"
    assert (usage.output_tokens, usage.input_tokens) == (100 + len(pulled), 9)
