"""Records per second replayed by `sluicegate replay`, beside the cost of gating each record once.

    python tests/benchmarks/replay.py            # 200 records, 5 repeats
    python tests/benchmarks/replay.py --quick    # 20 records, 1 repeat (smoke)

The records are the shipped examples (examples/replay/answers.jsonl, 7 languages), repeated with fresh ids.
Rows, measured side by side in one run (medians of repeats, spread in brackets):
- gate once: a fresh default pipeline (SentenceGate then Redactor) fed each record's recorded chunks and
  flushed, with no driver and no comparison: the floor a replay cannot go under;
- replay at `--sizes none | whole | 4,whole | 1,4,whole`: the replay engine in process (drive(), every chunking,
  the comparison, the blocked-sentence probe for stops), as `sluicegate replay` runs it;
- the CLI end to end: the console script as a subprocess on the same file, with `--json` (interpreter start and
  imports included), at the default sizes; and its start-up alone, on an empty file.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))

from measure import repeat, sample  # noqa: E402

from sluicegate.cli._filters import default_filter  # noqa: E402
from sluicegate.cli._records import ReplayRecord, read_records  # noqa: E402
from sluicegate.cli._replayer import parse_sizes, replay  # noqa: E402

EXAMPLES = ROOT / "examples" / "replay" / "answers.jsonl"


def corpus(n: int) -> list[str]:
    base = [json.loads(line) for line in EXAMPLES.read_text("utf-8").splitlines() if line.strip()]
    return [json.dumps({**base[i % len(base)], "id": f"r{i}"}, ensure_ascii=False) for i in range(n)]


def gate_once(records: list[ReplayRecord]) -> None:
    for r in records:
        f = default_filter(r.raw, r.language)
        for piece in r.chunks:
            if f.feed(piece).stopped:
                break
        else:
            f.flush(truncated=r.truncated)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="20 records, 1 repeat")
    args = ap.parse_args()
    n, repeats = (20, 1) if args.quick else (args.records, args.repeats)
    lines = corpus(n)
    records = [r for r in read_records(lines) if isinstance(r, ReplayRecord)]
    assert len(records) == n
    chars = sum(len(r.answer) for r in records)
    logging.getLogger("sluicegate").setLevel(logging.ERROR)  # one warning per blocked sentence, as the CLI does
    gate_once(records)  # warm-up: detectors and word lists are compiled and cached on first use
    [replay(r, default_filter, parse_sizes("1,4,whole")) for r in records]

    rows: list[tuple[str, list[float]]] = []
    times, _ = repeat(lambda: gate_once(records), repeats)
    rows.append(("gate once (no driver, recorded chunks)", times))
    for sizes in ("none", "whole", "4,whole", "1,4,whole"):
        parsed = parse_sizes(sizes)
        times, _ = repeat(lambda parsed=parsed: [replay(r, default_filter, parsed) for r in records], repeats)
        rows.append((f"replay, --sizes {sizes}", times))

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "records.jsonl"
        path.write_text("\n".join(lines) + "\n", "utf-8")
        script = Path(sys.executable).with_name("sluicegate")
        cmd = [str(script)] if script.exists() else [sys.executable, "-m", "sluicegate.cli"]
        cmd += ["replay", str(path), "--json", str(Path(tmp) / "out.json")]

        def cli() -> None:
            subprocess.run(cmd, check=True, capture_output=True)

        times, _ = repeat(cli, repeats)
        rows.append(("CLI end to end, --sizes 1,4,whole (with start-up)", times))
        empty = Path(tmp) / "empty.jsonl"
        empty.write_text("", "utf-8")
        startup = [*cmd[:-3], str(empty)]
        times, _ = repeat(lambda: subprocess.run(startup, check=True, capture_output=True), repeats)
        start_ms = sample(times).median * 1000

    floor = sample(rows[0][1]).median
    print(f"## Replay throughput ({n} records, {chars / n:.0f} chars each on average; medians of {repeats})\n")
    print(f"Machine: {platform.machine()}, Python {platform.python_version()}\n")
    print("| run | records/s | ms per record | time vs gate once |")
    print("|---|---|---|---|")
    for label, times in rows:
        per = sample([n / t for t in times])
        ms = sample([1000 * t / n for t in times])
        print(f"| {label} | {per.fmt(0)} | {ms.fmt(2)} | {sample(times).median / floor:.1f}x |")
    print(f"\nCLI start-up alone (an empty file, interpreter and imports): {start_ms:.0f} ms.")


if __name__ == "__main__":
    main()
