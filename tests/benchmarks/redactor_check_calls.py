"""Issue 27, stop 34: what the top-1% feeds that release no replacement ask the engine, per feed. Not collected by
pytest.

    python tests/benchmarks/redactor_check_calls.py --kb 64 --repeats 5

Two passes per corpus (corpora27.py, 4-character feeds, `[fast]` + compiled feed unless `--no-fast`):
1. timing: `--repeats` streams of the default build, each feed timed by this thread's CPU time; a feed's cost is
   its median over the repeats (so one feed's cost does not depend on one run's noise), the top 1% of feeds by
   that cost are the "p99 feeds";
2. counting: one stream whose tracker callables (anchored `match`, pattern `search`, `probe`), the `near_rest`
   rest's match and `Starters.quad` are wrapped (counted, and each call timed by thread CPU inside the wrapper),
   and whose `_release_step` is counted (a feed that calls it settles: the other helper's part).

Printed per corpus: how many p99 feeds settle and how many only check; for the checking ones, the mean number of
engine calls per feed by kind (detector, what was asked, the answer) and the engine time they took, beside the
same over all checking feeds. Counts are deterministic (the same on a loaded machine); times are not.
`--off` passes `fastpath.compiled_feed` switches for the counting and timing subjects (e.g. `--off check_off`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate import SentenceSplitter  # noqa: E402
from sluicegate.redaction import (  # noqa: E402
    Redactor,
    fastpath,
    labels,
    secrets,  # noqa: E402
)
from sluicegate.redaction import starters as starters_module  # noqa: E402
from sluicegate.redaction import tracker as tracker_module  # noqa: E402
from sluicegate.redaction.detector import LOOKBEHIND, Detector  # noqa: E402
from tests.benchmarks.corpora27 import CORPORA  # noqa: E402

# The two label detectors share their entity: named by their module names here.
_NAMES = {id(v): k for k, v in vars(secrets).items() if isinstance(v, Detector)}


def subject(fast: bool, off: dict[str, bool]) -> type[Redactor]:
    class Subject(Redactor):
        _COMPILED = fast

        def __init__(self) -> None:
            super().__init__()
            if off and self._tracker is not None and self._quick_native is not None:
                self._quick_native = fastpath.compiled_feed(self._tracker, self._max_hold, **off)

    return Subject


def timed(make: Callable[[], Any], pieces: list[str], repeats: int) -> tuple[list[float], list[float]]:
    """Per feed: the median thread-CPU µs over `repeats` streams; and each stream's p99."""
    runs: list[list[float]] = []
    for _ in range(repeats):
        r = make()
        feed, clock, out = r.feed, time.thread_time_ns, []
        for p in pieces:
            t = clock()
            feed(p)
            out.append((clock() - t) / 1e3)
        runs.append(out)
    per = [statistics.median(c) for c in zip(*runs, strict=True)]
    p99s = [sorted(c)[int(0.99 * len(c))] for c in runs]
    return per, p99s


class Counts:
    """Engine calls of the current feed, by kind: (count, thread-CPU ns)."""

    def __init__(self) -> None:
        self.now: Counter[str] = Counter()
        self.ns: Counter[str] = Counter()

    def add(self, kind: str, ns: int) -> None:
        self.now[kind] += 1
        self.ns[kind] += ns


