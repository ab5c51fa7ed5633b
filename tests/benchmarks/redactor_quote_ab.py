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

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

import regex  # noqa: E402

from sluicegate import SentenceSplitter  # noqa: E402
from sluicegate.redaction import Redactor, fastpath, labels, starters, whole  # noqa: E402
from sluicegate.redaction.secrets import LABELED_IN_CODE  # noqa: E402
from tests.benchmarks import corpus as C  # noqa: E402
from tests.benchmarks.corpora27 import CORPORA  # noqa: E402


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
        return r

    return build


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def feed_costs(build: Callable[[], Any], pieces: list[str]) -> tuple[list[float], str]:
    r = build()
    feed, clock, out, text = r.feed, time.thread_time_ns, [], []
    for p in pieces:
        t = clock()
        step = feed(p)
        out.append((clock() - t) / 1e3)
        text.append(step.text if hasattr(step, "text") else "")
    if hasattr(r, "flush"):
        last = r.flush()
        text.append(last.text if hasattr(last, "text") else "")
    return out, "".join(text)


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
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-fast", action="store_true", help="without the [fast] extra's prefilter")
    ap.add_argument(
        "--cold", action="store_true", help="fresh starters tables for every run (a process's first stream)"
    )
    ap.add_argument("--only", default=",".join([*CORPORA, "planted17", "prose17"]))
    ap.add_argument("--whole", action="store_true", help="whole text: the one pass before and after")
    args = ap.parse_args()
    fast = not args.no_fast
    texts: dict[str, Callable[[int], str]] = {
        **CORPORA,
        "planted17": lambda n: C.planted(n).text,
        "prose17": C.prose,
    }
    if args.whole:
        return whole_ab({k: texts[k](args.kb * 1024) for k in args.only.split(",")}, args.repeats)
    print(
        "| corpus (4-char feeds, thread CPU µs) | splitter mean / p50 | off: mean / p99 | on: mean / p99 | "
        "on / off (mean, p99) | on: mean x splitter mean, p99 x splitter p50 |"
    )
    print("|---|---|---|---|---|---|")
    status = 0
    for label in args.only.split(","):
        text = texts[label](args.kb * 1024)
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
        subjects: dict[str, Callable[[], Any]] = {
            "split": SentenceSplitter,
            "off": make(False, fast),
            "on": make(True, fast),
        }
        if not args.cold:
            for name in ("off", "on"):
                subjects[name]().feed(text[:20000])
        means: dict[str, list[float]] = {k: [] for k in subjects}
        p50s: dict[str, list[float]] = {k: [] for k in subjects}
        p99s: dict[str, list[float]] = {k: [] for k in subjects}
        released: dict[str, str] = {}
        for _ in range(args.repeats):
            for name, build in subjects.items():
                if args.cold:  # the starters tables (and their C mirror, the quad cache) are shared otherwise
                    starters._shared.cache_clear()
                c, out = feed_costs(build, pieces)
                means[name].append(statistics.fmean(c))
                p50s[name].append(pct(c, 0.5))
                p99s[name].append(pct(c, 0.99))
                released[name] = out
        if released["on"] != released["off"]:
            status = 1
            print(f"OUTPUT DIFFERS on {label}", file=sys.stderr)
        m = {k: statistics.median(v) for k, v in means.items()}
        a = {k: statistics.median(v) for k, v in p50s.items()}
        p = {k: statistics.median(v) for k, v in p99s.items()}
        print(
            f"| {label} | {m['split']:.2f} / {a['split']:.2f} | {m['off']:.2f} / {p['off']:.2f} | "
            f"{m['on']:.2f} / {p['on']:.2f} | {m['on'] / m['off']:.2f}, {p['on'] / p['off']:.2f} | "
            f"{m['on'] / m['split']:.1f}x, {p['on'] / a['split']:.0f}x (off: {m['off'] / m['split']:.1f}x, "
            f"{p['off'] / a['split']:.0f}x) |"
        )
    return status


if __name__ == "__main__":
    raise SystemExit(main())
