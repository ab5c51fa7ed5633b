"""The relay: upstream SSE bytes in, the client's frames out, through a `GuardedCall` (sans-I/O).

One relay per request. `feed(data)` takes the upstream's bytes cut anywhere (its own `SSEParser`), hands each
event to the call's tool-call `Generation` (whose text filter is the gate and/or the redactor), and returns
the frames to write: released text, whole validated tool calls after the terminal event, and, on a stop, the
notice and the dialect's stop shape (then `stopped` is True: close the upstream now). `close(error=)` is the
upstream's end (or its failure): it writes the normal end with the usage the upstream billed, or the
dialect's in-stream error. For a non-streaming request the same relay runs and `body()` is the response.
Server-side tool blocks (web search, code execution...) pass through whole, in the upstream's order relative
to the released text (`_passthrough`); nothing passes after a stop.
Reasoning text is never written unless `Relay(reasoning=...)` asks for it; then `_reasoning.py` writes it,
through redactors of its own, before each event's answer frames.

Released text, the stop and the end depend only on the upstream's events, so they are the same for every
way the upstream bytes are cut (tests/dialects/test_relay.py proves it at every byte position).
"""

from __future__ import annotations

import contextlib
import json
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._driver import FALLBACK_NOTICE, NOTICE_SEPARATOR
from .._stream import StreamFilter
from ..call import GuardedCall, Show, Stop, ToolCallValidated
from ..sse import SSEParser
from ._anthropic import AnthropicEncoder
from ._base import Billed, Encoder, End
from ._chat import ChatEncoder
from ._passthrough import (
    AnthropicBlocks,
    Mark,
    MarkedFilter,
    ResponsesItems,
    quote_redactor,
    redacted_citation,
    split_release,
)
from ._reasoning import Reasoning
from ._reasoning import read as read_reasoning
from ._request import ClientRequest
from ._responses import ResponsesEncoder

if TYPE_CHECKING:
    from .._usage import UsageMeter
    from ..budget import CallBudget
    from ..evidence import Preflight

_LENGTH = frozenset({"length", "max_tokens", "max_output_tokens", "model_context_window_exceeded"})
_LIVE = ("received", "provisional")
_CHAT_TEXT = ("content", "refusal", "reasoning_content", "reasoning")  # the delta fields the meter counts


def encoder_for(request: ClientRequest, **kwargs: Any) -> Encoder:
    """The encoder of the request's dialect (`answer_id`, `created` fix the ids, for tests)."""
    if request.dialect == "chat":
        return ChatEncoder(request.model, include_usage=request.include_usage, **kwargs)
    if request.dialect == "anthropic":
        return AnthropicEncoder(request.model, **kwargs)
    return ResponsesEncoder(request.model, **kwargs)


def text_filter(
    request: ClientRequest,
    *,
    redact: bool = True,
    gate_options: Mapping[str, Any] | None = None,
    redactor_options: Mapping[str, Any] | None = None,
    redactor: Callable[[], StreamFilter] | None = None,
) -> Callable[[Any], StreamFilter]:
    """The pipeline: with `sources`, the sentence gate then the redactor; without, the redactor alone.

    `redactor_options` go to `Redactor` (`entities`, `allow`, ...): the operator's choice of detectors.
    `redactor`: a maker of fresh redactors built once for many requests (`Redactor.factory(**options)`), in
    place of `redactor_options` (which compile the detectors again for each request)."""
    from .._stream import Pipeline
    from ..sources import gate_factory

    make = redactor
    if make is None:
        from ..redaction import Redactor

        ropts = dict(redactor_options or {})
        make = lambda: Redactor(**ropts)  # noqa: E731 - built when the stream opens, as before
    if request.sources is not None:
        options = dict(gate_options or {})
        if request.language:
            options["language"] = request.language
        gate = gate_factory(redact=False, **options)
        if not redact:
            return gate
        return lambda texts: Pipeline(gate(texts), make())
    return lambda _sources: make()


