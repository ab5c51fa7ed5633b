"""Refuse to stream behind a compressing middleware: a compressor buffers and coalesces frames.

The check reads the app's declared middleware (Starlette and FastAPI keep them in `app.user_middleware`).
Starlette's `GZipMiddleware` is fine while `text/event-stream` stays in its `exclude_content_types` (the
default since Starlette 0.4x); given a list without it, or any other middleware whose name says it compresses,
the endpoint answers 500 with a message that says what to change, rather than stream a buffered answer.
A compressor wrapped around the ASGI app from outside cannot be seen from here: `Cache-Control: no-transform`
asks proxies not to, and docs/sse.md says not to.
"""

from __future__ import annotations

import re
from typing import Any

_COMPRESSING = re.compile(r"gzip|brotli|zstd|deflate|compress", re.IGNORECASE)
_EVENT_STREAM = "text/event-stream"


def compressing_middleware(app: Any) -> str | None:
    """The name of a middleware of `app` that would compress this stream, or None."""
    for middleware in getattr(app, "user_middleware", None) or ():
        cls = getattr(middleware, "cls", None)
        name = getattr(cls, "__name__", "") or ""
        if not _COMPRESSING.search(name):
            continue
        if _is_starlette_gzip(cls):
            from starlette.middleware import gzip

            # Older Starlettes have no exclusion list and compress event streams too: refused below.
            default = getattr(gzip, "DEFAULT_EXCLUDED_CONTENT_TYPES", ())
            excluded = getattr(middleware, "kwargs", {}).get("exclude_content_types", default)
            if any(str(t).split(";")[0].strip().lower() == _EVENT_STREAM for t in excluded):
                continue
        return name
    return None


def _is_starlette_gzip(cls: Any) -> bool:
    from starlette.middleware.gzip import GZipMiddleware

    return isinstance(cls, type) and issubclass(cls, GZipMiddleware)
