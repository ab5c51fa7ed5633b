"""Issue 27: the settling feed's lean release (`Redactor._release_step` → `Engine.settle_short` and
`Redactor._release_plain`) on and off, in one process, beside the SentenceSplitter, subjects interleaved in each
repeat. Not collected by pytest.

    python tests/benchmarks/redactor_release_ab.py --kb 32 --repeats 5

"off" is the default Redactor with `_LEAN_RELEASE = False` (every settle through `_release` and `Engine.settle`,
as before this round); "on" the default. Both with the `[fast]` extra where it is installed (`--no-fast`:
without), both through the compiled `Redactor.feed`. Rows as tests/benchmarks/feed_ab.py prints them (thread CPU
time per 4-character feed, medians of `--repeats`), then the feeds that settle a finding (the compiled feed hands
`_release_step` a point and a value is replaced): their count and median off → on, timed in a second measure whose
subjects count them (their own `_release_step`, so there `Redactor.feed` is the Python method). The released text
(feeds, then flush) of "on" is compared with "off"'s: a difference is printed and the exit status is 1.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate.redaction import Redactor  # noqa: E402
from tests.benchmarks import feed_ab  # noqa: E402


def make(on: bool, fast: bool) -> Callable[[], Redactor]:
    class Plain(Redactor):
        _COMPILED = fast
        _LEAN_RELEASE = on

    return Plain


def main() -> int:
    args = feed_ab.parser(__doc__).parse_args()
    return feed_ab.splitter_table(args, make, settling_cell=True)


if __name__ == "__main__":
    raise SystemExit(main())
