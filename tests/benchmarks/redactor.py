"""Redactor benchmark: prints a markdown table. Not collected by pytest.

    python tests/benchmarks/redactor.py            # >= 1 MB corpus (the reported figures)
    python tests/benchmarks/redactor.py --size 20000 --repeats 1   # CI smoke run

Measures throughput for whole-string, 4-char and 1-char pieces on a generated corpus of English, Persian and
Chinese prose with planted values; the held tail (p50/p99 over feeds); the cost of one feed (p50/p99); and,
for pathological inputs, the time ratio when the input doubles (linear ~2x; the target is <= 2.5x).
Figures are medians of repeats from one run. With the optional `[fast]` extra (hyperscan) installed, every figure
is measured for both detection paths side by side (pure `regex`, and with the compiled prefilter), after
checking that both give the same output.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate.redaction import Redactor  # noqa: E402
from tests.redact.corpus import CHINESE, ENGLISH, PERSIAN, POSITIVES  # noqa: E402

PLANTED = [v for entity, values in POSITIVES.items() if entity != "PRIVATE_KEY" for v in values]


def corpus(size: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    prose = [ENGLISH, PERSIAN, CHINESE]
    parts: list[str] = []
    total = 0
    while total < size:
        text = rng.choice(prose)
        cut = rng.randrange(len(text))
        part = text[:cut] + " " + rng.choice(PLANTED) + " " + text[cut:] + "\n"
        parts.append(part)
        total += len(part)
    return "".join(parts)


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class PureRedactor(Redactor):
    """The pure-`regex` path, also when the `[fast]` extra is installed."""

    _COMPILED = False


def run(
    chunks: list[str], *, record: bool = False, make: type[Redactor] = Redactor
) -> tuple[float, list[int], list[float]]:
    r = make()
    held: list[int] = []
    costs: list[float] = []
    clock = time.perf_counter
    start = clock()
    for chunk in chunks:
        if record:
            t = clock()
            r.feed(chunk)
            costs.append(clock() - t)
            held.append(r.held)
        else:
            r.feed(chunk)
    r.flush()
    return clock() - start, held, costs


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timed(text: str, size: int, repeats: int, make: type[Redactor] = Redactor) -> float:
    return statistics.median(run(pieces(text, size), make=make)[0] for _ in range(repeats))


def output(text: str, size: int, make: type[Redactor]) -> str:
    r = make()
    return "".join(r.feed(p).text for p in pieces(text, size)) + r.flush().text


PATHOLOGICAL = {
    "x*n + '@' + 'a-'*m + '!'": lambda n: "x" * (n * 4 // 10) + "@" + "a-" * (n * 3 // 10) + "!",
    "spaced digits": lambda n: ("1 2 3 4 5 6 7 8 9 0 " * (n // 20 + 1))[:n],
    "digit-group runs": lambda n: ("1234 5678 9012 3456 7890 1234 5678 9012 34, " * (n // 44 + 1))[:n],
    "base64": lambda n: "".join(
        random.Random(n).choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(n)
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1_048_576, help="corpus size in characters (default 1 MiB)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats per figure (median reported)")
    parser.add_argument("--patho", type=int, default=100_000, help="pathological input size before doubling")
    args = parser.parse_args()

    text = corpus(args.size)
    mb = len(text.encode("utf-8")) / 1e6
    paths: list[tuple[str, type[Redactor]]] = [("pure regex", PureRedactor)]
    if Redactor()._engine.prefilter is not None:
        paths.append(("hyperscan prefilter", Redactor))
        for size in (len(text), 4096, 4):
            assert output(text, size, Redactor) == output(text, size, PureRedactor), f"paths differ at {size}"
    print(
        f"Corpus: {len(text):,} characters ({mb:.2f} MB UTF-8), English/Persian/Chinese with "
        f"{len(PLANTED)} kinds of planted values; medians of {args.repeats} repeats"
        + ("; both paths gave identical output whole, at 4096- and 4-char pieces.\n" if len(paths) > 1 else ".\n")
    )
    names = [n for n, _ in paths]
    print("| measure | " + " | ".join(names) + (" | ratio |" if len(paths) > 1 else " |"))
    print("|---|" + "---|" * (len(paths) + (len(paths) > 1)))

    def row(label: str, cells: list[str], ratio: str = "") -> None:
        print(f"| {label} | " + " | ".join(cells) + (f" | {ratio} |" if len(paths) > 1 else " |"))

    for label, size in (("whole string", len(text)), ("4-char pieces", 4), ("1-char pieces", 1)):
        secs = [timed(text, size, args.repeats, make) for _, make in paths]
        row(f"throughput, {label}", [f"{mb / t:.2f} MB/s" for t in secs], f"{secs[0] / secs[-1]:.2f}x")
    held_cells, cost_cells = [], []
    for _, make in paths:
        _, held, costs = run(pieces(text, 4), record=True, make=make)
        held_cells.append(f"{pct(held, 0.5)} / {pct(held, 0.99)} / {max(held)} chars")
        cost_cells.append(f"{pct(costs, 0.5) * 1e6:.1f} / {pct(costs, 0.99) * 1e6:.1f} µs")
    row("held tail after a feed (4-char pieces), p50 / p99 / max", held_cells)
    row("cost of one feed (4-char pieces), p50 / p99", cost_cells)
    for name, build in PATHOLOGICAL.items():
        small, large = build(args.patho), build(2 * args.patho)
        for size_label, size in (("whole", None), ("64-char pieces", 64)):
            cells = []
            for _, make in paths:
                a = timed(small, size or len(small), args.repeats, make)
                b = timed(large, size or len(large), args.repeats, make)
                cells.append(f"{a * 1e3:.1f} -> {b * 1e3:.1f} ms, {b / a:.2f}x")
            row(f"pathological `{name}`, {size_label}: {len(small):,} -> {len(large):,} chars", cells)


if __name__ == "__main__":
    main()
