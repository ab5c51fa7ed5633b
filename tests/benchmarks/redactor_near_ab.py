"""Issue 27: the compiled feed's label pre-check (`Detector.near`, redaction/_native.c `label_near`) on and off,
in one process, on the same classes, subjects interleaved in each repeat. Not collected by pytest.

    python tests/benchmarks/redactor_near_ab.py --kb 32 --repeats 5

"off" is the same `_native.Feed` built with no `near` claims (fastpath.compiled_feed with `near_off=True`), so
the difference is the pre-check alone. Each 4-character feed is timed by this thread's CPU time
(`time.thread_time_ns`), which a loaded machine inflates less than wall-clock time; rows are means and p99 in
µs, medians of `--repeats`, and the ratio on / off. Whole text (`redact` of the corpus) is the pure path when the
prefilter declines, which the pre-check does not touch; it is timed too, by CPU time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate.redaction import Redactor  # noqa: E402
from tests.benchmarks import feed_ab  # noqa: E402
from tests.benchmarks.corpora27 import CORPORA  # noqa: E402


def make(near: bool, fast: bool) -> Callable[[], Redactor]:
    return feed_ab.compiled(near, fast, near_off=True)


def main() -> int:
    args = feed_ab.parser(__doc__, splitter=False).parse_args()
    print("| corpus (4-char feeds, thread CPU) | off: mean / p99 µs | on: mean / p99 µs | on / off (mean, p99) |")
    print("|---|---|---|---|")
    for label in args.only.split(","):
        subjects = {"off": make(False, False), "on": make(True, False)}
        got = feed_ab.measure(subjects, CORPORA[label](args.kb * 1024), args.repeats)
        m, p = got.mean, got.p99
        print(
            f"| {label} | {m['off']:.2f} / {p['off']:.2f} | {m['on']:.2f} / {p['on']:.2f} | "
            f"{m['on'] / m['off']:.2f}, {p['on'] / p['off']:.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
