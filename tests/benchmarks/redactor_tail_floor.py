"""Issue 27's per-feed tail, with the machine's noise taken out: each feed's cost is its least over `--repeats`
runs of the same feed sequence (a fresh subject per run; the state after each feed is deterministic, so the same
feed index is the same work every run), then the p50 / p99 over the feeds. Not collected by pytest.

    python tests/benchmarks/redactor_tail_floor.py --kb 64 --repeats 7
    python tests/benchmarks/redactor_tail_floor.py --kb 64 --repeats 7 --clock thread

Why: on this shared 2-core machine the SentenceSplitter's own median feed moved 0.64–1.27 µs between
back-to-back runs, and a feed the scheduler interrupts lands in the top 1% whatever it did: in one run about half
of the feeds at or above the Redactor's p99 were not at or above it in the next (tests/benchmarks
/redactor_tail.py's table, docs/performance.md "the per-feed tail's floor"). The least of several runs of the
same feed is its cost without what the machine added (timeit's argument for taking the minimum). It also leaves
out a garbage collection that happens to fall on a feed (it falls on another feed in another run), so it is a
floor, not what a reader sees: redactor_tail.py's table stays the issue's measure, this one says how much of
its p99 is the code. Both subjects are measured the same way, interleaved, in one process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate import SentenceSplitter  # noqa: E402
from sluicegate.redaction import Redactor  # noqa: E402
from tests.benchmarks.corpora27 import CORPORA  # noqa: E402
from tests.benchmarks.redactor_tail import Native, Pure, pct  # noqa: E402

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "thread": time.thread_time}


def run_costs(make: Callable[[], object], pieces: list[str], clock: Callable[[], float]) -> list[float]:
    """Each feed's cost in one run of a fresh subject."""
    feed = make().feed  # type: ignore[attr-defined]
    costs = []
    for p in pieces:
        t = clock()
        feed(p)
        costs.append(clock() - t)
    return costs


def floors(runs: list[list[float]]) -> list[float]:
    """Per feed, the least over the runs."""
    return [min(c) for c in zip(*runs, strict=True)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    ap.add_argument("--only", default=",".join(CORPORA))
    args = ap.parse_args()
    clock = CLOCKS[args.clock]
    subjects: list[tuple[str, Callable[[], object]]] = [
        ("split", SentenceSplitter),
        ("[fast] + compiled feed", Redactor),
        ("compiled feed", Native),
        ("pure", Pure),
    ]
    texts = {k: CORPORA[k](args.kb * 1024) for k in args.only.split(",")}
    for _, make in subjects[1:]:  # learn the shared starters tables outside the timing
        for text in texts.values():
            make().feed(text[:20000])  # type: ignore[attr-defined]
    print(
        f"Per-feed floor: each 4-character feed's least cost over {args.repeats} runs ({args.clock} clock), "
        "then percentiles over the feeds; the p99 against the splitter's floor p50 (target <= 20x).\n"
    )
    names = [n for n, _ in subjects[1:]]
    print("| corpus | splitter p50 / p99 µs | " + " | ".join(f"{n}: p50 / p99 µs (x)" for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    for label, text in texts.items():
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
        runs: dict[str, list[list[float]]] = {n: [] for n, _ in subjects}
        for _ in range(args.repeats):
            for name, make in subjects:
                runs[name].append(run_costs(make, pieces, clock))
        got = {n: floors(r) for n, r in runs.items()}
        base = pct(got["split"], 0.5)
        cells = [
            f"{pct(got[n], 0.5) * 1e6:.2f} / {pct(got[n], 0.99) * 1e6:.2f} ({pct(got[n], 0.99) / base:.0f}x)"
            for n in names
        ]
        mean = {n: statistics.fmean(got[n]) for n in got}
        print(f"| {label} | {base * 1e6:.2f} / {pct(got['split'], 0.99) * 1e6:.2f} | " + " | ".join(cells) + " |")
        print(
            f"| {label}: mean floor x splitter's | 1.0x | "
            + " | ".join(f"{mean[n] / mean['split']:.1f}x" for n in names)
            + " |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
