"""Issue 27, stop 34: the check feeds' claims (opentail.py's open tail in the compiled feed) on and off, in one
process, beside the SentenceSplitter, subjects interleaved in each repeat. Not collected by pytest.

    python tests/benchmarks/redactor_check_ab.py --kb 64 --repeats 7

"off" is the default Redactor with its compiled feed rebuilt with this round's switches (`--off`, default
`tail_off`: every complete match probed, every start asked again); "on" the default. Rows as
tests/benchmarks/feed_ab.py prints them (thread CPU per 4-character feed, medians of `--repeats`); a difference in
the released text is printed and the exit status is 1.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate.redaction import Redactor  # noqa: E402
from tests.benchmarks import feed_ab  # noqa: E402

OFF: dict[str, bool] = {}


def make(on: bool, fast: bool) -> Callable[[], Redactor]:
    return feed_ab.compiled(on, fast, **OFF)


def main() -> int:
    ap = feed_ab.parser(__doc__)
    ap.add_argument("--off", default="tail_off", help="compiled_feed switches of the 'off' subject, comma-separated")
    args = ap.parse_args()
    OFF.update({k: True for k in args.off.split(",") if k})
    return feed_ab.splitter_table(args, make)


if __name__ == "__main__":
    raise SystemExit(main())
