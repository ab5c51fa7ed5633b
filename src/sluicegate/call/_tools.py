"""The tool-call step of the guarded call over a provider stream, sync and asyncio: written once for every adapter.

A framework's tool-call stream (LangChain's chunks, LlamaIndex's responses) is read item by item; each item,
translated by the adapter's `payload_of` into what the call's `Generation` reader takes, goes through
`GuardedCall.drafts`. The drivers yield the generation's drafts as they come, then, once the stream ended, the
validated tool calls (`ToolCall`s, only after the provider's terminal event) and the `Generation` itself, last.
The stream is read through `sluicegate.closing`'s upstreams, so it is closed (with any HTTP response the
framework opened for it) as soon as the generation ended (failed mid-stream, or validated), when the reader
leaves and when reading fails; the call is settled exactly once on every end (`settling`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Callable, Generator, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .._closing import AsyncUpstream, Upstream
from .._stream import EMPTY_STEP, Step, StreamFilter
from ._actions import CallModel
from ._call import CallState, CallStateError, GuardedCall
from ._drive import asettling, settling

if TYPE_CHECKING:
    from ..budget import CallBudget

PayloadOf = Callable[[Any], object]


class NoTextFilter:
    """The call's filter when the generation has no text filter of its own: never fed (the generation reads the
    events), never stops. Pass `GuardedCall(filter_factory=NoTextFilter.factory)`."""

    stopped = False
    violations: tuple[Any, ...] = ()

    def feed(self, piece: str) -> Step:
        return EMPTY_STEP

    def flush(self, *, truncated: bool = False) -> Step:
        return EMPTY_STEP

    @classmethod
    def factory(cls, _sources: Any = None) -> NoTextFilter:
        return cls()


def tool_call(
    tools: Mapping[str, Any],
    *,
    reader: Any,
    principal: str,
    config_version: str,
    operation: str,
    rules: Mapping[str, Any] | None = None,
    output: Any = None,
    text_filter: StreamFilter | None = None,
    budget: CallBudget | None = None,
) -> GuardedCall:
    """A guarded call for one tool-call stream: its `Generation` (`sluicegate.lifecycle`, bound to the
    principal, config version and operation) reads the provider events `reader` understands; the answer's text
    goes through `text_filter` when given. No sources and no prompt of sluicegate's (the caller's own)."""
    from ..lifecycle import Generation

    def generation(_: StreamFilter) -> Generation:
        return Generation(
            tools,
            reader=reader,
            principal=principal,
            config_version=config_version,
            operation=operation,
            rules=rules,
            output=output,
            text_filter=text_filter,
        )

    factory = (lambda _: text_filter) if text_filter is not None else NoTextFilter.factory
    return GuardedCall(sources=(), prompt=False, filter_factory=factory, generation=generation, budget=budget)


def _identity(item: Any) -> object:
    return item


def _opened(call: GuardedCall) -> None:
    """Start the call if new (it must go straight to the model: a budget's reservation is made before, with
    `reserve_call`) and open its generation."""
    if call.state is CallState.NEW:
        action = call.start()
        if not isinstance(action, CallModel):
            raise CallStateError(f"a tool-call stream cannot start at {type(action).__name__}: reserve first")
    if call.state is CallState.READY:
        call.open()
    if call.generation is None:
        raise CallStateError("a tool-call stream needs GuardedCall(generation=...)")


def stream_tool_calls(
    call: GuardedCall, upstream: Iterable[Any], *, payload_of: PayloadOf = _identity
) -> Generator[Any, None, None]:
    """Read `upstream` into the call's generation: yields each `Draft`, then the validated `ToolCall`s, then the
    `Generation`. Nothing is read before the first `next()`."""
    with settling(call):
        _opened(call)
        source = Upstream(upstream)
        try:
            while not call.generation_ended:
                try:
                    item = source.next()
                except StopIteration:
                    break
                yield from call.drafts(payload_of(item))
        finally:
            source.close()
        yield from (validated.call for validated in call.end_of_events())
        yield call.generation


async def astream_tool_calls(
    call: GuardedCall, upstream: AsyncIterable[Any], *, payload_of: PayloadOf = _identity
) -> AsyncGenerator[Any, None]:
    """The asyncio twin of `stream_tool_calls`; close it with `aclose()` when you stop reading early."""
    async with asettling(call):
        _opened(call)
        source = AsyncUpstream(upstream)
        try:
            while not call.generation_ended:
                try:
                    item = await source.next()
                except StopAsyncIteration:
                    break
                for draft in call.drafts(payload_of(item)):
                    yield draft
        finally:
            await source.aclose()
        for validated in call.end_of_events():
            yield validated.call
        yield call.generation
