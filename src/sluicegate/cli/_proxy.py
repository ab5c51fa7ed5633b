"""`sluicegate proxy --upstream URL [--listen 127.0.0.1:8400] [--config sluicegate.toml]`.

Starlette, httpx and uvicorn are imported in `run` only (the `[proxy]` extra): `sluicegate --help` stays cheap.
"""

from __future__ import annotations

import argparse
import sys

DEFAULT_LISTEN = "127.0.0.1:8400"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--upstream", help="the endpoint to guard (e.g. https://api.openai.com); or [upstream] url")
    parser.add_argument("--listen", default=DEFAULT_LISTEN, help=f"host:port to listen on (default {DEFAULT_LISTEN})")
    parser.add_argument("--config", help="a TOML file (see docs/proxy.md)")
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])


def parse_listen(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"--listen must be host:port, got {value!r}")
    return host.strip("[]"), int(port)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from sluicegate_proxy import ConfigError, create_app, load_config
    except ImportError as exc:
        print(f'sluicegate proxy needs the [proxy] extra: pip install "sluicegate[proxy]" ({exc})', file=sys.stderr)
        return 2
    try:
        config = load_config(args.config, upstream=args.upstream)
        host, port = parse_listen(args.listen)
    except (ConfigError, ValueError, OSError) as exc:
        print(f"sluicegate proxy: {exc}", file=sys.stderr)
        return 2
    # Access logs carry query strings and are off; the proxy logs lengths and codes only.
    uvicorn.run(create_app(config), host=host, port=port, log_level=args.log_level, access_log=False)
    return 0
