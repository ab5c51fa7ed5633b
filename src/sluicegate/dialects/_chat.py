"""OpenAI Chat Completions: `chat.completion.chunk` data lines, `[DONE]`, and the `chat.completion` body.

A whole validated tool call goes out as one `delta.tool_calls[]` fragment (index, id, type, name and the
complete arguments), which the SDK's accumulator (`ChatCompletionStreamState`) merges like any first fragment.
A stop is the notice as the last `delta.content`, then `finish_reason: "content_filter"`, then `[DONE]`; an
upstream failure is an `error` object in a data line (what the SDK raises `APIError` on), then `[DONE]`.
"""

from __future__ import annotations

from typing import Any

from ._base import Billed, Encoder, End, Thought, data_line, json_string

# The content of the model frame `_text` cuts in two, at its last occurrence (only fixed fields follow it).
_SLOT = "\x00"
_SLOT_JSON = json_string(_SLOT).encode()

_FINISH = {
    End.COMPLETE: "stop",
    End.TOOL_CALLS: "tool_calls",
    End.LENGTH: "length",
    End.CONTENT_FILTER: "content_filter",
}


def usage_body(usage: Billed) -> dict[str, Any]:
    """The billed totals, then the upstream's `*_tokens_details` when it sent them."""
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
        **usage.details,
    }


class ChatEncoder(Encoder):
    """Frames for one Chat Completions answer. `include_usage`: the client asked `stream_options.include_usage`
    (then a usage chunk with empty `choices` precedes `[DONE]`, as the API sends it)."""

    dialect = "chat"

    def __init__(self, model: str, *, include_usage: bool = False, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self.include_usage = include_usage

    def _prefix(self) -> str:
        return "chatcmpl-sg"

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }

    def _start(self) -> bytes:
        return data_line(self._chunk({"role": "assistant", "content": ""}))

    def _text(self, delta: str) -> bytes:
        # Every text frame of an answer is the same chunk but for its content: the bytes around it are made once
        # (from `_chunk` itself, so they are what `data_line` writes), and each frame costs one string escape.
        around = self._around
        if around is None:
            head, _, tail = data_line(self._chunk({"content": _SLOT})).rpartition(_SLOT_JSON)
            around = self._around = (head, tail)
        return around[0] + json_string(delta).encode() + around[1]

    _around: tuple[bytes, bytes] | None = None

    def _tool_call(self, call_id: str, name: str, arguments: str) -> bytes:
        index = len(self.answer.calls) - 1
        call = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        return data_line(self._chunk({"tool_calls": [call]}))

    def _think(self, thought: Thought, delta: str) -> bytes:
        """Reasoning in the field the upstream used (`reasoning_content`, vLLM/DeepSeek; or `reasoning`)."""
        return data_line(self._chunk({thought.kind: delta}))

    def _finish(self, end: End, usage: Billed) -> bytes:
        out = data_line(self._chunk({}, _FINISH[end]))
        if self.include_usage:
            out += data_line({**self._chunk({}), "choices": [], "usage": usage_body(usage)})
        return out + data_line("[DONE]")

    def _error(self, code: str, message: str) -> bytes:
        return data_line(error_body(code, message, "upstream_error")) + data_line("[DONE]")

    def body(self) -> dict[str, Any]:
        a = self.answer
        message: dict[str, Any] = {"role": "assistant", "content": a.text or None, "refusal": None}
        for thought in a.thoughts.values():  # the field the upstream used, as the stream sent it
            message[thought.kind] = message.get(thought.kind, "") + thought.text
        if a.calls:
            message["tool_calls"] = [
                {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
                for cid, name, args in a.calls
            ]
        usage = a.usage or Billed(0, 0)
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [
                {"index": 0, "message": message, "finish_reason": _FINISH[a.end or End.COMPLETE], "logprobs": None}
            ],
            "usage": usage_body(usage),
        }


def error_body(code: str, message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """OpenAI's error object (Chat Completions and Responses share it)."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
