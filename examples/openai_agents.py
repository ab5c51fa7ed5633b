"""sluicegate + the OpenAI Agents SDK, offline: a streamed run gated as it streams, and the non-streamed run's
output guardrail.

Run: python examples/openai_agents.py   (needs `pip install 'sluicegate[openai-agents]'`; no network, no key)

The model is the SDK's own `OpenAIChatCompletionsModel` over a real `AsyncOpenAI` client whose HTTP transport
answers locally (`httpx.MockTransport`) with Chat Completions chunks of a fixed answer in 5-character pieces, so
the e-mail arrives split. Tracing is off (`set_tracing_disabled`): nothing leaves the process.
"""

from __future__ import annotations

import asyncio
import json

import httpx
from _show import GROUNDED, PLANTED, QUESTION, SOURCES, pieces
from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OutputGuardrailTripwireTriggered,
    Runner,
    set_tracing_disabled,
)
from openai import AsyncOpenAI

from sluicegate import Pipeline, Redactor, SentenceGate
from sluicegate.prompts import render_prompt
from sluicegate_openai_agents import gate_guardrail, guarded_output, guarded_stream

set_tracing_disabled(True)
# sluicegate's prompt for this gate: the rules as instructions; the sources numbered [S1]..[Sn], exactly as the
# gate reads the markers, and the question as the run's input
PROMPT = render_prompt(SOURCES, QUESTION)


def chat_stream(answer: str) -> bytes:
    """The SSE body a Chat Completions endpoint streams for `answer` (5-character pieces, then usage)."""
    head = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    frames = [
        {**head, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in pieces(answer, 5)
    ]
    frames.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    frames.append({**head, "choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 30, "total_tokens": 70}})
    return b"".join(f"data: {json.dumps(f)}\n\n".encode() for f in frames) + b"data: [DONE]\n\n"


def agent_answering(answer: str, **kwargs: object) -> Agent:
    def reply(request: httpx.Request) -> httpx.Response:
        stream = json.loads(request.content).get("stream")
        if stream:
            return httpx.Response(200, content=chat_stream(answer), headers={"content-type": "text/event-stream"})
        message = {"role": "assistant", "content": answer}
        body = {"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}  # fmt: skip
        return httpx.Response(200, json=body)

    http = httpx.AsyncClient(transport=httpx.MockTransport(reply))
    client = AsyncOpenAI(base_url="http://model.invalid/v1", api_key="offline", http_client=http, max_retries=0)
    model = OpenAIChatCompletionsModel(model="m", openai_client=client)
    return Agent(name="library", instructions=PROMPT.system, model=model, model_settings=ModelSettings(), **kwargs)


def make_filter() -> Pipeline:
    """One run's filter: the gate over the run's sources, then the redactor (a fresh one per run)."""
    return Pipeline(SentenceGate(SOURCES), Redactor())


async def main() -> None:
    for label, answer in (("grounded answer", GROUNDED), ("planted value", PLANTED)):
        result = Runner.run_streamed(agent_answering(answer), PROMPT.user)
        stream = guarded_stream(result, make_filter())
        chunks = [chunk async for chunk in stream]
        print(f"run_streamed, {label}\n  reader sees: {''.join(chunks)!r}")
        usage = stream.usage
        print(f"  outcome: {stream.outcome.reason}  usage: {usage.output_tokens} output tokens ({usage.source})")

    guardrail = gate_guardrail(make_filter)
    result = await Runner.run(agent_answering(GROUNDED, output_guardrails=[guardrail]), PROMPT.user)
    print(f"run, grounded answer\n  reader sees: {guarded_output(result)!r}")
    try:
        await Runner.run(agent_answering(PLANTED, output_guardrails=[guardrail]), PROMPT.user)
    except OutputGuardrailTripwireTriggered as tripped:
        gated = tripped.guardrail_result.output.output_info
        print(f"run, planted value\n  tripwire: {gated.reasons}\n  reader sees: {gated.shown!r}")


if __name__ == "__main__":
    import logging

    logging.getLogger("sluicegate").setLevel(logging.ERROR)  # the gate logs each blocked sentence (server side)
    asyncio.run(main())
