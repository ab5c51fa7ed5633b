"""Issue 27: `redact(text)`'s one pass (whole.py) before and after the per-detector candidates of wholedb.py, in
one process, by this thread's CPU time. Not collected by pytest.

    python tests/benchmarks/redactor_whole_ab.py --kb 64 --repeats 7
    python tests/benchmarks/redactor_whole_ab.py --kb 64 --repeats 7 --base fbec573

"before" is whole.py as it is at `--base` (default fbec573, the branch point; `git show` of that file, loaded as
a module of this checkout's package, so every other module — prefilter, scan, labels, settle, the detectors —
is the same for both; this change touched no other file that the one pass reads). "after" is this checkout's.
Both run with the `[fast]` extra (hyperscan) and without it ("pure": `_COMPILED = False`, as tests switch it
off), subjects interleaved in each repeat, medians of `--repeats`; outputs compared byte for byte (and with
the stream's, once per corpus): a difference is printed and the exit status is 1. The corpora are
tests/benchmarks/corpora27.py's four and issue 17's planted text and prose; sizes are UTF-8 bytes.

Work counts, which do not depend on the machine's load, come with each row (`counts`): how many detectors were
asked only at candidate positions (the others ran their `finditer` over the whole view), how many positions
they were asked at, and how many hyperscan callbacks the pass made.

    python tests/benchmarks/redactor_whole_ab.py --kb 64 --repeats 9 --switches

`--switches` (issue 27, stop 34; `--switches 35`: stop 35's, `SWITCHES_35`): "before" is this checkout with the
switches of what comes after the candidates off (`SWITCHES`: `whole.LEAN`, `whole.SPLIT_OPENERS`,
`normalize.DISTINCT`, `validators.FAST`, `Redactor._LAZY_STREAM`), "after" with them on; `Redactor._redact_whole`
itself of a Redactor made before the clock, and `redact(text)` (with the Redactor it makes; "pure":
`Redactor._COMPILED` patched to False); then the one pass's stages with the switches on (ms per text, medians): the
view (`_append`), `matches` (of it, the candidates alone: wholedb.py's pass with `[fast]`, `_native_starts`
without), `certified`, the findings (`chosen`) and the render."""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate.redaction import Redactor, normalize, prefilter, redact, validators, whole, wholedb  # noqa: E402
from sluicegate.redaction.detector import LOOKBEHIND  # noqa: E402
from sluicegate.redaction.starters import BUILTIN_IDS  # noqa: E402
from tests.benchmarks import corpus as C  # noqa: E402
from tests.benchmarks.corpora27 import CORPORA  # noqa: E402


class Pure(Redactor):
    _COMPILED = False
    _NATIVE = False


def old_whole(base: str) -> ModuleType:
    """whole.py at `base`, as `sluicegate.redaction._whole_base` (its relative imports resolve to this
    checkout's modules)."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{base}:src/sluicegate/redaction/whole.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    name = "sluicegate.redaction._whole_base"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "sluicegate.redaction"
    sys.modules[name] = mod
    exec(compile(source, f"{base}:whole.py", "exec"), mod.__dict__)
    return mod


def one_pass(make: Callable[[], Redactor], mod: Any, text: str) -> str | None:
    """`Redactor._redact_whole` with whole.py's three steps taken from `mod` (the same body otherwise)."""
    r = make()
    r._append(text)
    engine, view = r._engine, r._view
    per = mod.matches(engine, view)
    window = r._max_hold - (len(r._raw) - len(view))
    if not mod.certified(engine, view, per, window, BUILTIN_IDS):
        return None
    return r._render(len(r._raw), mod.findings(engine, view, per, r._keep))


def streamed(make: Callable[[], Redactor], text: str) -> str:
    r = make()
    a = r.feed(text)
    b = a if a.stopped else r.flush()
    return a.text + (b.text if b is not a else "") + (r._notice if a.stopped or b.stopped else "")


