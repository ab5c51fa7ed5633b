"""Issue 27: the per-feed common path (stop 33) on and off, in one process, beside the SentenceSplitter, subjects
interleaved in each repeat. Not collected by pytest.

    python tests/benchmarks/redactor_lean_ab.py --kb 32 --repeats 5

"off" is the Redactor as before this round: `Redactor.feed` the Python method (`_feed` below: the class's own
function, not the compiled method `fastpath.install_feed` puts on the class) and a compiled feed built with
`lean_off=True` (the engine asked with the GIL released around each call, the whole detector asked at a
`near_rest` start). "on" is the default Redactor. Both with the `[fast]` extra where it is installed
(`--no-fast`: without). Rows as tests/benchmarks/feed_ab.py prints them: thread CPU time per 4-character feed,
mean and p99 in µs, medians of `--repeats`, on / off, and the target ratios against the splitter timed the same
way in the same repeats. The released text (feeds, then flush) of "on" is compared with "off"'s: a difference is
printed and the exit status is 1.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate.redaction import Redactor, fastpath  # noqa: E402
from tests.benchmarks import feed_ab  # noqa: E402


def make(on: bool, fast: bool) -> Callable[[], Redactor]:
    class On(Redactor):
        _COMPILED = fast

    class Off(Redactor):
        _COMPILED = fast
        feed = fastpath.python_feed(Redactor)

    def build() -> Redactor:
        if on:
            return On()
        r = Off()
        assert r._tracker is not None
        r._quick_native = fastpath.compiled_feed(r._tracker, r._max_hold, lean_off=True)
        return r

    return build


def main() -> int:
    args = feed_ab.parser(__doc__).parse_args()
    return feed_ab.splitter_table(args, make)


if __name__ == "__main__":
    raise SystemExit(main())