def build_call(
    request: ClientRequest,
    *,
    budget: CallBudget | None = None,
    preflight: Preflight | None = None,
    redact: bool = True,
    redactor_options: Mapping[str, Any] | None = None,
    redactor: Callable[[], StreamFilter] | None = None,
) -> GuardedCall:
    """The guarded call for one proxied request: tool calls validated against the request's own schemas.

    `preflight` (refusal rules, evidence threshold) applies to the last user message when sources are given.
    The client's messages go upstream unchanged (no prompt is rendered: the client wrote it). `redactor`: see
    `text_filter` (a server builds it once, at start-up).
    """
    from ..lifecycle import AnthropicReader, Generation, OpenAIChatReader, OpenAIResponsesReader

    readers = {"chat": OpenAIChatReader, "responses": OpenAIResponsesReader, "anthropic": AnthropicReader}
    reader = readers[request.dialect]
    tools = dict(request.tools)

    def generation(filt: StreamFilter) -> Generation:
        # Marked: the relay learns which raw text each release settled, to place server blocks in order.
        return Generation(tools, reader=reader(), text_filter=MarkedFilter(filt))

    if tools:  # a schema the strict validator cannot close: refused now, not mid-stream
        Generation(tools, reader=reader())
    screened = preflight is not None and request.sources is not None and isinstance(request.question, str)
    return GuardedCall(
        request.question if screened else None,
        language=request.language,
        sources=None if screened else list(request.sources or ()),
        preflight=preflight if screened else None,
        budget=budget,
        filter_factory=text_filter(request, redact=redact, redactor_options=redactor_options, redactor=redactor),
        generation=generation,
        prompt=False,
    )


