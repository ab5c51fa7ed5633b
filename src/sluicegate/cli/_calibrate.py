"""`sluicegate calibrate`: choose an evidence threshold from answerable and must-refuse questions.

It runs only the retrieval (no model call): each question goes through the refusal rules, then the retriever
given by import path, and the evidence gate's best score is kept. Both distributions are printed as a text
histogram (and drawn to a PNG with `--png` when matplotlib is installed, extra [plot]), followed by the
threshold that refuses every must-refuse question while losing the fewest answerable ones, and the embedding
model and corpus that number belongs to. A threshold checked on a substitute embedding is a default, not a
calibration: run this against the embedding you deploy.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._imports import import_user_module

BINS = 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--answerable", required=True, type=Path, help="questions the assistant must answer, one a line"
    )
    parser.add_argument("--refuse", required=True, type=Path, help="questions no passage supports, one a line")
    parser.add_argument(
        "--retriever",
        required=True,
        help="import path module:attr of a retriever (an object with retrieve(query, language=...)), "
        "a zero-argument factory of one, or a function query -> passages",
    )
    parser.add_argument("--language", default="en", help="language of lines without one (default: en)")
    parser.add_argument("--score-kind", default="cosine_0_1", help="kind of the retriever's bare float scores")
    parser.add_argument("--embedding-model", help="name of the embedding model (default: the retriever's own)")
    parser.add_argument("--corpus", help="name of the corpus (default: the retriever's own)")
    parser.add_argument("--no-keywords", action="store_true", help="cosine only: no keyword coverage")
    parser.add_argument("--no-rules", action="store_true", help="do not drop questions the refusal rules refuse")
    parser.add_argument("--png", type=Path, help="also draw both distributions to this PNG (needs matplotlib)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of text")


@dataclass(frozen=True)
class Calibration:
    """The calibration: best scores per set, the chosen threshold and what it costs."""

    answerable: list[float]
    refuse: list[float]
    threshold: float | None  # None when no threshold <= 1 refuses every must-refuse question
    lost: int  # answerable questions below the threshold
    taken_by_rules: dict[str, int]
    embedding_model: str
    corpus: str


def choose_threshold(answerable: Sequence[float], refuse: Sequence[float]) -> tuple[float | None, int]:
    """The lowest 3-decimal threshold above every must-refuse score (equal passes), and the answerable lost."""
    top = max(refuse, default=0.0)
    threshold = math.floor(top * 1000 + 1e-9) / 1000 + 0.001
    if threshold <= top:
        threshold += 0.001
    threshold = round(threshold, 3)
    if threshold > 1.0:
        return None, len(answerable)
    return threshold, sum(1 for s in answerable if s < threshold)


def histogram(answerable: Sequence[float], refuse: Sequence[float], *, width: int = 30) -> str:
    """Both distributions over 0..1 in BINS rows: `#` answerable, `x` must-refuse, scaled to the larger count."""
    counts_a = _bins(answerable)
    counts_r = _bins(refuse)
    scale = max([*counts_a, *counts_r, 1])
    lines = [f"{'score':<9}  {'answerable (#)':<{width}}      must-refuse (x)"]
    for i in reversed(range(BINS)):
        low, high = i / BINS, (i + 1) / BINS
        bar_a = "#" * math.ceil(counts_a[i] * width / scale) if counts_a[i] else ""
        bar_r = "x" * math.ceil(counts_r[i] * width / scale) if counts_r[i] else ""
        count_a = str(counts_a[i]) if counts_a[i] else ""
        count_r = str(counts_r[i]) if counts_r[i] else ""
        lines.append(f"{low:.2f}-{high:.2f}  {bar_a:<{width}} {count_a:>3}  {bar_r} {count_r}".rstrip())
    return "\n".join(lines)


def _bins(scores: Sequence[float]) -> list[int]:
    counts = [0] * BINS
    for s in scores:
        counts[min(int(s * BINS), BINS - 1)] += 1
    return counts


def load_retriever(path: str) -> Any:
    """The retriever named by `module:attr` (see --retriever)."""
    from ..evidence import Retriever

    module_name, sep, attr = path.partition(":")
    if not sep or not attr:
        raise ValueError(f"--retriever takes module:attr, got {path!r}")
    target: Any = import_user_module(module_name)
    for part in attr.split("."):
        target = getattr(target, part)
    if isinstance(target, Retriever):
        return target
    if callable(target):
        required = [
            p
            for p in inspect.signature(target).parameters.values()
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        if not required or inspect.isclass(target):
            made = target()
            if not isinstance(made, Retriever):
                raise TypeError(f"{path} made a {type(made).__name__}, which has no retrieve(query, language=...)")
            return made
        return _FunctionRetriever(target)
    raise TypeError(f"{path} is neither a retriever, a factory of one, nor a function query -> passages")


class _FunctionRetriever:
    def __init__(self, fn: Callable[[str], Any]) -> None:
        self._fn = fn
        self.embedding_model = getattr(fn, "embedding_model", None)
        self.corpus = getattr(fn, "corpus", None)

    def retrieve(self, query: str, *, language: str) -> Any:
        return self._fn(query)


def calibrate(
    answerable: Sequence[str],
    refuse: Sequence[str],
    retriever: Any,
    *,
    language: str = "en",
    score_kind: str = "cosine_0_1",
    keywords: bool = True,
    rules: bool = True,
    embedding_model: str | None = None,
    corpus: str | None = None,
) -> Calibration:
    """Score both sets (retrieval only) and choose the threshold."""
    from ..evidence import EvidenceGate, RefusalRules

    gate = EvidenceGate(0.0, score_kind=score_kind, keywords=keywords)
    refusal = RefusalRules() if rules else None
    taken = {"answerable": 0, "refuse": 0}

    def scores(questions: Sequence[str], label: str) -> list[float]:
        out: list[float] = []
        for line in questions:
            lang, q = _split_language(line, language)
            if refusal is not None and refusal.check(q, language=lang).refused:
                taken[label] += 1
                continue
            best = gate.best(q, retriever.retrieve(q, language=lang), language=lang)
            out.append(best.score)
        return out

    scores_a = scores(answerable, "answerable")
    scores_r = scores(refuse, "refuse")
    threshold, lost = choose_threshold(scores_a, scores_r)
    model = embedding_model or getattr(retriever, "embedding_model", None) or "unknown (pass --embedding-model)"
    corpus_name = corpus or getattr(retriever, "corpus", None) or "unknown (pass --corpus)"
    return Calibration(scores_a, scores_r, threshold, lost, taken, str(model), str(corpus_name))


def _split_language(line: str, default: str) -> tuple[str, str]:
    """`fa<TAB>question` sets the line's language; a line without a tab uses the default."""
    code, sep, rest = line.partition("\t")
    if sep and 2 <= len(code) <= 3 and code.isalpha() and code.islower():
        return code, rest.strip()
    return default, line


