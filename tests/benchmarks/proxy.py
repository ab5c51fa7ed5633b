"""What a guarding proxy adds to a paced stream, beside a bare passthrough and LiteLLM's proxy (issue 26).

    python tests/benchmarks/proxy.py             # every target, levels 25/50/100/200, 3 repeats at 100
    python tests/benchmarks/proxy.py --quick     # levels 25/100, 1 repeat, 1 judged stream a client, conform --quick
    python tests/benchmarks/proxy.py --no-litellm

Three kinds of process, none sharing a GIL with another: the upstream (sluicegate's scripted upstream,
`--serve-upstream`: 64 Chat Completions text deltas 20 ms apart, the onthebench.ai stream lane's pacing), each
target, and this process, the client (raw asyncio HTTP/1.1, one connection a stream). The upstream records
when each request reached it and when it wrote each delta, on `time.monotonic()` (one clock for every process
of the machine), and hands the times over at `GET /bench/writes`. Each frame the client gets is timed against
the upstream write that made it possible: for a frame showing text up to character p, the trigger is the
latest write at or before its arrival among those that had sent character p. Added latency = arrival −
trigger write (minus the same on the direct path); the *hold* = characters the upstream had sent at the
trigger and the client was not shown yet (what the filter keeps back: a word for the redactor, a sentence for
the gate, all of it for a buffering guardrail). Latencies above one pacing interval are under-counted (a later
write precedes the arrival): at that point a target is far past the 10 ms target anyway.

Load: at level N, N clients, their first requests spread evenly over one stream's length (1.28 s), each
running streams back to back; only the streams between a client's first and last are judged, so each judged
stream starts and runs with N in flight (`load`). Added time to first byte, per stream: its first text frame
− its request, minus the direct path's median at the same level. Added request path: request → the upstream
has it, the same way.

Targets, each its own process (one core): (a) the upstream directly; (b) a bare httpx→Starlette passthrough
(tests/conform/targets.py); (c) `sluicegate proxy` redaction-only; (d) the same proxy with
`sluicegate.sources` (gate + redaction); (e) `litellm` proxy with its Presidio guardrail (`apply_to_output`)
at its defaults and with `streaming_buffer_until_moderated: false`, its Presidio analyzer/anonymizer served
from the bench venv (presidio_service.py, blank spaCy). Streams per core: the most concurrent streams (of the
levels tried) at which p99 added inter-frame latency stays ≤ 10 ms. Leaks: `sluicegate conform` against each
target (chat dialect).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
for _sub in ("integrations", "src", ""):
    sys.path.insert(0, str(ROOT / _sub) if _sub else str(ROOT))

from sluicegate.cli._upstream import _KEY_MARK, Pace, Script, UpstreamApp  # noqa: E402
from tests.services.ports import free_port, wait_listening  # noqa: E402
from tests.services.processes import stop_process  # noqa: E402

INTERVAL = 0.020
# LiteLLM's proxy refuses to start without a strong master key; every target gets it as the client's key.
MASTER_KEY = "sk-" + "5f1e" * 16
SENTENCES = [
    "The central library opens at nine in the morning on weekdays.",
    "It closes at six in the evening, and at noon on Saturdays.",
    "Members may borrow up to twelve books at a time for three weeks.",
    "Renewals are possible twice, online or at the front desk.",
    "The reading room on the second floor is quiet and has free wifi.",
    "Children's story time runs every Wednesday at four in the afternoon.",
]
# The answer cites its source after each sentence, as the gate requires of a sentence of 8+ words (docs/gate.md).
ANSWER = [f"{s[:-1]} [S{i + 1}]." for i, s in enumerate(SENTENCES)]
WORDS = " ".join(ANSWER).split(" ")


def _deltas(n: int = 64) -> tuple[str, ...]:
    words = (WORDS * (n // len(WORDS) + 1))[:n]
    return tuple(w + " " for w in words[:-1]) + (words[-1],)


DELTAS = _deltas()
CUM = [0]
for _d in DELTAS:
    CUM.append(CUM[-1] + len(_d))
QUESTION = "When does the central library open and close, and how many books can members borrow?"


# -- the upstream, a process of its own ----------------------------------------------------------------------


class BenchUpstream:
    """The scripted upstream as the upstream process serves it: every `[replay:KEY]` gets the bench script, and
    `GET /bench/writes` hands the bench (and forgets) the streams served so far: `{key: [request arrival, write
    times...]}`."""

    def __init__(self, interval: float = INTERVAL) -> None:
        self.script = Script(DELTAS)
        self.app = UpstreamApp(Pace(interval=interval))
        self.app.add("bench", self.script)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/bench/writes":
            done = [ex for ex in self.app.exchanges if ex.done.is_set()]
            self.app.exchanges[:] = [ex for ex in self.app.exchanges if not ex.done.is_set()]
            body = json.dumps({ex.key or "": [ex.started, *ex.sent] for ex in done if ex.stream}).encode()
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        first = await receive()
        body = first.get("body", b"")
        while first.get("more_body"):  # the whole body, then the inner app reads it as one message
            first = await receive()
            body += first.get("body", b"")
        mark = _KEY_MARK.search(body)
        if mark is not None:
            self.app.entries.setdefault(mark.group(1).decode(), self.script)
        given = False

        async def replay() -> Any:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class Upstream:
    """The upstream in its own process (`--serve-upstream`): the client's event loop and the upstream's do not
    share a GIL. Its write times are `time.monotonic()`, one clock for every process of the machine (Linux
    `CLOCK_MONOTONIC`), so they compare with the client's arrivals."""

    def __init__(self) -> None:
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        argv = [sys.executable, str(HERE / "proxy.py"), "--serve-upstream", "--port", str(self.port)]
        self.proc = subprocess.Popen(argv, env=_env(), cwd=ROOT)
        wait_listening(self.port, timeout=60)
        return f"http://127.0.0.1:{self.port}"

    def prepare(self, keys: list[str]) -> None:
        """Nothing to do: the upstream process gives every `[replay:KEY]` the script (kept for callers)."""

    def writes(self) -> dict[str, list[float]]:
        """{key: [when the request reached the upstream, then when each write went out]}."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/bench/writes", timeout=60) as r:
            got: dict[str, list[float]] = json.loads(r.read())
        return got

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)


def serve_upstream(port: int) -> None:
    import uvicorn

    config = uvicorn.Config(
        BenchUpstream(), host="127.0.0.1", port=port, log_level="warning", lifespan="off", access_log=False
    )
    config.backlog = 4096
    uvicorn.Server(config).run()


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "integrations"), str(ROOT)])}


# -- the client ----------------------------------------------------------------------------------------------


@dataclass
class Stream:
    key: str
    t0: float
    frames: list[tuple[float, int]] = field(default_factory=list)  # (arrival, characters shown so far)
    error: str | None = None


async def one_stream(port: int, key: str, extra: dict[str, Any]) -> Stream:
    body = {
        "model": "bench",
        "stream": True,
        "messages": [{"role": "user", "content": f"{QUESTION} [replay:{key}]"}],
        **extra,
    }
    raw = json.dumps(body).encode()
    head = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {MASTER_KEY}\r\nContent-Length: {len(raw)}\r\nConnection: close\r\n\r\n"
    ).encode()
    s = Stream(key, time.monotonic())
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
        writer.write(head + raw)
        headers = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
        if not headers.startswith("http/1.1 200"):
            s.error = headers.split("\r\n", 1)[0]
            writer.close()
            return s
        chunked = "transfer-encoding: chunked" in headers
        buf, cum = b"", 0
        while True:
            if chunked:
                size = int((await reader.readline()).split(b";")[0], 16)
                if size == 0:
                    break
                data = await reader.readexactly(size)
                await reader.readexactly(2)
            else:
                data = await reader.read(65536)
                if not data:
                    break
            now = time.monotonic()
            buf += data
            *events, buf = buf.replace(b"\r\n", b"\n").split(b"\n\n")
            for ev in events:
                for line in ev.split(b"\n"):
                    if not line.startswith(b"data:") or line[5:].strip() == b"[DONE]":
                        continue
                    payload = json.loads(line[5:])
                    for choice in payload.get("choices") or []:
                        text = (choice.get("delta") or {}).get("content") or ""
                        if text:
                            cum += len(text)
                            s.frames.append((now, cum))
        writer.close()
    except (OSError, ValueError, asyncio.IncompleteReadError) as exc:
        s.error = f"{type(exc).__name__}: {exc}"
    return s


def _quantile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


@dataclass
class Run:
    ttfb: list[float]
    latency: list[float]
    hold: list[int]
    errors: int
    request: list[float] = field(default_factory=list)  # request sent -> the upstream has it, per stream
    cpu: float = float("nan")  # CPU seconds of the target's process per stream served (`measure`)


def judge(streams: list[Stream], writes: dict[str, list[float]]) -> Run:
    ttfb, latency, hold, errors, request = [], [], [], 0, []
    for s in streams:
        got = writes.get(s.key)
        if s.error or not s.frames or not got or len(got) < 2:
            errors += 1
            continue
        started, sent = got[0], got[1:]
        ttfb.append(s.frames[0][0] - s.t0)
        request.append(started - s.t0)
        # write w carries delta w (write 0 is the role chunk); after the last delta every write carries all.
        cum_at = [CUM[min(w, len(DELTAS))] for w in range(len(sent))]
        for arrival, shown in s.frames:
            first = next((w for w, c in enumerate(cum_at) if c >= shown), len(sent) - 1)
            trigger = first
            for w in range(first, len(sent)):
                if sent[w] <= arrival:
                    trigger = w
            latency.append(arrival - sent[trigger])
            hold.append(cum_at[trigger] - shown)
    return Run(ttfb, latency, hold, errors, request)


# A stream's length on the direct path (64 writes 20 ms apart): arrivals are spread over it (`load`).
STREAM_SECONDS = len(DELTAS) * INTERVAL


async def load(port: int, upstream: Upstream, n: int, extra: dict[str, Any], tag: str, measured: int = 1) -> Run:
    """`n` streams in flight in steady state, their starts spread evenly over one stream's length: `n` clients,
    client i starting at i × STREAM_SECONDS / n, each running its streams back to back (a new connection each).
    A client's first stream runs while the others are still arriving and its last while they leave: only the
    `measured` ones between are judged, so each judged stream starts and runs with `n` in flight (on the
    direct path; a target that makes streams longer keeps `n` in flight too). Not all at once: 100 requests in
    the same millisecond would time a thundering herd, not the latency added at 100 concurrent streams."""
    stride = STREAM_SECONDS / n

    async def client(i: int) -> list[Stream]:
        await asyncio.sleep(i * stride)
        got = [await one_stream(port, f"bench/{tag}/{i}/{r}", extra) for r in range(measured + 2)]
        return got[1:-1]

    streams = [s for group in await asyncio.gather(*(client(i) for i in range(n))) for s in group]
    await asyncio.sleep(0.05)
    return judge(streams, upstream.writes())


async def burst(port: int, upstream: Upstream, n: int, extra: dict[str, Any], tag: str) -> Run:
    """`n` streams started together (the warm-up)."""
    keys = [f"bench/{tag}/{i}" for i in range(n)]
    streams = await asyncio.gather(*(one_stream(port, k, extra) for k in keys))
    await asyncio.sleep(0.05)
    return judge(list(streams), upstream.writes())


# -- targets -------------------------------------------------------------------------------------------------


@dataclass
class Target:
    name: str
    argv: list[str] | None  # None: the upstream itself
    extra: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    note: str = ""

    def start(self, log: Path) -> None:
        if self.argv is None:
            return
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "integrations"), str(ROOT)])}
        env.update(self.env)
        with log.open("ab") as out:
            self.proc = subprocess.Popen(self.argv, stdout=out, stderr=out, env=env, cwd=ROOT)
        wait_listening(self.port, timeout=180)

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)


def _litellm_config(upstream: str, presidio: str, streaming_flag: bool | None, path: Path) -> None:
    lines = [
        "model_list:",
        "  - model_name: bench",
        "    litellm_params:",
        "      model: openai/bench",
        f"      api_base: {upstream}/v1",
        "      api_key: sk-upstream",
        "guardrails:",
        "  - guardrail_name: presidio-pii",
        "    litellm_params:",
        "      guardrail: presidio",
        "      mode: post_call",
        "      default_on: true",
        "      apply_to_output: true",
        f"      presidio_analyzer_api_base: {presidio}/",
        f"      presidio_anonymizer_api_base: {presidio}/",
    ]
    if streaming_flag is not None:
        lines.append(f"      streaming_buffer_until_moderated: {str(streaming_flag).lower()}")
    lines += ["litellm_settings:", "  telemetry: false", "  drop_params: true"]
    path.write_text("\n".join(lines) + "\n")


def targets(upstream: str, args: argparse.Namespace, tmp: Path) -> list[Target]:
    py = sys.executable
    out = [Target("(a) upstream directly", None)]
    b = Target("(b) httpx→Starlette passthrough", [], port=free_port())
    b.argv = [py, str(HERE / "proxy.py"), "--serve-passthrough", upstream, "--port", str(b.port)]
    c = Target("(c) sluicegate proxy, redaction only", [], port=free_port())
    c.argv = [py, "-m", "sluicegate.cli", "proxy", "--upstream", upstream + "/v1"]
    c.argv += ["--listen", f"127.0.0.1:{c.port}", "--log-level", "warning"]
    d = Target("(d) sluicegate proxy, gate + redaction", c.argv, {"sluicegate": {"sources": SENTENCES}}, port=c.port)
    out += [b, c, d]
    if args.no_litellm:
        return out
    venv_py = Path(args.venv) / "bin" / "python"
    if not venv_py.exists():
        print(f"no bench venv at {args.venv}: LiteLLM rows skipped", file=sys.stderr)
        return out
    presidio = Target("presidio service", [str(venv_py), str(HERE / "presidio_service.py")], port=free_port())
    presidio.argv = [*(presidio.argv or []), str(presidio.port)]
    out.append(presidio)
    litellm = str(Path(sys.executable).parent / "litellm")
    env = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False", "LITELLM_LOG": "ERROR"}
    env["LITELLM_MASTER_KEY"] = MASTER_KEY
    for label, flag in (("default", None), ("streaming_buffer_until_moderated: false", False)):
        t = Target(f"(e) LiteLLM + Presidio, {label}", [], env=env, port=free_port())
        cfg = tmp / f"litellm_{t.port}.yaml"
        _litellm_config(upstream, f"http://127.0.0.1:{presidio.port}", flag, cfg)
        t.argv = [litellm, "--config", str(cfg), "--host", "127.0.0.1", "--port", str(t.port), "--num_workers", "1"]
        out.append(t)
    return out


# -- main ----------------------------------------------------------------------------------------------------


def serve_passthrough(upstream: str, port: int) -> None:
    import uvicorn

    from tests.conform.targets import passthrough_app

    uvicorn.run(passthrough_app(upstream + "/v1"), host="127.0.0.1", port=port, log_level="warning", access_log=False)


def measure(t: Target, upstream: Upstream, levels: list[int], repeats: int, measured: int) -> dict[str, Any]:
    port = t.port or upstream.port
    result: dict[str, Any] = {"levels": {}}
    asyncio.run(burst(port, upstream, 5, t.extra, f"{t.port}-warm"))  # warm-up: imports, first connections
    for level in levels:
        runs = []
        for r in range(repeats if level == 100 else 1):
            pid = t.proc.pid if t.proc is not None else upstream.proc.pid if upstream.proc is not None else 0
            cpu0 = cpu_seconds(pid)
            run = asyncio.run(load(port, upstream, level, t.extra, f"{t.port}-{level}-{r}", measured))
            run.cpu = (cpu_seconds(pid) - cpu0) / (level * (measured + 2))
            runs.append(run)
            print(
                f"  {level} streams: first text p50 {_quantile(run.ttfb, 0.5) * 1000:.1f} ms, request reached the "
                f"upstream p50 {_quantile(run.request, 0.5) * 1000:.1f} ms, inter-frame p99 "
                f"{_quantile(run.latency, 0.99) * 1000:.1f} ms, {run.cpu * 1000:.1f} CPU ms a stream, {run.errors} "
                f"errors (load {os.getloadavg()[0]:.1f})",
                file=sys.stderr,
                flush=True,
            )
        result["levels"][level] = runs
    return result


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc; nan elsewhere). The machine's other jobs change
    it far less than wall-clock latency: what a stream costs the target, whatever else runs."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summarize(res: dict[str, Any], base: dict[str, Any] | None) -> dict[str, Any]:
    """Quantiles at 100 streams (or the highest level), medians over repeats. Added first text is per stream:
    each stream's time to first text minus the direct path's median at the same level in the same run; the
    inter-frame columns are the target's quantile minus the direct path's."""

    def stat(level: int, pick: str, q: float) -> float:
        return statistics.median(_quantile(getattr(run, pick), q) for run in res["levels"][level])

    out: dict[str, Any] = {}
    at = 100 if 100 in res["levels"] else max(res["levels"])
    for name, pick, q in (("ttfb50", "ttfb", 0.5), ("ttfb99", "ttfb", 0.99), ("lat50", "latency", 0.5)):
        out[name] = stat(at, pick, q)
    out["lat99"] = stat(at, "latency", 0.99)
    out["ttfb_all"] = {lv: [x for run in runs for x in run.ttfb] for lv, runs in res["levels"].items()}
    out["req50"] = stat(at, "request", 0.5)
    out["cpu"] = statistics.median(run.cpu for run in res["levels"][at])
    out["hold50"] = statistics.median(_quantile([float(h) for h in run.hold], 0.5) for run in res["levels"][at])
    out["holdmax"] = max((max(run.hold) if run.hold else 0) for run in res["levels"][at])
    out["errors"] = sum(run.errors for runs in res["levels"].values() for run in runs)
    if base is not None:
        direct = statistics.median(base["ttfb_all"][at]) if base["ttfb_all"].get(at) else 0.0
        added = []
        for run in res["levels"][at]:
            added.append([x - direct for x in run.ttfb])
        out["added_ttfb50"] = statistics.median(_quantile(a, 0.5) for a in added)
        out["added_ttfb99"] = statistics.median(_quantile(a, 0.99) for a in added)
        for k in ("lat50", "lat99", "req50"):
            out["added_" + k] = out[k] - base[k]
    sustained = 0
    for level in sorted(res["levels"]):
        p99 = statistics.median(_quantile(run.latency, 0.99) for run in res["levels"][level])
        base99 = base["per_level99"].get(level, 0.0) if base is not None else 0.0
        errs = sum(run.errors for run in res["levels"][level])
        if p99 - base99 <= 0.010 and not errs:
            sustained = level
    out["sustained"] = sustained
    out["per_level99"] = {
        lv: statistics.median(_quantile(run.latency, 0.99) for run in runs) for lv, runs in res["levels"].items()
    }
    return out


def run_conform(t: Target, tmp: Path, args: argparse.Namespace) -> str:
    """`sluicegate conform` against a second instance of the target, pointed at conform's own upstream."""
    if t.argv is None:
        target, up_port = "upstream", 0
    else:
        up_port = free_port()
        clone = Target(t.name, list(t.argv), t.extra, dict(t.env), port=free_port())
        upstream = f"http://127.0.0.1:{up_port}"
        argv = clone.argv or []
        for i, a in enumerate(argv):
            if a.startswith("--config") and i + 1 < len(argv):
                cfg = tmp / f"conform_{clone.port}.yaml"
                cfg.write_text(Path(argv[i + 1]).read_text().replace(args.upstream_url, upstream))
                argv[i + 1] = str(cfg)
        argv = [
            upstream if a == args.upstream_url else upstream + "/v1" if a == args.upstream_url + "/v1" else a
            for a in argv
        ]
        for flag in ("--port",):
            if flag in argv:
                argv[argv.index(flag) + 1] = str(clone.port)
        argv = [f"127.0.0.1:{clone.port}" if a.startswith("127.0.0.1:") else a for a in argv]
        clone.argv = argv
        clone.start(tmp / "targets.log")
        target = f"http://127.0.0.1:{clone.port}"
    try:
        cmd = [sys.executable, "-m", "sluicegate.cli", "conform", target, "--serve-upstream", str(up_port), "--json"]
        cmd += ["--extra", json.dumps(t.extra), "--wait", "5", "--timeout", "60", "--api-key", MASTER_KEY] + (
            ["--quick"] if args.quick else []
        )
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "integrations"), str(ROOT)])}
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
        try:
            report = json.loads(done.stdout)
        except ValueError:
            return f"conform failed: {done.stderr.strip()[-200:]}"
        rows = [r for r in report["rows"] if r["kind"] != "control"]
        split_only = sum(1 for r in rows if r["leaked"] and r["whole_run"] < r["min_prefix"])
        leaks = f"{report['leaks']}/{len(rows)} values ({split_only} split-only)"
        if report["errors"]:
            sample = next((r["error_sample"] for r in report["rows"] if r["error_sample"]), "")[:80]
            return f"{leaks}; {report['errors']}/{report['streams'] + len(report['rows'])} requests failed: {sample}"
        return leaks
    finally:
        if t.argv is not None:
            clone.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-litellm", action="store_true")
    parser.add_argument("--no-conform", action="store_true")
    parser.add_argument("--levels", help="comma-separated concurrency levels (default 25,50,100,200)")
    parser.add_argument("--only", help="run only targets whose name contains this (the upstream row always runs)")
    parser.add_argument("--venv", default=str(ROOT / ".venv-bench"), help="the bench venv (Presidio)")
    parser.add_argument(
        "--measured", type=int, help="judged streams per client and level (default 2; --quick 1), see `load`"
    )
    parser.add_argument("--serve-passthrough", metavar="UPSTREAM", help=argparse.SUPPRESS)
    parser.add_argument("--serve-upstream", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_passthrough:
        serve_passthrough(args.serve_passthrough, args.port)
        return 0
    if args.serve_upstream:
        serve_upstream(args.port)
        return 0
    levels = [25, 100] if args.quick else [25, 50, 100, 200]
    if args.levels:
        levels = [int(x) for x in args.levels.split(",")]
    repeats = 1 if args.quick else 3
    measured = args.measured or (1 if args.quick else 2)
    upstream = Upstream()
    args.upstream_url = upstream.start()
    rows: list[tuple[Target, dict[str, Any], str]] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        all_targets = targets(args.upstream_url, args, tmp)
        if args.only:
            keep = ("(a)", "presidio", args.only)
            all_targets = [t for t in all_targets if any(k in t.name for k in keep)]
        base: dict[str, Any] | None = None
        started: set[int] = set()
        try:
            for t in all_targets:
                if t.port not in started:
                    t.start(tmp / "targets.log")
                    started.add(t.port)
            for t in all_targets:
                if t.name == "presidio service":
                    continue
                print(f"measuring {t.name} ...", file=sys.stderr, flush=True)
                summary = summarize(measure(t, upstream, levels, repeats, measured), base)
                base = base or summary
                leaks = "" if args.no_conform else run_conform(t, tmp, args)
                rows.append((t, summary, leaks))
        finally:
            for t in all_targets:
                t.stop()
            upstream.stop()
    print_table(rows, levels, repeats, measured)
    return 0


def print_table(rows: list[tuple[Target, dict[str, Any], str]], levels: list[int], repeats: int, measured: int) -> None:
    ms = 1000.0
    at = 100 if 100 in levels else max(levels)  # the level the latency columns are read at (summarize)
    print(f"\nPaced upstream: {len(DELTAS)} deltas, {INTERVAL * ms:.0f} ms apart; {at} concurrent streams in flight")
    print(
        f"(arrivals spread over {STREAM_SECONDS:.2f} s, {measured} judged stream(s) per client), median of "
        f"{repeats} repeats; levels tried for streams/core: {levels}. Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end.\n"
    )
    print(
        "| target | added TTFB p50 / p99 (ms) | added inter-frame p50 / p99 (ms) | hold p50 / max (chars) "
        "| streams/core at p99 ≤ 10 ms | added request path p50 (ms) | CPU ms / stream | errors | conform leaks |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for t, s, leaks in rows:
        if "added_ttfb50" in s:
            ttfb = f"{s['added_ttfb50'] * ms:.1f} / {s['added_ttfb99'] * ms:.1f}"
            lat = f"{s['added_lat50'] * ms:.2f} / {s['added_lat99'] * ms:.2f}"
            req = f"{s['added_req50'] * ms:.1f}"
        else:
            ttfb = f"({s['ttfb50'] * ms:.1f} / {s['ttfb99'] * ms:.1f} absolute)"
            lat = f"({s['lat50'] * ms:.2f} / {s['lat99'] * ms:.2f} absolute)"
            req = f"({s['req50'] * ms:.1f} absolute)"
        sustained = (
            f"≥ {s['sustained']}" if s["sustained"] == max(levels) else str(s["sustained"] or f"< {min(levels)}")
        )
        print(
            f"| {t.name} | {ttfb} | {lat} | {s['hold50']:.0f} / {s['holdmax']} | {sustained} "
            f"| {req} | {s['cpu'] * ms:.1f} | {s['errors']} | {leaks} |"
        )


if __name__ == "__main__":
    sys.exit(main())