class Relay:
    """Upstream bytes -> client frames for one request (see the module docstring).

    `reasoning`: None (the default) shows no reasoning text at all; a mapping (the `Redactor` options, `{}` for
    the defaults) or a `Redactor.factory(...)` shows it through redactors of its own (`_reasoning.py`).
    `quotes`: what a citation's quoted text becomes (default: the default redactor's output; the proxy passes
    `quote_redactor` with its own redactor)."""

    def __init__(
        self,
        call: GuardedCall,
        encoder: Encoder,
        dialect: str,
        *,
        reasoning: Mapping[str, Any] | Callable[[], Any] | None = None,
        quotes: Callable[[str], str] | None = None,
    ) -> None:
        self.call = call
        self.encoder = encoder
        self.dialect = dialect
        self.reasoning = None if reasoning is None else Reasoning(encoder, reasoning)
        self.quotes = quotes or quote_redactor()
        self.server: AnthropicBlocks | ResponsesItems | None = None
        if dialect == "anthropic":
            self.server = AnthropicBlocks()
        elif dialect == "responses":
            self.server = ResponsesItems()
        self.marks: deque[Mark] = deque()  # server blocks, boundaries, citations waiting for the text before them
        self.passed = 0  # server blocks written
        self.parser = SSEParser()
        self.stopped = False  # a stop was written: close the upstream now
        self.reason: str | None = None  # the end, as a code: complete, tool_calls, length, stopped, or an error
        self.events = 0
        self.bytes_in = 0

    @property
    def meter(self) -> UsageMeter:
        return self.call.meter

    @property
    def ended(self) -> bool:
        return self.encoder.ended

    @property
    def billed(self) -> Billed:
        usage = self.meter.usage
        return Billed(usage.input_tokens or 0, usage.output_tokens, dict(self.encoder.usage_details))

    def feed(self, data: bytes) -> bytes:
        """Upstream bytes (any cut); the frames to write now."""
        if self.ended:
            return b""
        self.bytes_in += len(data)
        try:
            events = self.parser.feed(data)
        except ValueError as exc:  # invalid UTF-8 is replaced, so: an event over the parser's size bound
            events = list(getattr(exc, "events", []))
            return self._events(events) + self._fail("upstream_malformed", "the upstream sent an unreadable event")
        return self._events(events)

    def _events(self, events: list[Any]) -> bytes:
        out = bytearray()  # one read can hold many events (and passed blocks are large): no quadratic copies
        for event in events:
            if self.ended:
                break
            self.events += 1
            payload = _decode(event.data)
            _meter(self.dialect, payload, self.meter)
            self.encoder.usage_details.update(usage_details(self.dialect, _usage_of(self.dialect, payload)))
            gen = self.call.generation
            live = gen is None or gen.state.value in _LIVE  # after the terminal event, nothing more passes
            if self.reasoning is not None:
                out += self._reasoning(payload, event.data)
                if self.ended:
                    break
            out += self._actions(self.call.event(event if payload is None else _Decoded(event, payload)))
            if payload is not None and live:
                out += self._server_side(payload)
            gen = self.call.generation
            rejections = gen.rejections if gen is not None else ()
            stopped = bool(rejections) and any(r.code == "text_gate_stopped" for r in rejections)
            if not self.ended and stopped:
                out += self._stop(FALLBACK_NOTICE)  # a filter stop without a notice of its own
        return bytes(out)

    def _marked(self) -> MarkedFilter | None:
        gen = self.call.generation
        filt = None if gen is None else gen.text_filter
        return filt if isinstance(filt, MarkedFilter) else None

    def _server_side(self, payload: dict[str, Any]) -> bytes:
        """Collect the event's server block, boundary or citation; write the marks whose text is settled."""
        gen, marked = self.call.generation, self._marked()
        if self.server is None or gen is None or self.ended or gen.state.value not in (*_LIVE, "validated"):
            return b""
        self.marks.extend(self.server.observe(payload, 0 if marked is None else marked.fed))
        return self._due()

    def _due(self) -> bytes:
        """The marks whose text before them is settled (all of them when the filter does not say)."""
        marked = self._marked()
        settled = None if marked is None else marked.settled
        out = b""
        while self.marks and not self.ended and (settled is None or self.marks[0].at <= settled):
            out += self._mark(self.marks.popleft())
        return out

    def _mark(self, mark: Mark) -> bytes:
        if mark.kind == "block":
            self.passed += 1
            return self.encoder.server(mark.data)
        if mark.kind == "boundary":
            return self.encoder.boundary(bool(mark.data))
        if mark.kind == "final":
            return self.encoder.finals(mark.data)
        if mark.kind == "annotations":
            return self.encoder.annotations(*mark.data)
        if mark.kind == "reasoning":
            return self._think(mark.data)
        return self.encoder.citation(redacted_citation(mark.data, self.quotes))

    def _show(self, text: str) -> bytes:
        """Released text, with the marks it settles in place (`split_release`)."""
        marked = self._marked()
        if marked is None or not self.marks:
            if marked is not None:
                marked.take(text)
            return self.encoder.text(text)
        out = b""
        for piece in split_release(marked.take(text), text, self.marks):
            out += self.encoder.text(piece) if isinstance(piece, str) else self._mark(piece)
        return out

    def _reasoning(self, payload: dict[str, Any] | None, data: str) -> bytes:
        """The event's reasoning frames, before its answer frames; a reasoning stop stops the response.

        While server blocks wait for held text, reasoning the upstream sent after them waits behind them (a
        mark of its own), so that it keeps its place in the upstream's order too (interleaved thinking)."""
        ops = read_reasoning(self.dialect, payload, data)
        if ops and self.marks:
            marked = self._marked()
            at = max(self.marks[-1].at, 0 if marked is None else marked.fed)
            self.marks.append(Mark(at, "reasoning", ops))
            return b""
        return self._think(ops)

    def _think(self, ops: list[Any]) -> bytes:
        assert self.reasoning is not None
        out = self.reasoning.apply(ops)
        if self.reasoning.notice is not None:
            out += self._stop(self.reasoning.notice)
        return out

    def _actions(self, actions: tuple[Show | Stop | ToolCallValidated, ...]) -> bytes:
        out = b""
        for action in actions:
            if isinstance(action, Show):
                out += self._show(action.text)
            elif isinstance(action, Stop):
                out += self._stop(action.notice)
                break
            elif isinstance(action, ToolCallValidated):
                out += self._due()  # server blocks before the text's end come before the held calls
                c = action.call
                out += self.encoder.tool_call(c.call_id, c.name, c.canonical)
        return out

    def _stop(self, notice: str) -> bytes:
        self.marks.clear()  # nothing the upstream sent after the stopped text passes
        self.stopped = True
        self.reason = "stopped"
        text = (NOTICE_SEPARATOR if self.encoder.answer.text else "") + notice
        held = self.reasoning.abort() if self.reasoning is not None else b""
        return held + self.encoder.text(text) + self.encoder.finish(End.CONTENT_FILTER, self.billed)

    def _fail(self, code: str, message: str) -> bytes:
        self.reason = code
        return self.encoder.error(code, message)

    def close(self, *, error: str | None = None) -> bytes:
        """The upstream ended (`error`: it failed, e.g. "upstream_disconnected"); the last frames."""
        if self.ended:
            return b""
        tail = b""
        with contextlib.suppress(ValueError):  # a character cut off at the very end: dropped, as the rules say
            tail = self._events(self.parser.close())
        return tail + (b"" if self.ended else self._end(error))

    def _end(self, error: str | None) -> bytes:
        out = self._settle_reasoning(error)
        return out if self.ended else out + self._answer_end(error)

    def _settle_reasoning(self, error: str | None) -> bytes:
        """At the end: reasoning parts still open end (flushed after a terminal event, dropped after a cut)."""
        if self.reasoning is None:
            return b""
        gen = self.call.generation
        if error is None and gen is not None and gen.state.value == "validated":
            out = self._due()  # the text is whole: what waited for it (reasoning too) goes first
            return out if self.ended else out + self._reasoning(None, "[DONE]")
        return self.reasoning.abort()

    def _answer_end(self, error: str | None) -> bytes:
        gen = self.call.generation
        if gen is None:
            return self._fail(error or "upstream_empty", "the upstream ended before any event")
        if gen.state.value in _LIVE:
            gen.close()
        state = gen.state.value
        terminal = gen.telemetry.terminal_reason
        if state == "validated":
            end = End.TOOL_CALLS if gen.tool_calls else End.COMPLETE
            self.reason = end.value
            return self._due() + self.encoder.finish(end, self.billed)
        if state == "incomplete" and terminal == "pause_turn" and self.dialect == "anthropic":
            return self._paused()
        if state == "incomplete" and terminal in _LENGTH:
            self.reason = "length"
            return self.encoder.finish(End.LENGTH, self.billed)
        codes = [r.code for r in gen.rejections]
        if state == "failed" and any(r.code == "provider_failed" and r.detail == "refusal" for r in gen.rejections):
            return self._stop(FALLBACK_NOTICE)  # the upstream refused: the same shape as our own stop
        if error is not None:
            return self._fail(error, "the upstream connection failed mid-stream")
        provider = next((r.provider_code or r.detail for r in gen.rejections if r.code == "provider_failed"), None)
        if provider is not None:
            return self._fail("upstream_error", f"the upstream reported an error ({provider})")
        if state == "incomplete":
            return self._fail(
                "upstream_incomplete", f"the upstream stream ended without its terminal event ({terminal})"
            )
        tools = [r for r in gen.rejections if r.tool or r.item != "*"]
        if tools:
            return self._fail("tool_call_rejected", "a tool call failed validation: " + ", ".join(sorted(set(codes))))
        return self._fail("upstream_rejected", "the upstream stream broke its format: " + ", ".join(sorted(set(codes))))

    def _paused(self) -> bytes:
        """Anthropic `pause_turn` (a long server-tool turn paused): the text is whole up to here, so the filter
        releases what it held; the blocks passed stay, and the client sends the message back to resume."""
        marked, out = self._marked(), b""
        if marked is not None:
            step = marked.flush()
            out += self._show(step.text) if step.text else b""
            if step.stopped or marked.stopped:
                return out + self._stop(FALLBACK_NOTICE)
        self.reason = "pause_turn"
        return out + self._due() + self.encoder.finish(End.PAUSED, self.billed)

    def refuse(self, text: str) -> bytes:
        """A refusal before the model (rules, evidence, cap): its fixed text, then the stop shape."""
        self.reason = "refused"
        return self.encoder.text(text) + self.encoder.finish(End.CONTENT_FILTER, Billed(0, 0))

    def body(self) -> tuple[int, dict[str, Any]]:
        """The non-streaming response: (status, body). An error end is a 502 in the dialect's error shape."""
        error = self.encoder.answer.error
        if error is not None:
            return 502, error_body(self.dialect, error[0], error[1], "upstream_error")
        return 200, self.encoder.body()


