"""A real nginx (Debian's) in front of a loopback upstream: a generated config in a temp dir, run in the
foreground with its own pid, log and temp paths, so it never touches /etc/nginx or /var/log.

`proxy_buffering` is deliberately left at its default (`on`): the stream must get through nginx's defaults,
not a config made for it. Measured (nginx 1.22, loopback, a fast client): frames also get through promptly with
`X-Accel-Buffering: yes`, even with nginx's gzip on, so these tests prove the defaults pass the stream, not that
the header is needed (docs/sse.md: it matters when nginx spools for a slow client).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .ports import free_port, wait_listening
from .processes import stop_process

CONFIG = """\
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            # proxy_buffering: default (on), on purpose
        }}
    }}
}}
"""


class Nginx:
    """nginx on 127.0.0.1:`port`, proxying to 127.0.0.1:`upstream_port`."""

    def __init__(self, workdir: Path, upstream_port: int) -> None:
        binary = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
        if binary is None:
            raise RuntimeError("nginx is not installed (Debian package nginx; .ci/run installs it)")
        self.binary = binary
        self.workdir = workdir
        self.port = free_port()
        self.upstream_port = upstream_port
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def error_log(self) -> str:
        path = self.workdir / "error.log"
        return path.read_text() if path.exists() else ""

    def start(self) -> None:
        conf = self.workdir / "nginx.conf"
        conf.write_text(CONFIG.format(dir=self.workdir, port=self.port, upstream=self.upstream_port))
        args = [self.binary, "-p", str(self.workdir), "-c", str(conf), "-e", str(self.workdir / "error.log")]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_listening(self.port)
        except TimeoutError:
            self.stop()
            raise RuntimeError(f"nginx did not start: {self.error_log}") from None

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)
            if self.proc.stderr is not None:
                self.proc.stderr.close()
            self.proc = None


@pytest.fixture
def nginx_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[int], Nginx]]:
    """A factory: `nginx_proxy(upstream_port)` starts an nginx in front of that port; all are stopped after."""
    started: list[Nginx] = []

    def start(upstream_port: int) -> Nginx:
        proxy = Nginx(tmp_path_factory.mktemp("nginx"), upstream_port)
        proxy.start()
        started.append(proxy)
        return proxy

    yield start
    for proxy in started:
        proxy.stop()
