"""Issue 27: the whole-text C pass without hyperscan (`_native.whole_starts`, whole.py `_native_starts`) in each of
its ways (whole.py `NATIVE_MODE`), in one process, by this thread's CPU time; and what its candidates cost the
engine. Not collected by pytest.

    python tests/benchmarks/redactor_native_pass.py --kb 64 --repeats 15

Per corpus (tests/benchmarks/corpora27.py's four, 64 KB of UTF-8 each), modes interleaved in each repeat,
medians: the pass in mode 0 (as before stop 34: a detector→shape mapping per position, the kind's switch per
character, 129 moves per automaton state, label words on ASCII views only), 15 (the four exact ways), 63 (all);
the candidates of every exact mode are checked equal to mode 0's (16 adds the label detectors on a view that is
not ASCII). Then `matches` in all, modes 0 and 63 (the pass and the engine asked at its candidates, plus any
detector's `finditer`), and for mode 63 the positions asked and the matches found.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from sluicegate.redaction import Redactor, whole  # noqa: E402
from tests.benchmarks.corpora27 import CORPORA  # noqa: E402


class Pure(Redactor):
    _COMPILED = False


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    modes = (0, 15, 63)
    clock = time.thread_time
    status = 0
    print(f"{args.kb} KB per corpus; thread CPU time, medians of {args.repeats}; ms")
    print(
        "| corpus | C pass, mode 0 → 15 → 63 | matches (pass + asks), mode 0 → 63 | positions asked | matches found |"
    )
    print("|---|---|---|---|---|")
    for name, make in CORPORA.items():
        r = Pure()
        r._append(make(args.kb * 1024))
        engine, view = r._engine, r._view
        got = {}
        for m in modes:
            whole.NATIVE_MODE = m
            got[m] = whole._native_starts(engine, view)
        if got[15] != got[0] or (view.isascii() and got[63] != got[0]):
            print(f"DIFFERENT: {name}")
            status = 1
        times: dict[int, list[float]] = {m: [] for m in modes}
        total: list[float] = []
        total0: list[float] = []
        for _ in range(args.repeats):
            for m in modes:
                whole.NATIVE_MODE = m
                t = clock()
                whole._native_starts(engine, view)
                times[m].append(clock() - t)
            whole.NATIVE_MODE = 0
            t = clock()
            whole.matches(engine, view)
            total0.append(clock() - t)
            whole.NATIVE_MODE = 63
            t = clock()
            per = whole.matches(engine, view)
            total.append(clock() - t)
        known = got[63][0] if got[63] is not None else {}
        asked = sum(b - a + 1 for k, spans in known.items() if k >= 0 for a, b in spans)
        found = sum(len(f) for _, f in per)
        cells = " → ".join(f"{statistics.median(times[m]) * 1e3:.2f}" for m in modes)
        m0, m63 = statistics.median(total0) * 1e3, statistics.median(total) * 1e3
        print(f"| {name} | {cells} | {m0:.2f} → {m63:.2f} | {asked:,} | {found:,} |")
    whole.NATIVE_MODE = 63
    return status


if __name__ == "__main__":
    raise SystemExit(main())
