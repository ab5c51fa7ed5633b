"""Server-Sent Events for guarded answers: a sans-I/O parser and encoder, and `gated_events` (asyncio only).

Nothing here imports a web framework: the Starlette endpoint lives in `integrations/sluicegate_starlette`.
"""

from .._public import publish
from ._encode import SSE_HEADERS, encode_comment, encode_event
from ._gated import DEFAULT_PING_INTERVAL, ERROR_MESSAGES, gated_events
from ._parser import DEFAULT_MAX_EVENT_BYTES, SSEEvent, SSEEventTooLarge, SSEParser
from ._passthrough import PassThrough
from ._peek import UpstreamFailedEarly, peek_first

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_PING_INTERVAL",
    "ERROR_MESSAGES",
    "SSE_HEADERS",
    "PassThrough",
    "SSEEvent",
    "SSEEventTooLarge",
    "SSEParser",
    "UpstreamFailedEarly",
    "encode_comment",
    "encode_event",
    "gated_events",
    "peek_first",
]

publish(__name__, globals())  # one documented place per public name (docs/api.md)
