"""Issue 27: the compiled feed's claims at a quote (`Detector.near_rest`: a reversed comparison's shape; the label
tails of every form of a label word; `LABELED_IN_CODE`'s own shape) on and off, in one process, beside the
SentenceSplitter, subjects interleaved in each repeat. Not collected by pytest.

    python tests/benchmarks/redactor_quote_ab.py --kb 32 --repeats 5
    python tests/benchmarks/redactor_quote_ab.py --kb 64 --repeats 5 --whole   # whole text (whole.py)

"off" is the same `_native.Feed` as before this change: built with `rest_off=True`, no shape for
`LABELED_IN_CODE` (it had none: too many states before wide alternations were read as "anything") and the
label tails as they were (the last four characters of each word's last part), so the difference is the change
alone; both with the `[fast]` extra where it is installed (`--no-fast`: without). Each 4-character feed is timed
by this thread's CPU time (`time.thread_time_ns`); rows are the mean and p99 in µs, medians of `--repeats`, the
ratio on / off, and the target ratios (mean x the splitter's mean, p99 x the splitter's p50, the splitter timed
the same way in the same repeats). The corpora are tests/benchmarks/corpora27.py's four and issue 17's planted
text and prose (tests/benchmarks/corpus.py). Each subject's released text (feeds, then flush) is compared with
the others': a difference is printed and the exit status is 1.

`--whole`: `redact(text)`'s one pass (whole.py) with its label candidates as before (the old tails, no
`near_rest` starts: `LABELED_IN_CODE` by `finditer`) and after, with and without `[fast]`, by thread CPU time,
medians of `--repeats`; outputs compared.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

import regex  # noqa: E402

from sluicegate.redaction import Redactor, fastpath, labels, whole  # noqa: E402
from sluicegate.redaction.secrets import LABELED_IN_CODE  # noqa: E402
from tests.benchmarks import feed_ab  # noqa: E402


def _old_near_bits() -> bytes:
    """labels.near_tables() with the tails as they were: the last four characters of each word's last part."""
    bits = bytearray(labels.NEAR_BITS // 8)
    for word in [w for w, _ in labels.words()] + [w.casefold() for w in labels.CAMEL_WORDS]:
        t = [p for p in regex.split(r"[_ \-]", word) if p][-1][-labels.TAIL :].lower()
        if t.isascii():
            key = labels.gram_hash(t)
            bits[key >> 3] |= 1 << (key & 7)
    return bytes(bits)


def make(on: bool, fast: bool) -> Callable[[], Redactor]:
    class Subject(Redactor):
        _COMPILED = fast

    old_bits = _old_near_bits()
    shape_of = fastpath._shape

    def no_code_shape(pattern: str, flags: int, places: int | None = None) -> object:
        return None if pattern == LABELED_IN_CODE.compiled.pattern else shape_of(pattern, flags, places)

    def build() -> Redactor:
        r = Subject()
        if not on:
            assert r._tracker is not None
            bits, fastpath._near_bits = fastpath._near_bits, lambda: old_bits  # type: ignore[assignment]
            fastpath._shape = no_code_shape  # type: ignore[assignment]
            try:
                r._quick_native = fastpath.compiled_feed(r._tracker, r._max_hold, rest_off=True)
            finally:
                fastpath._near_bits, fastpath._shape = bits, shape_of  # type: ignore[assignment]
                fastpath._per_detector.cache_clear()  # (its tuples were made with the old shapes)
        return r

    return build


def _old_tails() -> tuple[str, ...]:
    got = {
        [p for p in regex.split(r"[_ \-]", w) if p][-1][-labels.TAIL :].lower()
        for w in [w for w, _ in labels.words()] + [w.casefold() for w in labels.CAMEL_WORDS]
    }
    return tuple(sorted(t for t in got if t.isascii()))


def whole_ab(texts: dict[str, str], repeats: int) -> int:
    """The one pass before (old tails, no `near_rest` starts) and after, in one process by thread CPU time."""

    class Pure(Redactor):
        _COMPILED = False
        _NATIVE = False

    old_tails = _old_tails()
    rest_rx, ascii_tails = whole._rest_rx, whole._ascii_tails

    def one(make: Callable[[], Redactor], text: str, on: bool) -> tuple[float, str | None]:
        if not on:
            whole._rest_rx, whole._ascii_tails = (lambda d: None), (lambda: old_tails)  # type: ignore[assignment]
        try:
            t = time.thread_time()
            got = make()._redact_whole(text)
            return time.thread_time() - t, got
        finally:
            whole._rest_rx, whole._ascii_tails = rest_rx, ascii_tails  # type: ignore[assignment]

    print("| corpus | MB | one pass taken, same output | [fast]: before / after MB/s (x) | pure: before / after (x) |")
    print("|---|---|---|---|---|")
    status = 0
    for label, text in texts.items():
        mb = len(text.encode()) / 1e6
        cells, ok = [], True
        for make in (Redactor, Pure):
            one(make, text, True)  # warm the caches and the validators
            times: dict[bool, list[float]] = {False: [], True: []}
            for _ in range(repeats):
                outs = {}
                for on in (False, True):
                    dt, outs[on] = one(make, text, on)
                    times[on].append(dt)
                ok = ok and outs[True] is not None and outs[True] == outs[False]
            b, a = statistics.median(times[False]), statistics.median(times[True])
            cells.append(f"{mb / b:.2f} / {mb / a:.2f} ({b / a:.2f}x)")
        if not ok:
            status = 1
        print(f"| {label} | {mb:.2f} | {'yes' if ok else 'NO'} | " + " | ".join(cells) + " |")
    return status


def main() -> int:
    ap = feed_ab.parser(__doc__)
    ap.add_argument("--whole", action="store_true", help="whole text: the one pass before and after")
    args = ap.parse_args()
    if args.whole:
        return whole_ab({k: feed_ab.TEXTS[k](args.kb * 1024) for k in args.only.split(",")}, args.repeats)
    return feed_ab.splitter_table(args, make)


if __name__ == "__main__":
    raise SystemExit(main())
