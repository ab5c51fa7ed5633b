"""The official clients' stream objects against the scripted provider, as an app would open them.

Each opener takes the provider's base URL and returns what the SDK returns: OpenAI's `Stream`/`AsyncStream`,
Anthropic's raw `Stream` and its `MessageStreamManager`, litellm's `CustomStreamWrapper`. No retries (a test
must see the first request), and litellm uses its bundled cost map (no network).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

MESSAGES = [{"role": "user", "content": "When is the library open?"}]


def openai_client(url: str) -> Any:
    import openai

    return openai.OpenAI(base_url=url + "/v1", api_key="test", max_retries=0)


def openai_aclient(url: str) -> Any:
    import openai

    return openai.AsyncOpenAI(base_url=url + "/v1", api_key="test", max_retries=0)


def anthropic_client(url: str) -> Any:
    import anthropic

    return anthropic.Anthropic(base_url=url, api_key="test", max_retries=0)


def anthropic_aclient(url: str) -> Any:
    import anthropic

    return anthropic.AsyncAnthropic(base_url=url, api_key="test", max_retries=0)


def _litellm_kwargs(url: str) -> dict[str, Any]:
    return {"model": "openai/m", "api_base": url + "/v1", "api_key": "test", "messages": MESSAGES, "stream": True}


SYNC_OPENERS: dict[str, Callable[[str], Any]] = {
    "openai": lambda url: openai_client(url).chat.completions.create(model="m", messages=MESSAGES, stream=True),
    "anthropic": lambda url: anthropic_client(url).messages.create(
        model="m", max_tokens=1024, messages=MESSAGES, stream=True
    ),
    "anthropic-manager": lambda url: anthropic_client(url).messages.stream(
        model="m", max_tokens=1024, messages=MESSAGES
    ),
    "litellm": lambda url: __import__("litellm").completion(**_litellm_kwargs(url)),
}


async def _openai_async(url: str) -> Any:
    return await openai_aclient(url).chat.completions.create(model="m", messages=MESSAGES, stream=True)


async def _anthropic_async(url: str) -> Any:
    return await anthropic_aclient(url).messages.create(model="m", max_tokens=1024, messages=MESSAGES, stream=True)


async def _anthropic_manager(url: str) -> Any:
    return anthropic_aclient(url).messages.stream(model="m", max_tokens=1024, messages=MESSAGES)


async def _litellm_async(url: str) -> Any:
    import litellm

    return await litellm.acompletion(**_litellm_kwargs(url))


ASYNC_OPENERS: dict[str, Callable[[str], Any]] = {
    "openai": _openai_async,
    "anthropic": _anthropic_async,
    "anthropic-manager": _anthropic_manager,
    "litellm": _litellm_async,
}


def openai_deltas(url: str) -> Iterator[str]:
    """An app's own generator that opens the SDK stream inside it and yields its deltas."""
    for chunk in openai_client(url).chat.completions.create(model="m", messages=MESSAGES, stream=True):
        if chunk.choices and chunk.choices[0].delta.content:
            yield chunk.choices[0].delta.content


async def openai_adeltas(url: str) -> AsyncIterator[str]:
    stream = await openai_aclient(url).chat.completions.create(model="m", messages=MESSAGES, stream=True)
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            yield chunk.choices[0].delta.content


def warm_up(url: str, provider: Any) -> None:
    """One complete call through each client first: litellm's first call spends ~100 ms setting itself up
    while the provider streams on, so its first stream starts many tokens behind (measured: 18 at 6 ms a token),
    which no real provider's time to first token would show."""
    provider.script(["warm "] * 3)
    for opener in SYNC_OPENERS.values():
        stream = opener(url)
        if hasattr(stream, "__enter__") and not hasattr(stream, "__iter__"):
            with stream as s:
                list(s)
        else:
            list(stream)
