"""SSE transport: ours (gated_sse_route) beside a bare Starlette StreamingResponse and sse-starlette, one run.

    python tests/benchmarks/sse.py            # small sizes (this machine is shared): ~1 minute
    python tests/benchmarks/sse.py --quick    # smoke run

Each subject is a Starlette app in its own uvicorn process (one worker, so "per core" means that process's CPU
time) on a loopback port, alone and behind a real nginx (generated config, `proxy_buffering` at its default).
The provider is a scripted async generator that writes `time.monotonic()` into each piece when it yields it
(CLOCK_MONOTONIC is system-wide on Linux, so the client can subtract it); ours runs it through `PassThrough`
so every piece is one `delta` frame and the figures are the transport's, not the gate's sentence hold (the
gate's own per-piece cost is in the gate tables). Figures:
1. piece -> frame delay at the client, p50/p99 over all pieces of all repeats, paced at one piece per 5 ms;
2. client disconnect -> upstream `aclose`/`finally`, p50/p99 (the client closes its socket mid-stream, the
   server records when the provider's generator finished);
3. pieces per second per core: unpaced; pieces / server-process CPU seconds (and / wall seconds), median of
   repeats (each piece is one frame, except `ours+gate`: the real gate + redactor on a grounded answer in
   4-character pieces, which sends one frame per released stretch of text).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "integrations")]

SUBJECTS = ("ours", "starlette", "sse-starlette")


# ---------------------------------------------------------------- server side (run with --serve KIND) ----
def make_app(kind: str) -> Any:
    import asyncio

    from sse_starlette.sse import EventSourceResponse
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    from sluicegate import Pipeline, Redactor, SentenceGate
    from sluicegate.sse import PassThrough, encode_event
    from sluicegate_starlette import Answer, ChatRequest, gated_sse_route

    closes: list[float] = []
    sources = ["The library opens at 9:00 on weekdays and at 10:00 on Saturdays."]
    grounded = "The library opens at 9:00 on weekdays [S1]. On Saturdays it opens at 10:00 [S1]. "

    async def provider(n: int, pace: float, gated: bool) -> Any:
        try:
            for i in range(n):
                if pace:
                    await asyncio.sleep(pace)
                if gated:
                    yield grounded[(i * 4) % len(grounded) :][:4] or grounded[:4]
                else:
                    yield f"{time.monotonic():.6f} "
        finally:
            closes.append(time.monotonic())

    def params(chat: Any) -> tuple[int, float, bool]:
        spec = json.loads(chat.question)
        return int(spec["n"]), float(spec["pace"]), bool(spec.get("gated"))

    async def stats(request: Request) -> Response:
        return JSONResponse({"closes": closes})

    if kind == "ours":

        def answer(chat: ChatRequest, request: Request) -> Answer:
            n, pace, gated = params(chat)
            filt = Pipeline(SentenceGate(sources), Redactor()) if gated else PassThrough()
            return Answer(provider(n, pace, gated), filt)

        chat_route = gated_sse_route("/chat", answer)
    else:

        async def chat(request: Request) -> Response:
            spec = json.loads((await request.json())["question"])
            n, pace = int(spec["n"]), float(spec["pace"])
            if kind == "starlette":
                frames = (encode_event("delta", {"text": p}) async for p in provider(n, pace, False))
                return StreamingResponse(frames, media_type="text/event-stream")
            events = ({"event": "delta", "data": json.dumps({"text": p})} async for p in provider(n, pace, False))
            return EventSourceResponse(events)

        chat_route = Route("/chat", chat, methods=["POST"])
    return Starlette(routes=[chat_route, Route("/stats", stats)])


def serve(kind: str, port: int) -> None:
    import uvicorn

    uvicorn.run(make_app(kind), host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="off")


# ---------------------------------------------------------------------------------------- client side ----
class Server:
    def __init__(self, kind: str) -> None:
        from tests.services.ports import free_port, wait_listening

        self.kind = kind
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve", kind, "--port", str(self.port)])
        wait_listening(self.port, timeout=20)
        self.url = f"http://127.0.0.1:{self.port}"

    def cpu(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def closes(self) -> list[float]:
        import httpx

        return list(httpx.get(f"{self.url}/stats", timeout=10).json()["closes"])

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def stream(url: str, spec: dict[str, Any], on_frame: Any = None) -> int:
    import httpx

    from sluicegate.sse import SSEParser

    parser = SSEParser()
    frames = 0
    body = {"question": json.dumps(spec)}
    with httpx.stream("POST", f"{url}/chat", json=body, timeout=30) as r:
        for chunk in r.iter_raw():
            for event in parser.feed(chunk):
                if event.event == "delta":
                    frames += 1
                    if on_frame is not None and on_frame(event) is False:
                        return frames
    return frames


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def delays(url: str, n: int, repeats: int) -> list[float]:
    out: list[float] = []

    def record(event: Any) -> None:
        out.append(time.monotonic() - float(json.loads(event.data)["text"]))

    for _ in range(repeats):
        stream(url, {"n": n, "pace": 0.005}, record)
    return out


def disconnects(server: Server, url: str, trials: int) -> list[float]:
    out: list[float] = []
    for _ in range(trials):
        before = len(server.closes())
        closed_at: list[float] = []

        def leave(event: Any, closed_at: list[float] = closed_at) -> bool:
            closed_at.append(time.monotonic())
            return False  # returning from inside the `with` closes the connection

        stream(url, {"n": 100_000, "pace": 0.01}, leave)
        deadline = time.monotonic() + 5
        while len(server.closes()) == before and time.monotonic() < deadline:
            time.sleep(0.002)
        closes = server.closes()
        out.append(closes[-1] - closed_at[0] if len(closes) > before else float("inf"))
    return out


def throughput(server: Server, n: int, repeats: int, gated: bool = False) -> tuple[float, float]:
    """Pieces per server-CPU second and per wall second (unpaced), medians of repeats."""
    per_cpu, per_wall = [], []
    for _ in range(repeats):
        cpu0, wall0 = server.cpu(), time.monotonic()
        stream(server.url, {"n": n, "pace": 0, "gated": gated})
        wall, cpu = time.monotonic() - wall0, server.cpu() - cpu0
        per_cpu.append(n / max(cpu, 0.01))  # /proc ticks are 10 ms: n is sized so cpu >> 10 ms
        per_wall.append(n / wall)
    return statistics.median(per_cpu), statistics.median(per_wall)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--serve", choices=SUBJECTS)
    ap.add_argument("--port", type=int)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    if args.serve:
        serve(args.serve, args.port)
        return 0
    from tests.services.nginx import Nginx

    pieces, repeats, trials, frames = (40, 1, 3, 3000) if args.quick else (100, 3, 10, 20000)
    print(
        f"## SSE transport (loopback, 1 uvicorn worker each; {pieces} pieces x {repeats} paced runs, "
        f"{trials} disconnects, {frames} frames x {repeats} for throughput)\n"
    )
    print(
        "| subject | delay p50 / p99 direct (ms) | via nginx (ms) | disconnect -> upstream closed p50 / p99 (ms) "
        "| via nginx (ms) | pieces/s per server core | pieces/s wall |"
    )
    print("|---|---|---|---|---|---|---|")
    extra = ""
    for kind in SUBJECTS:
        server = Server(kind)
        proxy = Nginx(Path(tempfile.mkdtemp(prefix="sse-bench-nginx-")), server.port)
        proxy.start()
        try:
            for url in (server.url, proxy.url):  # warm-up: imports, first validation, nginx's upstream connection
                stream(url, {"n": 20, "pace": 0})
            d_direct, d_proxy = delays(server.url, pieces, repeats), delays(proxy.url, pieces, repeats)
            c_direct, c_proxy = disconnects(server, server.url, trials), disconnects(server, proxy.url, trials)
            rate, wall = throughput(server, frames, repeats)
            if kind == "ours":
                g_cpu, g_wall = throughput(server, frames, repeats, gated=True)
                extra = f"| ours+gate (SentenceGate + Redactor, 4-char pieces) | | | | | {g_cpu:,.0f} | {g_wall:,.0f} |"
        finally:
            proxy.stop()
            server.stop()
            shutil.rmtree(proxy.workdir, ignore_errors=True)
        ms = lambda v: f"{pct(v, 0.5) * 1000:.2f} / {pct(v, 0.99) * 1000:.2f}"  # noqa: E731
        print(
            f"| {kind} | {ms(d_direct)} | {ms(d_proxy)} | {ms(c_direct)} | {ms(c_proxy)} | {rate:,.0f} | {wall:,.0f} |"
        )
    print(extra)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
