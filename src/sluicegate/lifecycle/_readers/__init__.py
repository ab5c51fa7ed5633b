"""Readers for three documented provider stream formats; each turns one provider event into assembly ops."""

from .anthropic import AnthropicReader
from .base import Reader, coerce_event
from .chunks import ChunkReader
from .openai_chat import OpenAIChatReader
from .openai_responses import OpenAIResponsesReader

__all__ = ["AnthropicReader", "ChunkReader", "OpenAIChatReader", "OpenAIResponsesReader", "Reader", "coerce_event"]
