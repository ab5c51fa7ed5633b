"""Real recorded provider streams (fixtures/real, see its README) and the providers' own SDKs as the oracle.

`sdk_result(entry, data)` runs the bytes through the provider SDK's SSE decoder and stream accumulator exactly as
its `Stream` does (an `error` payload raises, `[DONE]` ends a Chat stream, Anthropic events are dispatched by
SSE event name), and says what the SDK would hand the application: complete or not, tool calls, text, and for
Responses every output item. `our_result` runs the same bytes through a `Generation`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sluicegate.lifecycle import AnthropicReader, Generation, OpenAIChatReader, OpenAIResponsesReader, Reader

REAL = Path(__file__).parent / "fixtures" / "real"
MANIFEST: list[dict[str, Any]] = json.loads((REAL / "manifest.json").read_text())
BY_FILE = {e["file"]: e for e in MANIFEST}

# Anything goes for the comparison: the schema is the caller's; assembly and completeness are under test here.
OPEN_SCHEMA: Mapping[str, Any] = {"type": "object", "additionalProperties": True}
CHAT_COMPLETE = {"stop", "tool_calls", "function_call"}
ANTHROPIC_COMPLETE = {"end_turn", "tool_use", "stop_sequence"}
RESPONSES_HOSTED = {
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
    "mcp_list_tools",
    "compaction",
    "reasoning",
    "tool_search_output",
    "shell_call_output",
    "function_call_output",
    "apply_patch_call_output",
}
RESPONSES_CLIENT_FIELDS = {
    "local_shell_call": ("action",),
    "shell_call": ("action",),
    "apply_patch_call": ("operation",),
    "computer_call": ("action", "actions", "pending_safety_checks"),
    "tool_search_call": ("arguments",),
    "custom_tool_call": ("input",),
}


def load(entry: Mapping[str, Any]) -> bytes:
    """The bytes as they came over HTTP. Vercel's `.chunks.txt` hold one JSON payload per line: framed as SSE
    here (`data: …` and a blank line; Anthropic's also with its `event:` line, as the API sends it)."""
    return _framed(entry)[entry.get("part", 0)]


def _framed(entry: Mapping[str, Any]) -> list[bytes]:
    raw = (REAL / entry["file"]).read_bytes()
    if entry["framing"] == "sse":
        return [raw]
    parts: list[list[str]] = [[]]
    ended = False
    for line in raw.decode("utf-8").splitlines():
        if not line.strip():
            continue
        kind = _type(line)
        if kind == "response.created" and ended:  # a multi-turn recording: one response per stream
            parts.append([])
            ended = False
        ended = ended or kind in ("response.completed", "response.failed", "response.incomplete")
        if entry["provider"] == "anthropic":
            parts[-1].append(f"event: {kind}\n")
        parts[-1].append(f"data: {line}\n\n")
    return ["".join(p).encode("utf-8") for p in parts]


def _type(line: str) -> str:
    try:
        return str(json.loads(line).get("type"))
    except ValueError:
        return "?"  # a recorded line that is not JSON stays in the stream: the reader must refuse it


def streams() -> dict[str, dict[str, Any]]:
    """Every stream by id: the file, or `file#n` for the n-th response of a multi-turn recording."""
    out: dict[str, dict[str, Any]] = {}
    for entry in MANIFEST:
        parts = _framed(entry)
        for n in range(len(parts)):
            key = entry["file"] if len(parts) == 1 else f"{entry['file']}#{n}"
            out[key] = {**entry, "part": n}
    return out


STREAMS = streams()


@dataclass
class Result:
    """What the application gets: complete or not, the calls (id, name, arguments as JSON values), the text."""

    complete: bool
    calls: list[tuple[str, str, Any]] = field(default_factory=list)
    text: str = ""
    error: str | None = None
    unsupported: list[str] = field(default_factory=list)  # Responses item types nobody models
    refusal: bool = False
    choices: int = 1
    stop: str | None = None


# -- the SDKs ---------------------------------------------------------------------------------------------------


def sdk_result(entry: Mapping[str, Any], data: bytes) -> Result:
    return {"chat": _sdk_chat, "responses": _sdk_responses, "anthropic": _sdk_anthropic}[entry["provider"]](data)


def _openai_events(data: bytes) -> Iterable[Any]:
    from openai._streaming import SSEDecoder

    return SSEDecoder().iter_bytes(iter([data]))


def _sdk_chat(data: bytes) -> Result:
    from openai._models import construct_type
    from openai.lib.streaming.chat._completions import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state = ChatCompletionStreamState()
    seen = False
    for sse in _openai_events(data):
        if sse.data.startswith("[DONE]"):
            break
        payload = sse.json()
        if isinstance(payload, Mapping) and payload.get("error"):  # what `Stream.__stream__` raises on
            return Result(False, error="APIError")
        state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=payload))
        seen = True
    if not seen:
        return Result(False)
    completion = state.current_completion_snapshot
    choices = completion.choices
    if not choices:
        return Result(False)
    choice = choices[0]
    message = choice.message
    calls = [(c.id, c.function.name, json.loads(c.function.arguments)) for c in (message.tool_calls or [])]
    return Result(
        complete=choice.finish_reason in CHAT_COMPLETE,
        calls=calls,
        text=message.content or "",
        refusal=bool(message.refusal),
        choices=len(choices),
        stop=choice.finish_reason,
    )


