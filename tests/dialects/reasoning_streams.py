"""Upstream streams with reasoning/thinking text before the answer, in each dialect's documented shape.

Chat Completions: `delta.reasoning_content` (vLLM, DeepSeek) or `delta.reasoning` chunks, then `content`.
Responses: a `reasoning` item with summary parts (`reasoning_summary_*`, OpenAI) or `reasoning_text` parts
(vLLM/Ollama/DeepSeek), then a `message`. Anthropic: a `thinking` block (`thinking_delta`s, `signature_delta`
just before its stop), optionally a `redacted_thinking` block, then a `text` block. Real recordings with
reasoning are replayed in tests/dialects/test_reasoning.py (tests/lifecycle/fixtures/real).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

SIGNATURE = "EqQBCkYIARgCIkBfakeSignatureForTestsOnly0123456789abcdefghijklmnopqrstuvwxyz=="
REDACTED_BLOCK = {"type": "redacted_thinking", "data": "EmwKAhgBEgyOpaqueCiphertextForTests=="}
ENCRYPTED = "gAAAAABopaqueEncryptedReasoningForTests=="


def _data(payload: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload)}\n\n".encode()


def chat(thinking: Sequence[str], answer: Sequence[str], *, field: str = "reasoning_content") -> bytes:
    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": reason}
        return {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [choice]}

    out = _data(chunk({"role": "assistant", "content": ""}))
    out += b"".join(_data(chunk({"content": None, field: t})) for t in thinking)
    out += b"".join(_data(chunk({"content": t})) for t in answer)
    out += _data(chunk({}, "stop"))
    usage = {"prompt_tokens": 5, "completion_tokens": 40, "total_tokens": 45}
    last = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [], "usage": usage}
    out += _data(last)
    return out + b"data: [DONE]\n\n"


def anthropic(
    thinking: Sequence[str],
    answer: Sequence[str],
    *,
    signature: str | None = SIGNATURE,
    redacted: bool = False,
    end: bool = True,
) -> bytes:
    def ev(kind: str, **fields: Any) -> bytes:
        return _data({"type": kind, **fields}, kind)

    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1},
    }
    out = ev("message_start", message=message)
    out += ev("content_block_start", index=0, content_block={"type": "thinking", "thinking": "", "signature": ""})
    for t in thinking:
        out += ev("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": t})
    if not end:
        return out
    if signature is not None:
        out += ev("content_block_delta", index=0, delta={"type": "signature_delta", "signature": signature})
    out += ev("content_block_stop", index=0)
    index = 1
    if redacted:
        out += ev("content_block_start", index=1, content_block=REDACTED_BLOCK)
        out += ev("content_block_stop", index=1)
        index = 2
    out += ev("content_block_start", index=index, content_block={"type": "text", "text": ""})
    for t in answer:
        out += ev("content_block_delta", index=index, delta={"type": "text_delta", "text": t})
    out += ev("content_block_stop", index=index)
    out += ev("message_delta", delta={"stop_reason": "end_turn", "stop_sequence": None}, usage={"output_tokens": 40})
    return out + ev("message_stop")


def responses(
    thinking: Sequence[str], answer: Sequence[str], *, kind: str = "summary", encrypted: bool = True
) -> bytes:
    seq = iter(range(10_000))

    def ev(name: str, **fields: Any) -> bytes:
        return _data({"type": name, **fields, "sequence_number": next(seq)}, name)

    resp = {"id": "resp_1", "object": "response", "created_at": 0, "status": "in_progress", "model": "m", "output": []}
    rid, mid = "rs_1", "msg_1"
    out = ev("response.created", response=resp) + ev("response.in_progress", response=resp)
    item: dict[str, Any] = {"id": rid, "type": "reasoning", "summary": []}
    if encrypted:
        item["encrypted_content"] = ENCRYPTED
    out += ev("response.output_item.added", output_index=0, item=item)
    text = "".join(thinking)
    if kind == "summary":
        where = {"item_id": rid, "output_index": 0, "summary_index": 0}
        out += ev("response.reasoning_summary_part.added", **where, part={"type": "summary_text", "text": ""})
        out += b"".join(ev("response.reasoning_summary_text.delta", **where, delta=t) for t in thinking)
        out += ev("response.reasoning_summary_text.done", **where, text=text)
        out += ev("response.reasoning_summary_part.done", **where, part={"type": "summary_text", "text": text})
        done = {**item, "summary": [{"type": "summary_text", "text": text}]}
    else:
        where = {"item_id": rid, "output_index": 0, "content_index": 0}
        out += ev("response.content_part.added", **where, part={"type": "reasoning_text", "text": ""})
        out += b"".join(ev("response.reasoning_text.delta", **where, delta=t) for t in thinking)
        out += ev("response.reasoning_text.done", **where, text=text)
        out += ev("response.content_part.done", **where, part={"type": "reasoning_text", "text": text})
        done = {**item, "content": [{"type": "reasoning_text", "text": text}]}
    out += ev("response.output_item.done", output_index=0, item=done)
    msg: dict[str, Any] = {"id": mid, "type": "message", "role": "assistant", "status": "in_progress", "content": []}
    out += ev("response.output_item.added", output_index=1, item=msg)
    at = {"item_id": mid, "output_index": 1, "content_index": 0}
    out += ev("response.content_part.added", **at, part={"type": "output_text", "text": "", "annotations": []})
    out += b"".join(ev("response.output_text.delta", **at, delta=t, logprobs=[]) for t in answer)
    whole = "".join(answer)
    out += ev("response.output_text.done", **at, text=whole, logprobs=[])
    part = {"type": "output_text", "text": whole, "annotations": []}
    out += ev("response.content_part.done", **at, part=part)
    msg_done = {**msg, "status": "completed", "content": [part]}
    out += ev("response.output_item.done", output_index=1, item=msg_done)
    usage = {
        "input_tokens": 5,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 40,
        "output_tokens_details": {"reasoning_tokens": 30},
        "total_tokens": 45,
    }
    final = {**resp, "status": "completed", "output": [done, msg_done], "usage": usage}
    return out + ev("response.completed", response=final)


BUILD = {"chat": chat, "anthropic": anthropic, "responses": responses}
