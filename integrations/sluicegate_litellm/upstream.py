"""Closing the provider stream under the proxy's hook chain when the gate stops.

The hook is handed an async generator the proxy wrapped around litellm's `CustomStreamWrapper` (it drops
token-id-only chunks, records enrichment). Closing that generator does not close what it iterates: an
`async for` left by `GeneratorExit` leaves its iterable open, and the proxy closes the wrapper only when the
*client* disconnects. A gate stop is not a disconnect: the client is still there, reading the notice, while the
provider would go on generating (and billing) to the end. So the wrapper is found under the generators (their
frames hold it) and closed with the core's closing rules (`sluicegate.closing`: litellm's wrapper, its HTTP
response, and the aiohttp response under that), then the generators themselves.
"""

from __future__ import annotations

import inspect
from contextlib import suppress
from typing import Any

from litellm import CustomStreamWrapper

from sluicegate.host import AsyncUpstream, aclose_now

_DEPTH = 8  # generator layers searched (the proxy stacks two or three)


def _held(item: Any) -> list[Any]:
    """What a wrapper object keeps in its own attributes (`__dict__` and `__slots__`), never through
    `__getattr__` (the proxy's boundary object delegates unknown names to its source)."""
    values = list(getattr(item, "__dict__", {}).values())
    for cls in type(item).__mro__:
        for name in getattr(cls, "__slots__", ()):
            with suppress(AttributeError):  # an empty slot
                values.append(object.__getattribute__(item, name))
    return [v for v in values if hasattr(type(v), "__aiter__") or hasattr(type(v), "__anext__")]


def _layers(obj: Any) -> tuple[list[Any], list[Any]]:
    """(async generators, stream wrappers) reachable from `obj` through generator frames and the proxy's
    iterator objects."""
    generators: list[Any] = []
    wrappers: list[Any] = []
    todo = [(obj, 0)]
    seen: set[int] = set()
    while todo:
        item, depth = todo.pop()
        if id(item) in seen or depth > _DEPTH:
            continue
        seen.add(id(item))
        if inspect.isasyncgen(item):
            generators.append(item)
            frame = item.ag_frame
            if frame is not None:
                todo.extend((value, depth + 1) for value in frame.f_locals.values())
        elif isinstance(item, CustomStreamWrapper):
            wrappers.append(item)
        else:
            todo.extend((value, depth + 1) for value in _held(item))
    return generators, wrappers


async def close_upstream(response: Any) -> None:
    """Close the provider stream under `response` now (the model stops generating), then the layers above."""
    generators, wrappers = _layers(response)
    for wrapper in wrappers:
        with suppress(Exception):  # a close that fails must not keep the notice from the client
            await AsyncUpstream(wrapper).aclose()
    for generator in generators:
        with suppress(Exception):
            await aclose_now(generator)
