"""Streaming through LLMRails with the filter upstream of NeMo's rolling buffer.

`gated()` turns a model stream into the filter's released pieces (one NeMo item each) and, after a stop, one
empty-string sentinel that the rail blocks. `guarded_stream()` owns the plumbing for one request: a session,
its id in a context message, the ContextVar in NeMo's generation task, and the outcome afterwards.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import AsyncIterable, AsyncIterator, Mapping
from contextlib import suppress
from typing import Any

from nemoguardrails import LLMRails

from sluicegate import Outcome, StreamFilter
from sluicegate.host import sdk_text
from sluicegate.prompts import settings_of, sources_block, system_prompt
from sluicegate.sources import source_text

from .llm import GatedLLM, UngatedStream, session_steps
from .rail_config import installed
from .session import CONTEXT_KEY, StreamSession, set_current


async def gated(upstream: AsyncIterable[Any], session: StreamSession) -> AsyncIterator[str]:
    """Released pieces of `upstream`, then `""` if the filter stopped. Pass it as `rails.stream_async(generator=...)`.

    `upstream` may be the provider SDK's stream object itself (`await client.chat.completions.create(...,
    stream=True)`, Anthropic's `messages.stream(...)`), str pieces, or chunks with `.delta_content`/`.content`/
    `.text`. The upstream object is closed as soon as the filter stops, and within one upstream piece of the
    consumer leaving (the session's `cancelled` flag is checked at every piece, also while a sentence is held).
    """
    session.gated = True

    steps = session_steps(session, upstream, _text_of)
    try:
        async for step in steps:
            if session.cancelled:
                return  # the consumer left: the finally closes the app's model stream
            if step.text:
                yield step.text
    finally:
        await steps.aclose()
    if session.filter.stopped:
        yield ""  # the sentinel: the rail blocks exactly this window, so no released text is withheld


def _text_of(item: Any) -> str:
    if isinstance(item, str):
        return item
    text = sdk_text(item)  # an OpenAI / Anthropic / litellm SDK stream item
    if text is not None:
        return text
    for name in ("delta_content", "content", "text"):
        value = getattr(item, name, None)
        if isinstance(value, str):
            return value
    if item is None or getattr(item, "delta_content", "") is None:
        return ""
    raise TypeError(f"cannot read text from a stream item of type {type(item).__name__}")


def parse_error_frame(chunk: Any) -> dict | None:
    """NeMo ends a stream with a JSON string `{"error": {...}}`; return its inner dict, else None."""
    if not isinstance(chunk, str) or not chunk.startswith("{"):
        return None
    try:
        frame = json.loads(chunk)
    except ValueError:
        return None
    error = frame.get("error") if isinstance(frame, dict) else None
    return error if isinstance(error, dict) else None


def is_block_frame(chunk: Any) -> bool:
    """NeMo's standard block: `{"error": {"type": "guardrails_violation", ...}}`."""
    error = parse_error_frame(chunk)
    return error is not None and error.get("type") == "guardrails_violation"


class GuardedStream:
    """An async iterator over what LLMRails sends the client for one guarded request.

    Text chunks are sluicegate-released text; the last chunk may be a NeMo error frame (`is_block_frame`).
    After iteration, `outcome` says how it ended, `blocked` whether NeMo sent the block frame, and
    `session.violations` holds the filter's server-side details.
    """

    def __init__(self, rails: LLMRails, session: StreamSession, messages: list[dict], generator: Any) -> None:
        self.session = session
        self.blocked = False
        self.error: dict | None = None
        if generator is not None:
            generator = gated(generator, session)
        self._gated = generator
        self._pending: asyncio.Future[str] | None = None
        # Bind the session in a copied context: stream_async() starts NeMo's generation task from it (so a
        # GatedLLM sees the session), and nothing has to be reset across yields in the caller's task.
        ctx = contextvars.copy_context()
        ctx.run(set_current, session)
        self._chunks: AsyncIterator[str] = ctx.run(rails.stream_async, messages=messages, generator=generator)

    @property
    def outcome(self) -> Outcome:
        return self.session.outcome

    def __aiter__(self) -> AsyncIterator[str]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[str]:
        """`async for` gets a generator so that a `break` or a cancelled consumer still ends the model stream
        (Python finalises an abandoned async generator; a plain iterator object is never told)."""
        try:
            while True:
                try:
                    chunk = await self.__anext__()
                except StopAsyncIteration:
                    return
                yield chunk
        finally:
            await self.aclose()

    async def __anext__(self) -> str:
        # Shielded: a cancelled consumer must set the flag *before* NeMo's iterator sees the cancellation, since
        # NeMo's iterator then waits for its generation task, which would read the model to the end.
        self._pending = asyncio.ensure_future(self._chunks.__anext__())
        try:
            chunk = await asyncio.shield(self._pending)
        except StopAsyncIteration:
            self.session.close()
            raise
        except asyncio.CancelledError:
            self.session.cancelled = True
            self._pending.cancel()
            raise
        error = parse_error_frame(chunk)
        if error is not None:
            self.error = error
            self.blocked = self.blocked or error.get("type") == "guardrails_violation"
        return chunk

    async def aclose(self) -> None:
        """Stop for good: the gated model stream returns at its next step (NeMo's generation task would
        otherwise read the model to the end, and NeMo's own aclose waits for that task)."""
        self.session.cancelled = True
        if self._pending is not None and not self._pending.done():
            await asyncio.gather(self._pending, return_exceptions=True)  # quick now: the model stream returns
        for it in (self._chunks, self._gated):
            aclose = getattr(it, "aclose", None)
            if aclose is not None:
                with suppress(RuntimeError):  # being read right now by NeMo's task: it sees the flag and returns
                    await aclose()
        self.session.close()


def guarded_stream(
    rails: LLMRails,
    *,
    messages: list[dict],
    generator: AsyncIterable[Any] | None = None,
    filter: StreamFilter | None = None,
) -> GuardedStream:
    """Stream one request through `rails` with sluicegate upstream of NeMo's buffer.

    `generator`: the app's own model stream (design (a)); omit it when NeMo calls a `GatedLLM` (design (b)).
    `filter`: this stream's filter; by default the installed factory is called with the request's context
    (the content of the last `role: context` message, e.g. the sources a SentenceGate checks against).
    """
    if generator is None and not isinstance(getattr(rails, "llm", None), GatedLLM):
        raise UngatedStream(
            "guarded_stream without generator= needs NeMo's model wrapped in GatedLLM, or NeMo would stream "
            "text no filter saw: LLMRails(config, llm=GatedLLM(model)), or sluicegate_nemo.gate_llm(rails) "
            "after building rails from a config whose `models:` names the model"
        )
    context: Mapping[str, Any] = next(
        (m.get("content") or {} for m in reversed(messages) if m.get("role") == "context"), {}
    )
    if filter is None:
        factory = installed(rails).make_filter
        if factory is None:
            raise RuntimeError("no filter: pass filter=..., or install(rails, make_filter) with a factory")
        filter = factory(context)
    session = StreamSession(filter, prompt=session_prompt(filter, context))
    return GuardedStream(rails, session, with_session_id(messages, session), generator)


def session_prompt(filt: StreamFilter, context: Mapping[str, Any]) -> str | None:
    """sluicegate's system prompt for this stream's gate, with the context's sources numbered [S1]..: what a
    `GatedLLM` puts before NeMo's prompt. None when the filter holds no SentenceGate (no token to name)."""
    try:
        settings = settings_of(filt)
    except TypeError:
        return None
    raw = context.get("sources") or []
    texts = [s.get("text", "") if isinstance(s, Mapping) else source_text(s) for s in raw]
    return f"{system_prompt(settings=settings)}\n\n{sources_block(texts, language=settings.language)}"


def with_session_id(messages: list[dict], session: StreamSession) -> list[dict]:
    """A copy of `messages` whose context carries the session id (NeMo reads only the last context message).

    The id joins the last `role: context` message if there is one; else a context message goes first (NeMo
    replays messages in order, so a context message after the user turn would leave nothing to answer).
    """
    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        if out[i].get("role") == "context":
            out[i] = {**out[i], "content": {**(out[i].get("content") or {}), CONTEXT_KEY: session.id}}
            return out
    return [session.context_message(), *out]
