"""False stops of the sentence gate on grounded answers, replayed at several piece sizes. Prints markdown.

    python tests/benchmarks/false_stops.py                    # this checkout
    python tests/benchmarks/false_stops.py --baseline 4e638ae  # and, side by side, the gate at that commit

The corpus (`tests/benchmarks/data/grounded_answers.jsonl`) holds cited answers written the way real ones are,
in eleven languages and scripts: every number, URL and e-mail in an answer is in a source it cites, so a correct
gate releases all of it and any stop is a false stop. Each answer is fed whole and in pieces of 1, 3, 7 and 16
characters; a stop at any size counts, and the sizes must agree (the chunk-invariance contract). `--baseline`
extracts that commit's `src/` with `git archive` into a temporary folder and runs the same replay there in a
subprocess, so both columns come from one run on the same corpus. A second, small corpus
(`planted_values.jsonl`) states a host, URL or e-mail that no cited source has, glued to CJK text or under an
IDN TLD: every one must stop, and the script counts those that were released (leaks).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).with_name("data") / "grounded_answers.jsonl"
PLANTED = Path(__file__).with_name("data") / "planted_values.jsonl"  # each states a host/URL/e-mail no source has
SIZES = (1, 3, 7, 16, 0)  # 0: the whole answer in one piece


def load(path: Path = CORPUS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def replay(records: list[dict]) -> dict[str, dict]:
    """Per answer: stopped at any size, the reason codes, and whether every size gave the same result."""
    import logging
    import re

    from sluicegate import Done, Guard, SentenceGate

    logging.getLogger("sluicegate").setLevel(logging.ERROR)  # the gate logs each blocked sentence's length
    doubled = re.compile(r"(?<![.])[.]\s*[.](?![.])")  # "A.D.." once markers are removed (not an ellipsis)
    results: dict[str, dict] = {}
    for r in records:
        runs = []
        for size in SIZES:
            gate = SentenceGate(r["sources"], language=r["language"])
            text = r["answer"]
            pieces = [text] if size == 0 else [text[i : i + size] for i in range(0, len(text), size)]
            out, events = [], []
            for piece in pieces:
                step = gate.feed(piece)
                out.append(step.text)
                events.extend(step.events)
                if step.stopped:
                    break
            else:
                step = gate.flush()
                out.append(step.text)
                events.extend(step.events)
            runs.append(("".join(out), tuple(repr(e) for e in events)))
            if size == 0:
                codes = sorted({c for e in events if isinstance(e, Guard) for c in e.reasons})
                ok = events == [Done("complete")]
        results[r["id"]] = {
            "stopped": not ok,
            "codes": codes,
            "invariant": len(set(runs)) == 1,
            "doubled": bool(doubled.search(runs[-1][0])),
        }
    return results


def baseline(ref: str, records: list[dict]) -> dict[str, dict]:
    """The same replay on `ref`'s src/, in a subprocess (its own imports), through this very script."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "src"], capture_output=True, check=True)
        tar = Path(tmp) / "src.tar"
        tar.write_bytes(archive.stdout)
        with tarfile.open(tar) as t:
            t.extractall(tmp, filter="data")
        proc = subprocess.run(
            [sys.executable, __file__, "--json", "--src", str(Path(tmp) / "src")],
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(proc.stdout)


def table(records: list[dict], columns: dict[str, dict[str, dict]]) -> str:
    names = list(columns)
    lines = [
        "| language | answers | " + " | ".join(f"false stops ({n})" for n in names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    by_lang = Counter(r["language"] for r in records)
    for lang in sorted(by_lang):
        ids = [r["id"] for r in records if r["language"] == lang]
        cells = [str(sum(columns[n][i]["stopped"] for i in ids)) for n in names]
        lines.append(f"| {lang} | {by_lang[lang]} | " + " | ".join(cells) + " |")
    total = [str(sum(v["stopped"] for v in columns[n].values())) for n in names]
    lines.append(f"| **all** | **{len(records)}** | " + " | ".join(f"**{t}**" for t in total) + " |")
    lines.append("")
    lines.append("| pattern | answers | " + " | ".join(f"false stops ({n})" for n in names) + " |")
    lines.append("|---|---|" + "---|" * len(names))
    by_tag = Counter(r["tag"] for r in records)
    for tag in sorted(by_tag):
        ids = [r["id"] for r in records if r["tag"] == tag]
        cells = [str(sum(columns[n][i]["stopped"] for i in ids)) for n in names]
        lines.append(f"| {tag} | {by_tag[tag]} | " + " | ".join(cells) + " |")
    broken = {n: sum(not v["invariant"] for v in columns[n].values()) for n in names}
    doubled = {n: sum(v.get("doubled", False) for v in columns[n].values()) for n in names}
    lines.append("")
    lines.append("Released text with a doubled terminator (`A.D..`): " + ", ".join(f"{n}: {doubled[n]}" for n in names))
    lines.append("")
    lines.append(
        "Invariance failures (a piece size gave other text, stop or events than the whole answer): "
        + ", ".join(f"{n}: {broken[n]}" for n in names)
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="REF", help="also replay the gate at this git commit, side by side")
    parser.add_argument("--src", help=argparse.SUPPRESS)  # the baseline's extracted src/ (internal)
    parser.add_argument("--json", action="store_true", help="print per-answer results as JSON")
    parser.add_argument("--list", action="store_true", help="list each false stop with its reason codes")
    args = parser.parse_args()
    sys.path.insert(0, args.src or str(ROOT / "src"))
    records = load()
    planted = load(PLANTED)
    ours = replay(records + planted)
    if args.json:
        print(json.dumps(ours))
        return 0
    columns = {}
    if args.baseline:
        columns[f"before, {args.baseline}"] = baseline(args.baseline, records)
    columns["after, this checkout"] = ours
    print(f"## Sentence gate: false stops on {len(records)} grounded answers, piece sizes 1, 3, 7, 16 and whole\n")
    print(table(records, columns))
    leaks = ", ".join(f"{n}: {sum(not res[r['id']]['stopped'] for r in planted)}" for n, res in columns.items())
    print(f"\nPlanted values released (of {len(planted)}, each must stop): {leaks}")
    if args.list:
        print()
        for name, results in columns.items():
            for r in records:
                res = results[r["id"]]
                if res["stopped"]:
                    print(f"- {name}: {r['id']} ({r['tag']}): {', '.join(res['codes']) or 'refused'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
