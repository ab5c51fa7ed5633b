"""Issue 27's per-feed tail, with the machine's noise taken out: each feed's cost is its least over `--repeats`
runs of the same feed sequence (a fresh subject per run; the state after each feed is deterministic, so the same
feed index is the same work every run), then the p50 / p99 over the feeds. Not collected by pytest.

    python tests/benchmarks/redactor_tail_floor.py --kb 64 --repeats 7
    python tests/benchmarks/redactor_tail_floor.py --kb 64 --repeats 7 --clock thread
    python tests/benchmarks/redactor_tail_floor.py --kb 64 --repeats 5 --profile   # what the floor's top 1% did
    python tests/benchmarks/redactor_tail_floor.py --kb 64 --repeats 7 --ab        # stop 35's switches off vs on

Why: on this shared 2-core machine the SentenceSplitter's own median feed moved 0.64–1.27 µs between
back-to-back runs, and a feed the scheduler interrupts lands in the top 1% whatever it did: in one run about half
of the feeds at or above the Redactor's p99 were not at or above it in the next (tests/benchmarks
/redactor_tail.py's table, docs/performance.md "the per-feed tail's floor"). The least of several runs of the
same feed is its cost without what the machine added (timeit's argument for taking the minimum). It also leaves
out a garbage collection that happens to fall on a feed (it falls on another feed in another run), so it is a
floor, not what a reader sees: redactor_tail.py's table stays the issue's measure, this one says how much of
its p99 is the code. Both subjects are measured the same way, interleaved, in one process.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate import SentenceSplitter  # noqa: E402
from sluicegate.redaction import Redactor  # noqa: E402
from tests.benchmarks.corpora27 import CORPORA  # noqa: E402
from tests.benchmarks.redactor_tail import Native, Pure, pct  # noqa: E402

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "thread": time.thread_time}


def run_costs(make: Callable[[], object], pieces: list[str], clock: Callable[[], float]) -> list[float]:
    """Each feed's cost in one run of a fresh subject."""
    feed = make().feed  # type: ignore[attr-defined]
    costs = []
    for p in pieces:
        t = clock()
        feed(p)
        costs.append(clock() - t)
    return costs


def floors(runs: list[list[float]]) -> list[float]:
    """Per feed, the least over the runs."""
    return [min(c) for c in zip(*runs, strict=True)]


def _dominant(prof: cProfile.Profile) -> tuple[str, float]:
    """The Python function (or builtin) with the most own time in one profiled feed, leaving out the feed itself,
    the compiled feed's entry, and the profiler: what the feed spent its time in beyond the compiled check."""
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    best, most, total = "compiled feed only", 0.0, 0.0
    for (file, _, name), (_, _, tt, _, _) in stats.items():
        total += tt
        if name in ("feed", "<method 'disable' of '_lsprof.Profiler' objects>") and "redactor" in file:
            continue
        if "disable" in name or name == "perf_counter" or (name == "call" and Path(file).stem == Path(__file__).stem):
            continue  # (the profiler, and `_named_regex_calls`' wrappers: their regex time is counted there)
        if name.startswith("<built-in method sluicegate.redaction._native.quick"):
            continue
        if tt > most:
            short = f"{Path(file).stem}.{name}" if file != "~" else name
            best, most = short, tt
    return best, most / total if total else 0.0


_SPENT: Counter[str] = Counter()  # regex time of the feed being profiled, by `<kind>:<entity>`


def _named_regex_calls() -> Callable[[], None]:
    """Wrap each tracker's per-detector regex callables (what the compiled feed and the tracker call: anchored
    match, pattern search, probe search) in a function named `<kind>:<entity>`, so that cProfile names the
    detector a feed's regex time went to (the compiled feed calls them from C, which cProfile does not see).
    Returns the undo. Adds a frame per call: for attribution only."""
    from sluicegate.redaction import tracker as tracker_module

    original = tracker_module.OpenTracker.__init__

    def named(kind: str, entity: str, fn: Callable[..., object]) -> Callable[..., object]:
        name = f"{kind}:{entity}"
        clock = time.perf_counter

        def call(*a: object, **k: object) -> object:
            t = clock()
            got = fn(*a, **k)
            _SPENT[name] += clock() - t
            return got

        return call

    def init(self: tracker_module.OpenTracker, engine: object) -> None:
        original(self, engine)  # type: ignore[arg-type]
        for attr, kind in (("_match", "match"), ("_full", "search"), ("_search", "probe")):
            fns = getattr(self, attr)
            setattr(self, attr, tuple(named(kind, d.entity, f) for d, f in zip(self._detectors, fns, strict=True)))

    tracker_module.OpenTracker.__init__ = init  # type: ignore[method-assign]

    def undo() -> None:
        tracker_module.OpenTracker.__init__ = original  # type: ignore[method-assign]

    return undo