def error_body(dialect: str, code: str, message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """The dialect's error body for an HTTP error answer (400, 401, 413, 502...)."""
    from . import _anthropic, _chat

    if dialect == "anthropic":
        return _anthropic.error_body(code, message, kind)
    return _chat.error_body(code, message, kind)


class _Decoded:
    """An SSE event with its JSON decoded once (`coerce_event` reads `.payload`): the meter and the reader
    share one `json.loads` per upstream event instead of two."""

    __slots__ = ("data", "event", "id", "payload", "retry")

    def __init__(self, event: Any, payload: dict[str, Any]) -> None:
        self.event, self.data, self.id, self.retry = event.event, event.data, event.id, event.retry
        self.payload = payload


def _decode(data: str) -> dict[str, Any] | None:
    """The event's JSON object, or None (not JSON, not an object, `[DONE]`: the reader judges those itself)."""
    try:
        p = json.loads(data)
        # A lone surrogate escape is valid JSON but no UTF-8 text: "?" for it, so what is checked is what is shown.
        if ("\\ud" in data or "\\uD" in data) and _lone_surrogate(p):
            p = json.loads(json.dumps(p, ensure_ascii=False).encode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return p if isinstance(p, dict) else None


def _lone_surrogate(p: Any) -> bool:
    """A `\\ud800`-`\\udfff` escape not in a pair decodes to a str no frame can be written with."""
    try:
        json.dumps(p, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return True
    return False


def _meter(dialect: str, p: dict[str, Any] | None, meter: UsageMeter) -> None:
    """Count the raw generated text (the byte estimate) and record the usage the upstream reports."""
    if p is None:
        return
    try:
        if dialect == "chat":
            for choice in p.get("choices") or []:
                delta = choice.get("delta") or {}
                for key in _CHAT_TEXT:
                    text = delta.get(key)
                    if text and isinstance(text, str):
                        meter.observe(text)
                for call in delta.get("tool_calls") or []:
                    args = (call.get("function") or {}).get("arguments")
                    if isinstance(args, str) and args:
                        meter.observe(args)
            _report(meter, p.get("usage"), "completion_tokens", "prompt_tokens")
        elif dialect == "anthropic":
            kind = p.get("type")
            if kind == "content_block_delta":
                delta = p.get("delta") or {}
                for key in ("text", "partial_json", "thinking"):
                    if isinstance(delta.get(key), str) and delta[key]:
                        meter.observe(delta[key])
            elif kind == "message_start":  # its output figure is a placeholder: only the input counts
                _report(meter, (p.get("message") or {}).get("usage"), None, "input_tokens")
            elif kind == "message_delta":
                _report(meter, p.get("usage"), "output_tokens", "input_tokens")
        else:
            kind = str(p.get("type"))
            if kind.endswith(".delta") and isinstance(p.get("delta"), str) and p["delta"]:
                meter.observe(p["delta"])
            elif kind in ("response.completed", "response.incomplete", "response.failed"):
                _report(meter, (p.get("response") or {}).get("usage"), "output_tokens", "input_tokens")
    except (AttributeError, TypeError, ValueError):
        return  # a malformed payload: the generation fails on it; the meter keeps what it had


# The usage keys beyond the totals that each dialect's SDK types name (CompletionUsage, ResponseUsage,
# anthropic Usage/MessageDeltaUsage): a flat integer or an object of integers.
_DETAIL_KEYS = {
    "chat": ("prompt_tokens_details", "completion_tokens_details"),
    "responses": ("input_tokens_details", "output_tokens_details"),
    "anthropic": ("cache_creation_input_tokens", "cache_read_input_tokens", "cache_creation", "server_tool_use"),
}


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _usage_of(dialect: str, p: dict[str, Any] | None) -> Any:
    """The usage object an event carries, where the dialect puts it."""
    if p is None:
        return None
    if dialect == "anthropic" and p.get("type") == "message_start":
        message = p.get("message")
        return message.get("usage") if isinstance(message, Mapping) else None
    if dialect == "responses":
        response = p.get("response")
        return response.get("usage") if isinstance(response, Mapping) else None
    return p.get("usage")


def usage_details(dialect: str, usage: Any) -> dict[str, Any]:
    """The upstream's usage breakdown, integer figures only (anything else is left out, never passed)."""
    if not isinstance(usage, Mapping):
        return {}
    found: dict[str, Any] = {}
    for key in _DETAIL_KEYS.get(dialect, ()):
        value = usage.get(key)
        if _count(value):
            found[key] = value
        elif isinstance(value, Mapping):
            inner = {str(k): v for k, v in value.items() if _count(v)}
            if inner:
                found[key] = inner
    return found


def _report(meter: UsageMeter, usage: Any, output: str | None, input_key: str) -> None:
    if not isinstance(usage, Mapping):
        return
    out = usage.get(output) if output else None
    inp = usage.get(input_key)
    out = out if isinstance(out, int) and not isinstance(out, bool) and out >= 0 else None
    inp = inp if isinstance(inp, int) and not isinstance(inp, bool) and inp >= 0 else None
    if out is not None or inp is not None:
        meter.report(output_tokens=out, input_tokens=inp, cumulative=True)
