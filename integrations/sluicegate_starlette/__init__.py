"""sluicegate for Starlette and FastAPI: a POST endpoint that streams a gated answer as Server-Sent Events.

Thin by design: the frames, pings, disconnect handling and usage come from `sluicegate.sse.gated_events`; this
package adds the HTTP parts (body limits and validation, status codes before the first byte, the compression
check, the `before_upstream` hook) and ships the browser client `sluicegate-client.js`.
"""

from sluicegate.host import require_extra

for _module in ("starlette", "sse_starlette", "pydantic"):
    require_extra(_module, adapter="sluicegate_starlette", framework="Starlette and sse-starlette", extra="server")

from .body import DEFAULT_MAX_BODY_BYTES, ChatRequest, Message  # noqa: E402
from .budget import capped_sse_endpoint, capped_sse_route  # noqa: E402
from .client import CLIENT_JS, client_js_route  # noqa: E402
from .compression import compressing_middleware  # noqa: E402
from .response import GatedSSEResponse  # noqa: E402
from .route import Answer, gated_sse_endpoint, gated_sse_route  # noqa: E402

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
