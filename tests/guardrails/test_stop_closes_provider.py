"""`sg.stream` / `sg.astream` close the provider's connection with the clients an app passes as `llm_api`.

Real parts: Guardrails AI's `Guard`/`AsyncGuard`, litellm and the OpenAI SDK against the scripted provider on
uvicorn, garbage collection off. Before: sync, closing guardrails' generator made its telemetry read our
callable until the gate released text (a held sentence meant the rest of the answer); async, the raw SDK stream
under litellm's `completion_stream` was closed only through an `aclose()` it does not have, so never.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from guardrails import AsyncGuard, Guard

import sluicegate_guardrails as sg
from tests.services.provider_clients import MESSAGES, openai_aclient, openai_client
from tests.services.stop_checks import (
    FIRST,
    MODES,
    SCRIPTS,
    acheck,
    cancel_while_held,
    check,
    make_filter,
)

pytestmark = pytest.mark.usefixtures("no_gc")


def sync_llm(kind: str, url: str) -> Any:
    if kind == "litellm":
        import litellm

        def call(*, messages: Any = None, **_: Any) -> Any:
            return litellm.completion(
                model="openai/m", api_base=url + "/v1", api_key="test", messages=messages, stream=True
            )

        return call
    client = openai_client(url)
    return lambda *, messages=None, **_: client.chat.completions.create(model="m", messages=messages, stream=True)


def async_llm(kind: str, url: str) -> Any:
    if kind == "litellm":
        import litellm

        async def call(*, messages: Any = None, **_: Any) -> Any:
            return await litellm.acompletion(
                model="openai/m", api_base=url + "/v1", api_key="test", messages=messages, stream=True
            )

        return call
    client = openai_aclient(url)

    async def acall(*, messages: Any = None, **_: Any) -> Any:
        return await client.chat.completions.create(model="m", messages=messages, stream=True)

    return acall


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["litellm", "openai"])
def test_sync(llm_provider: Any, kind: str, mode: str) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS[mode])
    number = len(provider.generations) + 1
    guard = Guard().use(sg.StreamGate(filter=make_filter, on_fail="fix"))
    s = sg.stream(guard, sync_llm(kind, url), messages=MESSAGES)
    if mode == "stop":
        text = "".join(s)
        assert text.startswith(FIRST) and "2019" not in text and s.violation
        check(provider.generations[number - 1], mode, usage=s.outcome.usage)
        return
    for text in s:
        assert text == FIRST
        left = time.monotonic()
        break
    returned = time.monotonic()
    assert s.outcome.reason == "cancelled"
    check(provider.generations[number - 1], mode, left=left, returned=returned, usage=s.outcome.usage)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["litellm", "openai"])
async def test_async(llm_provider: Any, kind: str, mode: str) -> None:
    provider, url = llm_provider
    provider.script(SCRIPTS[mode])
    number = len(provider.generations) + 1
    guard = AsyncGuard().use(sg.StreamGate(filter=make_filter, on_fail="fix"))
    s = await sg.astream(guard, async_llm(kind, url), messages=MESSAGES)
    it = s.__aiter__()
    if mode == "stop":
        text = "".join([t async for t in it])
        assert text.startswith(FIRST) and "2019" not in text and s.violation
        await acheck(provider.generations[number - 1], mode, usage=s.outcome.usage)
        return
    if mode == "leave":
        assert await it.__anext__() == FIRST
        left = time.monotonic()
        await it.aclose()
        returned = time.monotonic()
    else:
        left, returned = await cancel_while_held(it, provider, number)
    await acheck(provider.generations[number - 1], mode, left=left, returned=returned, usage=s.outcome.usage)