def _questions(path: Path) -> list[str]:
    lines = path.read_text("utf-8").splitlines()
    return [s for s in (line.strip() for line in lines) if s and not s.startswith("#")]


def report(result: Calibration) -> str:
    """The text report."""
    lines = [
        f"embedding model: {result.embedding_model}",
        f"corpus:          {result.corpus}",
        f"answerable: {len(result.answerable)} scored"
        + (
            f", {result.taken_by_rules['answerable']} refused by the refusal rules (check them!)"
            if result.taken_by_rules["answerable"]
            else ""
        ),
        f"must-refuse: {len(result.refuse)} scored"
        + (
            f", {result.taken_by_rules['refuse']} already refused by the refusal rules"
            if result.taken_by_rules["refuse"]
            else ""
        ),
        "",
        histogram(result.answerable, result.refuse),
        "",
    ]
    if result.threshold is None:
        lines.append("no threshold <= 1 refuses every must-refuse question: a must-refuse question scored 1.0")
    else:
        n = len(result.answerable)
        lines.append(
            f"threshold: {result.threshold:.3f} refuses all {len(result.refuse)} must-refuse questions and loses "
            f"{result.lost} of {n} answerable ones"
        )
    from ..evidence import DEFAULT_THRESHOLD

    kept = sum(1 for s in result.refuse if s < DEFAULT_THRESHOLD)
    dropped = sum(1 for s in result.answerable if s < DEFAULT_THRESHOLD)
    lines.append(
        f"at the design default {DEFAULT_THRESHOLD}: refuses {kept} of {len(result.refuse)} must-refuse, "
        f"loses {dropped} of {len(result.answerable)} answerable"
    )
    lines.append(
        f"This number belongs to {result.embedding_model} on {result.corpus}: recalibrate when either changes. "
        "A threshold checked on a substitute embedding is a default, not a calibration."
    )
    return "\n".join(lines)


def plot(result: Calibration, path: Path) -> None:
    """Draw both distributions to `path` (matplotlib, headless backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    edges = [i / BINS for i in range(BINS + 1)]
    ax.hist([result.answerable, result.refuse], bins=edges, label=["answerable", "must-refuse"], color=["#3a7", "#c44"])
    if result.threshold is not None:
        ax.axvline(result.threshold, color="black", linestyle="--", label=f"threshold {result.threshold:.3f}")
    ax.set_xlabel("best evidence score (0..1)")
    ax.set_ylabel("questions")
    ax.set_title(f"{result.embedding_model} on {result.corpus}", fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def run(args: argparse.Namespace) -> int:
    try:
        retriever = load_retriever(args.retriever)
        result = calibrate(
            _questions(args.answerable),
            _questions(args.refuse),
            retriever,
            language=args.language,
            score_kind=args.score_kind,
            keywords=not args.no_keywords,
            rules=not args.no_rules,
            embedding_model=args.embedding_model,
            corpus=args.corpus,
        )
    except (ImportError, AttributeError, TypeError, ValueError, OSError) as exc:
        print(f"sluicegate calibrate: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.__dict__, ensure_ascii=False, indent=2))
    else:
        print(report(result))
    if args.png is not None:
        try:
            plot(result, args.png)
        except ImportError:
            print("no PNG: matplotlib is not installed (pip install 'sluicegate[plot]')", file=sys.stderr)
        else:
            print(f"plot: {args.png}")
    return 0 if result.threshold is not None else 1
