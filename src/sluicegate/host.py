"""What a host adapter needs from the core besides the root: the public toolkit for `integrations/`.

A host (LangChain, LlamaIndex, NeMo, Guardrails AI, Starlette, the next one) imports from `sluicegate`,
`sluicegate.call`, `sluicegate.budget`, ... and from here, never from a private module, so the core can move its
modules without breaking an adapter (`tests/test_public_surface.py` enforces it; docs/api.md lists every name).
"""

from ._closing import AsyncUpstream, Upstream, aclose_now, close_now
from ._driver import FALLBACK_NOTICE, NOTICE_SEPARATOR, TextOf, UsageOf
from ._notices import NoticeKind, languages, notice
from ._plugin import load_factory, require_extra
from ._provider_chunks import sdk_text, sdk_usage
from ._public import publish
from ._sessions import STOP_PREFIX, Session

__all__ = [
    "FALLBACK_NOTICE",
    "NOTICE_SEPARATOR",
    "STOP_PREFIX",
    "AsyncUpstream",
    "NoticeKind",
    "Session",
    "TextOf",
    "Upstream",
    "UsageOf",
    "aclose_now",
    "close_now",
    "languages",
    "load_factory",
    "notice",
    "require_extra",
    "sdk_text",
    "sdk_usage",
]

publish(__name__, globals())  # one documented place per public name (docs/api.md)
