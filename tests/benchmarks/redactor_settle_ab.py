"""Issue 27: the short settle (`Engine._settle_short`, settle.py) on and off, in one process, beside the
SentenceSplitter, subjects interleaved in each repeat. Not collected by pytest.

    python tests/benchmarks/redactor_settle_ab.py --kb 32 --repeats 5

"off" is the same Redactor with `Engine.SHORT = False` (every settle takes the general path), the validators'
shortcuts off (`validators.SHORTCUTS = False`) and the plain probe search after a complete match
(`tracker.BOUNDED_PROBE = False`), so the difference is this round's change alone; both with the `[fast]` extra
where it is installed (`--no-fast`: without). Each 4-character feed is timed by this thread's CPU time
(`time.thread_time_ns`: a loaded machine inflates it less than wall-clock time); rows are the mean and p99 in µs,
medians of `--repeats`, the ratio on / off, and the target ratios (mean x the splitter's mean, p99 x the splitter's
p50, the splitter timed the same way in the same repeats). `--cold`: each run gets fresh starters tables, as a
process's first stream does (otherwise every run shares what the runs before it learnt, the quad keys among them).
The last column: the feeds that settle (the compiled feed hands `_release_step` a point), their count and median.
The corpora are tests/benchmarks/corpora27.py's four and issue 17's planted text and prose
(tests/benchmarks/corpus.py). Each subject's released text (feeds, then flush) is compared with the others': a
difference is printed and the exit status is 1.
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

from sluicegate import SentenceSplitter  # noqa: E402
from sluicegate.redaction import Redactor, settle, starters, tracker, validators  # noqa: E402
from tests.benchmarks import corpus as C  # noqa: E402
from tests.benchmarks.corpora27 import CORPORA  # noqa: E402


class Subject(Redactor):
    settled = False  # set by a feed that settles (the compiled feed hands it the point): counted apart

    def _release_step(self, point: int) -> Any:
        self.settled = True
        return super()._release_step(point)


def make(one: bool, fast: bool) -> Callable[[], Redactor]:
    def build() -> Redactor:
        settle.Engine.SHORT = one
        validators.SHORTCUTS = one
        tracker.BOUNDED_PROBE = one
        Subject._COMPILED = fast
        return Subject()

    return build


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


SETTLING: list[float] = []  # the last run's settling feeds


def feed_costs(build: Callable[[], Any], pieces: list[str]) -> tuple[list[float], str]:
    r = build()
    feed, clock, out, text = r.feed, time.thread_time_ns, [], []
    SETTLING.clear()
    for p in pieces:
        r.settled = False
        t = clock()
        step = feed(p)
        out.append((clock() - t) / 1e3)
        if r.settled:
            SETTLING.append(out[-1])
        text.append(step.text if hasattr(step, "text") else "")
    if hasattr(r, "flush"):
        last = r.flush()
        text.append(last.text if hasattr(last, "text") else "")
    return out, "".join(text)


def settled(count: int, settling: dict[str, list[float]]) -> str:
    if not count or not settling["off"] or not settling["on"]:
        return "0"
    return f"{count}, {statistics.median(settling['off']):.1f} → {statistics.median(settling['on']):.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-fast", action="store_true", help="without the [fast] extra's prefilter")
    ap.add_argument(
        "--cold", action="store_true", help="fresh starters tables for every run (a process's first stream)"
    )
    ap.add_argument("--only", default=",".join([*CORPORA, "planted17", "prose17"]))
    args = ap.parse_args()
    fast = not args.no_fast
    texts: dict[str, Callable[[int], str]] = {
        **CORPORA,
        "planted17": lambda n: C.planted(n).text,
        "prose17": C.prose,
    }
    print(
        "| corpus (4-char feeds, thread CPU µs) | splitter mean / p50 | off: mean / p99 | on: mean / p99 | "
        "on / off (mean, p99) | on: mean x splitter mean, p99 x splitter p50 | settling feeds: n, p50 off → on |"
    )
    print("|---|---|---|---|---|---|---|")
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
        settling: dict[str, list[float]] = {"off": [], "on": []}
        count = 0
        for _ in range(args.repeats):
            for name, build in subjects.items():
                if args.cold:  # the starters tables (and their C mirror, the quad cache) are shared otherwise
                    starters._shared.cache_clear()
                c, out = feed_costs(build, pieces)
                means[name].append(statistics.fmean(c))
                p50s[name].append(pct(c, 0.5))
                p99s[name].append(pct(c, 0.99))
                released[name] = out
                if name in settling and SETTLING:
                    settling[name].append(pct(SETTLING, 0.5))
                    count = len(SETTLING)
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
            f"{p['off'] / a['split']:.0f}x) | {settled(count, settling)} |"
        )
    return status


if __name__ == "__main__":
    raise SystemExit(main())
