"""Shared part of the redactor A/B scripts (redactor_{near,shape,settle,quote,release}_ab.py): "off" and "on"
subjects (and the SentenceSplitter) fed the same 4-character pieces in one process, interleaved in each repeat, each
feed timed by this thread's CPU time (`time.thread_time_ns`: a loaded machine inflates it less than wall-clock
time). The scripts keep only what they compare (their subjects) and their own columns. Not collected by pytest.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate import SentenceSplitter  # noqa: E402
from sluicegate.redaction import Redactor, fastpath, starters  # noqa: E402
from tests.benchmarks import corpus as C  # noqa: E402
from tests.benchmarks.corpora27 import CORPORA  # noqa: E402

TEXTS: dict[str, Callable[[int], str]] = {
    **CORPORA,
    "planted17": lambda n: C.planted(n).text,
    "prose17": C.prose,
}
HEADER = (
    "| corpus (4-char feeds, thread CPU µs) | splitter mean / p50 | off: mean / p99 | on: mean / p99 | "
    "on / off (mean, p99) | on: mean x splitter mean, p99 x splitter p50 |"
)


def compiled(on: bool, fast: bool, **off: bool) -> Callable[[], Redactor]:
    """Builds Redactors (with the `[fast]` prefilter if `fast`) whose compiled feed, unless `on`, is rebuilt with
    `off` (fastpath.compiled_feed's switches, e.g. `shape_off=True`): the same feed without one check."""

    class Subject(Redactor):
        _COMPILED = fast

    def build() -> Redactor:
        r = Subject()
        if not on:
            assert r._tracker is not None
            r._quick_native = fastpath.compiled_feed(r._tracker, r._max_hold, **off)
        return r

    return build


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def feed_costs(
    build: Callable[[], Any], pieces: list[str], settling: list[float] | None = None
) -> tuple[list[float], str]:
    """Each feed's cost in µs and the released text (feeds, then flush). `settling`, if given, is cleared and gets
    the cost of each feed after which the subject's `settled` is true (the subject resets nothing: it is reset
    here before each feed)."""
    r = build()
    feed, clock, out, text = r.feed, time.thread_time_ns, [], []
    if settling is not None:
        settling.clear()
    for p in pieces:
        if settling is not None:
            r.settled = False
        t = clock()
        step = feed(p)
        out.append((clock() - t) / 1e3)
        if settling is not None and r.settled:
            settling.append(out[-1])
        text.append(step.text if hasattr(step, "text") else "")
    if hasattr(r, "flush"):
        last = r.flush()
        text.append(last.text if hasattr(last, "text") else "")
    return out, "".join(text)


def parser(doc: str | None, *, splitter: bool = True) -> argparse.ArgumentParser:
    """--kb, --repeats, --only; with `splitter` also --no-fast, --cold and issue 17's two corpora."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=5)
    if not splitter:
        ap.add_argument("--only", default=",".join(CORPORA))
        return ap
    ap.add_argument("--no-fast", action="store_true", help="without the [fast] extra's prefilter")
    ap.add_argument(
        "--cold", action="store_true", help="fresh starters tables for every run (a process's first stream)"
    )
    ap.add_argument("--only", default=",".join([*CORPORA, "planted17", "prose17"]))
    return ap


@dataclass
class Medians:
    """Per subject: medians over the repeats of each run's mean, p50 and p99, and the last run's released text."""

    mean: dict[str, float] = field(default_factory=dict)
    p50: dict[str, float] = field(default_factory=dict)
    p99: dict[str, float] = field(default_factory=dict)
    released: dict[str, str] = field(default_factory=dict)


def measure(
    subjects: dict[str, Callable[[], Any]],
    text: str,
    repeats: int,
    *,
    cold: bool = False,
    after: Callable[[str], None] | None = None,
    settling: list[float] | None = None,
) -> Medians:
    """Warm "off" and "on" (unless `cold`), then `repeats` rounds of every subject in turn; `after(name)` after each
    run (with `settling` passed on to feed_costs)."""
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
    if not cold:
        for name in ("off", "on"):
            subjects[name]().feed(text[:20000])
    means: dict[str, list[float]] = {k: [] for k in subjects}
    p50s: dict[str, list[float]] = {k: [] for k in subjects}
    p99s: dict[str, list[float]] = {k: [] for k in subjects}
    got = Medians()
    for _ in range(repeats):
        for name, build in subjects.items():
            if cold:  # the starters tables (and their C mirror, the quad cache) are shared otherwise
                starters._shared.cache_clear()
            c, out = feed_costs(build, pieces, settling)
            means[name].append(statistics.fmean(c))
            p50s[name].append(pct(c, 0.5))
            p99s[name].append(pct(c, 0.99))
            got.released[name] = out
            if after is not None:
                after(name)
    got.mean = {k: statistics.median(v) for k, v in means.items()}
    got.p50 = {k: statistics.median(v) for k, v in p50s.items()}
    got.p99 = {k: statistics.median(v) for k, v in p99s.items()}
    return got


def settling(
    subjects: dict[str, Callable[[], Any]], text: str, repeats: int, *, cold: bool = False
) -> tuple[Medians, str]:
    """`measure` of `subjects` (whose "off" and "on" set `settled` on a feed that settles a finding), and the cell
    of those feeds: their count and the median over the repeats of each run's p50, off → on ("0": none)."""
    last: list[float] = []  # the last run's settling feeds
    costs: dict[str, list[float]] = {"off": [], "on": []}
    count = 0

    def after(name: str) -> None:
        nonlocal count
        if name in costs and last:
            costs[name].append(pct(last, 0.5))
            count = len(last)

    got = measure(subjects, text, repeats, cold=cold, after=after, settling=last)
    if not count or not costs["off"] or not costs["on"]:
        return got, "0"
    return got, f"{count}, {statistics.median(costs['off']):.1f} → {statistics.median(costs['on']):.1f}"


def differs(label: str, got: Medians) -> bool:
    """True (and said on stderr) if "on" released other text than "off"."""
    if got.released["on"] != got.released["off"]:
        print(f"OUTPUT DIFFERS on {label}", file=sys.stderr)
        return True
    return False


def row(label: str, got: Medians, *extra: str) -> str:
    """The splitter table's row (HEADER's columns), then `extra` cells."""
    m, a, p = got.mean, got.p50, got.p99
    cells = "".join(f" {c} |" for c in extra)
    return (
        f"| {label} | {m['split']:.2f} / {a['split']:.2f} | {m['off']:.2f} / {p['off']:.2f} | "
        f"{m['on']:.2f} / {p['on']:.2f} | {m['on'] / m['off']:.2f}, {p['on'] / p['off']:.2f} | "
        f"{m['on'] / m['split']:.1f}x, {p['on'] / a['split']:.0f}x (off: {m['off'] / m['split']:.1f}x, "
        f"{p['off'] / a['split']:.0f}x) |" + cells
    )


def counting(plain: Any) -> type[Redactor]:
    """`plain` that sets `settled` after a `_release_step` that settled a finding (a value was replaced), for
    `settling`: its `Redactor.feed` is then the Python method that calls `_release_step`."""

    class Counted(plain):  # type: ignore[misc]
        settled = False

        def _release_step(self, point: int) -> Any:
            before = sum(self._counts.values())
            step = super()._release_step(point)
            self.settled = sum(self._counts.values()) > before
            return step

    return Counted


def splitter_table(
    args: argparse.Namespace,
    make: Callable[[bool, bool], Callable[[], Redactor]],
    *,
    settling_cell: bool = False,
) -> int:
    """HEADER's table for `parser()`'s arguments, `make(on, fast)` building the subjects; 1 if outputs differ.
    `settling_cell`: one more column, the feeds that settle a finding (`settling` of `counting` subjects)."""
    fast = not args.no_fast
    print(HEADER + (" settling feeds: n, p50 off → on |" if settling_cell else ""))
    print("|---|---|---|---|---|---|" + ("---|" if settling_cell else ""))
    status = 0
    for label in args.only.split(","):
        text = TEXTS[label](args.kb * 1024)
        subjects: dict[str, Callable[[], Any]] = {
            "split": SentenceSplitter,
            "off": make(False, fast),
            "on": make(True, fast),
        }
        got = measure(subjects, text, args.repeats, cold=args.cold)
        cells: list[str] = []
        if settling_cell:
            counted: dict[str, Callable[[], Any]] = {
                name: counting(make(on, fast)) for name, on in (("off", False), ("on", True))
            }
            cells.append(settling(counted, text, args.repeats, cold=args.cold)[1])
        if differs(label, got):
            status = 1
        print(row(label, got, *cells))
    return status
