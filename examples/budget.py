"""The spend cap in one screen: ten requests race a cap with room for three; a stopped stream settles its bytes.

    python examples/budget.py

Offline and dependency-free (SQLite is the standard library; the file lives in a temp dir). Ten threads
reserve at the same instant against a monthly cap that fits exactly three calls' upper bounds: three are
admitted, seven get the fixed notice, and none of them reached a model. Then one admitted call streams an
answer that the sentence gate stops: settling it charges the bytes that were generated, not the full bound.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from sluicegate import (  # noqa: E402
    Outcome,  # noqa: E402
    SentenceGate,
    drive,
)
from sluicegate.budget import Price, SpendCap, SQLiteStore, from_nano  # noqa: E402

PRICES = {"small-model": Price("0.15", "0.60")}  # per million tokens
MESSAGES = [
    {"role": "system", "content": "Answer only from the numbered sources."},
    {"role": "user", "content": "When does the library open?"},
]
SOURCES = ["The Riverside Library opens at 9:00 on weekdays."]
PIECES = ["The Riverside Library opens at 9:00 [S1]. ", "It was founded in 1887 [S1]. Late", " fees..."]


def main() -> None:
    logging.basicConfig(level=logging.ERROR)  # the gate logs each blocked sentence's length: server-side noise here
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "spend.sqlite3")
        one = SpendCap(store, "1", PRICES).bound(MESSAGES, max_output_tokens=800, model="small-model")
        cap = SpendCap(store, from_nano(3 * one), PRICES)
        print(f"one call's upper bound: {from_nano(one)}; monthly cap: {from_nano(cap.cap)} (room for 3)\n")

        barrier, results = threading.Barrier(10), []

        def request(i: int) -> None:
            barrier.wait()
            results.append((i, cap.reserve(MESSAGES, max_output_tokens=800, model="small-model")))

        threads = [threading.Thread(target=request, args=(i,)) for i in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for i, r in sorted(results, key=lambda x: x[0]):
            print(f"request {i}: {'admitted' if r.admitted else 'refused  -> ' + (r.notice or '')}")
        admitted = [r for _, r in results if r.admitted]
        print(f"\nadmitted {len(admitted)} of 10; held: {from_nano(cap.totals().reserved)}")

        out = Outcome()
        shown = "".join(step.text for step in drive(iter(PIECES), SentenceGate(SOURCES), outcome=out))
        cap.settle(admitted[0], out.usage)  # the stopped stream: what was generated is billed
        for r in admitted[1:]:
            cap.settle(r, None)  # these calls failed before any output: the prompt alone
        assert out.usage is not None
        print(f"\nstopped stream ({out.reason}): the reader saw {shown!r}")
        print(f"generated {out.usage.received_bytes} bytes, settled at one token per byte (no provider usage)")
        totals = cap.totals()
        print(f"month so far: committed {from_nano(totals.committed)}, still held {from_nano(totals.reserved)}")


if __name__ == "__main__":
    main()
