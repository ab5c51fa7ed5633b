"""sluicegate_litellm.SluicegateGuardrail in a real LiteLLM proxy process, in front of the scripted provider
(tests/services/llm_provider.py, under uvicorn), read by the official `openai` SDK (sync and async) and, where
every chunk the proxy emits matters, by httpx and our SSE parser. One proxy process for the module.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import openai
import pytest

from sluicegate.sse import SSEParser
from sluicegate_litellm.session import TOOL_NOTICE
from tests.adapter_contract import AdapterContract, Case, Ran
from tests.call.helpers import SOURCES
from tests.services.llm_provider import ScriptedProvider
from tests.services.stop_checks import MAX_AFTER

from .proxy import MASTER_KEY, LiteLLMProxy

META = {"metadata": {"sluicegate": {"sources": SOURCES}}}
NO_SOURCES = {"metadata": {"sluicegate": {}}}
NOTICE = "The rest of this answer could not be supported by the sources and was held back."
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    }
]


def client(proxy: LiteLLMProxy) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url + "/v1", api_key=MASTER_KEY, max_retries=0, timeout=60)


def aclient(proxy: LiteLLMProxy) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=proxy.url + "/v1", api_key=MASTER_KEY, max_retries=0, timeout=60)


def messages(key: str = "q") -> list[dict[str, str]]:
    return [{"role": "user", "content": key}]


def raw_chunks(proxy: LiteLLMProxy, body: dict[str, Any]) -> list[tuple[float, dict[str, Any]]]:
    """Every `data:` chunk the proxy emits, with its arrival instant (the SDK's view can hide some)."""
    parser = SSEParser()
    out: list[tuple[float, dict[str, Any]]] = []
    headers = {"Authorization": f"Bearer {MASTER_KEY}"}
    with httpx.stream(
        "POST", proxy.url + "/v1/chat/completions", json={**body, "stream": True}, headers=headers, timeout=60
    ) as response:
        assert response.status_code == 200, response.read()
        for data in response.iter_raw():
            for event in parser.feed(data):
                if event.data and event.data != "[DONE]":
                    out.append((time.monotonic(), json.loads(event.data)))
    return out


def contents(chunks: list[tuple[float, dict[str, Any]]]) -> list[str]:
    return [c["choices"][0]["delta"].get("content") or "" for _, c in chunks if c.get("choices")]


# -- the shared contract ------------------------------------------------------------------------------------


class TestLiteLLMContract(AdapterContract):
    """The contract through the proxy: pieces scripted at the provider, sources in the request's metadata."""

    supports_budget = False  # the proxy owns spend (its own budgets); the guardrail takes no cap
    interval = 0.01

    @pytest.fixture(autouse=True)
    def _served(self, provider_and_proxy: tuple[ScriptedProvider, LiteLLMProxy]) -> None:
        self.provider, self.proxy = provider_and_proxy
        self.provider.interval = self.interval

    def run(self, case: Case) -> Ran:
        provider = self.provider
        provider.script(case.pieces)
        before = len(provider.generations)
        stream = client(self.proxy).chat.completions.create(
            model="m", messages=messages(), stream=True, extra_body=META
        )
        shown = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        opened = provider.generations[before:]
        for gen in opened:
            gen.wait(timeout=30)
        return Ran(
            shown=shown,
            model_calls=len(opened),
            closed=all(g.disconnected is not None for g in opened),
            produced=sum(len(g.sent) for g in opened),
        )

    def test_contract_a_stop_closes_the_model_stream(self) -> None:
        # the proxy reads its upstream up to ~1 s behind on a loaded machine: a slower provider, so that the
        # stop lands while it is still generating
        self.provider.interval = 0.1
        super().test_contract_a_stop_closes_the_model_stream()


# -- what the client sees --------------------------------------------------------------------------------------

PLANTED = "Write to jane.doe@example.com today. It is fine."


def test_a_value_split_at_every_offset_never_reaches_the_client_and_stream_equals_whole(
    provider_and_proxy: tuple[ScriptedProvider, LiteLLMProxy],
) -> None:
    """BerriAI/litellm#41611: a value split across two chunks. Every offset, async SDK, a few at a time; the
    whole answer (post-call hook) shows the same text."""
    provider, proxy = provider_and_proxy
    provider.interval = 0.005
    cuts = list(range(1, len(PLANTED)))
    for cut in cuts:
        provider.script_for(f"cut {cut}", [PLANTED[:cut], PLANTED[cut:]])

    async def one(api: openai.AsyncOpenAI, cut: int, gate: asyncio.Semaphore) -> tuple[str, str]:
        async with gate:
            stream = await api.chat.completions.create(
                model="m", messages=messages(f"cut {cut}"), stream=True, extra_body=NO_SOURCES
            )
            streamed = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
            whole = await api.chat.completions.create(model="m", messages=messages(f"cut {cut}"), extra_body=NO_SOURCES)
            return streamed, whole.choices[0].message.content or ""

    async def main() -> list[tuple[str, str]]:
        api = aclient(proxy)
        gate = asyncio.Semaphore(4)
        return await asyncio.gather(*(one(api, cut, gate) for cut in cuts))

    results = asyncio.run(main())
    first = results[0][0]
    assert "jane.doe" not in first and "example.com" not in first and first.endswith("It is fine.")
    for cut, (streamed, whole) in zip(cuts, results, strict=True):
        assert streamed == first, cut  # chunk-invariant
        assert whole == streamed, cut  # the post-call hook shows what the stream showed


def test_a_stop_closes_the_provider_and_leaves_no_unvalidated_text_in_any_chunk(
    provider_and_proxy: tuple[ScriptedProvider, LiteLLMProxy],
) -> None:
    provider, proxy = provider_and_proxy
    provider.interval = 0.01
    tail = [f"Next{i} " for i in range(600)]  # distinct: the proxy fails a stream that repeats a chunk 100 times
    provider.script(["She published", " her notes in 1843 [S1]. ", "She was paid 2019", " pounds [S1]. ", *tail])
    before = len(provider.generations)
    chunks = raw_chunks(proxy, {"model": "m", "messages": messages(), **META})
    gen = provider.generations[before].wait(timeout=30)
    texts = contents(chunks)
    assert "".join(texts) == "She published her notes in 1843.\n\n" + NOTICE
    assert all("2019" not in t and "Next" not in t and "[S1]" not in t for t in texts)  # in no chunk at all
    finishes = [c["choices"][0].get("finish_reason") for _, c in chunks if c.get("choices")]
    assert finishes[-1] == "content_filter" and texts[-1].endswith(NOTICE)  # the notice is the last text
    assert [f for f in finishes if f] == ["content_filter"]
    # the provider was disconnected, by the time the client read the notice (give or take a token in flight)
    notice_at = next(t for t, c in chunks if c.get("choices") and c["choices"][0].get("finish_reason"))
    assert not gen.completed and gen.disconnected is not None
    assert gen.sent_after(notice_at) <= MAX_AFTER, gen.sent_after(notice_at)
    # the SDK sees the same shape
    provider.script(["She published", " her notes in 1843 [S1]. ", "She was paid 2019", " pounds [S1]. ", *tail])
    sdk = list(client(proxy).chat.completions.create(model="m", messages=messages(), stream=True, extra_body=META))
    last = [c for c in sdk if c.choices][-1]
    assert last.choices[0].finish_reason == "content_filter" and last.choices[0].delta.content.endswith(NOTICE)
    whole = client(proxy).chat.completions.create(model="m", messages=messages(), extra_body=META)
    assert whole.choices[0].message.content == "".join(texts)
    assert whole.choices[0].finish_reason == "content_filter"


# -- tool calls -------------------------------------------------------------------------------------------------


def test_a_tool_call_reaches_the_client_only_whole_and_after_the_terminal_event(
    provider_and_proxy: tuple[ScriptedProvider, LiteLLMProxy],
) -> None:
    provider, proxy = provider_and_proxy
    provider.interval = 0.01
    pieces = ['{"ci', 'ty": "Be', 'rn"}']
    provider.script(["Fine text. "], tool_calls=[("get_weather", pieces)])
    before = len(provider.generations)
    chunks = raw_chunks(proxy, {"model": "m", "messages": messages(), "tools": TOOLS})
    gen = provider.generations[before].wait(timeout=30)
    with_tools = [(t, c) for t, c in chunks if c.get("choices") and c["choices"][0]["delta"].get("tool_calls")]
    assert len(with_tools) == 1  # one chunk, the whole call: no fragment went ahead of the verdict
    arrived, chunk = with_tools[0]
    assert arrived >= gen.sent[-1]  # after the provider's last tool frame (the terminal follows it)
    call = chunk["choices"][0]["delta"]["tool_calls"][0]
    assert call["function"]["name"] == "get_weather" and json.loads(call["function"]["arguments"]) == {"city": "Bern"}
    assert [c["choices"][0].get("finish_reason") for _, c in chunks if c.get("choices")][-1] == "tool_calls"
    assert "".join(contents(chunks)) == "Fine text. "
    # the whole answer: the same validated call
    whole = client(proxy).chat.completions.create(model="m", messages=messages(), tools=TOOLS)  # type: ignore[arg-type]
    message = whole.choices[0].message
    assert whole.choices[0].finish_reason == "tool_calls" and message.tool_calls is not None
    assert json.loads(message.tool_calls[0].function.arguments) == {"city": "Bern"}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "tool_call", [("get_weather", ['{"city": ', "5}"]), ("delete_everything", ["{}"])], ids=["bad_args", "unknown"]
)
def test_an_invalid_tool_call_never_reaches_the_client(
    provider_and_proxy: tuple[ScriptedProvider, LiteLLMProxy], tool_call: tuple[str, list[str]]
) -> None:
    provider, proxy = provider_and_proxy
    provider.interval = 0.01
    provider.script(["Fine text. "], tool_calls=[tool_call])
    chunks = raw_chunks(proxy, {"model": "m", "messages": messages(), "tools": TOOLS})
    assert not any(c["choices"][0]["delta"].get("tool_calls") for _, c in chunks if c.get("choices"))
    assert "".join(contents(chunks)) == "Fine text. \n\n" + TOOL_NOTICE
    assert [c["choices"][0].get("finish_reason") for _, c in chunks if c.get("choices")][-1] == "content_filter"
    whole = client(proxy).chat.completions.create(model="m", messages=messages(), tools=TOOLS)  # type: ignore[arg-type]
    assert whole.choices[0].message.tool_calls is None
    assert whole.choices[0].finish_reason == "content_filter"
    assert whole.choices[0].message.content == "Fine text. \n\n" + TOOL_NOTICE


