"""Where the proxy's added first-text time goes: one stream at a time, stage by stage (issue 26).

`python tests/benchmarks/proxy_probe.py [--streams 20] [--interval 0.02]`. One process: the scripted upstream
(`sluicegate.cli.upstream`, the benchmark's 64 Chat deltas paced `--interval` apart) and `sluicegate proxy`
(redaction only, default config) each under real uvicorn on loopback in their own thread; a raw asyncio
HTTP/1.1 client in the main thread. Every clock is `time.monotonic()`. For the first text of each stream:

    upstream write (of the event carrying the first text) -> proxy read (the `Relay.feed` call that got it)
    -> relay released (the `feed` call whose output first carries text) -> proxy write (the ASGI `send` of
    that body) -> client read

and, for comparison, the same stream through the bare httpx→Starlette passthrough (write -> client read).
Medians over the streams; `writes held` = upstream writes between the first text's write and the write whose
read released it (what the filter held back, in pieces).
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import json
import os
import re
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
for _sub in ("integrations", "src", ""):
    sys.path.insert(0, str(ROOT / _sub) if _sub else str(ROOT))

import uvicorn  # noqa: E402

import sluicegate_proxy.app as proxy_app  # noqa: E402
from sluicegate.cli.upstream import Pace, Script, UpstreamApp, stream_frames  # noqa: E402
from sluicegate_proxy import ProxyConfig, create_app  # noqa: E402
from tests.benchmarks.proxy import DELTAS, QUESTION  # noqa: E402
from tests.conform.targets import passthrough_app  # noqa: E402
from tests.services.ports import free_port, wait_listening  # noqa: E402

TRACE: dict[str, dict[str, Any]] = {}  # stream key -> what each stage saw
_BOX: contextvars.ContextVar[list[str]] = contextvars.ContextVar("probe_key")  # the request's key, once read


class ProbeRelay(proxy_app.Relay):  # type: ignore[misc,name-defined]
    """The proxy's own `Relay`, with each `feed` timed (the probe replaces the name the app module uses)."""

    def feed(self, data: bytes) -> bytes:
        t_in = time.monotonic()
        out = super().feed(data)
        t_out = time.monotonic()
        key = _key_of(self)
        if key is not None:
            TRACE[key].setdefault("feeds", []).append((t_in, data, t_out, out))
        return out


def _key_of(relay: Any) -> str | None:
    box = _BOX.get(None)
    return box[0] if box else None


