"""Recall and false positives on other projects' test suites and on our own corpus (tests/redact/suites/),
per suite, streamed whole and at 1/3/7/16-character pieces. Prints a markdown table. Not collected by pytest.

    python tests/benchmarks/suite_recall.py                     # this checkout
    python tests/benchmarks/suite_recall.py --before /tmp/old/src  # and another tree's src, side by side

A positive counts **whole** when every character of every value span is hidden at every chunking, **partial**
when some of a value shows, **missed** when none is hidden; **excluded** cases are our decisions not to redact
(tests/redact/suites/exclusions.json, each with its reason, listed in docs/redactor.md's blind spots). Recall is
given over the claimed positives without the excluded ones and over all of them. A negative is a **false
positive** when any character of it is hidden. **chunk-dep.** counts cases whose output depends on the
chunking (the contract says 0).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def measure() -> dict[str, dict[str, int]]:
    sys.path[:0] = [str(ROOT / "tests")]
    from redact.suite_cases import NAMES, judge, load

    out: dict[str, dict[str, int]] = {}
    for name in NAMES:
        row = dict.fromkeys(("pos", "excluded", "whole", "partial", "missed", "neg", "fp", "dep"), 0)
        for case in load(name):
            verdict = judge(case)
            row["dep"] += verdict.chunk_dependent
            if not case["positive"]:
                row["neg"] += 1
                row["fp"] += verdict.status == "false_positive"
                continue
            row["pos"] += 1
            if case["excluded"]:
                row["excluded"] += 1
            row[verdict.status] += 1
        out[name] = row
    return out


def run_in(src: str) -> dict[str, dict[str, int]]:
    env = dict(os.environ, PYTHONPATH=src, SUITE_RECALL_CHILD="1")
    done = subprocess.run([sys.executable, __file__], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def table(rows: dict[str, dict[str, int]], before: dict[str, dict[str, int]] | None) -> str:
    head = (
        "| suite | claimed positives | excluded | whole | partial | missed | recall (without excluded) |"
        " recall (all) | negatives | false positives | chunk-dep. |"
    )
    if before:
        head += " before: whole / partial / FP |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for name, r in rows.items():
        kept = r["pos"] - r["excluded"]
        whole_kept = r["whole"]  # an excluded case is never whole (test_suites.py checks it)
        line = (
            f"| {name} | {r['pos']} | {r['excluded']} | {r['whole']} | {r['partial']} | {r['missed']} | "
            f"{pct(whole_kept, kept)} | {pct(r['whole'], r['pos'])} | {r['neg']} | {r['fp']} | {r['dep']} |"
        )
        if before:
            b = before[name]
            line += f" {b['whole']} / {b['partial']} / {b['fp']} |"
        lines.append(line)
    return "\n".join(lines)


def main() -> None:
    if os.environ.get("SUITE_RECALL_CHILD"):
        print(json.dumps(measure()))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", help="another tree's src directory, measured on the same suites in this run")
    a = ap.parse_args()
    now = run_in(str(ROOT / "src"))
    before = run_in(a.before) if a.before else None
    print(table(now, before))


if __name__ == "__main__":
    main()