def counts(make: Callable[[], Redactor], mod: Any, text: str) -> tuple[int, int, int]:
    """(detectors asked only at candidates, candidate positions they were asked at, hyperscan callbacks) in one
    pass's `matches`; the other detectors (but those the pure path's starters table leaves out) each took a
    `finditer` over the whole view."""
    r = make()
    r._append(text)
    asked: dict[int, int] = {}
    calls = [0]
    orig_in = mod._pf.matches_in

    def counted_in(d: Any, v: str, spans: list[tuple[int, int]], first: int, point: int, *more: Any) -> list[Any]:
        n = sum(min(b, point - 1) - max(a, first) + 1 for a, b in spans if b >= first and a < point)
        asked[id(d)] = asked.get(id(d), 0) + n
        return orig_in(d, v, spans, first, point, *more)

    class Counted:  # a hyperscan database whose callbacks are counted (its type cannot be patched)
        def __init__(self, db: Any) -> None:
            self.db = db

        def scan(self, data: bytes, match_event_handler: Any = None, **kw: Any) -> Any:
            def on(*a: Any) -> Any:
                calls[0] += 1
                return match_event_handler(*a)

            return self.db.scan(data, match_event_handler=on, **kw)

    swapped: list[tuple[Any, str, Any]] = []
    engine = r._engine
    if engine.prefilter is not None and engine.prefilter._db is not None:
        swapped.append((engine.prefilter, "_db", engine.prefilter._db))
    db = wholedb.shared(engine.detectors) if prefilter.available() else None
    for attr in ("_ascii", "_same", "_plain", "_folded", "_words"):
        got = getattr(db, attr, None)
        if got is not None:
            swapped.append((db, attr, got))
    for obj, attr, old in swapped:
        setattr(obj, attr, Counted(old) if attr == "_db" else (Counted(old[0]), old[1]))
    engine._last_ranges = None
    mod._pf.matches_in = counted_in
    try:
        mod.matches(engine, r._view)
    finally:
        mod._pf.matches_in = orig_in
        for obj, attr, old in swapped:
            setattr(obj, attr, old)
    return len(asked), sum(asked.values()), calls[0]


SWITCHES: tuple[tuple[Any, str], ...] = (
    (whole, "LEAN"),
    (whole, "SPLIT_OPENERS"),
    (normalize, "DISTINCT"),
    (validators, "FAST"),
    (Redactor, "_LAZY_STREAM"),
)
# `--switches 35` (issue 27, stop 35): the fewer engine calls of whole.py (tests/redact/test_whole_quick.py).
SWITCHES_35: tuple[tuple[Any, str], ...] = (
    (whole, "STDLIB"),
    (whole, "QUIET_FARS"),
    (wholedb, "NATIVE_MERGE"),
    (wholedb, "NATIVE_COLLECT"),
    (whole, "NATIVE_MATCHES"),
    (whole, "LEAN_LOCATE"),
    (whole, "BY_ID"),
    (wholedb, "BY_ID"),
)


def switched(on: bool) -> None:
    for mod, name in SWITCHES:
        setattr(mod, name, on)


def stages(make: Callable[[], Redactor], text: str, repeats: int) -> dict[str, float]:
    """ms per stage of one pass (switches on), medians of `repeats`."""
    clock = time.thread_time
    got: dict[str, list[float]] = {k: [] for k in ("view", "matches", "candidates", "certified", "chosen", "render")}
    for _ in range(repeats):
        r = make()
        t0 = clock()
        r._append(text)
        t1 = clock()
        engine, view = r._engine, r._view
        per = whole.matches(engine, view)
        t2 = clock()
        window = r._max_hold - (len(r._raw) - len(view))
        whole.certified(engine, view, per, window, BUILTIN_IDS)
        t3 = clock()
        chosen = whole.chosen(engine, view, per, r._allow)
        t4 = clock()
        r._render_chosen(chosen)
        t5 = clock()
        db = wholedb.shared(engine.detectors) if engine.prefilter is not None else None
        t6 = clock()
        if db is not None:
            db.candidates(view, LOOKBEHIND)
        else:
            whole._native_starts(engine, view)
        t7 = clock()
        for key, a, b in (("view", t0, t1), ("matches", t1, t2), ("certified", t2, t3), ("chosen", t3, t4)):
            got[key].append((b - a) * 1000)
        got["render"].append((t5 - t4) * 1000)
        got["candidates"].append((t7 - t6) * 1000)
    return {k: statistics.median(v) for k, v in got.items()}


