"""`assign(answer=SourceGate(...))`: `RunnablePassthrough.assign` whose async stream closes what it started.

Why: LangChain's `RunnableAssign` and `RunnableParallel` (langchain-core 1.x) read their steps through
`async for` and tasks and never close them when the consumer leaves: after `break` and `await agen.aclose()`
the gate's stream (and with it the model stream, the usage record and `on_outcome`) is closed only when the
event loop finalises the dropped generators, some 30 loop turns later, and those finalisers can collide
("aclose(): asynchronous generator is already running"). These subclasses change only that: every exit path
cancels their pending reads and closes each step's stream before `aclose()` returns. Output is the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any

from langchain_core.runnables import RunnableConfig, RunnableParallel
from langchain_core.runnables.config import patch_config
from langchain_core.runnables.passthrough import RunnableAssign
from langchain_core.runnables.utils import AddableDict
from langchain_core.utils.aiter import atee


def _any(value: Any) -> Any:
    """LangChain types its streams as AsyncIterator; at run time they are async generators (they have aclose)."""
    return value


async def _aone(value: Any) -> AsyncIterator[Any]:
    yield value


async def _settle(tasks: Any) -> None:
    """Cancel reads still pending and wait for them, so no step stream is running when it is closed."""
    pending = [t for t in tasks if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    for task in tasks:  # a read that finished with an error nobody will see: retrieve it (no "never retrieved")
        if task.done() and not task.cancelled():
            task.exception()


class ClosingParallel(RunnableParallel[Any]):
    """`RunnableParallel` whose async stream closes its steps' streams on every exit path."""

    async def _atransform(
        self, inputs: AsyncIterator[Any], run_manager: Any, config: RunnableConfig
    ) -> AsyncIterator[AddableDict]:
        steps = dict(self.steps__)
        copies = list(atee(inputs, len(steps), lock=asyncio.Lock()))
        generators = [
            (
                name,
                step.atransform(copies.pop(), patch_config(config, callbacks=run_manager.get_child(f"map:key:{name}"))),
            )
            for name, step in steps.items()
        ]
        tasks: dict[asyncio.Task[Any], tuple[str, Any]] = {
            asyncio.ensure_future(gen.__anext__()): (name, gen) for name, gen in generators
        }
        try:
            while tasks:
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    name, gen = tasks.pop(task)
                    try:
                        chunk = task.result()
                    except StopAsyncIteration:
                        continue
                    yield AddableDict({name: chunk})
                    tasks[asyncio.ensure_future(gen.__anext__())] = (name, gen)
        finally:
            await _settle(list(tasks))
            for _, gen in generators:
                await _any(gen).aclose()

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        async with aclosing(_any(self._atransform_stream_with_config(input, self._atransform, config, **kwargs))) as it:
            async for chunk in it:
                yield chunk

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        async with aclosing(_any(self.atransform(_aone(input), config))) as it:
            async for chunk in it:
                yield chunk


class ClosingAssign(RunnableAssign):
    """`RunnableAssign` whose async stream closes its mapper's stream on every exit path."""

    async def _atransform(
        self,
        values: AsyncIterator[dict[str, Any]],
        run_manager: Any,
        config: RunnableConfig,
        **kwargs: Any,
    ) -> AsyncIterator[dict[str, Any]]:
        mapper_keys = set(self.mapper.steps__.keys())
        for_passthrough, for_map = atee(values, 2, lock=asyncio.Lock())
        map_output = self.mapper.atransform(for_map, patch_config(config, callbacks=run_manager.get_child()), **kwargs)
        first = asyncio.ensure_future(anext(map_output, None))
        try:
            async for chunk in for_passthrough:
                if not isinstance(chunk, dict):
                    raise ValueError("The input to RunnablePassthrough.assign() must be a dict.")  # noqa: TRY004
                filtered = AddableDict({k: v for k, v in chunk.items() if k not in mapper_keys})
                if filtered:
                    yield filtered
            first_chunk = await first
            if first_chunk is not None:
                yield first_chunk
                async for chunk in map_output:
                    yield chunk
        finally:
            await _settle([first])
            await _any(map_output).aclose()

    async def atransform(
        self, input: AsyncIterator[dict[str, Any]], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        async with aclosing(_any(self._atransform_stream_with_config(input, self._atransform, config, **kwargs))) as it:
            async for chunk in it:
                yield chunk

    async def astream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        async with aclosing(_any(self.atransform(_aone(input), config, **kwargs))) as it:
            async for chunk in it:
                yield chunk


def assign(**steps: Any) -> ClosingAssign:
    """`RunnablePassthrough.assign(**steps)`, with an async stream that closes the gate (and the model) before
    `aclose()` returns. Same output, sync behaviour and tracing; use it around `SourceGate`."""
    mapping: Mapping[str, Any] = steps
    return ClosingAssign(mapper=ClosingParallel(steps__=mapping))