def profile(texts: dict[str, str], repeats: int, clock: Callable[[], float], q: float = 0.99) -> None:
    """Per corpus: the feeds at or above the default build's floor p99, what kind they were (released a
    replacement or not, characters held before), and for each the function that dominated it (its own time
    under cProfile, run on that feed alone, the state being deterministic), counted; then the own time summed
    over those feeds by function."""
    for label, text in texts.items():
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
        runs = [run_costs(Redactor, pieces, clock) for _ in range(repeats)]
        got = floors(runs)
        cut = pct(got, q)
        top = {i for i, c in enumerate(got) if c >= cut}
        undo = _named_regex_calls()
        kinds: Counter[str] = Counter()
        dom: Counter[str] = Counter()
        dom_cost: Counter[str] = Counter()
        total = pstats.Stats()
        total.stats = {}  # type: ignore[attr-defined]
        agg: Counter[str] = Counter()
        r = Redactor()
        for i, p in enumerate(pieces):
            if i not in top:
                r.feed(p)
                continue
            held = r.held
            _SPENT.clear()
            prof = cProfile.Profile()
            prof.enable()
            step = r.feed(p)
            prof.disable()
            released = "<" in step.text and ">" in step.text
            kinds[("release" if released else "check") + (f", held {held // 16 * 16}-{held // 16 * 16 + 15}")] += 1
            name, _ = _dominant(prof)
            if _SPENT:  # a detector's regex calls (their time with the profiler on, as the functions' own time)
                key, spent = _SPENT.most_common(1)[0]
                stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
                own = max(
                    (
                        tt
                        for (f, _, fn), (_, _, tt, _, _) in stats.items()
                        if f"{Path(f).stem}.{fn}" == name or fn == name
                    ),
                    default=0.0,
                )
                if spent >= own or "_regex.Pattern" in name:
                    name = "regex " + key
            dom[("release: " if released else "check: ") + name] += 1
            dom_cost[("release: " if released else "check: ") + name] += got[i]
            for (file, _, fn), (_, _, tt, _, _) in pstats.Stats(prof).stats.items():  # type: ignore[attr-defined]
                agg[f"{Path(file).stem}.{fn}" if file != "~" else fn] += tt
        undo()
        n = len(top)
        print(f"\n### {label}: {n} feeds at or above the floor p{q * 100:g} ({cut * 1e6:.1f} µs) of {len(pieces)}")
        print("Kinds: " + "; ".join(f"{k} {v / n:.0%}" for k, v in kinds.most_common(6)))
        print("\n| dominated by (most own time in the feed, cProfile) | feeds | mean floor µs |\n|---|---|---|")
        for k, v in dom.most_common(14):
            print(f"| {k} | {v} ({v / n:.0%}) | {dom_cost[k] / v * 1e6:.1f} |")
        tot = sum(agg.values())
        print(
            "\nOwn time over those feeds (cProfile, its overhead included): "
            + "; ".join(f"{k} {v / tot:.0%}" for k, v in agg.most_common(10))
        )


def _stop35(on: bool) -> None:
    """Stop 35's switches: the open tail's trailing guards (read when a compiled feed is built), the compiled probe
    (when an engine's tables are made), the near answers' prefixes and the validator shortcuts (read at each call)."""
    from sluicegate.redaction import fastpath, opentail, tracker, validators

    opentail.GUARDED = tracker.C_PROBE = validators.JWT_FLAT = validators.IBAN_TABLE = on
    if fastpath.native is not None:
        fastpath.native.set_near_prefixes(on)


