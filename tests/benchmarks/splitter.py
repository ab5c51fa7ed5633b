"""Splitter throughput and scaling. Prints a markdown table; not part of the test run.

    python tests/benchmarks/splitter.py [--mb 1] [--repeats 5]

Throughput (MB/s of UTF-8 input) whole, in 4-char and in 1-char pieces on a generated mixed-language corpus,
and the per-byte cost at N MB vs 4N MB in 1-char pieces (a ratio near 1 means no rescans of the buffer).
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

from sluicegate import SentenceSplitter  # noqa: E402

SENTENCES = [
    "The reading room opens early on weekdays [S1]. ",
    "Is the café open on Sundays? ",
    "Yes, from 9.30 until 17.00, see example.com for details [S2][S3]. ",
    "Die Bibliothek öffnet z. B. am 17. September um neun Uhr. ",
    "On trouve p. ex. des livres rares à Paris. ",
    "کتابخانه ساعت ۹ باز می‌شود [S1]. ",
    "هل المقهى مفتوح؟ ",
    "阅览室很早开门。他说：“你好。”然后走了。",
    "पुस्तकालय सुबह खुलता है। ",
    "1. First item.\n2) Second item.\n- Third item.\n\n",
    "Mr. Smith et al. and Dr. Jones wrote (see above.) more text here. ",
]


def corpus(megabytes: float, seed: int = 7) -> str:
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    target = int(megabytes * 1_000_000)
    while size < target:
        s = rng.choice(SENTENCES)
        parts.append(s)
        size += len(s.encode())
    return "".join(parts)


def run(text: str, size: int) -> float:
    splitter = SentenceSplitter()
    feed = splitter.feed
    pieces = [text] if size <= 0 else [text[i : i + size] for i in range(0, len(text), size)]
    start = time.perf_counter()
    for piece in pieces:
        feed(piece)
    splitter.flush()
    return time.perf_counter() - start


def median_spread(values: list[float]) -> tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=float, default=1.0, help="corpus size in MB (default 1)")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    text = corpus(args.mb)
    nbytes = len(text.encode())
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}; "
        f"corpus {nbytes / 1e6:.2f} MB, {len(text)} chars; median of {args.repeats} (min-max)\n"
    )
    print("| pieces | MB/s | µs per char |")
    print("|---|---|---|")
    for label, size in (("whole", 0), ("4 chars", 4), ("1 char", 1)):
        times = [run(text, size) for _ in range(args.repeats)]
        med, lo, hi = median_spread(times)
        print(
            f"| {label} | {nbytes / 1e6 / med:.2f} ({nbytes / 1e6 / hi:.2f}-{nbytes / 1e6 / lo:.2f}) "
            f"| {med / len(text) * 1e6:.3f} |"
        )
    big = corpus(args.mb * 4, seed=8)
    small_cost = [run(text, 1) / len(text) for _ in range(args.repeats)]
    big_cost = [run(big, 1) / len(big) for _ in range(max(1, args.repeats // 2))]
    ratio = statistics.median(big_cost) / statistics.median(small_cost)
    print(f"\nper-char cost, 1-char pieces: {args.mb * 4:g} MB / {args.mb:g} MB = {ratio:.2f} (1.0 = linear)")
    print("\n| 1-char pieces, 40k chars of | time vs plain words |")
    print("|---|---|")
    n = 40_000
    base = statistics.median(run_prefixed("x", ("word " * n)[:n]) for _ in range(args.repeats))
    for label, head, body in (
        ("spaces after a period", "Done.", " " * n),
        ("a spaced ellipsis", "x", (" ." * n)[:n]),
        ("' \\n' runs", "x", (" \n" * n)[:n]),
        ("markers after a period", "Done.", ("[S1]" * n)[:n]),
    ):
        t = statistics.median(run_prefixed(head, body) for _ in range(args.repeats))
        print(f"| {label} | {t / base:.2f} |")


def run_prefixed(head: str, body: str) -> float:
    """Feed `head` whole, then `body` one character at a time: waits that must not rescan what they hold."""
    splitter = SentenceSplitter()
    splitter.feed(head)
    start = time.perf_counter()
    for ch in body:
        splitter.feed(ch)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
