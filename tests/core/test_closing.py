"""`sluicegate._closing`: which parts of an upstream are closed, each once, and a failing close not hiding the rest.

Plain Python objects shaped like the SDK streams (an object whose `iter()` is a fresh generator, an awaitable
`close()` without `aclose()`, a context manager that is not iterable); the real SDKs are in
test_core_stop_closes_provider.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from sluicegate._closing import AsyncUpstream, Upstream
from sluicegate._provider_chunks import sdk_text


class SelfReferencing:
    """Like OpenAI's `Stream`: `iter()` gives a fresh generator; only `close()` closes the response."""

    def __init__(self, fail: bool = False) -> None:
        self.closes = 0
        self.fail = fail

    def __iter__(self) -> Iterator[str]:
        yield from ["a", "b"]

    def close(self) -> None:
        self.closes += 1
        if self.fail:
            raise OSError("close failed")


class AwaitableClose:
    """Like OpenAI's / Anthropic's `AsyncStream`: an awaitable `close()` and no `aclose()`."""

    def __init__(self) -> None:
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[str]:
        yield "a"

    async def close(self) -> None:
        self.closed = True


class Manager:
    """Like Anthropic's `MessageStreamManager`: entering opens the stream, exiting closes it."""

    def __init__(self) -> None:
        self.stream = SelfReferencing()
        self.exited = 0

    def __enter__(self) -> SelfReferencing:
        return self.stream

    def __exit__(self, *exc: object) -> None:
        self.exited += 1


def test_the_object_is_closed_not_only_its_iterator() -> None:
    stream = SelfReferencing()
    source = Upstream(stream)
    assert source.next() == "a"
    source.close()
    source.close()
    assert stream.closes == 1


def test_a_manager_is_entered_and_exited() -> None:
    manager = Manager()
    source = Upstream(manager)
    assert source.next() == "a"
    source.close()
    assert manager.exited == 1 and manager.stream.closes == 1


def test_a_failing_close_is_raised_after_every_part_was_closed() -> None:
    manager = Manager()
    manager.stream.fail = True
    source = Upstream(manager)
    with pytest.raises(OSError, match="close failed"):
        source.close()
    assert manager.exited == 1


async def test_an_awaitable_close_is_awaited() -> None:
    stream = AwaitableClose()
    source = AsyncUpstream(stream)
    assert await source.next() == "a"
    await source.aclose()
    assert stream.closed


class Event:
    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(kw)


def test_anthropic_text_events_do_not_count_twice() -> None:
    delta = Event(type="content_block_delta", delta=Event(type="text_delta", text="Hi"))
    text_event = Event(type="text", text="Hi", snapshot="Hi")
    assert [sdk_text(delta), sdk_text(text_event)] == ["Hi", ""]
    assert sdk_text(Event(type="message_start")) == ""
    assert sdk_text(Event(text="plain")) is None  # not an SDK item: the driver reads `.text` itself
