"""Issue 25 item 4: the compiled feed over explicit arguments (a `_native.Feed`, fastpath.py) against the
compiled feed of before (`quick(redactor, piece)` reading the three classes' attributes by name), in one
process, on the same Python classes, subjects interleaved in each repeat. Not collected by pytest.

    git show <before>:src/sluicegate/redaction/_native.c > /tmp/old/_native.c   # then build it there:
    (cd /tmp/old && python -c "from setuptools import Extension, setup; setup(name='old', \
        ext_modules=[Extension('_native', ['_native.c'])], script_args=['build_ext', '--inplace'])")
    python tests/benchmarks/redactor_native_ab.py /tmp/old/_native.cpython-311-x86_64-linux-gnu.so --repeats 5

The old extension works on today's Python classes unchanged (their field names did not change; only who hands
what over did). Rows: mean and p99 µs per 4-character feed, both builds with and without the `[fast]`
prefilter, on issue 17's planted corpus and prose and on issue 27's corpora; medians of `--repeats`.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate._stream import EMPTY_STEP, Step  # noqa: E402
from sluicegate.redaction import Redactor, prefilter  # noqa: E402
from sluicegate.redaction import redactor as redactor_module  # noqa: E402
from sluicegate.redaction import starters as starters_module  # noqa: E402
from sluicegate.redaction.detector import LOOKBEHIND  # noqa: E402
from sluicegate.redaction.normalize import _SPECIAL  # noqa: E402
from tests.benchmarks import corpus as bench_corpus  # noqa: E402
from tests.benchmarks.corpora27 import CORPORA  # noqa: E402


def load_old(path: str) -> object:
    loader = importlib.machinery.ExtensionFileLoader("_native", path)
    spec = importlib.util.spec_from_file_location("_native", path, loader=loader)
    assert spec is not None
    old = importlib.util.module_from_spec(spec)
    loader.exec_module(old)
    old.configure(
        prefilter,
        _SPECIAL.search,
        Step,
        EMPTY_STEP,
        LOOKBEHIND,
        redactor_module._EAGER,
        starters_module._PER_CHAR,
        starters_module._PAIRS_MAX,
    )
    return old


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def costs(make: type[Redactor], pieces: list[str], clock: Callable[[], int]) -> list[float]:
    r = make()
    feed = r.feed
    out = []
    for p in pieces:
        t = clock()
        feed(p)
        out.append((clock() - t) * 1e-9)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old_so", help="the compiled feed of before, built as a module named _native")
    ap.add_argument("--kb", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--clock",
        choices=["wall", "thread"],
        default="wall",
        help="thread: this thread's CPU time per feed (time.thread_time_ns, a system call each: it adds the same "
        "~0.3 µs to every subject), which leaves out the time the process waited on a loaded machine",
    )
    args = ap.parse_args()
    old = load_old(args.old_so)
    clock = time.perf_counter_ns if args.clock == "wall" else time.thread_time_ns

    class Before(Redactor):
        def __init__(self) -> None:
            super().__init__()
            self._quick_native = old.quick  # type: ignore[attr-defined]

    class BeforeNoFast(Before):
        _COMPILED = False

    class AfterNoFast(Redactor):
        _COMPILED = False

    subjects = {"before": Before, "after": Redactor, "before, no [fast]": BeforeNoFast, "after, no [fast]": AfterNoFast}
    size = args.kb * 1024
    texts = {"planted (issue 17)": bench_corpus.planted(size).text, "prose (issue 17)": bench_corpus.prose(size)}
    texts.update({k: make_text(size) for k, make_text in CORPORA.items()})
    for make in subjects.values():
        for text in texts.values():
            make().feed(text[:20000])
    print(f"clock: {args.clock}; load average at start: {Path('/proc/loadavg').read_text().split()[:3]}")
    print("| corpus | " + " | ".join(f"{n}: mean / p99 µs" for n in subjects) + " | after / before (mean, p99) |")
    print("|---|" + "---|" * (len(subjects) + 1))
    for label, text in texts.items():
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
        means: dict[str, list[float]] = {n: [] for n in subjects}
        p99: dict[str, list[float]] = {n: [] for n in subjects}
        for _ in range(args.repeats):
            for name, make in subjects.items():
                c = costs(make, pieces, clock)
                means[name].append(statistics.fmean(c) * 1e6)
                p99[name].append(pct(c, 0.99) * 1e6)
        m = {n: statistics.median(v) for n, v in means.items()}
        q = {n: statistics.median(v) for n, v in p99.items()}
        ratio = f"{m['after'] / m['before']:.3f}, {q['after'] / q['before']:.3f}"
        a, b = "after, no [fast]", "before, no [fast]"
        ratio2 = f"{m[a] / m[b]:.3f}, {q[a] / q[b]:.3f}"
        print(
            f"| {label} | "
            + " | ".join(f"{m[n]:.2f} / {q[n]:.2f}" for n in subjects)
            + f" | {ratio}; no [fast] {ratio2} |"
        )
    print(f"load average at end: {Path('/proc/loadavg').read_text().split()[:3]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
