"""`sluicegate eval golden.yaml`: score a golden set with the layers before the model, and no model call.

Whole counts per set, no half points: one missed refusal is a commitment invented on someone's behalf, and an
average would hide it. Exit codes: 0 when both refusal sets (`must_refuse`, `no_evidence`) are perfect (with
`--strict`, every set), 1 on any miss there, 2 for an unusable golden file or retriever. The report names the
embedding model, the set sizes and what the run does not prove.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from pathlib import Path
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the golden set (YAML; see docs/replay.md and examples/golden/golden.yaml)")
    parser.add_argument(
        "--retriever",
        metavar="MODULE:ATTR",
        help="a retriever (an object with retrieve(query, language=...)), a zero-argument factory of one, or a "
        "function query -> passages; overrides settings.retriever (default: the hashing embedding over 'corpus')",
    )
    parser.add_argument("--json", metavar="PATH", help="write the report as JSON ('-' for standard output)")
    parser.add_argument("--strict", action="store_true", help="exit 1 on a miss in any set, not only the refusal sets")


def _fail(message: str) -> int:
    print(f"sluicegate eval: {message}", file=sys.stderr)
    return 2


def does_not_prove(doc: dict[str, Any], substitute: bool) -> list[str]:
    """The limits of this run, stated with its own numbers (seed 002, "Ce que mon jeu de référence ne prouve pas")."""
    sets = doc["sets"]
    out = []
    if substitute:
        out.append(
            f"The embedding is a substitute ({doc['embedding_model']}: hashed bag of tokens, no learned meaning). "
            "The rules, the routing, the ranking, the top-k and the threshold comparison are the production code; "
            "the scores are not your deployed embedding's, so recall here is not your assistant's recall, and a "
            "threshold that passes here is a default, not a calibration (run `sluicegate calibrate` with yours)."
        )
    else:
        out.append(
            f"Scores come from {doc['embedding_model']} over {doc['corpus']}: they hold for that embedding and "
            "that corpus only, as indexed when this ran."
        )
    out.append(
        f"The sets are small ({sets['must_refuse']['total']} must-refuse, {sets['no_evidence']['total']} "
        "no-evidence questions): a perfect score is a guard against regressions, not a refusal rate."
    )
    out.append(
        "No model was called: how a model words an answer from these passages or records is checked at run "
        "time by the sentence gate (and offline by `sluicegate replay`), not here."
    )
    out.append(
        f"recall@{doc['k']} is a hit rate (at least one expected passage in the first {doc['k']}), not the share "
        "of all relevant passages retrieved."
    )
    return out


def run(args: argparse.Namespace) -> int:
    for module, extra in (("yaml", "PyYAML"), ("rich", "rich")):
        try:
            importlib.import_module(module)  # the [cli] extra; checked first so a missing extra is one clear line
        except ImportError:
            return _fail(f"needs {extra}: pip install 'sluicegate[cli]'")
    logging.getLogger("sluicegate").setLevel(logging.ERROR)
    from ._calibrate import load_retriever
    from ._golden_set import (
        REFUSAL_SETS,
        GoldenError,
        check_corpus,
        default_retriever,
        load_golden,
        names_of,
        score_items,
        totals,
    )

    try:
        golden = load_golden(args.file)
    except GoldenError as exc:
        return _fail(str(exc))
    spec = args.retriever or golden.settings.retriever
    if spec is None:
        try:
            check_corpus(golden)
        except GoldenError as exc:
            return _fail(str(exc))
    try:
        retriever = load_retriever(spec) if spec else default_retriever(golden)
    except Exception as exc:  # an import path that names nothing usable: one line, exit 2
        return _fail(f"retriever {spec}: {type(exc).__name__}: {exc}")
    try:
        outcomes = score_items(golden, retriever)
    except (ValueError, TypeError) as exc:  # a bad settings value the evidence layers refuse (RRF, a pattern...)
        return _fail(f"{args.file}: {exc}")

    model, corpus = names_of(retriever, golden.settings)
    sets = totals(outcomes)
    retrieval = [o for o in outcomes if o.item.set == "retrieval"]
    doc: dict[str, Any] = {
        "file": args.file,
        "name": golden.name,
        "embedding_model": model,
        "corpus": corpus,
        "retriever": spec or "default (in-memory, hashing embedding)",
        "threshold": golden.settings.threshold,
        "k": golden.settings.k,
        "top_k": golden.settings.top_k,
        "sets": sets,
        "recall_at_k": {"k": golden.settings.k, "hits": sum(o.passed for o in retrieval), "total": len(retrieval)},
        "items": [
            {
                "set": o.item.set,
                "index": o.item.index,
                "question": o.item.question,
                "language": o.item.language,
                "passed": o.passed,
                "got": o.got,
                "score": o.score,
                "retrieved": list(o.retrieved),
            }
            for o in outcomes
        ],
    }
    if doc["threshold"] is None:
        from ..evidence import DEFAULT_THRESHOLD

        doc["threshold"] = DEFAULT_THRESHOLD
    from ..evidence import HashingEmbedding

    substitute = isinstance(getattr(retriever, "embedding", None), HashingEmbedding)
    doc["does_not_prove"] = does_not_prove(doc, substitute)
    failing = [n for n in (sets if args.strict else REFUSAL_SETS) if sets[n]["passed"] != sets[n]["total"]]
    doc["passed"] = not failing
    if args.json:
        text = json.dumps(doc, ensure_ascii=False, indent=2, default=str) + "\n"
        if args.json == "-":
            sys.stdout.write(text)
        else:
            try:
                Path(args.json).write_text(text, "utf-8")
            except OSError as exc:
                return _fail(f"cannot write the report: {exc}")
    _print(doc, sys.stderr if args.json == "-" else sys.stdout, failing)
    return 1 if failing else 0


def _print(doc: dict[str, Any], stream: Any, failing: list[str]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    # markup off: names, questions and answers are the user's data ("[/x]" would raise, "[red]" would restyle)
    console = Console(file=stream, highlight=False, markup=False, width=None if stream.isatty() else 120)
    table = Table(title=f"sluicegate eval: {doc['name']}", title_justify="left")
    for column in ("set", "passed", "of", "gate"):
        table.add_column(column, justify="right" if column in ("passed", "of") else "left")
    rules = {
        "must_refuse": "all, or exit 1",
        "no_evidence": "all, or exit 1",
        "overview": "reported",
        "answerable": "reported",
        "retrieval": f"recall@{doc['k']} (top-k {doc['top_k']})",
    }
    for name, counts in doc["sets"].items():
        style = "bold red" if name in failing else None
        table.add_row(name, str(counts["passed"]), str(counts["total"]), rules[name], style=style)
    console.print(table)
    for item in doc["items"]:
        if not item["passed"]:
            line = f" {item['set']}[{item['index']}] ({item['language']}): {item['got']}"
            console.print(Text.assemble(("miss", "red"), line))
    console.print(
        f"embedding model: {doc['embedding_model']}; corpus: {doc['corpus']}; threshold {doc['threshold']}; "
        f"recall@{doc['k']}: {doc['recall_at_k']['hits']}/{doc['recall_at_k']['total']}"
    )
    console.print("What this run does not prove:")
    for line in doc["does_not_prove"]:
        console.print(f"  - {line}")
    if failing:
        console.print(Text.assemble(("FAILED", "bold red"), ": " + ", ".join(failing)))
    else:
        console.print(Text("passed", style="bold green"))
