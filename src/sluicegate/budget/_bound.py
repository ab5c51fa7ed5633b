"""The upper bound of a prompt's tokens: one token per UTF-8 byte, plus a per-message framing allowance.

Why bytes: in a byte-level BPE a token is a non-empty byte string, so no text yields more tokens than bytes, in
any language (seed 002; a chars-per-token rule undercounts Persian). Chat templates add tokens the text does
not contain (role markers, separators, the reply primer), so each message is also charged its role's bytes and
a fixed allowance: without it a prompt of many short messages could cost more than its "bound".
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

MESSAGE_OVERHEAD_TOKENS = 8  # chat framing per message; OpenAI documents 3-4, Llama-style templates about 5


def _utf8(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


NON_TEXT_PARTS = frozenset({"image", "image_url", "input_image", "audio", "input_audio", "file", "input_file"})


def _content_bytes(content: Any) -> int:
    """Bytes of a message content: a str, a list of parts, or structured data (tool calls, arguments).

    A text part counts its text. Structured data counts its JSON form (keys, quotes and all: over, never
    under). Images, audio and files are billed by the provider in ways no byte count bounds, so they are a
    clear error rather than a silent under-count.
    """
    if content is None:
        return 0
    if isinstance(content, str):
        return _utf8(content)
    if isinstance(content, Mapping):
        kind = content.get("type")
        if kind in NON_TEXT_PARTS:
            raise ValueError(f"the spend cap's byte bound covers text only, not a {kind!r} part")
        if kind in ("text", "input_text", "output_text") and isinstance(content.get("text"), str):
            return _utf8(content["text"])
        return _utf8(json.dumps(content, ensure_ascii=False, default=str))
    if isinstance(content, Iterable):
        return sum(_content_bytes(part) for part in content)
    return _utf8(json.dumps(content, ensure_ascii=False, default=str))


def _message_bytes(message: Any) -> tuple[int, str]:
    """(bytes, role) of one message: a str, a mapping with role/content, or an object with .content/.type."""
    if isinstance(message, str):
        return _utf8(message), ""
    if isinstance(message, Mapping):
        role = str(message.get("role", ""))
        return _content_bytes(message.get("content")) + _content_bytes(message.get("tool_calls")), role
    content = getattr(message, "content", None)
    if content is None and not hasattr(message, "content"):
        raise TypeError(f"cannot count the bytes of a prompt message of type {type(message).__name__}")
    role = str(getattr(message, "role", None) or getattr(message, "type", "") or "")
    return _content_bytes(content) + _content_bytes(getattr(message, "tool_calls", None)), role


def prompt_tokens_bound(prompt: Any, *, overhead: int = MESSAGE_OVERHEAD_TOKENS) -> tuple[int, int]:
    """(upper bound of input tokens, UTF-8 bytes of the text) for a str or a sequence of messages.

    A bare string is one message, as is a single `{"role", "content"}` mapping; so is each element of a
    sequence (str, `{"role", "content"}` dict, or a framework message object with `.content`).
    """
    # One mapping is one message: iterated, it would count its key names, not its content (an under-count).
    messages = [prompt] if isinstance(prompt, (str, Mapping)) else list(prompt)
    total_bytes = 0
    bound = overhead  # the reply primer
    for message in messages:
        size, role = _message_bytes(message)
        total_bytes += size
        bound += size + _utf8(role) + overhead
    return bound, total_bytes
