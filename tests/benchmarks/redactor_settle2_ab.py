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

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate.redaction import Redactor  # noqa: E402
from tests.benchmarks import feed_ab  # noqa: E402

# The class attributes this round added (each False: that part as before it).
ROUND = ("_LAZY_CHOOSE", "_REUSE_MATCH", "_C_RELEASE")
ONLY: tuple[str, ...] = ROUND  # the ones "off" turns off (`--switch`)


def make(on: bool, fast: bool) -> Callable[[], Redactor]:
    class Plain(Redactor):
        _COMPILED = fast

    if not on:
        for name in ONLY:
            setattr(Plain, name, False)
    return Plain


def main() -> int:
    global ONLY
    ap = feed_ab.parser(__doc__)
    ap.add_argument("--switch", choices=ROUND, help="turn off only this one in 'off'")
    args = ap.parse_args()
    if args.switch:
        ONLY = (args.switch,)
    return feed_ab.splitter_table(args, make, settling_cell=True)


if __name__ == "__main__":
    raise SystemExit(main())
