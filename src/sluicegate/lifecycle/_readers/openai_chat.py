"""OpenAI Chat Completions stream chunks (`chat.completion.chunk`).

Documented contract (platform.openai.com/docs/api-reference/chat-streaming, and the function-calling guide's
"Streaming" section): text arrives in `choices[].delta.content`; tool calls in `choices[].delta.tool_calls[]`,
each fragment keyed by its `index` (the first fragment of a call carries `id` and `function.name`, later ones
only `function.arguments` pieces); `finish_reason` is null until the chunk that ends the choice (`stop`,
`tool_calls`, `length`, `content_filter`, deprecated `function_call`); `data: [DONE]` closes the HTTP stream; a
usage-only chunk with empty `choices` may precede it. No sequence numbers and no per-item done event.

Compatible servers (OpenRouter, LiteLLM, vLLM...) report a failure mid-stream as an `error` object inside a data
line, with or without `choices` (OpenRouter sends `finish_reason: "error"` beside it): the generation fails and
the provider's `error.code` (or `type`) is carried into the rejection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._ops import Delta, Kind, Op, ProviderId, StreamViolation, Terminal
from .base import DONE_SENTINEL, Reader
from .codes import provider_code

_COMPLETED = {"stop", "tool_calls", "function_call"}
_INCOMPLETE = {"length", "content_filter"}


class OpenAIChatReader(Reader):
    """Reads Chat Completions chunks for one choice (`n=1`; other choice indexes fail the generation)."""

    closes_items_at_terminal = True
    provider = "openai_chat"

    def __init__(self) -> None:
        super().__init__()
        self._id: str | None = None
        self._finished = False
        self._refused = False

    def read_payload(self, name: str | None, payload: Mapping[str, Any] | str) -> list[Op]:
        if payload == DONE_SENTINEL:
            # The HTTP stream ended; without a finish_reason first, the choice never finished.
            return [] if self._finished else [Terminal("incomplete", "done_without_finish_reason")]
        assert isinstance(payload, Mapping)
        error = payload.get("error")
        if error:  # what the SDK raises on (`data.get("error")`); `"error": null` is not a failure
            code = provider_code(error, "code", "type")
            return [Terminal("failed", code or "error", provider_code=code)]
        ops: list[Op] = []
        chunk_id = payload.get("id")
        if isinstance(chunk_id, str) and chunk_id:
            if self._id is None:
                self._id = chunk_id
                ops.append(ProviderId(chunk_id))
            elif chunk_id != self._id:
                return [StreamViolation("provider_id_changed")]
        choices = payload.get("choices") or []
        if not isinstance(choices, list):
            return [StreamViolation("choices_not_a_list")]
        for choice in choices:
            ops.extend(self._choice(choice))
        return ops

    def _choice(self, choice: Any) -> list[Op]:
        if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
            return [StreamViolation("multiple_choices_unsupported")]
        ops: list[Op] = []
        delta = choice.get("delta") or {}
        content = delta.get("content")
        if isinstance(content, str) and content:
            ops.append(Delta("text:0", content, kind=Kind.TEXT))
        if delta.get("refusal"):
            self._refused = True
        if delta.get("function_call"):
            # The deprecated `functions` API: a call without an id, which cannot be confirmed or answered by id.
            # Refused by name rather than dropped (the SDK returns it as `message.function_call`).
            return [StreamViolation("legacy_function_call")]
        for call in delta.get("tool_calls") or []:
            index = call.get("index") if isinstance(call, Mapping) else None
            if not isinstance(index, int) or isinstance(index, bool):
                return [StreamViolation("tool_call_without_index")]
            function = call.get("function") or {}
            arguments = function.get("arguments") or ""
            if not isinstance(arguments, str):
                return [StreamViolation("arguments_not_a_string")]
            ops.append(
                Delta(f"tool:{index}", arguments, kind=Kind.TOOL, call_id=call.get("id"), name=function.get("name"))
            )
        reason = choice.get("finish_reason")
        if reason is not None:
            self._finished = True
            if self._refused:
                ops.append(Terminal("failed", "refusal"))
            elif reason == "error":  # OpenRouter's mid-stream failure without an error object
                ops.append(Terminal("failed", "error"))
            elif reason in _COMPLETED:
                ops.append(Terminal("completed", str(reason)))
            elif reason in _INCOMPLETE:
                ops.append(Terminal("incomplete", str(reason)))
            else:  # an undocumented reason is not proof of completion
                ops.append(Terminal("incomplete", "unknown_finish_reason"))
        return ops
