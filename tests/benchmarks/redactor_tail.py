"""Issue 27: the Redactor's cost on text it was not tuned on (tests/benchmarks/corpora27.py: code blocks, logs,
multilingual prose with planted values, JSON), beside the SentenceSplitter, measured side by side in one run.
Not collected by pytest.

    python tests/benchmarks/redactor_tail.py --kb 64 --repeats 3     # rows per corpus
    python tests/benchmarks/redactor_tail.py --kb 64 --profile       # where the p99 feeds go (default build)
    python tests/benchmarks/redactor_tail.py --kb 32 --calls         # the compiled feed's regex calls, counted
    python tests/benchmarks/redactor_tail.py --kb 64 --whole         # whole text: the stream vs the one pass

Rows per corpus, medians of `--repeats` (the splitter, then the subjects, their order rotated by one each repeat:
the one timed right after the splitter had a higher p99, whichever it was): mean µs per 4-character feed and
its ratio to the splitter's mean (target <= 3x); p50 / p99 and the p99 against the splitter's p50 (target
<= 20x); the most characters held after a feed; whole-text `redact()` MB/s (targets >= 20 with `[fast]`, >= 8
without; the one pass of whole.py, or the stream where it declines).

`--whole`: whole text before (the stream) and after (the one pass), with and without `[fast]`, by CPU time in
one process, on the four corpora and issue 17's planted and prose texts; outputs compared.

`--profile` runs the default build once per corpus, takes the feeds at or above its p99, and says what they
did: whether the compiled feed answered alone or handed over to Python (the `Redactor` methods it calls were
counted), whether the feed released a replacement (findings settled), how much was held, and whether the piece
needed the normalized view's position map; then cProfile of those feeds only (re-run with the profiler switched
on around the same feed indexes; the state is deterministic).

`--calls` counts, over all feeds of the default build, the regex calls the compiled feed and the tracker make
(each detector's anchored match, pattern search and probe search, wrapped before the `_native.Feed` is built),
by outcome (a first ask at a position, or again after an open or complete answer there) and, for first asks
that fail, by detector; and the `Starters.quad` calls (quad keys the C table had not seen, Python calls)
with fresh tables per corpus: counts, not times, so they hold on a loaded machine.
"""

from __future__ import annotations

import argparse
import cProfile
import io
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


class Pure(Redactor):
    _COMPILED = False
    _NATIVE = False


class Native(Redactor):  # the compiled feed, no hyperscan prefilter
    _COMPILED = False


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def feed_costs(make: Callable[[], object], pieces: list[str]) -> tuple[list[float], int]:
    f = make()
    feed = f.feed  # type: ignore[attr-defined]
    clock = time.perf_counter
    costs, most = [], -1
    has_held = hasattr(f, "held")
    for p in pieces:
        t = clock()
        feed(p)
        costs.append(clock() - t)
        if has_held:
            most = max(most, f.held)  # type: ignore[attr-defined]
    return costs, most


def whole_secs(make: Callable[[], object], text: str) -> float:
    """`redact(text)` with this class: the one pass (whole.py), or the stream where it declines."""
    r = make()
    t = time.perf_counter()
    if r._redact_whole(text) is None:  # type: ignore[attr-defined]
        r.feed(text)  # type: ignore[attr-defined]
        r.flush()  # type: ignore[attr-defined]
    return time.perf_counter() - t


def streamed(make: Callable[[], object], text: str) -> str:
    r = make()
    a = r.feed(text)  # type: ignore[attr-defined]
    b = a if a.stopped else r.flush()  # type: ignore[attr-defined]
    return a.text + (b.text if b is not a else "") + (r._notice if a.stopped or b.stopped else "")  # type: ignore[attr-defined]


