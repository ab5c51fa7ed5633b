"""The text and usage of the items the official provider SDKs stream, so their stream objects can be passed as is.

Passing the SDK's stream itself (rather than a generator that yields its deltas) is what lets the driver close
it on a stop: a wrapper generator closed by the driver leaves the SDK stream open. Duck-typed, no SDK import:

- OpenAI `ChatCompletionChunk`, litellm `ModelResponseStream`: text `choices[0].delta.content` (choice
  index 0 only); usage from `usage` (the last chunk, with `stream_options={"include_usage": True}`);
- an OpenAI legacy `Completion` chunk: `choices[0].text`, `usage`;
- OpenAI `ChatCompletionStream` events (`.chat.completions.stream(...)`): `content.delta` gives `delta`, the
  rest ""; usage from the `chunk` event's `chunk.usage`;
- OpenAI Responses events: `response.output_text.delta` gives `delta`, the rest ""; usage from
  `response.completed`;
- Anthropic raw events (`messages.create(stream=True)`): `content_block_delta` with a `text_delta` gives
  `delta.text`, the rest ""; input usage from `message_start`, output from `message_delta` (cumulative);
- Anthropic `MessageStream` events (`messages.stream(...)`): as raw; its `text` events repeat the raw delta
  just before them, so they count "".

Anthropic's `message_start` carries an output figure that is a placeholder (the real API sends 1), not a count:
it is not reported, so a stream stopped before `message_delta` is billed by the byte estimate of what arrived,
never by that placeholder.
"""

from __future__ import annotations

from typing import Any

from ._usage import UsageMeter

_ANTHROPIC_QUIET = frozenset(
    {"message_start", "message_delta", "message_stop", "content_block_start", "content_block_stop", "ping"}
)


def _kind(item: Any) -> str | None:
    kind = getattr(item, "type", None)
    return kind if isinstance(kind, str) else None


def sdk_text(item: Any) -> str | None:
    """The text of one SDK stream item, "" for an item that carries none, None if `item` is not an SDK item."""
    kind = _kind(item)
    if kind is not None:
        if kind == "content_block_delta":
            delta = getattr(item, "delta", None)
            text = getattr(delta, "text", None) if getattr(delta, "type", None) == "text_delta" else None
            return text if isinstance(text, str) else ""
        if kind in ("response.output_text.delta", "content.delta"):
            delta = getattr(item, "delta", None)
            return delta if isinstance(delta, str) else ""
        if kind == "text" and hasattr(item, "snapshot"):
            return ""  # Anthropic MessageStream's TextEvent: the content_block_delta before it had this text
        if kind in _ANTHROPIC_QUIET or kind.startswith(("response.", "content.", "refusal.", "tool_calls.")):
            return ""
        if kind == "chunk" and hasattr(item, "snapshot"):
            return ""  # OpenAI ChatCompletionStream's ChunkEvent: its content.delta event carries the text
    choices = getattr(item, "choices", None)
    if isinstance(choices, list) and (choices or hasattr(item, "usage")):
        for choice in choices:
            if getattr(choice, "index", 0) not in (0, None):
                continue  # n > 1: the answer is the first choice
            delta = getattr(choice, "delta", None)
            text = getattr(delta, "content", None) if delta is not None else getattr(choice, "text", None)
            return text if isinstance(text, str) else ""
        return ""
    return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def sdk_usage(item: Any, meter: UsageMeter) -> None:
    """Report the provider usage an SDK stream item carries to `meter` (cumulative figures); else nothing."""
    kind = _kind(item)
    if kind == "message_start":  # Anthropic: the input figure; the output one is a placeholder
        usage = getattr(getattr(item, "message", None), "usage", None)
        inp = _int(getattr(usage, "input_tokens", None))
        if inp is not None:
            meter.report(input_tokens=inp, cumulative=True)
        return
    if kind == "message_delta":
        usage = getattr(item, "usage", None)
        out = _int(getattr(usage, "output_tokens", None))
        inp = _int(getattr(usage, "input_tokens", None))
        if out is not None or inp is not None:
            meter.report(output_tokens=out, input_tokens=inp, cumulative=True)
        return
    if kind == "response.completed":
        usage = getattr(getattr(item, "response", None), "usage", None)
        out, inp = _int(getattr(usage, "output_tokens", None)), _int(getattr(usage, "input_tokens", None))
    else:
        if kind == "chunk" and hasattr(item, "snapshot"):
            item = getattr(item, "chunk", None)
        if not isinstance(getattr(item, "choices", None), list):
            return
        usage = getattr(item, "usage", None)
        out, inp = _int(getattr(usage, "completion_tokens", None)), _int(getattr(usage, "prompt_tokens", None))
    if out is not None or inp is not None:
        meter.report(output_tokens=out, input_tokens=inp, cumulative=True)
