"""Streaming a Guardrails AI guard with a sluicegate validator: the model wrapper, the EOS marker, the verdict."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import suppress
from typing import Any

from sluicegate import Outcome, adrive, drive, notice_chunk
from sluicegate.host import sdk_text
from sluicegate.prompts import render_prompt
from sluicegate.sources import source_texts

from .state import EOS, STATE_KEY, StreamState
from .validators import SluicegateValidator, uses_on_output


def _validator(guard: Any) -> SluicegateValidator:
    calls = uses_on_output(guard)
    if len(calls) > 1:
        kept = ", ".join(type(v).__name__ for v in calls[-1])
        dropped = ", ".join(type(v).__name__ for call in calls[:-1] for v in call)
        raise ValueError(
            f"Guard.use() was called {len(calls)} times on the output: guardrails keeps only the last call's "
            f"validators ({kept}) and silently drops {dropped}, so the stream would not be gated as you wrote "
            "it. Use one sluicegate validator whose filter does both, e.g. Guard().use(sg.StreamGate("
            'filter=gate_from("sources", redact=True))) (gate, then redaction)'
        )
    validators = list(getattr(guard, "_validator_map", {}).get("$", []))
    ours = [v for v in validators if isinstance(v, SluicegateValidator)]
    if len(ours) != 1 or len(validators) != 1:
        # guardrails merges several validators' outputs with diff-match-patch at different cadences: not exact
        raise ValueError("the guard must have exactly one validator on the output, a sluicegate one")
    ours[0].require_fix()
    return ours[0]


def _text(item: Any) -> str:
    if isinstance(item, str):
        return item
    text = sdk_text(item)  # OpenAI / Anthropic / litellm stream items
    if text is not None:
        return text
    choices = getattr(item, "choices", None)
    if choices:
        delta = getattr(choices[0], "delta", None)
        value = getattr(delta, "content", None) if delta is not None else getattr(choices[0], "text", None)
        return value or ""
    return "" if item is None else str(item)


class GuardedStream:
    """Validated text from one guard call; after iteration `violation`, `outcome`, `state` tell how it ended."""

    def __init__(self, state: StreamState, outcomes: Any) -> None:
        self.state = state
        self._outcomes = outcomes
        self.raw_outcomes: list[Any] = []

    @property
    def violation(self) -> str | None:
        return self.state.violation

    @property
    def outcome(self) -> Outcome:
        return self.state.outcome

    def _take(self, vo: Any) -> str:
        self.raw_outcomes.append(vo)
        text = vo.validated_output
        return text if isinstance(text, str) else ""

    def _notice(self, released: bool) -> str:
        """After a stop, the reader is shown the fixed notice last, as every sluicegate adapter shows it."""
        return notice_chunk(self.state.outcome, released=released)

    def __iter__(self) -> Iterator[str]:
        released = False
        try:
            for vo in self._outcomes:
                text = self._take(vo)
                if text:
                    released = True
                    yield text
            notice = self._notice(released)
            if notice:
                yield notice
        finally:
            # The consumer stopped (or the stream ended). Our model callable first, so the driver closes the
            # model stream now; closing Guardrails' generator makes its telemetry read that callable to the
            # end, which then ends at once (closed, and the flag is set for any read still to come).
            self.state.cancelled = True
            for it in (self.state.source, self._outcomes):
                close = getattr(it, "close", None)
                if callable(close):
                    close()

    async def __aiter__(self) -> AsyncIterator[str]:
        released = False
        try:
            async for vo in self._outcomes:
                text = self._take(vo)
                if text:
                    released = True
                    yield text
            notice = self._notice(released)
            if notice:
                yield notice
        finally:
            self.state.cancelled = True
            # Our model callable first (the driver closes the model stream), then Guardrails' generator, which
            # does not close the model stream it was reading.
            for it in (self.state.source, self._outcomes):
                aclose = getattr(it, "aclose", None)
                if callable(aclose):
                    with suppress(RuntimeError):  # being read right now in another task: it sees the flag and returns
                        await aclose()


def _stream_of(result: Any, attr: str) -> Any:
    """The model's stream: the object the callable returned when it is iterable (an SDK stream, litellm's
    `CustomStreamWrapper`: the driver closes that object), else its `completion_stream` (guardrails' own shape)."""
    if hasattr(result, attr):
        return result
    return getattr(result, "completion_stream", result)


def _prepare(guard: Any, metadata: Mapping[str, Any] | None) -> tuple[StreamState, dict]:
    validator = _validator(guard)
    meta = dict(metadata or {})
    state = StreamState(validator.make_filter(meta))
    meta[STATE_KEY] = state
    return state, meta


def default_messages(guard: Any, metadata: Mapping[str, Any] | None) -> list[dict[str, str]] | None:
    """sluicegate's prompt (`sluicegate.prompts`) as chat messages, for a call that passes no `messages=`:
    the rules in the system message, in the gate's language with its refusal token, and `metadata["sources"]`
    numbered [S1].. with `metadata["question"]` in the user message. None without a question."""
    meta = dict(metadata or {})
    if not isinstance(meta.get("question"), str):
        return None
    gate = _validator(guard).make_filter(meta)
    return render_prompt(source_texts(meta.get("sources", [])), meta["question"], gate=gate).messages()


def with_default_messages(guard: Any, metadata: Mapping[str, Any] | None, kwargs: dict[str, Any]) -> dict[str, Any]:
    """`kwargs` with `messages=` from `default_messages` when the caller passed none (theirs win)."""
    if kwargs.get("messages") is not None:
        return kwargs
    messages = default_messages(guard, metadata)
    return kwargs if messages is None else {**kwargs, "messages": messages}


def stream(
    guard: Any, llm_api: Callable[..., Any], *, metadata: Mapping[str, Any] | None = None, **kwargs: Any
) -> GuardedStream:
    """`guard(llm_api, stream=True, ...)` with the sluicegate filter on the model stream (sync `Guard`).

    Without `messages=`, `metadata["question"]` and `metadata["sources"]` make sluicegate's prompt."""
    kwargs = with_default_messages(guard, metadata, kwargs)
    state, meta = _prepare(guard, metadata)

    def gated_llm(*args: Any, messages: Any = None, **kw: Any) -> Iterator[str]:
        state.source = released(*args, messages=messages, **kw)
        return state.source

    def released(*args: Any, messages: Any = None, **kw: Any) -> Iterator[str]:
        upstream = _stream_of(llm_api(*args, messages=messages, **kw), "__iter__")
        steps = drive(
            upstream, state.filter, text_of=_text, outcome=state.outcome, is_cancelled=lambda: state.cancelled
        )
        try:
            for step in steps:
                if state.cancelled:
                    return  # the finally closes `steps`: drive closes the model, outcome "cancelled"
                if step.text:
                    state.pending.append(step.text)
                    yield step.text
        finally:
            steps.close()
        if not state.cancelled:
            yield EOS

    return GuardedStream(state, guard(gated_llm, stream=True, metadata=meta, **kwargs))


class _AsyncStreamResponse:
    """What AsyncGuard expects from a custom async callable with stream=True: `.completion_stream`."""

    def __init__(self, completion_stream: AsyncIterator[str]) -> None:
        self.completion_stream = completion_stream


async def astream(
    guard: Any, llm_api: Callable[..., Any], *, metadata: Mapping[str, Any] | None = None, **kwargs: Any
) -> GuardedStream:
    """The `AsyncGuard` twin of `stream`; `llm_api` returns (or awaits to) an async iterator of pieces."""
    kwargs = with_default_messages(guard, metadata, kwargs)
    state, meta = _prepare(guard, metadata)

    async def cancelled() -> bool:
        return state.cancelled

    async def pieces(*args: Any, **kw: Any) -> AsyncIterator[str]:
        result = llm_api(*args, **kw)
        if inspect.isawaitable(result):
            result = await result
        # The stream object itself goes to the driver, which closes it (an SDK stream's awaitable close(),
        # litellm's aclose()) on a stop, a failure, or the consumer leaving, within one piece (`is_cancelled`).
        steps = adrive(
            _stream_of(result, "__aiter__"), state.filter, text_of=_text, outcome=state.outcome, is_cancelled=cancelled
        )
        try:
            async for step in steps:
                if state.cancelled:
                    return
                if step.text:
                    state.pending.append(step.text)
                    yield step.text
        finally:
            await steps.aclose()
        if not state.cancelled:
            yield EOS

    async def gated_llm(*args: Any, messages: Any = None, **kw: Any) -> _AsyncStreamResponse:
        state.source = pieces(*args, messages=messages, **kw)
        return _AsyncStreamResponse(state.source)

    outcomes = await guard(gated_llm, stream=True, metadata=meta, **kwargs)
    return GuardedStream(state, outcomes)


class Checked:
    """A whole-string verdict: `validated_output` (the released text), `text` (what to show: the released text,
    then the fixed notice after a stop), and the violation (None when it passed)."""

    def __init__(self, validated_output: str, state: StreamState) -> None:
        self.validated_output = validated_output
        self.state = state

    @property
    def violation(self) -> str | None:
        return self.state.violation

    @property
    def outcome(self) -> Outcome:
        return self.state.outcome

    @property
    def text(self) -> str:
        return self.validated_output + notice_chunk(self.state.outcome, released=bool(self.validated_output))


def validate(guard: Any, text: str, *, metadata: Mapping[str, Any] | None = None) -> Checked:
    """`guard.validate(text)` for a non-streaming answer, with the violation read from sluicegate itself."""
    state, meta = _prepare(guard, metadata)
    result = guard.validate(text, metadata=meta)
    output = result.validated_output
    return Checked(output if isinstance(output, str) else "", state)