def counted(
    make_cls: type[Redactor], text: str, pieces: list[str]
) -> tuple[list[Counter[str]], list[Counter[str]], list[bool]]:
    """One stream with every engine call counted: per feed its calls, their ns and whether it settled."""
    counts = Counts()
    answers: dict[tuple[str, int, int], str] = {}
    original = tracker_module.OpenTracker.__init__
    clock = time.thread_time_ns

    def init(self: tracker_module.OpenTracker, engine: object) -> None:
        original(self, engine)  # type: ignore[arg-type]
        dets = self._detectors

        def wrap(kind: str, i: int, fn: Callable[..., Any]) -> Callable[..., Any]:
            d = dets[i]
            entity = _NAMES.get(id(d), d.entity)

            def call(view: str, pos: int, *a: Any, **k: Any) -> Any:
                t = clock()
                m = fn(view, pos, *a, **k)
                ns = clock() - t
                got = "none" if m is None else ("open" if m.partial else "complete")
                key = (kind, i, pos + self._origin)
                before = answers.get(key)
                answers[key] = got
                when = "first" if before is None else f"again/{before}"
                extra = ""
                if kind == "match" and d.near is not None and pos < len(view) and view[pos] in d.near:
                    if not labels.label_near(view, pos, LOOKBEHIND):
                        extra = " near-end(no tail)"
                    else:
                        extra = " tail"
                counts.add(f"{kind} {entity} {when} -> {got}{extra}", ns)
                return m

            return call

        for attr, kind in (("_match", "match"), ("_full", "search"), ("_search", "probe")):
            setattr(self, attr, tuple(wrap(kind, i, f) for i, f in enumerate(getattr(self, attr))))

    rest = fastpath._rest_match

    def rest_wrapped(first: str | None, body: str, flags: int) -> Callable[..., Any]:
        fn = rest(first, body, flags)

        def call(view: str, pos: int, *a: Any, **k: Any) -> Any:
            t = clock()
            m = fn(view, pos, *a, **k)
            got = "none" if m is None else ("open" if m.partial else "complete")
            counts.add(f"rest LABELED_IN_CODE -> {got}", clock() - t)
            return m

        return call

    quad = starters_module.Starters.quad

    def quad_wrapped(self: starters_module.Starters, key: str) -> int:
        t = clock()
        got = quad(self, key)
        counts.add("Starters.quad (python)", clock() - t)
        return got

    settles = [False]

    class Counted(make_cls):  # type: ignore[misc, valid-type]
        def _release_step(self, point: int) -> Any:
            settles[0] = True
            return super()._release_step(point)

    tracker_module.OpenTracker.__init__ = init  # type: ignore[method-assign]
    fastpath._rest_match = rest_wrapped  # type: ignore[assignment]
    starters_module.Starters.quad = quad_wrapped  # type: ignore[method-assign]
    per_n: list[Counter[str]] = []
    per_ns: list[Counter[str]] = []
    settled: list[bool] = []
    try:
        r = Counted()
        for p in pieces:
            counts.now, counts.ns = Counter(), Counter()
            settles[0] = False
            r.feed(p)
            per_n.append(counts.now)
            per_ns.append(counts.ns)
            settled.append(settles[0])
    finally:
        tracker_module.OpenTracker.__init__ = original  # type: ignore[method-assign]
        fastpath._rest_match = rest
        starters_module.Starters.quad = quad  # type: ignore[method-assign]
    return per_n, per_ns, settled


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-fast", action="store_true")
    ap.add_argument("--off", default="", help="comma-separated compiled_feed switches set True")
    ap.add_argument("--top", type=int, default=14)
    ap.add_argument("--only", default=",".join(CORPORA))
    args = ap.parse_args()
    off = {k: True for k in args.off.split(",") if k}
    cls = subject(not args.no_fast, off)
    for label in args.only.split(","):
        text = CORPORA[label](args.kb * 1024)
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
        cls().feed(text[:20000])  # warm the shared tables
        split, _ = timed(SentenceSplitter, pieces, args.repeats)
        per, p99s = timed(cls, pieces, args.repeats)
        n_, ns_, settled = counted(cls, text, pieces)
        cut = sorted(per)[int(0.99 * len(per))]
        top = [i for i, c in enumerate(per) if c >= cut]
        checks = [i for i in top if not settled[i]]
        all_checks = [i for i in range(len(pieces)) if not settled[i]]
        sp50 = statistics.median(split)
        print(
            f"\n### {label}: {len(pieces)} feeds; splitter p50 {sp50:.2f} µs; per-feed-median p99 {cut:.1f} µs "
            f"({cut / sp50:.0f}x); runs' p99 {statistics.median(p99s):.1f} µs ({statistics.median(p99s) / sp50:.0f}x)"
        )
        print(
            f"top 1%: {len(top)} feeds, {len(top) - len(checks)} settle, {len(checks)} check only "
            f"(median cost {statistics.median(per[i] for i in checks) if checks else 0:.1f} µs); "
            f"all check-only feeds: {len(all_checks)}, median {statistics.median(per[i] for i in all_checks):.1f} µs"
        )
        tot_n: Counter[str] = Counter()
        tot_ns: Counter[str] = Counter()
        for i in checks:
            tot_n.update(n_[i])
            tot_ns.update(ns_[i])
        k = max(1, len(checks))
        calls = sum(tot_n.values()) / k
        eng = sum(tot_ns.values()) / k / 1e3
        print(f"per top check feed: {calls:.2f} engine calls, {eng:.1f} µs in them (wrapped)")
        print("| call (detector, ask, answer) | per top check feed | µs per top check feed | per check feed (all) |")
        print("|---|---|---|---|")
        all_n: Counter[str] = Counter()
        for i in all_checks:
            all_n.update(n_[i])
        for key, _ in sorted(tot_ns.items(), key=lambda kv: -kv[1])[: args.top]:
            print(
                f"| {key} | {tot_n[key] / k:.2f} | {tot_ns[key] / k / 1e3:.1f} | {all_n[key] / len(all_checks):.3f} |"
            )
        # How many top check feeds make no engine call at all (their time is the feed's own bookkeeping)
        none = sum(1 for i in checks if not n_[i])
        by_calls: defaultdict[int, int] = defaultdict(int)
        for i in checks:
            by_calls[min(sum(n_[i].values()), 6)] += 1
        print(
            "top check feeds by engine calls made (6 = 6 or more): "
            + ", ".join(f"{c}: {by_calls[c]}" for c in sorted(by_calls))
            + f"; none: {none}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