def _sdk_responses(data: bytes) -> Result:
    from openai import omit
    from openai._models import construct_type
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent

    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=omit, text_format=omit)
    final = None
    for sse in _openai_events(data):
        payload = sse.json()
        if isinstance(payload, Mapping) and payload.get("error"):
            return Result(False, error="APIError")
        for event in state.handle_event(construct_type(type_=ResponseStreamEvent, value=payload)):
            if event.type == "response.completed":
                final = event.response
            elif event.type in ("response.failed", "response.incomplete"):
                return Result(False, stop=event.type)
    if final is None:
        return Result(False)
    result = Result(True, stop="completed")
    for item in final.output:
        raw = item.to_dict(warnings=False)
        kind = raw.get("type")
        if kind == "message":
            for part in raw.get("content") or []:
                if part.get("type") == "output_text":
                    result.text += part.get("text", "")
                elif part.get("type") == "refusal":
                    result.refusal = True
        elif kind == "function_call":
            result.calls.append((raw["call_id"], raw["name"], json.loads(raw["arguments"])))
        elif kind in RESPONSES_CLIENT_FIELDS and _client(raw):
            name = raw["name"] if kind == "custom_tool_call" else kind
            args = {f: raw[f] for f in RESPONSES_CLIENT_FIELDS[kind] if raw.get(f) is not None}
            result.calls.append((raw["call_id"], name, args))
        elif kind in RESPONSES_HOSTED or kind in RESPONSES_CLIENT_FIELDS:
            pass  # the provider ran it
        else:
            result.unsupported.append(str(kind))
    return result


def _client(item: Mapping[str, Any]) -> bool:
    if item.get("type") == "tool_search_call":
        return item.get("execution") == "client"
    if item.get("type") == "shell_call":
        env = item.get("environment")
        return not isinstance(env, Mapping) or env.get("type") in (None, "local")
    return True


_ANTHROPIC_EVENTS = {
    "message_start",
    "message_delta",
    "message_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
}


def _sdk_anthropic(data: bytes) -> Result:
    import httpx
    from anthropic._models import construct_type
    from anthropic._streaming import SSEDecoder
    from anthropic.lib.streaming._beta_messages import accumulate_event
    from anthropic.types.beta import BetaRawMessageStreamEvent

    snapshot = None
    stopped = False
    for sse in SSEDecoder().iter_bytes(iter([data])):
        if sse.event == "error":
            return Result(False, error="APIStatusError")
        if sse.event not in _ANTHROPIC_EVENTS:
            continue  # ping, and what `Stream.__stream__` does not dispatch
        event = construct_type(type_=BetaRawMessageStreamEvent, value=sse.json())
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, request_headers=httpx.Headers())
        stopped = stopped or event.type == "message_stop"
    if snapshot is None:
        return Result(False)
    result = Result(stopped and snapshot.stop_reason in ANTHROPIC_COMPLETE, stop=snapshot.stop_reason)
    result.refusal = snapshot.stop_reason == "refusal"
    for block in snapshot.content:
        if block.type == "text":
            result.text += block.text
        elif block.type == "tool_use":
            result.calls.append((block.id, block.name, block.input))
    return result


# -- ours ---------------------------------------------------------------------------------------------------------

READERS: dict[str, type[Reader]] = {
    "chat": OpenAIChatReader,
    "responses": OpenAIResponsesReader,
    "anthropic": AnthropicReader,
}


def tool_names(entry: Mapping[str, Any], data: bytes) -> set[str]:
    """Every tool name the stream mentions (declared for the comparison), from the SDK's view of it."""
    return {name for _, name, _ in sdk_result(entry, data).calls}


def generation(entry: Mapping[str, Any], names: Iterable[str]) -> Generation:
    return Generation({n: OPEN_SCHEMA for n in names}, reader=READERS[entry["provider"]]())


def feed(gen: Generation, data: bytes, cuts: Iterable[int] = ()) -> Generation:
    last = 0
    for cut in [*cuts, len(data)]:
        gen.feed_bytes(data[last:cut])
        last = cut
    gen.close()
    return gen


def summary(gen: Generation) -> tuple[Any, ...]:
    """Everything a caller can observe at the end, for comparing feed paths."""
    return (
        gen.state,
        [(c.call_id, c.name, c.canonical) for c in gen.tool_calls],
        gen.text,
        [(r.item, r.code, r.detail, r.tool, r.provider_code) for r in gen.rejections],
        gen.telemetry.unterminated_events,
        gen.telemetry.duplicates_dropped,
        gen.provider_id,
    )