def ab(texts: dict[str, str], repeats: int, clock: Callable[[], float]) -> None:
    """The default build with stop 35's switches off ("before") and on ("after"), beside the splitter, interleaved in
    each repeat, in one process: the floor p50 / p99 per corpus and the p99 against the splitter's floor p50."""

    def before_costs(pieces: list[str]) -> list[float]:
        _stop35(False)
        try:
            return run_costs(Redactor, pieces, clock)
        finally:
            _stop35(True)

    runners: dict[str, Callable[[list[str]], list[float]]] = {
        "split": lambda pieces: run_costs(SentenceSplitter, pieces, clock),
        "before": before_costs,
        "after": lambda pieces: run_costs(Redactor, pieces, clock),
    }
    for text in texts.values():  # learn the shared tables outside the timing
        for name in ("before", "after"):
            runners[name]([text[i : i + 4] for i in range(0, 20000, 4)])
    print("| corpus | splitter p50 µs | before: p50 / p99 µs (x) | after: p50 / p99 µs (x) | mean after / before |")
    print("|---|---|---|---|---|")
    for label, text in texts.items():
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
        runs: dict[str, list[list[float]]] = {n: [] for n in runners}
        for _ in range(repeats):
            for name, run in runners.items():
                runs[name].append(run(pieces))
        got = {n: floors(r) for n, r in runs.items()}
        base = pct(got["split"], 0.5)
        cells = [
            f"{pct(got[n], 0.5) * 1e6:.2f} / {pct(got[n], 0.99) * 1e6:.2f} ({pct(got[n], 0.99) / base:.1f}x)"
            for n in ("before", "after")
        ]
        ratio = statistics.fmean(got["after"]) / statistics.fmean(got["before"])
        print(f"| {label} | {base * 1e6:.2f} | " + " | ".join(cells) + f" | {ratio:.2f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    ap.add_argument("--only", default=",".join(CORPORA))
    ap.add_argument("--profile", action="store_true", help="what the default build's top 1%% of feeds did")
    ap.add_argument("--ab", action="store_true", help="stop 35's switches off vs on (the default build)")
    ap.add_argument("--quantile", type=float, default=0.99, help="--profile: the feeds at or above this quantile")
    args = ap.parse_args()
    clock = CLOCKS[args.clock]
    subjects: list[tuple[str, Callable[[], object]]] = [
        ("split", SentenceSplitter),
        ("[fast] + compiled feed", Redactor),
        ("compiled feed", Native),
        ("pure", Pure),
    ]
    texts = {k: CORPORA[k](args.kb * 1024) for k in args.only.split(",")}
    for _, make in subjects[1:]:  # learn the shared starters tables outside the timing
        for text in texts.values():
            make().feed(text[:20000])  # type: ignore[attr-defined]
    print(
        f"Per-feed floor: each 4-character feed's least cost over {args.repeats} runs ({args.clock} clock), "
        "then percentiles over the feeds; the p99 against the splitter's floor p50 (target <= 20x).\n"
    )
    if args.profile:
        profile(texts, args.repeats, clock, args.quantile)
        return 0
    if args.ab:
        ab(texts, args.repeats, clock)
        return 0
    names = [n for n, _ in subjects[1:]]
    print("| corpus | splitter p50 / p99 µs | " + " | ".join(f"{n}: p50 / p99 µs (x)" for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    for label, text in texts.items():
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
        runs: dict[str, list[list[float]]] = {n: [] for n, _ in subjects}
        for _ in range(args.repeats):
            for name, make in subjects:
                runs[name].append(run_costs(make, pieces, clock))
        got = {n: floors(r) for n, r in runs.items()}
        base = pct(got["split"], 0.5)
        cells = [
            f"{pct(got[n], 0.5) * 1e6:.2f} / {pct(got[n], 0.99) * 1e6:.2f} ({pct(got[n], 0.99) / base:.0f}x)"
            for n in names
        ]
        mean = {n: statistics.fmean(got[n]) for n in got}
        print(f"| {label} | {base * 1e6:.2f} / {pct(got['split'], 0.99) * 1e6:.2f} | " + " | ".join(cells) + " |")
        print(
            f"| {label}: mean floor x splitter's | 1.0x | "
            + " | ".join(f"{mean[n] / mean['split']:.1f}x" for n in names)
            + " |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
