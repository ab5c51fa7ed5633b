"""Issue 27: the settling feed's second round (stop 34) on and off, in one process, beside the SentenceSplitter,
subjects interleaved in each repeat. Not collected by pytest.

    python tests/benchmarks/redactor_settle2_ab.py --kb 32 --repeats 5

"off" is the default Redactor with every switch of `ROUND` False (the lean release of stop 33 as it was); "on"
the default. `--switch NAME` turns off only that one (the rest on) in "off". Both with the `[fast]` extra where
it is installed (`--no-fast`: without), both through the compiled `Redactor.feed`. Rows as
tests/benchmarks/feed_ab.py prints them (thread CPU time per 4-character feed, medians of `--repeats`), then the
feeds that settle a finding (the compiled feed hands `_release_step` a point and a value is replaced): their count
and median off → on, timed in a second measure whose subjects count them (their own `_release_step`, so there
`Redactor.feed` is the Python method). The released text (feeds, then flush) of "on" is compared with "off"'s: a
difference is printed and the exit status is 1.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate import SentenceSplitter  # noqa: E402
from sluicegate.redaction import Redactor  # noqa: E402
from tests.benchmarks import feed_ab  # noqa: E402

# The class attributes this round added (each False: that part as before it).
ROUND = ("_LAZY_CHOOSE", "_REUSE_MATCH", "_C_RELEASE")
ONLY: tuple[str, ...] = ROUND  # the ones "off" turns off (`--switch`)


def make(on: bool, fast: bool, count: bool = False) -> Callable[[], Redactor]:
    class Plain(Redactor):
        _COMPILED = fast

    if not on:
        for name in ONLY:
            setattr(Plain, name, False)

    class Counted(Plain):
        settled = False

        def _release_step(self, point: int) -> Any:
            before = sum(self._counts.values())
            step = super()._release_step(point)
            self.settled = sum(self._counts.values()) > before
            return step

    return Counted if count else Plain


def settling_cell(text: str, repeats: int, cold: bool, fast: bool) -> str:
    """The feeds that settle a finding: their count and median off → on (subjects that count them)."""
    last: list[float] = []
    settling: dict[str, list[float]] = {"off": [], "on": []}
    n = 0

    def after(name: str) -> None:
        nonlocal n
        if last:
            settling[name].append(feed_ab.pct(last, 0.5))
            n = len(last)

    counted: dict[str, Callable[[], Any]] = {"off": make(False, fast, True), "on": make(True, fast, True)}
    feed_ab.measure(counted, text, repeats, cold=cold, after=after, settling=last)
    if not n:
        return "0"
    return f"{n}, {statistics.median(settling['off']):.1f} → {statistics.median(settling['on']):.1f}"


def main() -> int:
    global ONLY
    ap = feed_ab.parser(__doc__)
    ap.add_argument("--switch", choices=ROUND, help="turn off only this one in 'off'")
    args = ap.parse_args()
    if args.switch:
        ONLY = (args.switch,)
    fast = not args.no_fast
    print(feed_ab.HEADER + " settling feeds: n, p50 off → on |")
    print("|---|---|---|---|---|---|---|")
    status = 0
    for label in args.only.split(","):
        text = feed_ab.TEXTS[label](args.kb * 1024)
        subjects: dict[str, Callable[[], Any]] = {
            "split": SentenceSplitter,
            "off": make(False, fast),
            "on": make(True, fast),
        }
        got = feed_ab.measure(subjects, text, args.repeats, cold=args.cold)
        cell = settling_cell(text, args.repeats, args.cold, fast)
        if feed_ab.differs(label, got):
            status = 1
        print(feed_ab.row(label, got, cell))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
