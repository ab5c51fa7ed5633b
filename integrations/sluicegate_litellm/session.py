"""One answer through the core's guarded call: provider chunks in, what the client may see out.

The same object serves the stream hook (one chunk at a time) and the whole-answer hook (the answer as one
chunk), so both show the same thing: the gate is chunk-invariant, and tool calls are only ever released whole,
after the terminal event, validated against the request's `tools` (`sluicegate.lifecycle`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sluicegate import GuardedCall, Redactor, Show, Stop, StreamFilter, ToolCallValidated
from sluicegate.host import NOTICE_SEPARATOR
from sluicegate.lifecycle import Generation, OpenAIChatReader, ToolCall, schema_tools
from sluicegate.sources import gate_factory

from .options import RequestOptions

# Shown when a tool call fails validation (unknown tool, arguments that break its schema, no terminal event
# yet the stream failed): the call is dropped and the answer stops, as a gate stop does.
TOOL_NOTICE = "A tool call in this answer did not pass validation and was held back."
# Shown when the request's sluicegate options are malformed: nothing of the answer is released.
OPTIONS_NOTICE = "This answer was held back: the request's sluicegate options were malformed."


@dataclass
class Released:
    """What one chunk released: text pieces, then (at most once) a stop notice or the validated tool calls
    and the finish reason."""

    texts: list[str] = field(default_factory=list)
    notice: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None


def _filter_factory(options: RequestOptions, redact: bool) -> Any:
    if options.sources is not None:
        gate_options = {"language": options.language} if options.language else {}
        return gate_factory(redact=redact, **gate_options)

    def redactor_only(_texts: Sequence[str]) -> StreamFilter:
        return Redactor()

    if not redact:
        raise ValueError("a request without sources needs the redactor (redact=True): nothing would be checked")
    return redactor_only


class AnswerSession:
    """The guarded call for one request (no budget, no retrieval: the proxy owns those)."""

    def __init__(self, options: RequestOptions, tools: Sequence[Mapping[str, Any]] | None, *, redact: bool = True):
        schemas = schema_tools(list(tools or []))

        def generation(text_filter: StreamFilter) -> Generation:
            return Generation(schemas, reader=OpenAIChatReader(), text_filter=text_filter)

        self.call = GuardedCall(
            sources=list(options.sources or []),
            language=options.language,
            filter_factory=_filter_factory(options, redact),
            generation=generation,
            prompt=False,
        )
        self.call.start()
        self.released_text = False
        self.stopped = False
        self.finished = False

    def feed(self, payload: Mapping[str, Any]) -> Released:
        """One `chat.completion.chunk` (as a dict); after a stop or the end, nothing more is released."""
        out = Released()
        if self.stopped or self.finished:
            return out
        for action in self.call.event(payload):
            if isinstance(action, Show):
                out.texts.append(action.text)
            elif isinstance(action, Stop):
                out.notice = action.notice
            elif isinstance(action, ToolCallValidated):
                out.tool_calls.append(action.call)
        if out.notice is None and self.call.stopped:  # the generation failed: a tool call, or the provider
            out.notice = TOOL_NOTICE
        generation = self.call.generation
        if out.notice is not None:
            out.tool_calls = []
            self.stopped = True
        elif generation is not None and generation.state.value == "validated":
            self.finished = True
            out.finish_reason = "tool_calls" if out.tool_calls else _finish_reason(payload)
        elif generation is not None and generation.state.value == "incomplete":
            # `length` (or another reason that proves nothing): the held text and any tool call stay held,
            # and the client is told how the provider ended
            self.finished = True
            out.finish_reason = _finish_reason(payload)
        if out.texts:
            self.released_text = True
        return out

    def notice_text(self, notice: str, *, released_before: bool) -> str:
        """The notice set off as a paragraph when text was released before it (as `drive_text` shows it)."""
        return NOTICE_SEPARATOR + notice if released_before else notice

    def end(self, error: BaseException | None = None) -> None:
        self.call.end(error=error)


def _finish_reason(payload: Mapping[str, Any]) -> str:
    for choice in payload.get("choices") or []:
        if isinstance(choice, Mapping) and choice.get("finish_reason"):
            return str(choice["finish_reason"])
    return "stop"
