"""sluicegate + NeMo Guardrails, offline: a grounded answer, a planted unsupported value, and PII redaction.

Run: python examples/nemo_gate.py   (needs `pip install 'sluicegate[nemo]'`; no network, no API key)

The filter is the real one: the SentenceGate over the request's sources, numbered [S1]..[Sn], piped into the
Redactor. The sources travel with each request in a `role: context` message; the installed factory
`gate_from("sources", redact=True)` builds a fresh filter from them for every stream. The scripted model
streams the answers of examples/_show.py in small pieces, so the e-mail address arrives split.
"""

from __future__ import annotations

import asyncio
import os

os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")  # NeMo's usage telemetry off

from _show import GROUNDED, PLANTED, QUESTION, SOURCES, pieces  # noqa: E402
from nemoguardrails import LLMRails  # noqa: E402
from nemoguardrails.types import LLMResponse, LLMResponseChunk  # noqa: E402

import sluicegate_nemo as sn  # noqa: E402
from sluicegate.prompts import render_prompt  # noqa: E402
from sluicegate.sources import gate_from  # noqa: E402


class ScriptedModel:
    """A stand-in NeMo LLMModel that streams a fixed answer in 4-character pieces (the prompt is ignored)."""

    model_name, provider_name, provider_url = "scripted", "demo", None

    def __init__(self) -> None:
        self.answers: list[str] = []

    async def generate_async(self, prompt, *, stop=None, **kwargs) -> LLMResponse:
        return LLMResponse(content=self.answers.pop(0))

    async def stream_async(self, prompt, *, stop=None, **kwargs):
        for piece in pieces(self.answers.pop(0), 4):
            yield LLMResponseChunk(delta_content=piece)


async def app_stream(prompt: list[dict[str, str]], text: str):
    """The app's own model stream (design a): it built `prompt` with the numbered sources."""
    for piece in pieces(text, 3):
        await asyncio.sleep(0)
        yield piece


def show(label: str, chunks: list[str], s: sn.GuardedStream) -> None:
    seen = "".join(c for c in chunks if sn.parse_error_frame(c) is None)
    print(f"{label}\n  reader sees: {seen!r}")
    if s.blocked:
        print(f"  then NeMo's block frame: {chunks[-1]}")
    print(f"  outcome: {s.outcome.reason}, reasons: {list(s.session.reasons)}")


async def main() -> None:
    # Per request: the sources go in a context message; the prompt numbers them the same way as the gate.
    messages = [{"role": "context", "content": {"sources": SOURCES}}, {"role": "user", "content": QUESTION}]
    factory = gate_from("sources", redact=True)
    # (a) builds its own prompt: sluicegate's, for the gate this request's answer will pass (same token, markers)
    prompt = render_prompt(SOURCES, QUESTION, gate=factory({"sources": SOURCES})).messages()

    # (a) the app owns the model stream
    rails = LLMRails(sn.sluicegate_config())
    sn.install(rails, factory)
    for label, text in (("(a) app stream, grounded answer", GROUNDED), ("(a) app stream, planted value", PLANTED)):
        s = sn.guarded_stream(rails, messages=messages, generator=app_stream(prompt, text))
        show(label, [c async for c in s], s)

    # (b) NeMo calls the model, wrapped so its stream is gated (GatedLLM adds sluicegate's prompt to NeMo's)
    model = ScriptedModel()
    rails_b = LLMRails(sn.sluicegate_config(), llm=sn.GatedLLM(model))
    sn.install(rails_b, factory)
    for label, text in (("(b) GatedLLM, grounded answer", GROUNDED), ("(b) GatedLLM, planted value", PLANTED)):
        model.answers.append(text)
        s = sn.guarded_stream(rails_b, messages=messages)
        show(label, [c async for c in s], s)

    # non-streaming: the rail's whole-string action
    for label, text in (("generate_async, grounded answer", GROUNDED), ("generate_async, planted value", PLANTED)):
        model.answers.append(text)
        result = await rails_b.generate_async(messages=messages)
        print(f"{label}\n  reader sees: {result['content']!r}")


if __name__ == "__main__":
    import logging

    logging.getLogger("nemoguardrails").setLevel(logging.CRITICAL)  # NeMo logs the GateStopped traceback
    logging.getLogger("sluicegate").setLevel(logging.ERROR)  # the gate logs each blocked sentence (server side)
    asyncio.run(main())
