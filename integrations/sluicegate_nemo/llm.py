"""`GatedLLM`: when NeMo calls the model itself, the model's stream is gated before NeMo sees it.

A stop raises `GateStopped`; NeMo turns that into an error frame, which the rail (seeing the stopped
session) replaces with the standard `guardrails_violation` block. An empty-string sentinel would not work on
this path: NeMo's StreamingHandler drops empty chunks. Non-streaming calls pass through untouched: the rail's
whole-string action judges the complete answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from nemoguardrails.types import LLMModel, LLMResponse, LLMResponseChunk

from sluicegate import UsageMeter, adrive
from sluicegate.host import sdk_text, sdk_usage

from .session import SessionMissing, StreamSession, current_session


class GateStopped(RuntimeError):
    """The filter stopped the stream (reason codes only; the blocked text stays server-side)."""


class UngatedStream(RuntimeError):
    """NeMo would stream its own model's text that no filter saw (no `generator=`, and no `GatedLLM`)."""


def _delta(chunk: LLMResponseChunk) -> str:
    return chunk.delta_content or ""


def chunk_usage(chunk: Any, meter: UsageMeter) -> None:
    """Provider usage on a NeMo `LLMResponseChunk` (cumulative), or on an SDK stream item, for `usage_of`."""
    if not isinstance(chunk, (str, LLMResponseChunk)) and sdk_text(chunk) is not None:
        sdk_usage(chunk, meter)  # an OpenAI / Anthropic / litellm stream item (the app passed its SDK stream)
        return
    usage = getattr(chunk, "usage", None)
    if usage is not None:
        meter.report(output_tokens=usage.output_tokens, input_tokens=usage.input_tokens, cumulative=True)


def session_steps(session: StreamSession, upstream: Any, text_of: Any) -> Any:
    """The model stream through the session's filter, meter and outcome; the leave is asked at every model
    piece, also while the filter holds a sentence, so a reader who left stops the provider there."""

    async def cancelled() -> bool:
        return session.cancelled

    return adrive(
        upstream,
        session.filter,
        text_of=text_of,
        usage_of=chunk_usage,
        meter=session.meter,
        outcome=session.outcome,
        is_cancelled=cancelled,
    )


class GatedLLM:
    """Wraps a NeMo `LLMModel`; `stream_async` yields only released text. Needs a session (guarded_stream).

    `prompt=True`: the streamed call also gets sluicegate's system prompt for the session's gate, with the
    request's sources numbered [S1].. (`sluicegate.prompts`), before the prompt NeMo built; False sends NeMo's
    prompt alone (put the rules and the numbered sources in it yourself).
    """

    def __init__(self, inner: LLMModel, *, prompt: bool = True) -> None:
        self.inner = inner
        self.prompt = prompt

    def sent_prompt(self, prompt: Any, session: Any) -> Any:
        """NeMo's prompt with the session's sluicegate prompt first: a system message before chat messages, a
        paragraph before a completion prompt."""
        ours = getattr(session, "prompt", None) if self.prompt else None
        if not ours:
            return prompt
        if isinstance(prompt, str):
            return f"{ours}\n\n{prompt}"
        return [{"role": "system", "content": ours}, *prompt]

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def provider_name(self) -> str | None:
        return self.inner.provider_name

    @property
    def provider_url(self) -> str | None:
        return self.inner.provider_url

    async def generate_async(self, prompt: Any, *, stop: list[str] | None = None, **kwargs: Any) -> LLMResponse:
        return await self.inner.generate_async(prompt, stop=stop, **kwargs)

    async def stream_async(
        self, prompt: Any, *, stop: list[str] | None = None, **kwargs: Any
    ) -> AsyncIterator[LLMResponseChunk]:
        session = current_session()
        if session is None:
            raise SessionMissing("GatedLLM streamed with no sluicegate session: use sluicegate_nemo.guarded_stream")
        session.gated = True

        upstream = self.inner.stream_async(self.sent_prompt(prompt, session), stop=stop, **kwargs)
        steps = session_steps(session, upstream, _delta)
        try:
            async for step in steps:
                if session.cancelled:
                    return  # NeMo keeps generating after the client left; the finally closes the model
                if step.text:
                    yield LLMResponseChunk(delta_content=step.text)
        finally:
            await steps.aclose()
        if session.filter.stopped:
            raise GateStopped(session.stop_message)


def gate_llm(rails: Any) -> GatedLLM:
    """Wrap `rails.llm` in a `GatedLLM` after construction (idempotent); returns the wrapper.

    For configs whose `models:` block names the main model: NeMo builds that model after the rail folder's
    `init(app)` has run, so nothing can wrap it earlier. `LLMRails.update_llm` swaps it everywhere NeMo looks
    (the generation actions and the `llm` action parameter).
    """
    llm = getattr(rails, "llm", None)
    if isinstance(llm, GatedLLM):
        return llm
    if llm is None:
        raise ValueError("gate_llm: this LLMRails has no main model (no llm= and no `models:` entry of type main)")
    gated = GatedLLM(llm)
    rails.update_llm(gated)
    return gated
