"""The proxy's own CPU per request and per upstream piece, this tree beside an older commit, in one process.

    python tests/benchmarks/proxy_cpu.py                  # this tree only
    python tests/benchmarks/proxy_cpu.py --against HEAD~3 # beside that commit's core (A/B, interleaved)

What the proxy does per request before the upstream is asked (parse the body, build the call, the relay,
screen) plus opening the stream (the text filter is built at the first event), and `Relay.feed` per upstream
piece (SSE parse, reader, redactor, meter, encoder) over the benchmark's 64 Chat deltas, no I/O. Clock:
`time.thread_time_ns()` (CPU of this thread: the machine's other jobs change it less than wall-clock). Each
repeat is the mean over `--requests` requests; the table gives the median of `--repeats` repeats, A and B
interleaved repeat by repeat. `--against REV`: that commit's `src/sluicegate` is unpacked (git archive) as a
package of another name beside this one, so both run in this process; the compiled feed (`_native*.so`) of
this tree is copied into it (the older code takes it if its C interface is the same; else its pure path runs
and the table says so).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
for _sub in ("integrations", "src", ""):
    sys.path.insert(0, str(ROOT / _sub) if _sub else str(ROOT))

from tests.benchmarks.proxy import DELTAS, QUESTION  # noqa: E402

BODY = json.dumps({"model": "bench", "stream": True, "messages": [{"role": "user", "content": QUESTION}]}).encode()


class Side:
    """One version of the core: what the proxy calls per request, the way its app calls it."""

    def __init__(self, package: str, label: str) -> None:
        self.label = label
        self.dialects = importlib.import_module(package + ".dialects")
        self.callmod = importlib.import_module(package + ".call")
        redaction = importlib.import_module(package + ".redaction")
        upstream = importlib.import_module(package + ".cli._upstream")
        fastpath = importlib.import_module(package + ".redaction.fastpath")
        self.native = fastpath.native is not None
        factory = getattr(redaction.Redactor, "factory", None)
        # The app builds this once at start-up where the core has it (Proxy.redactor), else the options per call.
        self.redactor = factory() if factory is not None else None
        script = upstream.Script(DELTAS)
        raw = b"".join(upstream.stream_frames("chat", script, {"model": "bench", "stream": True}))
        self.pieces = upstream.Pace().pieces(raw)

    async def request(self) -> Any:
        d, c = self.dialects, self.callmod
        creq = d.parse_request("chat", BODY)
        kwargs: dict[str, Any] = {"redactor": self.redactor} if self.redactor is not None else {}
        call = d.build_call(creq, budget=None, preflight=None, redact=True, redactor_options={}, **kwargs)
        relay = d.Relay(call, d.encoder_for(creq), "chat")
        action = await c.ascreen_call(call, lambda q: [])
        if isinstance(action, c.Reserve):
            await c.areserve_call(call, BODY.decode())
        call.open()  # the first upstream event does this: the text filter is built here
        return relay

    async def repeat(self, requests: int) -> tuple[float, float, bytes]:
        """(CPU µs per request setup, CPU µs per piece, the frames of the last stream)."""
        setup = feed = 0
        out = b""
        for _ in range(requests):
            t0 = time.thread_time_ns()
            relay = await self.request()
            t1 = time.thread_time_ns()
            out = b"".join(relay.feed(p) for p in self.pieces) + relay.close(error=None)
            feed += time.thread_time_ns() - t1
            setup += t1 - t0
        return setup / requests / 1e3, feed / requests / len(self.pieces) / 1e3, out


def unpack(rev: str, into: Path) -> str:
    """`rev`'s src/sluicegate as package `sg_<short>` under `into`; its name."""
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True, check=True)
    name = "sg_" + sha.stdout.strip()
    blob = subprocess.run(["git", "archive", rev, "src/sluicegate"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    (into / "src" / "sluicegate").rename(into / name)
    for so in (ROOT / "src" / "sluicegate" / "redaction").glob("_native*.so"):
        shutil.copy(so, into / name / "redaction" / so.name)
    sys.path.insert(0, str(into))
    return name


def normalize_ids(frames: bytes) -> bytes:
    """The answer's random id and clock replaced, so two versions' frames can be compared."""
    out = []
    for line in frames.split(b"\n"):
        if line.startswith(b"data: {"):
            p = json.loads(line[6:])
            p.pop("id", None)
            p.pop("created", None)
            line = b"data: " + json.dumps(p).encode()
        out.append(line)
    return b"\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", metavar="REV", help="an older commit to measure beside this tree")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--requests", type=int, default=100)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        sides = [Side("sluicegate", "this tree")]
        if args.against:
            sides.insert(0, Side(unpack(args.against, Path(tmp)), args.against))

        async def run() -> dict[str, list[tuple[float, float, bytes]]]:
            for s in sides:  # warm-up: imports, caches, the first compiles
                await s.repeat(20)
            got: dict[str, list[tuple[float, float, bytes]]] = {s.label: [] for s in sides}
            for _ in range(args.repeats):
                for s in sides:
                    got[s.label].append(await s.repeat(args.requests))
            return got

        got = asyncio.run(run())
    frames = {normalize_ids(v[-1][2]) for v in got.values()}
    print(f"{args.requests} requests × {args.repeats} repeats (interleaved), {len(sides[0].pieces)} upstream pieces")
    print("| core | setup CPU µs / request (median) | Relay.feed CPU µs / piece (median) | compiled feed |")
    print("|---|---|---|---|")
    for s in sides:
        rows = got[s.label]
        setup = statistics.median(r[0] for r in rows)
        feed = statistics.median(r[1] for r in rows)
        print(f"| {s.label} | {setup:.1f} | {feed:.2f} | {'yes' if s.native else 'no'} |")
    print(f"frames the same (ids and clock aside): {len(frames) == 1}")
    return 0 if len(frames) == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
