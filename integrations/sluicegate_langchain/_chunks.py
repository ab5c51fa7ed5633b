"""Reading LangChain stream items: the text a gate judges, and the provider usage a chunk carries."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk

from sluicegate import UsageMeter


def text_of(item: Any) -> str:
    """Text of a model chunk or a str. `.text` keeps only text blocks: tool calls and reasoning are not answer."""
    if isinstance(item, str):
        return str(item)
    if isinstance(item, BaseMessage):
        return str(item.text)
    if isinstance(item, ChatGenerationChunk):
        return str(item.message.text)
    if isinstance(item, GenerationChunk):
        return item.text
    raise TypeError(
        f"the gate takes chat model chunks or str, got {type(item).__name__}: place it right after the model"
    )


def usage_of(item: Any, meter: UsageMeter) -> None:
    """Report a chunk's `usage_metadata` (incremental: LangChain sums it when chunks are merged)."""
    message = item.message if isinstance(item, ChatGenerationChunk) else item
    usage = getattr(message, "usage_metadata", None)
    if usage:
        meter.report(output_tokens=usage.get("output_tokens"), input_tokens=usage.get("input_tokens"))
