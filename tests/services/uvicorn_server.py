"""A real uvicorn serving an ASGI app on a loopback port, in a thread of this process.

In-process on purpose: a test can then look at the scripted provider the app streams from (did it close, how
many pieces did it produce) while a real HTTP client, or nginx, or Chromium talks to the server over TCP.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from .ports import free_port, wait_listening


class UvicornServer:
    """uvicorn on 127.0.0.1:`port` in a daemon thread; `stop()` asks it to exit and waits."""

    def __init__(self, app: Any, *, port: int | None = None, tls: tuple[str, str] | None = None) -> None:
        """`tls`: (certificate file, key file) to serve HTTPS."""
        self.port = port or free_port()
        self.scheme = "https" if tls else "http"
        certfile, keyfile = tls or (None, None)
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="off",
            access_log=False,
            ssl_certfile=certfile,
            ssl_keyfile=keyfile,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name=f"uvicorn:{self.port}", daemon=True)

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.thread.start()
        wait_listening(self.port)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        if self.thread.is_alive():
            self.server.force_exit = True
            self.thread.join(timeout=5)


@contextmanager
def serve(app: Any) -> Iterator[UvicornServer]:
    """Serve `app` for the duration of the block."""
    server = UvicornServer(app)
    server.start()
    try:
        yield server
    finally:
        server.stop()
