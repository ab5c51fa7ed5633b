"""gated_events in step with its reader (issue 24 part 2), in process, one run.

    python tests/benchmarks/sse_pacing.py            # ~20 s
    python tests/benchmarks/sse_pacing.py --quick

1. Lag: an upstream that never suspends (an SDK iterating events already in its buffer), the grounded demo
   answer 6 times in 5-character pieces, through gate + redactor; for each delta frame, the upstream pieces
   pulled when it reached the reader minus the pieces the filter had seen when it made that step (0 = written
   as it is made). The first row is the issue's measurement: when the first sentence was releasable, and when it
   reached the reader.
2. Disconnect: pieces pulled after the reader went, for `is_disconnected` turning true and for the reader
   closing the stream, after each of the first 10 deltas (max).
3. Cost: CPU µs per upstream piece in gated_events (PassThrough, one frame per piece; gate + redactor), for an
   upstream that never suspends and one that suspends before each piece; median of repeats.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from sluicegate import Pipeline, Redactor, SentenceGate  # noqa: E402
from sluicegate.sse import PassThrough, gated_events  # noqa: E402
from tests.sse.support import GROUNDED, SOURCES, Eager, release_points  # noqa: E402


def gate() -> Pipeline:
    return Pipeline(SentenceGate(SOURCES, language="en"), Redactor())


PIECES = [GROUNDED[i : i + 5] for i in range(0, len(GROUNDED), 5)] * 6


async def lag() -> tuple[int, int, list[int]]:
    made = release_points(PIECES, gate())
    eager, seen = Eager(PIECES), []
    async for frame in gated_events(eager.stream(), gate()):
        if frame.startswith(b"event: delta"):
            seen.append(eager.pulled)
    return made[0], seen[0], [s - m for s, m in zip(seen, made, strict=True)]


class Flag:
    def __init__(self) -> None:
        self.gone = False

    async def __call__(self) -> bool:
        return self.gone


async def after_disconnect(k: int, how: str) -> int:
    eager, flag, deltas, then = Eager(PIECES), Flag(), 0, 0
    stream = gated_events(eager.stream(), gate(), is_disconnected=flag)
    async for frame in stream:
        if not frame.startswith(b"event: delta"):
            continue
        deltas += 1
        if deltas == k:
            then = eager.pulled
            if how == "close":
                await stream.aclose()
                break
            flag.gone = True
    return eager.pulled - then


class Upstream:
    def __init__(self, pieces: list[str], n: int, suspend: bool) -> None:
        self.pieces, self.n, self.suspend, self.pulled = pieces, n, suspend, 0

    async def stream(self) -> AsyncIterator[str]:
        for i in range(self.n):
            if self.suspend:
                await asyncio.sleep(0)
            self.pulled += 1
            yield self.pieces[i % len(self.pieces)]


ANSWER = " ".join([GROUNDED] * 40) + " "
GATE_PIECES = [ANSWER[i : i + 4] for i in range(0, len(ANSWER), 4)]


async def cost(make: object, n: int, suspend: bool) -> float:
    pieces = [f"w{i} " for i in range(50)] if make is PassThrough else GATE_PIECES
    source = Upstream(pieces, min(n, len(pieces)) if make is not PassThrough else n, suspend)
    start = time.process_time()
    async for _ in gated_events(source.stream(), make()):  # type: ignore[operator]
        pass
    return (time.process_time() - start) / source.pulled * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    repeats, n = (3, 2000) if args.quick else (5, 20000)
    first_made, first_seen, lags = asyncio.run(lag())
    print(f"1. first sentence releasable after {first_made} pieces, reached the reader after {first_seen}")
    print(f"   per-frame lag in pieces over {len(lags)} deltas: max {max(lags)}, all {sorted(set(lags))}\n")
    for how in ("flag", "close"):
        worst = max(asyncio.run(after_disconnect(k, how)) for k in range(1, 11))
        print(f"2. pieces pulled after the reader went ({how}): max {worst}")
    print("\n3. CPU µs per upstream piece in gated_events\n")
    print("| filter | upstream never suspends | upstream suspends per piece |")
    print("|---|---|---|")
    for label, make, size in (("PassThrough (a frame per piece)", PassThrough, n), ("gate + redactor", gate, n)):
        cells = [statistics.median(asyncio.run(cost(make, size, s)) for _ in range(repeats)) for s in (False, True)]
        print(f"| {label} | {cells[0]:.1f} | {cells[1]:.1f} |")


if __name__ == "__main__":
    main()
