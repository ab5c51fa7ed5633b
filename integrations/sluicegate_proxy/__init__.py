"""`sluicegate proxy`: an OpenAI- and Anthropic-compatible HTTP proxy that guards any compatible endpoint.

A thin Starlette + httpx shell over the core's guarded call and dialect codecs (`sluicegate.dialects`):
`POST /v1/chat/completions`, `/v1/responses`, `/v1/messages` (streaming and not), other paths forwarded,
`GET /healthz`, `GET /metrics`. See docs/proxy.md.
"""

from sluicegate.host import require_extra

for _module in ("starlette", "httpx", "jsonschema"):
    require_extra(_module, adapter="sluicegate_proxy", framework="Starlette, httpx and jsonschema", extra="proxy")

from .app import Proxy, create_app  # noqa: E402
from .config import ConfigError, ProxyConfig, config_from, load_config  # noqa: E402

__all__ = ["ConfigError", "Proxy", "ProxyConfig", "config_from", "create_app", "load_config"]
