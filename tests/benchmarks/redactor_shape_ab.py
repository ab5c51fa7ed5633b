"""Issue 27: the compiled feed's shape check (redaction/shape.py, `shape_rules_out` in _native.c) on and off, in
one process, beside the SentenceSplitter, subjects interleaved in each repeat. Not collected by pytest.

    python tests/benchmarks/redactor_shape_ab.py --kb 32 --repeats 5

"off" is the same `_native.Feed` built with no shapes (fastpath.compiled_feed with `shape_off=True`), so the
difference is the check alone; both with the `[fast]` extra where it is installed (`--no-fast`: without). Each
4-character feed is timed by this thread's CPU time (`time.thread_time_ns`: a loaded machine inflates it less
than wall-clock time); rows are the mean and p99 in µs, medians of `--repeats`, the ratio on / off, and the
target ratios (mean x the splitter's mean, p99 x the splitter's p50, the splitter timed the same way in the same
repeats). `--cold`: each run gets fresh starters tables, as a process's first stream does (otherwise every run
shares what the runs before it learnt, the quad keys among them). The corpora are tests/benchmarks/corpora27.py's
four and issue 17's planted text and prose (tests/benchmarks/corpus.py). Each subject's released text (feeds,
then flush) is compared with the others': a difference is printed and the exit status is 1.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate.redaction import Redactor  # noqa: E402
from tests.benchmarks import feed_ab  # noqa: E402


def make(shape: bool, fast: bool) -> Callable[[], Redactor]:
    return feed_ab.compiled(shape, fast, shape_off=True)


def main() -> int:
    return feed_ab.splitter_table(feed_ab.parser(__doc__).parse_args(), make)


if __name__ == "__main__":
    raise SystemExit(main())
