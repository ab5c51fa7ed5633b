"""SentenceGate throughput, per-piece cost and the cost of big sources. Prints markdown; not part of the tests.

    python tests/benchmarks/gate.py [--kb 200] [--source-mb 1] [--repeats 5]
    python tests/benchmarks/gate.py --tiny        # CI smoke run (seconds)

1. Throughput (MB/s of UTF-8 answer text) fed whole vs in 4-character pieces, on a grounded multilingual
   answer that passes every check (so the whole text goes through the splitter, the checks and rendering).
2. Per-piece cost of `feed` in 4-character pieces, p50 / p99 in µs.
3. Per-sentence cost with 1 source vs twenty sources of `--source-mb` MB each, and their ratio: indexing once
   at construction keeps it flat (a ratio near 1). Construction (indexing) time is reported apart.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from sluicegate import SentenceGate  # noqa: E402

SOURCES = [
    "The library opens at nine. Late fees were 20 euros until 2021. Contact desk@example.org.",
    "Die Bibliothek hat 1.234,5 Bücher pro Regal und 12 Lesesäle. https://example.org/hours",
    "کتابخانه ساعت ۹ باز می‌شود و ۳٫۱۴ متر ارتفاع دارد.",
    "图书馆有3个阅览室。Библиотека открыта с 9 до 21. पुस्तकालय 9 बजे खुलता है।",
]
SENTENCES = [
    "It opens at nine [S1]. ",
    "Late fees were 20.00 euros until 2021 [S1]. ",
    "Write to desk@example.org for details [S1].\n\n",
    "Die Bibliothek hat 1.234,50 Bücher pro Regal [S2]. ",
    "Siehe https://example.org/hours für die Zeiten [S2]. ",
    "کتابخانه ساعت ۹ باز می‌شود [S3]. ",
    "ارتفاع آن ۳٫۱۴ متر است [S3]. ",
    "图书馆有３个阅览室[S4]。",
    "Библиотека открыта с 9 до 21 [S4]. ",
    "पुस्तकालय 9 बजे खुलता है [S4]। ",
    "Yes, on weekdays. ",
    "1. The reading room is quiet.\n",
]


def answer(kilobytes: float, seed: int = 7) -> str:
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < kilobytes * 1000:
        s = rng.choice(SENTENCES)
        parts.append(s)
        size += len(s.encode())
    return "".join(parts)


def feed_all(gate: SentenceGate, pieces: list[str]) -> None:
    feed = gate.feed
    for piece in pieces:
        if feed(piece).stopped:
            raise SystemExit("benchmark answer was stopped: the corpus must be grounded")
    gate.flush()


def throughput(text: str, size: int, repeats: int) -> float:
    pieces = [text] if size <= 0 else [text[i : i + size] for i in range(0, len(text), size)]
    times = []
    for _ in range(repeats):
        gate = SentenceGate(SOURCES)
        start = time.perf_counter()
        feed_all(gate, pieces)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def per_piece(text: str, size: int) -> list[float]:
    gate = SentenceGate(SOURCES)
    feed = gate.feed
    clock = time.perf_counter
    costs = []
    for i in range(0, len(text), size):
        piece = text[i : i + size]
        start = clock()
        feed(piece)
        costs.append(clock() - start)
    gate.flush()
    return costs


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def big_source(megabytes: float, seed: int) -> str:
    """Filler prose with numbers, URLs and emails, so the index is not trivially small."""
    rng = random.Random(seed)
    words = ["the", "library", "reading", "room", "opens", "fees", "card", "desk", "quiet", "hall"]
    parts: list[str] = []
    size = 0
    while size < megabytes * 1_000_000:
        s = " ".join(rng.choice(words) for _ in range(8))
        s += f" {rng.randint(0, 99999)} https://example{rng.randint(0, 999)}.org/p{rng.randint(0, 99)}. "
        parts.append(s)
        size += len(s)
    return "".join(parts)


def per_sentence(sources: list[str], text: str, repeats: int) -> tuple[float, float, int]:
    """(construction seconds, median µs per sentence, sentences) feeding `text` in 4-char pieces."""
    start = time.perf_counter()
    SentenceGate(sources)
    build = time.perf_counter() - start
    sentences = text.count("[S")
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
    times = []
    for _ in range(repeats):
        gate = SentenceGate(sources)  # built outside the timed region: only feeding is timed
        start = time.perf_counter()
        feed_all(gate, pieces)
        times.append(time.perf_counter() - start)
    return build, statistics.median(times) / sentences * 1e6, sentences


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=float, default=200.0, help="answer size in KB (default 200)")
    ap.add_argument("--source-mb", type=float, default=1.0, help="size of each of the twenty big sources")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--tiny", action="store_true", help="smoke run: tiny sizes, one repeat")
    args = ap.parse_args()
    if args.tiny:
        args.kb, args.source_mb, args.repeats = 5.0, 0.02, 1

    text = answer(args.kb)
    feed_all(SentenceGate(SOURCES), [answer(2)])  # warm up: word lists load on first use
    nbytes = len(text.encode())
    print(
        f"machine: {platform.machine()} python {platform.python_version()}; answer {nbytes / 1e3:.0f} KB, "
        f"{len(text)} chars; medians of {args.repeats}\n"
    )

    print("| pieces | MB/s | µs per char |")
    print("|---|---|---|")
    rates = {}
    for label, size in (("whole", 0), ("4 chars", 4)):
        t = throughput(text, size, args.repeats)
        rates[label] = t
        print(f"| {label} | {nbytes / 1e6 / t:.3f} | {t / len(text) * 1e6:.3f} |")
    print(f"\n4-char pieces / whole time ratio: {rates['4 chars'] / rates['whole']:.2f}\n")

    costs = per_piece(text, 4)
    print("| feed() in 4-char pieces | p50 µs | p99 µs | max µs |")
    print("|---|---|---|---|")
    print(
        f"| {len(costs)} pieces | {quantile(costs, 0.5) * 1e6:.1f} | {quantile(costs, 0.99) * 1e6:.1f} "
        f"| {max(costs) * 1e6:.1f} |\n"
    )

    grounded = "It opens at nine [S1]. Late fees were 20 euros until 2021 [S1]. " * max(1, int(args.kb * 5))
    small = [SOURCES[0]]
    big = [SOURCES[0] + " " + big_source(args.source_mb, 0)] + [big_source(args.source_mb, s) for s in range(1, 20)]
    total_mb = sum(len(s.encode()) for s in big) / 1e6
    b1, s1, n = per_sentence(small, grounded, args.repeats)
    b20, s20, _ = per_sentence(big, grounded, min(args.repeats, 3))
    print("| sources | total MB | indexing (construction) s | µs per sentence |")
    print("|---|---|---|---|")
    print(f"| 1 | {len(SOURCES[0].encode()) / 1e6:.4f} | {b1:.4f} | {s1:.1f} |")
    print(f"| 20 × {args.source_mb:g} MB | {total_mb:.1f} | {b20:.2f} | {s20:.1f} |")
    print(f"\nper-sentence cost ratio, twenty big sources / one small: {s20 / s1:.2f} ({n} sentences)")


if __name__ == "__main__":
    main()