def by_switches(texts: dict[str, str], subjects: list[tuple[str, Callable[[], Redactor]]], repeats: int) -> int:
    """The one pass with the stop-34 switches off against on, in one process (see the module's docstring)."""
    clock = time.thread_time
    status = 0
    print(f"switches {', '.join(f'{m.__name__.rsplit(chr(46), 1)[-1]}.{n}' for m, n in SWITCHES)}: off → on")
    print(f"thread CPU time, medians of {repeats}: `_redact_whole` of a Redactor made before the clock; `redact()`")
    print(
        "| corpus | MB | "
        + " | ".join(f"{n}: off → on MB/s (x; on at best) | {n} `redact()`: off → on" for n, _ in subjects)
        + " |"
    )
    print("|---|---|" + "---|---|" * len(subjects))
    rows = []
    for label, text in texts.items():
        mb = len(text.encode()) / 1e6
        cells = []
        for name, make in subjects:
            want = streamed(make, text)
            for on in (False, True):
                switched(on)
                got = make()._redact_whole(text)
                if got is None:
                    print(f"declined: {label} {name} switches {'on' if on else 'off'}")
                elif got != want:
                    print(f"DIFFERENT: {label} {name} switches {'on' if on else 'off'}")
                    status = 1
            times: dict[bool, list[float]] = {False: [], True: []}
            for _ in range(repeats):
                for on in (False, True):
                    switched(on)
                    r = make()
                    t = clock()
                    r._redact_whole(text)
                    times[on].append(clock() - t)
            whole_times: dict[bool, list[float]] = {False: [], True: []}
            with mock.patch.object(Redactor, "_COMPILED", make is Redactor):
                for _ in range(repeats):
                    for on in (False, True):
                        switched(on)
                        t = clock()
                        got = redact(text)
                        whole_times[on].append(clock() - t)
                        if got != want:
                            print(f"DIFFERENT: {label} {name} redact() switches {'on' if on else 'off'}")
                            status = 1
            switched(True)
            b, a = statistics.median(times[False]), statistics.median(times[True])
            cells.append(f"{mb / b:.1f} → {mb / a:.1f} ({b / a:.2f}x; {mb / min(times[True]):.1f})")
            b, a = statistics.median(whole_times[False]), statistics.median(whole_times[True])
            cells.append(f"{mb / b:.1f} → {mb / a:.1f} ({b / a:.2f}x)")
            rows.append((label, name, stages(make, text, repeats)))
        print(f"| {label} | {mb:.3f} | " + " | ".join(cells) + " |")
    print()
    print("stages with the switches on, ms per text (medians): candidates is part of matches")
    print("| corpus | subject | view | matches | (candidates) | certified | chosen | render | sum |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, name, st in rows:
        total = st["view"] + st["matches"] + st["certified"] + st["chosen"] + st["render"]
        print(
            f"| {label} | {name} | {st['view']:.2f} | {st['matches']:.2f} | ({st['candidates']:.2f}) | "
            f"{st['certified']:.2f} | {st['chosen']:.2f} | {st['render']:.2f} | {total:.2f} |"
        )
    return status


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--base", default="fbec573")
    ap.add_argument(
        "--switches",
        nargs="?",
        const="34",
        choices=["34", "35"],
        help="stop 34's (or 35's) switches off against on (no --base)",
    )
    args = ap.parse_args()
    if args.switches:
        if args.switches == "35":
            global SWITCHES
            SWITCHES = SWITCHES_35
        texts = {name: make(args.kb * 1024) for name, make in CORPORA.items()}
        texts["planted17"] = C.planted(args.kb * 1024).text
        texts["prose17"] = C.prose(args.kb * 1024)
        chosen: list[tuple[str, Callable[[], Redactor]]] = [("[fast]", Redactor), ("pure", Pure)]
        return by_switches(texts, chosen if prefilter.available() else chosen[1:], args.repeats)
    before = old_whole(args.base)
    texts = {name: make(args.kb * 1024) for name, make in CORPORA.items()}
    texts["planted17"] = C.planted(args.kb * 1024).text
    texts["prose17"] = C.prose(args.kb * 1024)
    subjects: list[tuple[str, Callable[[], Redactor]]] = [("[fast]", Redactor), ("pure", Pure)]
    if not prefilter.available():
        subjects = subjects[1:]
    clock = time.thread_time
    status = 0
    n_det = len(Redactor()._engine.detectors)
    print(f"base {args.base}; {args.kb} KB per corpus; thread CPU time, medians of {args.repeats}")
    print(
        "| corpus | MB | "
        + " | ".join(
            f"{n}: before → after MB/s, medians (x) | {n}: detectors asked at candidates; positions asked; "
            "hyperscan callbacks"
            for n, _ in subjects
        )
        + " |"
    )
    print("|---|---|" + "---|---|" * len(subjects))
    for label, text in texts.items():
        mb = len(text.encode()) / 1e6
        cells = []
        for name, make in subjects:
            want = streamed(make, text)
            for mod in (before, whole):
                got = one_pass(make, mod, text)
                if got is not None and got != want:
                    print(f"DIFFERENT: {label} {name} {'after' if mod is whole else 'before'}")
                    status = 1
                if got is None:
                    print(f"declined: {label} {name} {'after' if mod is whole else 'before'}")
            times: dict[str, list[float]] = {"before": [], "after": []}
            for _ in range(args.repeats):
                for key, mod in (("before", before), ("after", whole)):
                    t = clock()
                    one_pass(make, mod, text)
                    times[key].append(clock() - t)
            b, a = statistics.median(times["before"]), statistics.median(times["after"])
            det_b, asked_b, calls_b = counts(make, before, text)
            det_a, asked_a, calls_a = counts(make, whole, text)
            best = mb / min(times["after"])
            cells.append(f"{mb / b:.2f} → {mb / a:.2f} ({b / a:.2f}x; after at best {best:.1f})")
            cells.append(f"{det_b} → {det_a} of {n_det}; {asked_b:,} → {asked_a:,}; {calls_b:,} → {calls_a:,}")
        print(f"| {label} | {mb:.3f} | " + " | ".join(cells) + " |")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
