"""sluicegate as a LiteLLM proxy guardrail, offline: the proxy's two hooks run here on litellm's own chunk objects.

Run: python examples/litellm_guardrail.py   (needs `pip install 'sluicegate[litellm]'`; no network, no key)

The same `SluicegateGuardrail` that `examples/litellm/config.yaml` registers in a real proxy (see docs/litellm.md
to start one) gets a stream of `ModelResponseStream` chunks, as the proxy hands them to
`async_post_call_streaming_iterator_hook`, and a whole `ModelResponse`, as the post-call hook gets it. The
request carries its sources in `metadata.sluicegate`, as a client sends them with
`extra_body={"metadata": {"sluicegate": {"sources": [...]}}}`.
"""

from __future__ import annotations

import asyncio
import os

os.environ.setdefault("LITELLM_TELEMETRY", "False")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from _show import GROUNDED, PLANTED, SOURCES, pieces  # noqa: E402
from litellm.types.utils import ModelResponse, ModelResponseStream  # noqa: E402

from sluicegate_litellm import SluicegateGuardrail  # noqa: E402

guard = SluicegateGuardrail(guardrail_name="sluicegate", event_hook="post_call", default_on=True)
request = {"metadata": {"sluicegate": {"sources": SOURCES}}}
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


def chunk(delta: dict, finish: str | None = None) -> ModelResponseStream:
    return ModelResponseStream(id="c1", model="m", choices=[{"index": 0, "delta": delta, "finish_reason": finish}])


async def upstream(items: list[ModelResponseStream]):  # what the proxy reads from the provider
    for item in items:
        yield item


async def client_sees(items: list[ModelResponseStream], data: dict) -> list[ModelResponseStream]:
    return [c async for c in guard.async_post_call_streaming_iterator_hook(None, upstream(items), data)]


def show(title: str, out: list[ModelResponseStream]) -> None:
    print(f"-- {title}")
    for c in out:
        delta = c.choices[0].delta
        calls = [(t.function.name, t.function.arguments) for t in delta.tool_calls or []]
        print(f"   {delta.content!r:<60.60} tool_calls={calls} finish={c.choices[0].finish_reason}")


async def main() -> None:
    text = [chunk({"content": p}) for p in pieces(GROUNDED, 5)] + [chunk({}, "stop")]
    show(
        "grounded answer, 5-character chunks (the e-mail, from source 3, redacted where used)",
        await client_sees(text, request),
    )
    text = [chunk({"content": p}) for p in pieces(PLANTED, 5)] + [chunk({}, "stop")]
    stopped = await client_sees(text, request)
    show("a planted unsupported figure: the stream stops, content_filter, the notice last", stopped)
    whole = ModelResponse(
        id="c1",
        model="m",
        choices=[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": PLANTED}}],
    )
    answer = (await guard.async_post_call_success_hook(request, None, whole)).choices[0]
    print(f"-- the same answer whole (post-call hook): {answer.finish_reason}\n   {answer.message.content!r}")
    args = ['{"ci', 'ty": "Be', 'rn"}']
    calls = [
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_0",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": ""},
                    }
                ]
            }
        )
    ]
    calls += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": a}}]}) for a in args]
    data = {"tools": TOOLS, "metadata": {"sluicegate": {}}}
    show(
        "a tool call in 3 fragments: held, validated, released whole",
        await client_sees([*calls, chunk({}, "tool_calls")], data),
    )
    bad = [*calls[:1], chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": 5}'}}]})]
    show("arguments that break the schema: never released", await client_sees([*bad, chunk({}, "tool_calls")], data))


if __name__ == "__main__":
    asyncio.run(main())
