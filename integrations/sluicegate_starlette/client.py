"""The browser client, shipped as package data: `sluicegate-client.js`, a dependency-free ES module."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

CLIENT_JS: Path = Path(str(resources.files(__package__) / "static" / "sluicegate-client.js"))


def client_js_route(path: str = "/sluicegate-client.js") -> Route:
    """Serve the client module (as `text/javascript`, so `<script type="module">` and `import` accept it)."""
    body = CLIENT_JS.read_bytes()

    async def serve(request: Request) -> Response:
        return Response(body, media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    return Route(path, serve, methods=["GET"])
