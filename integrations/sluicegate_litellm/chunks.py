"""LiteLLM's own chunk objects for what the guardrail releases, so the proxy serialises them as it does its own.

Every chunk copies the upstream stream's id, model and created time from the first chunk seen (a client that
checks the id sees one stream).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices


def _chunk(template: Any, delta: Delta, finish_reason: str | None = None) -> ModelResponseStream:
    return ModelResponseStream(
        id=getattr(template, "id", None),
        created=getattr(template, "created", None),
        model=getattr(template, "model", None),
        choices=[StreamingChoices(index=0, delta=delta, finish_reason=finish_reason)],
    )


def text_chunk(template: Any, text: str) -> ModelResponseStream:
    return _chunk(template, Delta(content=text, role="assistant"))


def notice_chunk(template: Any, text: str) -> ModelResponseStream:
    """The stop: the notice as the last text, `finish_reason: "content_filter"` on the same chunk."""
    return _chunk(template, Delta(content=text, role="assistant"), "content_filter")


def tool_call_dicts(calls: Sequence[Any]) -> list[dict[str, Any]]:
    """Validated `ToolCall`s in the OpenAI wire shape (arguments: the validated value as JSON)."""
    return [
        {
            "index": i,
            "id": c.call_id,
            "type": "function",
            "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
        }
        for i, c in enumerate(calls)
    ]


def tool_calls_chunk(template: Any, calls: Sequence[Any]) -> ModelResponseStream:
    """Each validated call whole, in one chunk, released only after the terminal event."""
    return _chunk(template, Delta(role="assistant", tool_calls=tool_call_dicts(calls)))


def finish_chunk(template: Any, reason: str) -> ModelResponseStream:
    return _chunk(template, Delta(), reason)
