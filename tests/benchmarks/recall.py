"""Recall and false positives on documented formats, per entity and provider, beside Presidio's pattern
recognizers and detect-secrets, in one run. Prints a markdown table. Not collected by pytest.

    python tests/benchmarks/recall.py              # peers from the isolated venv (.venv-bench), as run_all.py
    python tests/benchmarks/recall.py --no-peers   # ours only, in this interpreter

The corpus is tests/redact/data/formats.jsonl (providers' and standards' example values with expected spans,
and negatives). A value counts as **whole** when every character of its span is covered by the tool's findings,
**partial** when some but not all are (part of the value would still show), **missed** when none are. A negative
counts as a false positive when any finding falls in it.

- sluicegate: `redact(text, operator=mask)`, one character per raw character, so covered positions line up.
- Presidio 2.2.366: `AnalyzerEngine` on a blank spaCy pipeline (no model: pattern recognizers only, the same
  setup as run_all.py), language "en", every finding's span. URL and DATE_TIME findings are not counted as false
  positives (we do not claim those entities; Presidio's anonymizer would replace them).
- detect-secrets 1.5.0: `scan_line` with its regex plugins and the keyword plugin under its default settings;
  the two high-entropy plugins are turned off, because outside a file scan they flag every word. A finding's
  span is where its reported secret value first occurs in the line (GitHub's plugin reports only the prefix,
  which then counts as partial: that is what it reports).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT / "src")]
CORPUS = ROOT / "tests" / "redact" / "data" / "formats.jsonl"
PEERS = ("presidio_analyzer", "detect_secrets")
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

Spans = list[tuple[int, int]]


def ours() -> Callable[[str], Spans]:
    from sluicegate.redaction import redact

    def find(text: str) -> Spans:
        out = redact(text, operator=lambda _e, raw: "\x00" * len(raw))
        return [(i, i + 1) for i, ch in enumerate(out[: len(text)]) if ch == "\x00"]

    return find


def presidio() -> Callable[[str], Spans]:
    import spacy
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import SpacyNlpEngine

    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": "blank"}])
    engine.nlp = {"en": spacy.blank("en")}  # already "loaded": no spacy.load, no download
    analyzer = AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])

    def find(text: str) -> Spans:
        return [(r.start, r.end) for r in analyzer.analyze(text=text, language="en")]

    def find_fp(text: str) -> Spans:
        return [
            (r.start, r.end)
            for r in analyzer.analyze(text=text, language="en")
            if r.entity_type not in ("URL", "DATE_TIME")
        ]

    find.fp = find_fp  # type: ignore[attr-defined]
    return find


def detect_secrets() -> Callable[[str], Spans]:
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings, get_settings

    off = {"Base64HighEntropyString", "HexHighEntropyString"}

    def find(text: str) -> Spans:
        spans: Spans = []
        with default_settings():
            get_settings().disable_plugins(*off)
            offset = 0
            for line in text.split("\n"):
                for secret in scan_line(line):
                    value = secret.secret_value or ""
                    at = line.find(value) if value else -1
                    if at >= 0:
                        spans.append((offset + at, offset + at + len(value)))
                offset += len(line) + 1
        return spans

    return find


def score(find: Callable[[str], Spans], samples: list[dict]) -> dict[str, list[int]]:
    """entity -> [whole, partial, missed] for positives; "(negatives)" -> [flagged, clean, 0]."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    fp_find = getattr(find, "fp", find)
    for s in samples:
        text = s["text"]
        if s["entity"] is None:
            flagged = bool(fp_find(text))
            out["(negatives)"][0 if flagged else 1] += 1
            continue
        covered = bytearray(len(text))
        for a, b in find(text):
            covered[max(0, a) : b] = b"\x01" * (min(b, len(text)) - max(0, a))
        key = "(declined)" if s.get("declined") else s["entity"]
        for a, b in s["spans"]:
            n = sum(covered[a:b])
            out[key][0 if n == b - a else (1 if n else 2)] += 1
    return out


def _cell(counts: list[int] | None, total: int) -> str:
    if counts is None:
        return "n/a"
    whole, partial, _ = counts
    return f"{whole}/{total}" + (f" ({partial} partial)" if partial else "")


