"""sluicegate for Starlette and FastAPI: a POST endpoint that streams a gated answer as Server-Sent Events.

Thin by design: the frames, pings, disconnect handling and usage come from `sluicegate.sse.gated_events`; this
package adds the HTTP parts (body limits and validation, status codes before the first byte, the compression
check, the `before_upstream` hook) and ships the browser client `sluicegate-client.js`.
"""

from .body import DEFAULT_MAX_BODY_BYTES, ChatRequest, Message
from .budget import capped_sse_endpoint, capped_sse_route
from .client import CLIENT_JS, client_js_route
from .compression import compressing_middleware
from .response import GatedSSEResponse
from .route import Answer, gated_sse_endpoint, gated_sse_route

__all__ = [
    "CLIENT_JS",
    "DEFAULT_MAX_BODY_BYTES",
    "Answer",
    "ChatRequest",
    "GatedSSEResponse",
    "Message",
    "capped_sse_endpoint",
    "capped_sse_route",
    "client_js_route",
    "compressing_middleware",
    "gated_sse_endpoint",
    "gated_sse_route",
]
