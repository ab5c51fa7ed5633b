"""peek_first: an early provider failure is raised before any byte; otherwise nothing is lost or reordered."""

from __future__ import annotations

import pytest

from sluicegate.scripted import ProviderError, ScriptedProvider
from sluicegate.sse import UpstreamFailedEarly, peek_first


async def test_failure_before_the_first_piece_raises_and_closes() -> None:
    provider = ScriptedProvider(["a"], fail_at=0)
    with pytest.raises(UpstreamFailedEarly) as info:
        await peek_first(provider.stream(), timeout=1.0)
    assert isinstance(info.value.__cause__, ProviderError) and provider.closed


async def test_pieces_pass_through_in_order() -> None:
    provider = ScriptedProvider(["a", "b", "c"])
    stream = await peek_first(provider.stream(), timeout=1.0)
    assert provider.produced == 1  # the first piece was awaited before returning
    assert [p async for p in stream] == ["a", "b", "c"] and provider.exhausted


async def test_slow_first_piece_starts_the_stream_after_the_timeout() -> None:
    provider = ScriptedProvider(["a", "b"], delay=0.2)
    stream = await peek_first(provider.stream(), timeout=0.01)
    assert provider.produced == 0
    assert [p async for p in stream] == ["a", "b"]


async def test_late_failure_after_the_timeout_surfaces_in_the_stream() -> None:
    slow = ScriptedProvider(["a", "b"], fail_at=1, delay=0.05)
    stream = await peek_first(slow.stream(), timeout=0.001)
    with pytest.raises(ProviderError):
        _ = [p async for p in stream]
    assert slow.closed


async def test_closing_before_the_first_piece_closes_the_upstream() -> None:
    provider = ScriptedProvider(["a"], hold_at=0)
    stream = await peek_first(provider.stream(), timeout=0.01)
    await stream.aclose()  # type: ignore[attr-defined]  # never iterated: the client left before the body
    assert provider.closed and provider.produced == 0


async def test_empty_upstream() -> None:
    provider = ScriptedProvider([])
    stream = await peek_first(provider.stream(), timeout=1.0)
    assert [p async for p in stream] == []