def whole_ab(texts: dict[str, str], repeats: int) -> None:
    """Whole text before (the stream: one `feed` and `flush`) and after (`_redact_whole`, the one pass), with
    and without `[fast]`, in one process by this thread's CPU time (the machine is shared), medians of
    `repeats`; outputs compared byte for byte."""
    clock = time.thread_time
    subjects: list[tuple[str, Callable[[], object]]] = [("[fast]", Redactor), ("pure", Pure)]
    print(
        "| corpus | MB | one pass taken | same output | "
        + " | ".join(f"{n}: before / after MB/s (x)" for n, _ in subjects)
        + " |"
    )
    print("|---|---|---|---|" + "---|" * len(subjects))
    for label, text in texts.items():
        mb = len(text.encode()) / 1e6
        cells, taken, same = [], True, True
        for _, make in subjects:
            make()._redact_whole(text)  # type: ignore[attr-defined]  # warm the caches and the validators
            before, after = [], []
            for _ in range(repeats):
                t = clock()
                want = streamed(make, text)
                before.append(clock() - t)
                t = clock()
                got = make()._redact_whole(text)  # type: ignore[attr-defined]
                after.append(clock() - t)
                taken = taken and got is not None
                same = same and (got is None or got == want)
            b, a = statistics.median(before), statistics.median(after)
            cells.append(f"{mb / b:.2f} / {mb / a:.2f} ({b / a:.1f}x)")
        flags = f"{'yes' if taken else 'NO'} | {'yes' if same else 'NO'}"
        print(f"| {label} | {mb:.2f} | {flags} | " + " | ".join(cells) + " |")


