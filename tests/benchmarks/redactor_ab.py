"""Before/after for the Redactor: this checkout against another one (e.g. `git archive <commit> | tar -x -C
/tmp/old`), alternating in fresh processes so that both see the same machine load. Not collected by pytest.

    python tests/benchmarks/redactor_ab.py /tmp/old --rounds 4 --size 65536

Each round measures, in one process per checkout and on the same planted corpus (this checkout's
`tests/benchmarks/redactor.py` corpus): the cost of one 4-character feed (p50, p99) and whole-string throughput
(best of 3),
on the pure `regex` path and with the `[fast]` prefilter when it is installed. Prints medians over rounds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

_CHILD = r"""
import importlib.util, json, sys, time
root, corpus_file, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path[:0] = [root + "/src", root]
from sluicegate.redaction import Redactor
spec = importlib.util.spec_from_file_location("rb", corpus_file)
rb = importlib.util.module_from_spec(spec); spec.loader.exec_module(rb)
text = rb.corpus(size)
class Pure(Redactor):
    _COMPILED = False
out = {}
for name, make in (("pure", Pure), ("fast", Redactor)):
    r, costs, clock = make(), [], time.perf_counter
    for p in rb.pieces(text, 4):
        t = clock(); r.feed(p); costs.append(clock() - t)
    costs.sort()
    secs = float("inf")
    for _ in range(3):
        t = clock(); w = make(); w.feed(text); w.flush(); secs = min(secs, clock() - t)
    out[name] = [costs[len(costs) // 2] * 1e6, costs[int(len(costs) * 0.99)] * 1e6, len(text.encode()) / 1e6 / secs]
print(json.dumps(out))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old", help="path of the other checkout (its src/ is imported)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--size", type=int, default=65_536)
    args = ap.parse_args()
    corpus_file = str(HERE / "redactor.py")
    got: dict[str, list[dict[str, list[float]]]] = {"before": [], "now": []}
    for _ in range(args.rounds):
        for label, root in (("before", args.old), ("now", str(ROOT))):
            res = subprocess.run(
                [sys.executable, "-c", _CHILD, root, corpus_file, str(args.size)], capture_output=True, text=True
            )
            if res.returncode:
                print(res.stderr, file=sys.stderr)
                return 1
            got[label].append(json.loads(res.stdout))
    print(f"{args.rounds} rounds, {args.size:,}-character planted corpus, medians over rounds.\n")
    print("| measure | before | now | change |\n|---|---|---|---|")
    rows = [("one 4-char feed, p50", 0, "µs"), ("one 4-char feed, p99", 1, "µs"), ("whole string", 2, "MB/s")]
    for path in ("pure", "fast"):
        for label, k, unit in rows:
            a = statistics.median(r[path][k] for r in got["before"])
            b = statistics.median(r[path][k] for r in got["now"])
            print(f"| {label} ({path}) | {a:.2f} {unit} | {b:.2f} {unit} | {100 * (b - a) / a:+.0f}% |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
