"""Issue 27: the common feed's fixed costs (stop 34) on and off, in one process, beside the SentenceSplitter, by
each feed's floor (its least cost over `--repeats` runs of the same feed sequence, as
tests/benchmarks/redactor_tail_floor.py measures the targets). Not collected by pytest.

    python tests/benchmarks/redactor_fixed_ab.py --kb 64 --repeats 5

"off" is the default Redactor with its compiled feed rebuilt with `fixed_off=True` (fastpath.compiled_feed: the
fixed costs as before this stop), "on" is the default Redactor; both with the `[fast]` extra where it is
installed. The three subjects run interleaved, a fresh one per run. Per corpus: the floors' mean and p50 in µs,
on / off, and the mean floor against the splitter's (the issue's target: at most 3x). The released text
(feeds, then flush) of "on" is compared with "off"'s: a difference is printed and the exit status is 1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate import SentenceSplitter  # noqa: E402
from sluicegate.redaction import Redactor, fastpath  # noqa: E402
from tests.benchmarks.feed_ab import TEXTS, pct  # noqa: E402
from tests.benchmarks.redactor_tail_floor import CLOCKS, floors, run_costs  # noqa: E402


def off() -> Redactor:
    r = Redactor()
    assert r._tracker is not None
    r._quick_native = fastpath.compiled_feed(r._tracker, r._max_hold, fixed_off=True)
    return r


def released(make: Callable[[], Redactor], pieces: list[str]) -> str:
    r = make()
    return "".join(r.feed(p).text for p in pieces) + r.flush().text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    ap.add_argument("--only", default="code,logs,multilingual,json,planted17,prose17")
    args = ap.parse_args()
    clock = CLOCKS[args.clock]
    subjects: dict[str, Callable[[], object]] = {"split": SentenceSplitter, "off": off, "on": Redactor}
    print(
        f"Each 4-character feed's least cost over {args.repeats} runs ({args.clock} clock), then over the feeds; "
        "off = fastpath.compiled_feed(..., fixed_off=True).\n"
    )
    print(
        "| corpus | splitter mean / p50 µs | off: mean / p50 | on: mean / p50 | on / off (mean) "
        "| mean x splitter: off → on |"
    )
    print("|---|---|---|---|---|---|")
    status = 0
    for label in args.only.split(","):
        text = TEXTS[label](args.kb * 1024)
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
        for warm in (off, Redactor):  # the shared starters tables learnt outside the timing
            warm().feed(text[:20000])
        if released(off, pieces) != released(Redactor, pieces):
            print(f"OUTPUT DIFFERS on {label}", file=sys.stderr)
            status = 1
        runs: dict[str, list[list[float]]] = {n: [] for n in subjects}
        for _ in range(args.repeats):
            for name, make in subjects.items():
                runs[name].append(run_costs(make, pieces, clock))
        got = {n: floors(r) for n, r in runs.items()}
        mean = {n: statistics.fmean(c) * 1e6 for n, c in got.items()}
        p50 = {n: pct(c, 0.5) * 1e6 for n, c in got.items()}
        print(
            f"| {label} | {mean['split']:.2f} / {p50['split']:.2f} | {mean['off']:.2f} / {p50['off']:.2f} | "
            f"{mean['on']:.2f} / {p50['on']:.2f} | {mean['on'] / mean['off']:.2f} | "
            f"{mean['off'] / mean['split']:.2f}x → {mean['on'] / mean['split']:.2f}x |"
        )
    return status


if __name__ == "__main__":
    raise SystemExit(main())