def table(texts: dict[str, str], repeats: int) -> None:
    subjects: list[tuple[str, Callable[[], object]]] = [
        ("[fast] + compiled feed", Redactor),
        ("compiled feed", Native),
        ("pure", Pure),
    ]
    for _, make in subjects:  # learn the shared starters tables outside the timing
        for text in texts.values():
            make().feed(text[:20000])  # type: ignore[attr-defined]
    names = [n for n, _ in subjects]
    print("| corpus: measure | SentenceSplitter | " + " | ".join(f"Redactor {n}" for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    for label, text in texts.items():
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
        means: dict[str, list[float]] = {n: [] for n in ["split", *names]}
        p50: dict[str, list[float]] = {n: [] for n in ["split", *names]}
        p99: dict[str, list[float]] = {n: [] for n in ["split", *names]}
        held: dict[str, int] = {}
        for k in range(repeats):
            # The splitter first, then the subjects, each repeat starting one subject later: the subject timed right
            # after the splitter had the higher p99, whichever it was (docs/performance.md, "the order of the
            # subjects"), so with `repeats` a multiple of the subjects each has that place equally often.
            turn = subjects[k % len(subjects) :] + subjects[: k % len(subjects)]
            for name, make in [("split", SentenceSplitter), *turn]:
                costs, most = feed_costs(make, pieces)
                means[name].append(statistics.fmean(costs) * 1e6)
                p50[name].append(pct(costs, 0.5) * 1e6)
                p99[name].append(pct(costs, 0.99) * 1e6)
                held[name] = max(held.get(name, -1), most)
        m = {n: statistics.median(v) for n, v in means.items()}
        a = {n: statistics.median(v) for n, v in p50.items()}
        b = {n: statistics.median(v) for n, v in p99.items()}
        print(
            f"| {label}: mean µs per feed (x splitter) | {m['split']:.2f} | "
            + " | ".join(f"{m[n]:.2f} ({m[n] / m['split']:.1f}x)" for n in names)
            + " |"
        )
        print(
            f"| {label}: p50 / p99 µs (p99 x splitter p50) | {a['split']:.2f} / {b['split']:.2f} | "
            + " | ".join(f"{a[n]:.2f} / {b[n]:.2f} ({b[n] / a['split']:.0f}x)" for n in names)
            + " |"
        )
        print(f"| {label}: most held after a feed | n/a | " + " | ".join(str(held[n]) for n in names) + " |")
        mb = len(text.encode()) / 1e6
        secs = {n: statistics.median(whole_secs(make, text) for _ in range(repeats)) for n, make in subjects}
        print(f"| {label}: whole text MB/s | n/a | " + " | ".join(f"{mb / secs[n]:.2f}" for n in names) + " |")


def profile(texts: dict[str, str]) -> None:
    for label, text in texts.items():
        pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
        Redactor().feed(text[:20000])
        costs, _ = feed_costs(Redactor, pieces)
        cut = pct(costs, 0.99)
        top = [i for i, c in enumerate(costs) if c >= cut]
        # What the top feeds were (the compiled feed calls Python only for what it does not handle: cProfile
        # below shows which functions those feeds entered).
        kinds: Counter[str] = Counter()
        r = Redactor()
        topset = set(top)
        for i, p in enumerate(pieces):
            held_before = r.held
            step = r.feed(p)
            if i in topset:
                replaced = "<" in step.text and ">" in step.text
                kinds[
                    ("replacement released" if replaced else "no replacement")
                    + (
                        ", held >= 256"
                        if held_before >= 256
                        else f", held {held_before // 16 * 16}-{held_before // 16 * 16 + 15}"
                    )
                    + (", non-ASCII piece" if not p.isascii() else "")
                ] += 1
        print(f"\n### {label}: {len(top)} feeds at or above p99 ({cut * 1e6:.1f} µs) of {len(pieces)}")
        print("What they were: " + "; ".join(f"{k} {v / len(top):.0%}" for k, v in kinds.most_common(8)))
        prof = cProfile.Profile()
        r = Redactor()
        topset = set(top)
        for i, p in enumerate(pieces):
            if i in topset:
                prof.enable()
                r.feed(p)
                prof.disable()
            else:
                r.feed(p)
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(12)
        print("```\n" + "\n".join(out.getvalue().splitlines()[:34]) + "\n```")


def calls(texts: dict[str, str]) -> None:
    from sluicegate.redaction import fastpath
    from sluicegate.redaction import starters as starters_module
    from sluicegate.redaction import tracker as tracker_module

    outcome: Counter[tuple[str, str, str]] = Counter()
    failed: Counter[str] = Counter()
    answers: dict[tuple[str, int, int], str] = {}
    original = tracker_module.OpenTracker.__init__

    def counted(self: tracker_module.OpenTracker, engine: object) -> None:
        original(self, engine)  # type: ignore[arg-type]

        def wrap(kind: str, i: int, fn: Callable[..., object]) -> Callable[..., object]:
            entity = self._detectors[i].entity

            def call(view: str, pos: int, *a: object, **k: object) -> object:
                m = fn(view, pos, *a, **k)
                got = "none" if m is None else ("open" if m.partial else "complete")  # type: ignore[attr-defined]
                key = (kind, i, pos + self._origin)
                before = answers.get(key)
                outcome[(kind, "first" if before is None else f"again after {before}", got)] += 1
                if before is None and got == "none":
                    failed[entity] += 1
                answers[key] = got
                return m

            return call

        for attr, kind in (("_match", "match"), ("_full", "search"), ("_search", "probe")):
            setattr(self, attr, tuple(wrap(kind, i, f) for i, f in enumerate(getattr(self, attr))))

    quads = [0]
    quad = starters_module.Starters.quad

    def counted_quad(self: starters_module.Starters, key: str) -> int:
        quads[0] += 1
        return quad(self, key)

    tracker_module.OpenTracker.__init__ = counted  # type: ignore[method-assign]
    starters_module.Starters.quad = counted_quad  # type: ignore[method-assign]
    try:
        for label, text in texts.items():
            outcome.clear()
            failed.clear()
            answers.clear()
            quads[0] = 0
            starters_module._shared.cache_clear()  # fresh tables: the quad keys a first stream meets
            fastpath._near_cache.cache_clear()  # and the near answers a first stream asks (shared by the process)
            fastpath._per_detector.cache_clear()  # (whose tuples hold the dicts of those answers)
            r = Redactor()
            feeds = 0
            for i in range(0, len(text), 4):
                r.feed(text[i : i + 4])
                feeds += 1
            total = sum(outcome.values())
            print(
                f"\n### {label}: {total} regex calls, {total / feeds:.2f} per feed; "
                f"{quads[0]} Starters.quad calls (keys the quad table had not seen, fresh tables)"
            )
            for (kind, when, got), n in outcome.most_common(8):
                print(f"- {kind}, {when}: {got} — {n} ({n / total:.0%})")
            print("- failing first matches by detector: " + ", ".join(f"{e} {n}" for e, n in failed.most_common(8)))
    finally:
        tracker_module.OpenTracker.__init__ = original  # type: ignore[method-assign]
        starters_module.Starters.quad = quad  # type: ignore[method-assign]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--calls", action="store_true")
    ap.add_argument("--whole", action="store_true", help="whole text before/after the one pass, by CPU time")
    ap.add_argument("--only", default=",".join(CORPORA))
    args = ap.parse_args()
    texts = {k: CORPORA[k](args.kb * 1024) for k in args.only.split(",")}
    print(
        "Corpora (tests/benchmarks/corpora27.py): "
        + ", ".join(f"{k} {len(t.encode()) / 1e6:.2f} MB" for k, t in texts.items())
        + f"; 4-character pieces; medians of {args.repeats}.\n"
    )
    if args.profile:
        profile(texts)
    elif args.calls:
        calls(texts)
    elif args.whole:
        from tests.benchmarks.corpus import planted, prose

        texts["issue17-planted"] = planted(args.kb * 1024).text
        texts["issue17-prose"] = prose(args.kb * 1024)
        whole_ab(texts, args.repeats)
    else:
        table(texts, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
