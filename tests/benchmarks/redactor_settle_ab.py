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

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate import SentenceSplitter  # noqa: E402
from sluicegate.redaction import Redactor, settle, tracker, validators  # noqa: E402
from tests.benchmarks import feed_ab  # noqa: E402


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


def one(label: str, text: str, repeats: int, cold: bool, fast: bool) -> tuple[feed_ab.Medians, str]:
    """One corpus's measures and its last cell (the settling feeds)."""
    subjects: dict[str, Callable[[], Any]] = {
        "split": SentenceSplitter,
        "off": make(False, fast),
        "on": make(True, fast),
    }
    return feed_ab.settling(subjects, text, repeats, cold=cold)


def main() -> int:
    args = feed_ab.parser(__doc__).parse_args()
    print(feed_ab.HEADER + " settling feeds: n, p50 off → on |")
    print("|---|---|---|---|---|---|---|")
    status = 0
    for label in args.only.split(","):
        got, cell = one(label, feed_ab.TEXTS[label](args.kb * 1024), args.repeats, args.cold, not args.no_fast)
        if feed_ab.differs(label, got):
            status = 1
        print(feed_ab.row(label, got, cell))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
