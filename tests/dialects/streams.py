"""Upstream SSE streams of the three dialects, built from the documented shapes (text, tool calls, ends).

Scripted on purpose: each test states what the model said. Real recorded streams are replayed in
tests/dialects/test_real_streams.py.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

SOURCES = [
    "The library opens at nine on weekdays and at ten on Saturdays.",
    "Late fees were abolished in 2019.",
    "Questions go to the front desk at help.desk@citylib.example.",
]
GROUNDED = (
    "The library opens at nine on weekdays [S1]. Late fees were abolished in 2019 [S2]. "
    "Write to help.desk@citylib.example with questions [S3]."
)
PLANTED = GROUNDED.replace(" Write to", " It also rents out bicycles for 2 euros an hour [S1]. Write to")
SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
WITH_SECRET = f"Hello there. Your key is {SECRET} and nothing else. Bye."
WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city"],
}


def pieces(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _data(payload: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload)}\n\n".encode()


Call = tuple[str, str, str]  # (call id, name, arguments JSON as the model streamed it)


def chat(
    tokens: Sequence[str],
    *,
    finish: str | None = "stop",
    calls: Sequence[Call] = (),
    usage: bool = True,
    error: bool = False,
    done: bool = True,
) -> bytes:
    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
        }

    out = _data(chunk({"role": "assistant", "content": ""}))
    out += b"".join(_data(chunk({"content": t})) for t in tokens)
    for i, (cid, name, args) in enumerate(calls):
        out += _data(
            chunk(
                {
                    "tool_calls": [
                        {"index": i, "id": cid, "type": "function", "function": {"name": name, "arguments": ""}}
                    ]
                }
            )
        )
        out += b"".join(
            _data(chunk({"tool_calls": [{"index": i, "function": {"arguments": a}}]})) for a in pieces(args, 5)
        )
    if error:
        return out + _data({"error": {"message": "overloaded", "type": "server_error", "code": "overloaded"}})
    if finish is None:
        return out
    out += _data(chunk({}, finish))
    if usage:
        out += _data(
            {**chunk({}), "choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 23, "total_tokens": 34}}
        )
    return out + (b"data: [DONE]\n\n" if done else b"")


def anthropic(
    tokens: Sequence[str],
    *,
    stop: str | None = "end_turn",
    calls: Sequence[Call] = (),
    error: bool = False,
) -> bytes:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 11, "output_tokens": 1},
    }
    out = _data({"type": "message_start", "message": message}, "message_start")
    index = 0
    if tokens:
        out += _data(
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            "content_block_start",
        )
        for t in tokens:
            out += _data(
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}},
                "content_block_delta",
            )
        out += _data({"type": "content_block_stop", "index": 0}, "content_block_stop")
        index = 1
    for cid, name, args in calls:
        block = {"type": "tool_use", "id": cid, "name": name, "input": {}}
        out += _data({"type": "content_block_start", "index": index, "content_block": block}, "content_block_start")
        for a in pieces(args, 5):
            delta = {"type": "input_json_delta", "partial_json": a}
            out += _data({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta")
        out += _data({"type": "content_block_stop", "index": index}, "content_block_stop")
        index += 1
    if error:
        return out + _data({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, "error")
    if stop is None:
        return out
    out += _data(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 23},
        },
        "message_delta",
    )
    return out + _data({"type": "message_stop"}, "message_stop")


def responses(
    tokens: Sequence[str],
    *,
    end: str | None = "completed",
    calls: Sequence[Call] = (),
    error: bool = False,
) -> bytes:
    seq = iter(range(10_000))
    out = b""

    def ev(kind: str, **fields: Any) -> bytes:
        return _data({"type": kind, **fields, "sequence_number": next(seq)}, kind)

    def response(status: str, output: list[Any], **extra: Any) -> dict[str, Any]:
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "status": status,
            "model": "m",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            **extra,
        }

    out += ev("response.created", response=response("in_progress", []))
    out += ev("response.in_progress", response=response("in_progress", []))
    output: list[Any] = []
    if tokens:
        text = "".join(tokens)
        item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}
        out += ev("response.output_item.added", output_index=0, item=item)
        out += ev(
            "response.content_part.added",
            item_id="msg_1",
            output_index=0,
            content_index=0,
            part={"type": "output_text", "text": "", "annotations": []},
        )
        for t in tokens:
            out += ev(
                "response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta=t, logprobs=[]
            )
        part = {"type": "output_text", "text": text, "annotations": []}
        out += ev("response.output_text.done", item_id="msg_1", output_index=0, content_index=0, text=text, logprobs=[])
        out += ev("response.content_part.done", item_id="msg_1", output_index=0, content_index=0, part=part)
        done = {**item, "status": "completed", "content": [part]}
        out += ev("response.output_item.done", output_index=0, item=done)
        output.append(done)
    for cid, name, args in calls:
        i = len(output)
        item = {
            "id": f"fc_{i}",
            "type": "function_call",
            "call_id": cid,
            "name": name,
            "arguments": "",
            "status": "in_progress",
        }
        out += ev("response.output_item.added", output_index=i, item=item)
        for a in pieces(args, 5):
            out += ev("response.function_call_arguments.delta", item_id=f"fc_{i}", output_index=i, delta=a)
        out += ev("response.function_call_arguments.done", item_id=f"fc_{i}", output_index=i, arguments=args)
        done = {**item, "arguments": args, "status": "completed"}
        out += ev("response.output_item.done", output_index=i, item=done)
        output.append(done)
    if error:
        return out + ev("error", code="server_error", message="overloaded", param=None)
    usage = {
        "input_tokens": 11,
        "output_tokens": 23,
        "total_tokens": 34,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    if end == "completed":
        out += ev("response.completed", response=response("completed", output, usage=usage))
    elif end == "max_output_tokens":
        out += ev(
            "response.incomplete",
            response=response("incomplete", output, usage=usage, incomplete_details={"reason": "max_output_tokens"}),
        )
    return out


BUILD = {"chat": chat, "anthropic": anthropic, "responses": responses}


def request_body(
    dialect: str,
    *,
    stream: bool = True,
    tools: bool = False,
    sources: Sequence[str] | None = None,
    question: str = "When is the library open?",
    usage: bool = True,
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "m", "stream": stream}
    if dialect == "chat":
        body["messages"] = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": question}]
        if stream and usage:
            body["stream_options"] = {"include_usage": True}
        if tools:
            body["tools"] = [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}}]
    elif dialect == "anthropic":
        body["max_tokens"] = 200
        body["messages"] = [{"role": "user", "content": [{"type": "text", "text": question}]}]
        if tools:
            body["tools"] = [{"name": "get_weather", "input_schema": WEATHER}]
    else:
        body["input"] = [{"role": "user", "content": [{"type": "input_text", "text": question}]}]
        if tools:
            body["tools"] = [{"type": "function", "name": "get_weather", "parameters": WEATHER}]
    if sources is not None:
        body["sluicegate"] = {"sources": list(sources), "language": "en"}
    return body
