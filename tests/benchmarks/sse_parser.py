"""SSEParser buffering: one long line fed in reads of every size, time per byte, one run (issue 24 e).

    python tests/benchmarks/sse_parser.py            # a 1 MiB line: ~30 s on a quiet core
    python tests/benchmarks/sse_parser.py --quick    # a 64 KiB line: smoke run

The stream is `data: ` + N bytes + a blank line (one event), fed in reads of 1, 16, 256, 1024 and 65536 bytes
and whole; each figure is the median of repeats of CPU ns per byte (process_time: the machine is shared), and
the ratio to 1 KiB reads (the target is within 3x). Two more rows say where the 1-byte figure comes from: the
same line at a quarter of the length (equal ns/byte means the cost is linear in the length, no quadratic
buffering), and the cost of calls that do nothing (`feed(b"")` on the same parser, and an empty Python
method), per call.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src")]

from sluicegate.sse import SSEParser  # noqa: E402

READS = (1, 16, 256, 1024, 65536, 0)  # 0: the whole stream in one read


def stream(n: int) -> bytes:
    return b"data: " + b"x" * n + b"\n\n"


def per_byte_ns(data: bytes, size: int) -> float:
    chunks = [data] if size == 0 else [data[i : i + size] for i in range(0, len(data), size)]
    parser = SSEParser(max_event_bytes=len(data) + 1)
    feed = parser.feed
    start = time.process_time()
    events = [e for chunk in chunks for e in feed(chunk)]
    elapsed = time.process_time() - start
    assert len(events) == 1 and len(events[0].data) == len(data) - 8
    return elapsed / len(data) * 1e9


def per_call_ns(calls: int) -> tuple[float, float]:
    parser = SSEParser()
    parser.feed(b"data: x")

    class Empty:
        def feed(self, data: bytes) -> list[object]:
            return []

    empty = Empty()
    out = []
    for fn in (parser.feed, empty.feed):
        start = time.process_time()
        for _ in range(calls):
            fn(b"")
        out.append((time.process_time() - start) / calls * 1e9)
    return out[0], out[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    n = (64 << 10) if args.quick else (1 << 20)
    repeats = 3 if args.quick else args.repeats
    data, quarter = stream(n), stream(n // 4)
    rows = {size: statistics.median(per_byte_ns(data, size) for _ in range(repeats)) for size in READS}
    base = rows[1024]
    print(f"SSEParser, one line of {n} bytes ({len(data)} B stream), median of {repeats}, ns per byte\n")
    print("| read size | ns/byte | x 1 KiB reads |")
    print("|---|---|---|")
    for size in READS:
        label = "whole" if size == 0 else f"{size} B"
        print(f"| {label} | {rows[size]:.1f} | {rows[size] / base:.2f} |")
    small = statistics.median(per_byte_ns(quarter, 1) for _ in range(repeats))
    print(f"\n1-byte reads, line of {n // 4} bytes: {small:.1f} ns/byte ({rows[1] / small:.2f}x the {n}-byte line)")
    nothing, empty = per_call_ns(200_000)
    print(f"per call: feed(b'') {nothing:.0f} ns, an empty Python method {empty:.0f} ns")


if __name__ == "__main__":
    main()