def table(samples: list[dict], results: dict[str, dict[str, list[int]] | str]) -> str:
    names = list(results)
    sources: dict[str, str] = {}
    totals: dict[str, int] = defaultdict(int)
    for s in samples:
        if s["entity"] and not s.get("declined"):
            totals[s["entity"]] += 1
            sources.setdefault(s["entity"], s["source"])
    head = "| entity | source of the samples | n | " + " | ".join(names) + " |"
    rows = [head, "|" + "---|" * (3 + len(names))]
    for entity in sorted(totals):
        cells = []
        for name in names:
            got = results[name]
            cells.append(
                "n/a" if isinstance(got, str) else _cell(got.get(entity, [0, 0, totals[entity]]), totals[entity])
            )
        rows.append(f"| `{entity}` | {sources[entity]} | {totals[entity]} | " + " | ".join(cells) + " |")
    n_pos = sum(totals.values())
    cells = []
    for name in names:
        got = results[name]
        if isinstance(got, str):
            cells.append("n/a")
            continue
        whole = sum(v[0] for k, v in got.items() if not k.startswith("("))
        partial = sum(v[1] for k, v in got.items() if not k.startswith("("))
        cells.append(f"**{whole}/{n_pos}** ({100 * whole / n_pos:.0f}%), {partial} partial")
    rows.append(f"| **all positives** | | {n_pos} | " + " | ".join(cells) + " |")
    n_dec = sum(1 for s in samples if s.get("declined"))
    cells = []
    for name in names:
        got = results[name]
        cells.append("n/a" if isinstance(got, str) else _cell(got.get("(declined)", [0, 0, n_dec]), n_dec))
    rows.append(f"| *declined formats* | our blind-spot list | {n_dec} | " + " | ".join(cells) + " |")
    n_neg = sum(1 for s in samples if s["entity"] is None)
    cells = []
    for name in names:
        got = results[name]
        cells.append("n/a" if isinstance(got, str) else f"{got.get('(negatives)', [0, 0, 0])[0]} of {n_neg}")
    rows.append(f"| **false positives** | near-values and prose | {n_neg} | " + " | ".join(cells) + " |")
    notes = [f"- {name}: {why}" for name, why in results.items() if isinstance(why, str)]
    return "\n".join(rows) + ("\n\n" + "\n".join(notes) if notes else "")


def _reexec_in_venv(venv: Path, argv: list[str]) -> int | None:
    """Run this script in the peers venv (created and filled from requirements-bench.txt if needed)."""
    py = venv / "bin" / "python"
    try:
        if not py.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        probe = subprocess.run([str(py), "-c", "import " + ", ".join(PEERS) + ", sluicegate"], capture_output=True)
        if probe.returncode != 0:
            pip = [str(py), "-m", "pip", "install", "-q"]
            subprocess.run([*pip, "-r", str(HERE / "requirements-bench.txt")], check=True)
            subprocess.run([*pip, "-e", str(ROOT)], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"peers venv could not be set up ({exc}); running ours only", file=sys.stderr)
        return None
    return subprocess.call([str(py), str(Path(__file__).resolve()), *argv, "--in-venv"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--venv", default=os.environ.get("BENCH_VENV", str(ROOT / ".venv-bench")))
    ap.add_argument("--in-venv", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    import importlib.util

    if not args.no_peers and not args.in_venv and any(importlib.util.find_spec(m) is None for m in PEERS):
        code = _reexec_in_venv(Path(args.venv), list(argv if argv is not None else sys.argv[1:]))
        if code is not None:
            return code
    samples = [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines()]
    subjects: list[tuple[str, Callable[[], Callable[[str], Spans]]]] = [("sluicegate Redactor", ours)]
    if not args.no_peers:
        subjects += [("Presidio 2.2.366 (patterns)", presidio), ("detect-secrets 1.5.0", detect_secrets)]
    results: dict[str, dict[str, list[int]] | str] = {}
    for name, make in subjects:
        try:
            results[name] = score(make(), samples)
        except ImportError as exc:
            results[name] = f"not installed here ({exc})"
    from importlib.metadata import PackageNotFoundError, version

    def v(dist: str) -> str:
        try:
            return version(dist)
        except PackageNotFoundError:
            return "not installed"

    print(
        f"Corpus: {CORPUS.relative_to(ROOT)} ({len(samples)} samples). Versions: sluicegate {v('sluicegate')}, "
        f"presidio-analyzer {v('presidio-analyzer')}, detect-secrets {v('detect-secrets')}. "
        "Cells: values replaced whole / samples (partial: some characters of the value would still show).\n"
    )
    print(table(samples, results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