class SendProbe:
    """ASGI middleware: the time of each response body `send` with bytes in it, per request key."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        key_box: list[str] = []
        _BOX.set(key_box)

        async def recv() -> Any:
            msg = await receive()
            body = msg.get("body") or b""
            for key in TRACE:
                if f"[replay:{key}]".encode() in body:
                    key_box.append(key)
                    TRACE[key]["body_read"] = time.monotonic()
            return msg

        async def snd(msg: Any) -> None:
            await send(msg)
            if msg["type"] == "http.response.body" and msg.get("body") and key_box:
                TRACE[key_box[0]].setdefault("sends", []).append((time.monotonic(), msg["body"]))

        await self.app(scope, recv, snd)


def serve(app: Any) -> tuple[uvicorn.Server, int]:
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off", access_log=False)
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, daemon=True).start()
    wait_listening(port, timeout=60)
    return server, port


async def client(port: int, key: str) -> tuple[float, list[float]]:
    """One stream; (request sent, arrival of each body read that carried text)."""
    body = {"model": "bench", "stream": True, "messages": [{"role": "user", "content": f"{QUESTION} [replay:{key}]"}]}
    raw = json.dumps(body).encode()
    head = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(raw)}\r\nConnection: close\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    t0 = time.monotonic()
    writer.write(head + raw)
    reads: list[float] = []
    await reader.readuntil(b"\r\n\r\n")
    while True:
        data = await reader.read(65536)
        if not data:
            break
        if has_text(data):
            reads.append(time.monotonic())
    writer.close()
    return t0, reads


_TEXT = re.compile(rb'"content": ?"[^"]')


def has_text(data: bytes) -> bool:
    """A Chat frame with non-empty `delta.content` (the role chunk's `"content":""` is not text)."""
    return _TEXT.search(data) is not None


def first_text_piece(pieces: list[bytes]) -> int:
    for i, p in enumerate(pieces):
        for line in p.split(b"\n"):
            if line.startswith(b"data:") and line[5:].strip() != b"[DONE]":
                for ch in json.loads(line[5:]).get("choices") or []:
                    if (ch.get("delta") or {}).get("content"):
                        return i
    raise AssertionError("no text")


def med(xs: list[float]) -> float:
    return statistics.median(xs) * 1000 if xs else float("nan")


def relay_cpu(pieces: list[bytes], runs: int = 200) -> tuple[float, float]:
    """CPU µs per upstream piece in `Relay.feed` (the proxy's redaction-only relay, no I/O), and CPU ms per
    request to parse the body and build the call (the request path before the upstream is asked)."""
    from sluicegate.call import Reserve, areserve_call, ascreen_call
    from sluicegate.dialects import Relay, build_call, encoder_for, parse_request
    from sluicegate.redaction import Redactor

    redactor = Redactor.factory()  # as the app does, once at start-up
    raw = json.dumps({"model": "bench", "stream": True, "messages": [{"role": "user", "content": QUESTION}]})

    async def one() -> tuple[float, float]:
        c0 = time.process_time()
        creq = parse_request("chat", raw.encode())
        call = build_call(creq, budget=None, preflight=None, redact=True, redactor=redactor)
        relay = Relay(call, encoder_for(creq), "chat")
        action = await ascreen_call(call, lambda q: [])
        if isinstance(action, Reserve):
            await areserve_call(call, raw)
        c1 = time.process_time()
        for piece in pieces:
            relay.feed(piece)
        relay.close(error=None)
        return c1 - c0, time.process_time() - c1

    async def all_runs() -> list[tuple[float, float]]:
        for _ in range(20):
            await one()
        return [await one() for _ in range(runs)]

    got = asyncio.run(all_runs())
    setup = sum(g[0] for g in got) / runs
    feed = sum(g[1] for g in got) / runs / len(pieces)
    return feed * 1e6, setup * 1e3


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--streams", type=int, default=20)
    ap.add_argument("--interval", type=float, default=0.020)
    ap.add_argument("--concurrency", type=int, default=1, help="streams started together (default one at a time)")
    args = ap.parse_args(argv)

    up = UpstreamApp(Pace(interval=args.interval))
    script = Script(DELTAS)
    up.add("bench", script)
    pieces = Pace().pieces(b"".join(stream_frames("chat", script, {"model": "bench", "stream": True})))
    first = first_text_piece(pieces)
    feed_us, setup_ms = relay_cpu(pieces)
    up_server, up_port = serve(up)
    upstream = f"http://127.0.0.1:{up_port}"

    proxy_app.Relay = ProbeRelay  # type: ignore[misc]
    px_server, px_port = serve(SendProbe(create_app(ProxyConfig(upstream_url=upstream + "/v1"))))
    pt_server, pt_port = serve(passthrough_app(upstream))

    rows: dict[str, list[float]] = {
        k: [] for k in ("req_body", "body_up", "ttfb", "w_read", "read_rel", "rel_send", "send_client", "total")
    }
    held: list[int] = []
    bare: list[float] = []
    bare_req: list[float] = []
    bare_ttfb: list[float] = []
    for label, port in (("warm-p", px_port), ("warm-b", pt_port)):
        up.add(label, script)
        TRACE[label] = {}
        asyncio.run(client(port, label))

    def measure(kind: str, key: str, t0: float, reads: list[float]) -> None:
        ex = next(ex for ex in up.exchanges if ex.key == key and ex.stream)
        writes = ex.sent
        w = writes[first]
        if kind == "b":
            bare.append(reads[0] - w)
            bare_req.append(ex.started - t0)
            bare_ttfb.append(reads[0] - t0)
            return
        rows["req_body"].append(TRACE[key]["body_read"] - t0)
        rows["body_up"].append(ex.started - TRACE[key]["body_read"])
        rows["ttfb"].append(reads[0] - t0)
        tr = TRACE[key]
        feeds = tr["feeds"]
        got = next(f for f in feeds if f[0] >= w)  # the read that got the first text's write
        rel_i = next(i for i, f in enumerate(feeds) if has_text(f[3]))
        rel = feeds[rel_i]
        sent = next(s for s in tr["sends"] if has_text(s[1]))
        # writes made before the releasing read began, after the first text's write
        held.append(sum(1 for x in writes if w < x <= rel[0]))
        rows["w_read"].append(got[0] - w)
        rows["read_rel"].append(rel[2] - got[0])
        rows["rel_send"].append(sent[0] - rel[2])
        rows["send_client"].append(reads[0] - sent[0])
        rows["total"].append(reads[0] - w)

    async def together(port: int, keys: list[str]) -> list[tuple[float, list[float]]]:
        return list(await asyncio.gather(*(client(port, k) for k in keys)))

    c = args.concurrency
    for n in range(0, args.streams, c):
        for kind, port in (("p", px_port), ("b", pt_port)):
            keys = [f"{kind}{i}" for i in range(n, min(n + c, args.streams))]
            for key in keys:
                up.add(key, script)
                TRACE[key] = {}
            for key, (t0, reads) in zip(keys, asyncio.run(together(port, keys)), strict=True):
                measure(kind, key, t0, reads)
    load = os.getloadavg()
    pace = f"pacing {args.interval * 1000:.0f} ms, load {load[0]:.2f}"
    print(f"{args.streams} streams, {args.concurrency} at a time, {pace}")
    print("| stage (first text) | median ms |")
    print("|---|---|")
    names = {
        "req_body": "client request -> proxy read the body",
        "body_up": "proxy read the body -> upstream got the request",
        "w_read": "upstream write -> proxy read",
        "read_rel": "proxy read -> relay released",
        "rel_send": "relay released -> proxy write",
        "send_client": "proxy write -> client read",
        "total": "upstream write -> client read (proxy)",
    }
    for k, name in names.items():
        print(f"| {name} | {med(rows[k]):.2f} |")
    print(f"| upstream write -> client read (bare passthrough) | {med(bare):.2f} |")
    print(f"| client request -> upstream got the request (bare passthrough) | {med(bare_req):.2f} |")
    print(f"| client request -> first text read (proxy) | {med(rows['ttfb']):.2f} |")
    print(f"| client request -> first text read (bare passthrough) | {med(bare_ttfb):.2f} |")
    print(f"Relay.feed: {feed_us:.1f} CPU µs per upstream piece ({len(pieces)} pieces); request parse + call")
    print(f"setup: {setup_ms:.3f} CPU ms per request (process_time, mean of 200)")
    print(f"upstream writes held before the release: median {statistics.median(held)}, max {max(held)}")
    for s in (up_server, px_server, pt_server):
        s.should_exit = True
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
