"""Issue 27: what a fresh process pays on its first `redact(text)` without hyperscan, with the built-ins' shapes
and pair table read from shapecache.py's file and with them built at run time. Not collected by pytest.

    python tests/benchmarks/redactor_first_call.py --repeats 3

Each measurement is a fresh interpreter (the costs are per process): it imports the package, builds a Redactor
without the `[fast]` prefilter (`_COMPILED = False`, as a machine without hyperscan) and redacts 64 KB of one of
corpora27.py's corpora once, then once more with a new Redactor (the second call's cost is the steady one).
Process CPU time, medians of `--repeats` processes per cell, subjects alternated; the outputs of the two
subjects are compared (a difference is printed and the exit status is 1).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import hashlib, json, sys, time
sys.path[:0] = [sys.argv[1] + "/src", sys.argv[1]]
from sluicegate.redaction import Redactor, shapecache
shapecache.USE = sys.argv[2] == "file"
from tests.benchmarks.corpora27 import CORPORA
text = CORPORA[sys.argv[3]](64 * 1024)
Redactor._COMPILED = False
clock = time.process_time
t0 = clock()
r = Redactor()
t1 = clock()
out = r._redact_whole(text)
t2 = clock()
Redactor()._redact_whole(text)
t3 = clock()
digest = hashlib.sha256((out or "").encode()).hexdigest()
print(json.dumps({"new": t1 - t0, "first": t2 - t1, "second": t3 - t2, "out": digest, "taken": out is not None}))
"""


def run(subject: str, corpus: str) -> dict[str, float | str | bool]:
    got = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT), subject, corpus], check=True, capture_output=True, text=True
    )
    result: dict[str, float | str | bool] = json.loads(got.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    status = 0
    print(f"fresh process per cell, process CPU time, medians of {args.repeats}; ms")
    print("| corpus | Redactor(): built → file | first whole pass: built → file | second pass: built → file |")
    print("|---|---|---|---|")
    for corpus in ("code", "logs", "multilingual", "json"):
        cells: dict[str, dict[str, list[float]]] = {
            s: {"new": [], "first": [], "second": []} for s in ("built", "file")
        }
        outs: dict[str, set[object]] = {"built": set(), "file": set()}
        for _ in range(args.repeats):
            for subject in ("built", "file"):
                got = run(subject, corpus)
                for k in ("new", "first", "second"):
                    cells[subject][k].append(float(got[k]) * 1e3)
                outs[subject].add((got["out"], got["taken"]))
        if outs["built"] != outs["file"] or len(outs["file"]) != 1:
            print(f"DIFFERENT: {corpus}")
            status = 1
        row = [
            f"{statistics.median(cells['built'][k]):.0f} → {statistics.median(cells['file'][k]):.0f}"
            for k in ("new", "first", "second")
        ]
        print(f"| {corpus} | " + " | ".join(row) + " |")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
