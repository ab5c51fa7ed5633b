"""`sluicegate replay FILE`: replay recorded answers through the streaming pipeline, offline, at several chunkings.

It counts what a reader would have seen — released, stopped (by rule), refused, truncated — and, for answers
labelled `expected: release`, every false stop with its rule and the characters shown before it. A record whose
outcome changes with the chunking is flagged: the filter broke its contract. Exit codes: 0 (whatever was
found), 1 with `--baseline` when a false stop is new, 2 for an unusable command line or input file.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

DEFAULT_SIZES = "1,4,whole"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="recorded answers: one JSON object a line (see docs/replay.md)")
    parser.add_argument(
        "--format",
        choices=("jsonl", "sse"),
        default="jsonl",
        help="jsonl: each record has 'answer' or 'chunks'; sse: each record has the recorded SSE reads "
        "('sse' strings or 'sse_b64'), replayed through sluicegate's SSE parser in their recorded chunking",
    )
    parser.add_argument(
        "--filter",
        metavar="MODULE:FACTORY",
        help="your own pipeline: a callable taking the record (a mapping) or nothing, returning a stream filter "
        "(default: SentenceGate then Redactor)",
    )
    parser.add_argument(
        "--sizes",
        default=DEFAULT_SIZES,
        help="re-chunk each answer at these piece sizes ('whole': one piece), besides its recorded chunking; "
        f"'none' replays the recorded chunking only (default {DEFAULT_SIZES})",
    )
    parser.add_argument(
        "--random",
        type=int,
        default=0,
        metavar="N",
        help="also replay each answer in N random chunkings (empty pieces included), seeded per record (default 0)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random chunkings (default 0)")
    parser.add_argument("--json", metavar="PATH", help="write the report as JSON ('-' for standard output)")
    parser.add_argument("--html", metavar="PATH", help="write a self-contained HTML report")
    parser.add_argument(
        "--baseline", metavar="PREVIOUS.json", help="a previous --json report: exit 1 if any false stop is new"
    )
    parser.add_argument("--no-progress", action="store_true", help="never draw a progress bar")


def _fail(message: str) -> int:
    print(f"sluicegate replay: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    try:
        import rich  # noqa: F401  (the [cli] extra; checked first so a missing extra is one clear line)
    except ImportError:
        return _fail("the terminal report needs rich: pip install 'sluicegate[cli]'")
    # The gate logs one warning per blocked sentence (for production logs); replaying thousands would bury the
    # report under them, and every stop is in the report anyway.
    logging.getLogger("sluicegate").setLevel(logging.ERROR)
    from ._filters import FilterSpecError, load_filter
    from ._records import LineError, ReplayRecord, read_records
    from ._replayer import parse_sizes, replay, size_label
    from ._summary import BaselineError, compare, load_baseline, report

    try:
        sizes = parse_sizes(args.sizes)
    except ValueError as exc:
        return _fail(f"--sizes: {exc}")
    if args.random < 0:
        return _fail("--random takes a count >= 0")
    try:
        factory, filter_name = load_filter(args.filter)
    except FilterSpecError as exc:
        return _fail(str(exc))
    try:
        baseline = load_baseline(args.baseline) if args.baseline else None
    except BaselineError as exc:
        return _fail(str(exc))
    extract = None
    if args.format == "sse":
        try:
            from ._sse_records import extract_sse
        except ImportError as exc:
            return _fail(f"--format sse needs sluicegate.sse ({exc})")
        extract = extract_sse
    try:
        lines = Path(args.file).read_bytes().splitlines()
    except OSError as exc:
        return _fail(f"cannot read {args.file}: {exc.strerror or exc}")

    from ._terminal import print_summary, progress

    results = []
    errors: list[LineError] = []
    try:
        for item in progress(read_records(lines, extract), len(lines), stream=sys.stderr, enabled=not args.no_progress):
            if isinstance(item, ReplayRecord):
                results.append(replay(item, factory, sizes, random_runs=args.random, seed=args.seed))
            else:
                errors.append(item)
                print(f"{args.file}:{item.line}: {item.message}", file=sys.stderr)
    except FilterSpecError as exc:
        return _fail(str(exc))

    doc: dict[str, Any] = report(
        results,
        errors,
        source=args.file,
        filter_name=filter_name,
        chunkings=[size_label(s) for s in sizes] + [f"random#{n + 1}" for n in range(args.random)],
    )
    diff = compare(doc, baseline) if baseline is not None else None
    if diff is not None:
        doc["baseline"] = {"file": args.baseline, **diff}
    try:
        if args.json:
            text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
            if args.json == "-":
                sys.stdout.write(text)
            else:
                Path(args.json).write_text(text, "utf-8")
        if args.html:
            from ._html_report import render

            Path(args.html).write_text(render(doc), "utf-8")
    except OSError as exc:
        return _fail(f"cannot write the report: {exc}")
    print_summary(doc, stream=sys.stderr if args.json == "-" else sys.stdout, baseline=diff)
    return 1 if diff is not None and diff["new_false_stops"] else 0
