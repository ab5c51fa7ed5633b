"""sluicegate + NeMo Guardrails, offline: what a reader sees when an answer passes and when it is stopped.

Run: python examples/nemo_gate.py   (needs `pip install 'sluicegate[nemo]'`; no network, no API key)

The demo filter below holds text until a sentence ends (". ") and stops on the word "2019"; swap in
`sluicegate.SentenceGate(sources)` or `sluicegate.Redactor()` for real use.
"""

from __future__ import annotations

import asyncio
import os

os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")  # NeMo's usage telemetry off

from nemoguardrails import LLMRails  # noqa: E402
from nemoguardrails.types import LLMResponse, LLMResponseChunk  # noqa: E402

import sluicegate_nemo as sn  # noqa: E402
from sluicegate import Done, Guard, Step  # noqa: E402

GOOD = "The report is ready. It covers the year 2018 only. Bye now."
BAD = "The report is ready. It covers the year 2019 only. Bye now."


class DemoStopFilter:
    """A tiny StreamFilter: releases whole sentences, stops for good on one that mentions 2019."""

    def __init__(self) -> None:
        self.buf, self.stopped, self.done = "", False, False

    def feed(self, piece: str) -> Step:
        if self.stopped or self.done:
            return Step(stopped=self.stopped)
        self.buf += piece
        out = ""
        while (i := self.buf.find(". ")) >= 0:
            sentence, self.buf = self.buf[: i + 2], self.buf[i + 2 :]
            if "2019" in sentence:
                self.stopped, self.buf = True, ""
                return Step(out, True, (Guard(("forbidden",), "Stopped."), Done("stopped")))
            out += sentence
        return Step(out)

    def flush(self, *, truncated: bool = False) -> Step:
        if self.stopped or self.done:
            return Step(stopped=self.stopped)
        tail, self.buf, self.done = self.buf, "", True
        if "2019" in tail:
            self.stopped = True
            return Step("", True, (Guard(("forbidden",), "Stopped."), Done("stopped")))
        return Step(tail, False, (Done("truncated" if truncated else "complete"),))


class ScriptedModel:
    """A stand-in NeMo LLMModel that streams a fixed answer in 4-character pieces."""

    model_name, provider_name, provider_url = "scripted", "demo", None

    def __init__(self) -> None:
        self.answers: list[str] = []

    async def generate_async(self, prompt, *, stop=None, **kwargs) -> LLMResponse:
        return LLMResponse(content=self.answers.pop(0))

    async def stream_async(self, prompt, *, stop=None, **kwargs):
        text = self.answers.pop(0)
        for i in range(0, len(text), 4):
            yield LLMResponseChunk(delta_content=text[i : i + 4])


async def app_stream(text: str):
    """The app's own model stream (design a)."""
    for i in range(0, len(text), 3):
        await asyncio.sleep(0)
        yield text[i : i + 3]


def show(label: str, chunks: list[str], s: sn.GuardedStream) -> None:
    seen = "".join(c for c in chunks if sn.parse_error_frame(c) is None)
    print(f"{label}\n  reader sees: {seen!r}")
    if s.blocked:
        print(f"  then NeMo's block frame: {chunks[-1]}")
    print(f"  outcome: {s.outcome.reason}")


async def main() -> None:
    messages = [{"role": "user", "content": "What does the report cover?"}]
    factory = lambda context: DemoStopFilter()  # noqa: E731 - called once per stream with the request context

    # (a) the app owns the model stream
    rails = LLMRails(sn.sluicegate_config())
    sn.install(rails, factory)
    for label, text in (("(a) app stream, good answer", GOOD), ("(a) app stream, planted 2019", BAD)):
        s = sn.guarded_stream(rails, messages=messages, generator=app_stream(text))
        show(label, [c async for c in s], s)

    # (b) NeMo calls the model, wrapped so its stream is gated
    model = ScriptedModel()
    rails_b = LLMRails(sn.sluicegate_config(), llm=sn.GatedLLM(model))
    sn.install(rails_b, factory)
    for label, text in (("(b) GatedLLM, good answer", GOOD), ("(b) GatedLLM, planted 2019", BAD)):
        model.answers.append(text)
        s = sn.guarded_stream(rails_b, messages=messages)
        show(label, [c async for c in s], s)

    # non-streaming: the rail's whole-string action
    model.answers.append(BAD)
    result = await rails_b.generate_async(messages=messages)
    print(f"generate_async, planted 2019\n  reader sees: {result['content']!r}")


if __name__ == "__main__":
    import logging

    logging.getLogger("nemoguardrails").setLevel(logging.CRITICAL)  # NeMo logs the GateStopped traceback
    asyncio.run(main())