# -- the client leaves ------------------------------------------------------------------------------------------

WORDS = [f" {a}{b}" for a in "bcdfghjklm" for b in ("ax", "ex", "ix", "ox", "ux")] * 3  # distinct neighbours


def test_a_client_that_leaves_while_a_sentence_is_held_closes_the_provider(
    provider_and_proxy: tuple[ScriptedProvider, LiteLLMProxy],
) -> None:
    """The reader closes the stream after the first sentence, while the gate holds a long unfinished one: the
    provider stream is closed too (the proxy's disconnect handling and the hook's own close both aim at it;
    the test asserts the outcome the reader and the bill care about)."""
    provider, proxy = provider_and_proxy
    provider.interval = 0.01
    provider.script(["She published", " her notes in 1843 [S1]. ", "They", *WORDS])
    before = len(provider.generations)
    stream = client(proxy).chat.completions.create(model="m", messages=messages(), stream=True, extra_body=META)
    first = next(c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content)
    assert first == "She published her notes in 1843."
    gen = provider.generations[before]
    deadline = time.monotonic() + 10
    while len(gen.sent) < 3 + 12 and time.monotonic() < deadline:
        time.sleep(0.005)
    left = time.monotonic()
    stream.close()
    gen.wait(timeout=30)
    assert not gen.completed and gen.disconnected is not None, "nobody closed the provider stream"
    # the proxy notices the closed socket at its next write attempt or disconnect poll: a few tokens, not 150
    assert gen.sent_after(left) <= 25, gen.sent_after(left)
