"""Issue 17's table: the Redactor's cost per token beside the SentenceSplitter's, measured side by side in one run.
Not collected by pytest.

    python tests/benchmarks/redactor_cost.py                       # 256 KiB corpora, scaling 1 MB -> 8 MB
    python tests/benchmarks/redactor_cost.py --kb 64 --scale-kb 128 --repeats 3   # a quick run

Rows, each the median of `--repeats` runs, for the Redactor now (pure Python and `regex`; with the compiled
`feed` fast path, redaction/_native.c, where it was built; with that and the `[fast]` prefilter when installed)
and before issue 17's rework (the frozen copy in tests/redact/oracle/, same paths):
- mean cost of one `feed` of a 4-character piece, and its ratio to the SentenceSplitter's mean on the same text,
  on the planted corpus and on benign prose separately (target <= 3x);
- the p99 feed against the splitter's p50 feed (target <= 20x);
- the most characters held after a feed on prose (target <= 64);
- whole-text `redact()` throughput on the planted corpus (targets >= 20 MB/s with `[fast]`, >= 8 MB/s without);
- 1-character pieces: ns per byte at `--scale-kb` and at 8x that (target ratio <= 1.2).
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
from tests.benchmarks import corpus as C  # noqa: E402
from tests.redact import oracle  # noqa: E402


class Pure(Redactor):
    _COMPILED = False
    _NATIVE = False


class Native(Redactor):
    _COMPILED = False


class OldPure(oracle.Redactor):
    _COMPILED = False


def feed_costs(make: Callable[[], object], pieces: list[str]) -> tuple[list[float], int]:
    """Wall time of every `feed` (s), and the most characters held after one (-1 if the filter has no `held`)."""
    f = make()
    feed = f.feed  # type: ignore[attr-defined]
    clock = time.perf_counter
    costs: list[float] = []
    most = -1
    has_held = hasattr(f, "held")
    for p in pieces:
        t = clock()
        feed(p)
        costs.append(clock() - t)
        if has_held:
            most = max(most, f.held)  # type: ignore[attr-defined]
    return costs, most


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def whole_secs(make: Callable[[], object], text: str) -> float:
    t = time.perf_counter()
    r = make()
    r.feed(text)  # type: ignore[attr-defined]
    r.flush()  # type: ignore[attr-defined]
    return time.perf_counter() - t


def one_char_ns_per_byte(make: Callable[[], object], text: str) -> float:
    r = make()
    feed = r.feed  # type: ignore[attr-defined]
    t = time.perf_counter()
    for ch in text:
        feed(ch)
    r.flush()  # type: ignore[attr-defined]
    return (time.perf_counter() - t) * 1e9 / len(text.encode("utf-8"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=int, default=256, help="planted corpus and prose size in KiB")
    ap.add_argument("--scale-kb", type=int, default=1024, help="1-char scaling: this size and 8x it (KiB)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-before", action="store_true", help="skip the pre-rework oracle columns")
    args = ap.parse_args()

    fast = Redactor()._engine.prefilter is not None
    native = Redactor()._quick_native is not None
    subjects: list[tuple[str, Callable[[], object]]] = [("now, pure", Pure)]
    if native:
        subjects.append(("now, compiled feed", Native))
    if fast:
        subjects.append(("now, [fast]" + (" + compiled feed" if native else ""), Redactor))
    if not args.no_before:
        subjects.append(("before, pure", OldPure))
        if fast:
            subjects.append(("before, [fast]", oracle.Redactor))
    texts = {"planted": C.planted(args.kb * 1024).text, "prose": C.prose(args.kb * 1024)}
    for _, make in subjects:  # learn the shared starters tables and compile the databases outside the timing
        for text in texts.values():
            r = make()
            r.feed(text[:20000])  # type: ignore[attr-defined]

    print(
        f"Corpora: planted {len(texts['planted'].encode()) / 1e6:.2f} MB, "
        f"prose {len(texts['prose'].encode()) / 1e6:.2f} MB (tests/benchmarks/corpus.py); 4-character pieces; "
        f"medians of {args.repeats} repeats, one process,"
        f" subjects interleaved in each repeat.\n"
    )
    names = [n for n, _ in subjects]
    print("| measure | SentenceSplitter | " + " | ".join(f"Redactor {n}" for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    for label, text in texts.items():
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
        means: dict[str, list[float]] = {n: [] for n in ["split", *names]}
        p50: dict[str, list[float]] = {n: [] for n in ["split", *names]}
        p99: dict[str, list[float]] = {n: [] for n in ["split", *names]}
        held: dict[str, int] = {}
        for _ in range(args.repeats):
            for name, make in [("split", SentenceSplitter), *subjects]:
                costs, most = feed_costs(make, pieces)
                means[name].append(statistics.fmean(costs) * 1e6)
                p50[name].append(pct(costs, 0.5) * 1e6)
                p99[name].append(pct(costs, 0.99) * 1e6)
                held[name] = max(held.get(name, -1), most)
        m = {n: statistics.median(v) for n, v in means.items()}
        a = {n: statistics.median(v) for n, v in p50.items()}
        b = {n: statistics.median(v) for n, v in p99.items()}
        print(
            f"| {label}: mean µs per feed (x splitter mean; target <= 3x) | {m['split']:.2f} | "
            + " | ".join(f"{m[n]:.2f} ({m[n] / m['split']:.1f}x)" for n in names)
            + " |"
        )
        print(
            f"| {label}: p50 / p99 µs per feed (p99 x splitter p50; target <= 20x) | "
            f"{a['split']:.2f} / {b['split']:.2f} | "
            + " | ".join(f"{a[n]:.2f} / {b[n]:.2f} ({b[n] / a['split']:.0f}x)" for n in names)
            + " |"
        )
        if label == "prose":
            print(
                "| prose: most characters held after a feed (target <= 64) | n/a | "
                + " | ".join(str(held[n]) for n in names)
                + " |"
            )
    planted = texts["planted"]
    mb = len(planted.encode()) / 1e6
    secs = {n: statistics.median(whole_secs(make, planted) for _ in range(args.repeats)) for n, make in subjects}
    print(
        "| planted: whole text MB/s (targets >= 20 with [fast], >= 8 without) | n/a | "
        + " | ".join(f"{mb / secs[n]:.2f}" for n in names)
        + " |"
    )
    small = C.planted(args.scale_kb * 1024).text
    large = C.planted(8 * args.scale_kb * 1024).text
    cells = []
    for name, make in subjects:
        if name.startswith("before"):
            cells.append("not run (time)")
            continue
        x = statistics.median(one_char_ns_per_byte(make, small) for _ in range(max(1, args.repeats // 2)))
        y = one_char_ns_per_byte(make, large)
        cells.append(f"{x:.0f} -> {y:.0f} ns/byte ({y / x:.2f})")
    print(
        f"| 1-char pieces, planted {len(small.encode()) / 1e6:.2f} MB -> {len(large.encode()) / 1e6:.2f} MB"
        " (ratio target <= 1.2) | n/a | " + " | ".join(cells) + " |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
