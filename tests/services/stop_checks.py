"""The three ways a guarded stream ends early, against the scripted provider, and what each must show.

- `stop`: the gate stops the answer (a planted "2019" sentence); the provider's connection must be closed within
  `MAX_AFTER` tokens of the token that completed the bad sentence.
- `leave`: the reader leaves after the first released sentence (`close()`, `aclose()`, `break`, a cancelled task).
- `held`: the reader leaves while the gate holds a long unfinished sentence: async, the reader's task is
  waiting for text the gate will not release yet (it is cancelled, or the adapter's `aclose()` is called from
  another task); sync, where a reader cannot leave while it waits inside `next()`, it leaves right after the
  first sentence while the model is inside the long one (a framework that drains its model after a close, or
  checks for the leave only at released text, would read the whole sentence).

In every case the provider must see the disconnect (not the end of the script: a stream that nobody closes
runs to the end, `completed`), the tokens it generated after the instant the reader left (or after the stop
token) must be at most `MAX_AFTER`, the reader's own close must return within `MAX_AFTER` tokens, and usage
reported for the stream must not be below the tokens the provider generated. Garbage collection is disabled
around each check (`no_gc`), so a close that only a GC pass would do cannot pass.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Iterator
from typing import Any

import pytest

from sluicegate._stream import Step
from tests.support import HoldUntilPeriod

from .llm_provider import Generation, ScriptedProvider, serve_provider

LENGTH = 200  # tokens after the interesting part: over 1 s at 6 ms a token, so a leak runs visibly to the end
MAX_AFTER = 3  # tokens the provider may generate after the stop or the reader leaving (one in flight, and slack)
CLIENT_LAG = 0.1  # s of client lag behind the provider tolerated by the usage check (a loaded machine stalls it)
HELD_TOKENS = 12  # tokens of the long sentence the gate holds before the reader leaves

RECORD: list[dict[str, float]] | None = None  # the benchmark collects every check's figures here

FIRST = "Fine text. "
SCRIPTS: dict[str, list[str]] = {
    "stop": ["Fine", " text", ". ", "It was", " 2019", ". "] + ["more "] * LENGTH,
    "leave": ["Fine", " text", ". "] * (LENGTH // 3 + 2),
    "held": ["Fine", " text", ". "] + ["word "] * LENGTH,
}
MODES = tuple(SCRIPTS)


class TimedStop(HoldUntilPeriod):
    """Holds to ". ", stops on 2019, and notes when it decided to stop (the instant "after the stop" counts from)."""

    def __init__(self) -> None:
        super().__init__()
        self.stopped_at: float | None = None

    def feed(self, piece: str) -> Step:
        step = super().feed(piece)
        if step.stopped and self.stopped_at is None:
            self.stopped_at = time.monotonic()
        return step


FILTERS: list[TimedStop] = []  # every filter made, so a test can find the one an adapter built


def make_filter(*_: Any) -> TimedStop:
    """A factory in every adapter's shape (sources, a context, or nothing)."""
    filt = TimedStop()
    FILTERS.append(filt)
    del FILTERS[:-8]
    return filt


@pytest.fixture(scope="module")  # not session: an idle server thread would run beside other suites
def llm_provider() -> Iterator[tuple[ScriptedProvider, str]]:
    from .provider_clients import warm_up

    with serve_provider() as served:
        warm_up(served[1], served[0])
        yield served


@pytest.fixture
def no_gc() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def wait_tokens(provider: ScriptedProvider, count: int, generations: int, timeout: float = 5.0) -> Generation:
    """Block until generation number `generations` has sent `count` tokens (sync readers)."""
    gen = provider.wait_started(generations, timeout)
    deadline = time.monotonic() + timeout
    while len(gen.sent) < count:
        if time.monotonic() > deadline or gen.done.is_set():
            raise AssertionError(f"the provider sent only {len(gen.sent)} tokens")
        time.sleep(0.001)
    return gen


async def await_tokens(provider: ScriptedProvider, count: int, generations: int, timeout: float = 5.0) -> Generation:
    """The async twin of `wait_tokens` (the loop keeps running the reader meanwhile)."""
    deadline = time.monotonic() + timeout
    while len(provider.generations) < generations or len(provider.generations[generations - 1].sent) < count:
        if time.monotonic() > deadline:
            raise AssertionError("the provider did not get that far")
        await asyncio.sleep(0.001)
    return provider.generations[generations - 1]


def check(
    gen: Generation,
    mode: str,
    *,
    left: float | None = None,
    returned: float | None = None,
    usage: Any = None,
    stopped_at: float | None = None,
) -> dict[str, float]:
    """Assert the provider was closed in time; return the figures (for the benchmark): ms and tokens after.

    "After" counts from the filter's stop decision (`stopped_at`, default: the last filter `make_filter` made)
    or from the instant the reader `left`.
    """
    gen.wait(timeout=LENGTH * 0.02 + 5)
    assert not gen.completed, f"{mode}: nobody closed the stream, the provider generated all {len(gen.sent)} tokens"
    assert gen.disconnected is not None
    if mode == "stop":
        since = stopped_at if stopped_at is not None else FILTERS[-1].stopped_at
    else:
        since = left
    assert since is not None, "the filter never stopped" if mode == "stop" else "no leave instant"
    after = gen.sent_after(since)
    assert after <= MAX_AFTER, f"{mode}: the provider generated {after} tokens after the stop / the reader left"
    if returned is not None and left is not None:
        during = gen.sent_after(left) - gen.sent_after(returned)
        assert during <= MAX_AFTER, f"{mode}: the reader's close took {during} tokens to return"
    if usage is not None:
        # Usage counts what arrived (one token per byte where the provider reported nothing). Tokens still in
        # the socket, unread because the client lagged (a loaded machine stalls it), were generated and are not
        # counted: everything the provider generated up to CLIENT_LAG before the stop must be.
        due = gen.sent_before(since - CLIENT_LAG)
        assert usage.output_tokens >= due, f"{mode}: usage {usage.output_tokens} below the {due} tokens generated"
    figures = {"ms": (gen.disconnected - since) * 1000, "after": after}
    if RECORD is not None:
        RECORD.append(figures)
    return figures


async def acheck(gen: Generation, mode: str, **kwargs: Any) -> dict[str, float]:
    """`check` for async readers: wait for the end of the generation without blocking the loop (some clients,
    aiohttp's, close the socket at the loop's next turn)."""
    deadline = time.monotonic() + LENGTH * 0.02 + 5
    while not gen.done.is_set() and time.monotonic() < deadline:
        await asyncio.sleep(0.002)
    return check(gen, mode, **kwargs)


async def cancel_while_held(
    chunks: Any, provider: ScriptedProvider, number: int, *, shown: Any = None
) -> tuple[float, float]:
    """The `held` leave, async: a reader task waits for text while the gate holds the long sentence, and is
    cancelled once the provider has generated `HELD_TOKENS` of it. Returns (left, returned) instants.

    `shown(chunk)` says whether a chunk is text the reader sees (the first one starts the wait; default: any)."""
    first = asyncio.Event()

    async def read() -> None:
        async for chunk in chunks:
            if shown is None or shown(chunk):
                first.set()

    task = asyncio.ensure_future(read())
    await first.wait()
    await await_tokens(provider, 3 + HELD_TOKENS, number)
    left = time.monotonic()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return left, time.monotonic()
