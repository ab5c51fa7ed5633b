"""Reading a client's request body: what the proxy needs from it, and the body that goes upstream.

The three dialects say the same things in different places: the stream flag, the model, the tools' JSON
Schemas (`tools[].function.parameters`, `tools[].parameters`, `tools[].input_schema`) and the last user
message. sluicegate's own per-request options ride under `"sluicegate"` (`extra_body` in the SDKs) and are
removed before the body goes upstream, which is always asked to stream (the proxy filters a non-streaming
request from the stream, so a stop can close it too) and, for Chat Completions, to report usage.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._errors import SluicegateError

DIALECTS = ("chat", "responses", "anthropic")
OPTIONS_KEY = "sluicegate"
_OPTION_NAMES = frozenset({"sources", "language"})


class RequestError(SluicegateError, ValueError):
    """The client's body cannot be served: answered with `status` (400) in the dialect's error shape."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


@dataclass(frozen=True)
class ClientRequest:
    """One parsed request. `upstream` is the body to send (options removed, streaming asked)."""

    dialect: str
    model: str
    stream: bool
    tools: Mapping[str, Mapping[str, Any]]
    question: str | None
    sources: tuple[str, ...] | None
    language: str | None
    include_usage: bool
    upstream: dict[str, Any] = field(repr=False)


def parse_request(dialect: str, raw: bytes | str) -> ClientRequest:
    """Read a client body of `dialect` ("chat", "responses", "anthropic"); raise `RequestError` if unusable."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}")
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise RequestError("invalid_json", "the request body is not valid JSON") from None
    if not isinstance(body, dict):
        raise RequestError("invalid_json", "the request body must be a JSON object")
    options = body.pop(OPTIONS_KEY, None)
    sources, language = _options(options)
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise RequestError("missing_model", "'model' must be a non-empty string")
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise RequestError("invalid_stream", "'stream' must be a boolean")
    tools = _tools(body.get("tools"))
    include_usage = False
    upstream = dict(body)
    upstream["stream"] = True
    if dialect == "chat":
        if not isinstance(body.get("messages"), list):
            raise RequestError("missing_messages", "'messages' must be a list")
        given = body.get("stream_options")
        include_usage = bool(stream and isinstance(given, Mapping) and given.get("include_usage"))
        upstream["stream_options"] = {**(given if isinstance(given, Mapping) else {}), "include_usage": True}
        if upstream.get("n", 1) not in (1, None):
            raise RequestError("unsupported_n", "only n=1 is supported: each choice would need its own filter")
        question = _last_user(body["messages"], "content")
    elif dialect == "anthropic":
        if not isinstance(body.get("messages"), list):
            raise RequestError("missing_messages", "'messages' must be a list")
        question = _last_user(body["messages"], "content")
        upstream["messages"] = _unsigned_thinking_dropped(body["messages"])
    else:
        given_input = body.get("input")
        if isinstance(given_input, str):
            question = given_input
        elif isinstance(given_input, list):
            question = _last_user(given_input, "content")
        else:
            raise RequestError("missing_input", "'input' must be a string or a list")
    return ClientRequest(dialect, model, stream, tools, question, sources, language, include_usage, upstream)


def _unsigned_thinking_dropped(messages: Sequence[Any]) -> list[Any]:
    """The messages to send up, without the thinking blocks our redactor marked (`UNSIGNED_THINKING`).

    Anthropic verifies every thinking block it is sent, so a marked one fails with a bare "invalid signature".
    Outside a tool-use cycle earlier thinking is not needed: marked blocks are dropped there (an assistant turn
    left empty goes too; Anthropic joins the user turns around it). The last assistant turn with a `tool_use`
    is the one whose thinking must come back unmodified: a marked block there is refused, saying why."""
    from ._reasoning import UNSIGNED_THINKING

    last_assistant = max((i for i, m in enumerate(messages) if _role(m) == "assistant"), default=-1)
    out: list[Any] = []
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, Mapping) else None
        if not isinstance(content, list):
            out.append(message)
            continue
        marked = [
            j
            for j, block in enumerate(content)
            if isinstance(block, Mapping)
            and block.get("type") == "thinking"
            and block.get("signature") == UNSIGNED_THINKING
        ]
        if not marked:
            out.append(message)
            continue
        in_tool_use = i == last_assistant and any(
            isinstance(b, Mapping) and b.get("type") == "tool_use" for b in content
        )
        if in_tool_use:
            raise RequestError(
                "thinking_redacted",
                f"messages[{i}].content[{marked[0]}] is a thinking block sluicegate redacted, so it has no "
                "signature Anthropic accepts, and this tool-use turn needs it back unmodified: start the turn "
                "again (earlier turns' marked blocks are dropped by the proxy)",
            )
        kept = [b for j, b in enumerate(content) if j not in marked]
        if kept:
            out.append({**message, "content": kept})
    return out


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, Mapping) else None


def _options(options: Any) -> tuple[tuple[str, ...] | None, str | None]:
    if options is None:
        return None, None
    if not isinstance(options, Mapping):
        raise RequestError("invalid_options", f"'{OPTIONS_KEY}' must be an object")
    unknown = set(options) - _OPTION_NAMES
    if unknown:
        raise RequestError("invalid_options", f"unknown '{OPTIONS_KEY}' option(s): {', '.join(sorted(unknown))}")
    sources = options.get("sources")
    if sources is not None and (not isinstance(sources, list) or not all(isinstance(s, str) for s in sources)):
        raise RequestError("invalid_options", f"'{OPTIONS_KEY}.sources' must be a list of strings")
    language = options.get("language")
    if language is not None:
        from .. import SUPPORTED_LANGUAGES

        if language not in SUPPORTED_LANGUAGES:
            raise RequestError(
                "invalid_options", f"'{OPTIONS_KEY}.language' must be one of {sorted(SUPPORTED_LANGUAGES)}"
            )
    return (tuple(sources) if sources is not None else None), language


def _tools(tools: Any) -> dict[str, Mapping[str, Any]]:
    if tools is None:
        return {}
    if not isinstance(tools, list) or not all(isinstance(t, Mapping) for t in tools):
        raise RequestError("invalid_tools", "'tools' must be a list of objects")
    from ..lifecycle import schema_tools

    try:
        return schema_tools(tools)
    except ValueError as exc:
        raise RequestError("invalid_tools", str(exc)) from None


def _last_user(messages: Sequence[Any], key: str) -> str | None:
    """The text of the last user message: a string, or the text parts of a list of parts."""
    for message in reversed(messages):
        if not isinstance(message, Mapping) or message.get("role") != "user":
            continue
        content = message.get(key)
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            texts = [p.get("text") for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str)]
            return "\n".join(t for t in texts if t)
        return None
    return None
