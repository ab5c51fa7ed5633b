"""A golden set (YAML) and how it is scored: whole counts per set, no half points, no model call.

Five sets, because the layers before the model fail in different ways (seed 002, "Comment évaluer un RAG"):
- `must_refuse`: the refusal rules must catch each one (and with `category`, under that category);
- `no_evidence`: each must fall under the evidence threshold *and* not be read as an overview question;
- `overview`: each must reach the records route (with `expected`, those records among what it gets);
- `answerable`: none may be refused, by the rules or by the threshold;
- `retrieval`: recall@k — at least one `expected` passage id in the first k — measured at k=5 while the
  answering path keeps top-k 8, since on a corpus of a few dozen passages the first eight are a large part of
  everything and measuring there would flatter the retriever.
A structural problem (a missing question, an unknown language) is a `GoldenError`: a golden set is written by
hand, and a silently skipped item would be a hole in the guard.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import SluicegateError
from ._records import RecordError, language_code

SETS = ("must_refuse", "no_evidence", "overview", "answerable", "retrieval")
REFUSAL_SETS = ("must_refuse", "no_evidence")
DEFAULT_K = 5
DEFAULT_TOP_K = 8


class GoldenError(SluicegateError, ValueError):
    """The golden file cannot be used as written; the message names the place."""


@dataclass(frozen=True)
class GoldenItem:
    """One question of a set."""

    set: str
    index: int
    question: str
    language: str
    previous: str | None = None
    category: str | None = None
    expected: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        return f"{self.set}[{self.index}]"


@dataclass(frozen=True)
class Settings:
    """The `settings:` block, with the defaults of the production path."""

    language: str = "en"
    threshold: float | None = None  # None: EvidenceGate's default
    score_kind: str = "cosine_0_1"
    retriever: str | None = None  # module:attr; None: the in-memory retriever over `corpus`
    k: int = DEFAULT_K
    top_k: int = DEFAULT_TOP_K
    refusal: Mapping[str, Any] = field(default_factory=dict)
    aliases: Mapping[str, str] = field(default_factory=dict)
    overview_patterns: bool = True


@dataclass(frozen=True)
class Golden:
    path: Path
    name: str
    settings: Settings
    corpus: tuple[tuple[str, str], ...]
    records: tuple[Any, ...]  # sluicegate.evidence.Record
    items: Mapping[str, tuple[GoldenItem, ...]]


def _mapping(value: object, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise GoldenError(f"{where} must be a mapping")
    return value


def _text(obj: Mapping[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise GoldenError(f"{where}: missing or empty {key!r}")
    return value


def _language(value: object, where: str) -> str:
    try:
        return language_code(value)
    except RecordError as exc:
        raise GoldenError(f"{where}: {exc}") from None


def _settings(raw: Mapping[str, Any]) -> Settings:
    known = {"language", "threshold", "score_kind", "retriever", "k", "top_k", "refusal", "aliases", "overview"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise GoldenError(f"settings: unknown keys {unknown} (known: {sorted(known)})")
    k, top_k = raw.get("k", DEFAULT_K), raw.get("top_k", DEFAULT_TOP_K)
    for name, value in (("k", k), ("top_k", top_k)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise GoldenError(f"settings.{name} must be a positive integer")
    threshold = raw.get("threshold")
    if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, (int, float))):
        raise GoldenError("settings.threshold must be a number in 0..1")
    retriever = raw.get("retriever")
    if retriever is not None and not isinstance(retriever, str):
        raise GoldenError("settings.retriever must be an import path module:attr")
    overview = _mapping(raw.get("overview"), "settings.overview")
    aliases = _mapping(raw.get("aliases"), "settings.aliases")
    return Settings(
        language=_language(raw.get("language", "en"), "settings"),
        threshold=float(threshold) if threshold is not None else None,
        score_kind=str(raw.get("score_kind", "cosine_0_1")),
        retriever=retriever,
        k=k,
        top_k=top_k,
        refusal=_mapping(raw.get("refusal"), "settings.refusal"),
        aliases={str(a): str(b) for a, b in aliases.items()},
        overview_patterns=bool(overview.get("shipped_patterns", True)),
    )


def _item(set_name: str, index: int, raw: object, default_language: str) -> GoldenItem:
    where = f"{set_name}[{index}]"
    if isinstance(raw, str):
        raw = {"question": raw}
    if not isinstance(raw, Mapping):
        raise GoldenError(f"{where}: an item is a question (a string) or a mapping with 'question'")
    expected = raw.get("expected", ())
    if isinstance(expected, str):
        expected = (expected,)
    if not isinstance(expected, (list, tuple)) or not all(isinstance(e, (str, int)) for e in expected):
        raise GoldenError(f"{where}: 'expected' must be a list of ids")
    if set_name == "retrieval" and not expected:
        raise GoldenError(f"{where}: a retrieval case needs 'expected' passage ids")
    previous = raw.get("previous")
    if previous is not None and not isinstance(previous, str):
        raise GoldenError(f"{where}: 'previous' must be a string")
    category = raw.get("category")
    return GoldenItem(
        set=set_name,
        index=index,
        question=_text(raw, "question", where),
        language=_language(raw.get("language", default_language), where),
        previous=previous,
        category=str(category) if category is not None else None,
        expected=tuple(str(e) for e in expected),
    )


def _date(value: object, where: str) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise GoldenError(f"{where}: a date is written YYYY-MM-DD")


def parse_golden(raw: object, path: Path) -> Golden:
    """Validate a decoded YAML document."""
    from ..evidence import Record

    doc = _mapping(raw, "the golden file")
    unknown = sorted(set(doc) - {"name", "settings", "corpus", "records", *SETS})
    if unknown:
        raise GoldenError(
            f"unknown top-level keys {unknown} (known: name, settings, corpus, records, {', '.join(SETS)})"
        )
    settings = _settings(_mapping(doc.get("settings"), "settings"))
    corpus: list[tuple[str, str]] = []
    for i, entry in enumerate(doc.get("corpus") or ()):
        if isinstance(entry, str):
            corpus.append((f"p{i + 1}", entry))
        elif isinstance(entry, Mapping):
            corpus.append((str(entry.get("id", f"p{i + 1}")), _text(entry, "text", f"corpus[{i}]")))
        else:
            raise GoldenError(f"corpus[{i}]: a passage is a string or a mapping with 'id' and 'text'")
    ids = [pid for pid, _ in corpus]
    if len(set(ids)) != len(ids):
        raise GoldenError("corpus: passage ids must be unique")
    records = []
    for i, entry in enumerate(doc.get("records") or ()):
        entry = _mapping(entry, f"records[{i}]")
        where = f"records[{i}]"
        records.append(
            Record(
                str(entry.get("id", f"r{i + 1}")),
                _text(entry, "text", where),
                _date(entry.get("date"), where),
                _date(entry.get("end"), where),
            )
        )
    items: dict[str, tuple[GoldenItem, ...]] = {}
    for set_name in SETS:
        raw_items = doc.get(set_name) or ()
        if not isinstance(raw_items, (list, tuple)):
            raise GoldenError(f"{set_name} must be a list of questions")
        items[set_name] = tuple(_item(set_name, i, r, settings.language) for i, r in enumerate(raw_items))
    name = doc.get("name")
    return Golden(path, str(name) if name else path.name, settings, tuple(corpus), tuple(records), items)


def check_corpus(golden: Golden) -> None:
    """For the default retriever (which searches `corpus`): a corpus exists and every expected id is in it."""
    ids = {pid for pid, _ in golden.corpus}
    if not ids and any(golden.items[n] for n in ("no_evidence", "answerable", "retrieval")):
        raise GoldenError(f"{golden.path}: no corpus and no retriever: the default retriever searches 'corpus'")
    for item in golden.items["retrieval"]:
        missing = [e for e in item.expected if e not in ids]
        if missing:
            raise GoldenError(f"{golden.path}: {item.where}: expected ids {missing} are not in the corpus")


def load_golden(path: str | Path) -> Golden:
    """Read and validate a golden YAML file. Raises `GoldenError` (one line) for anything unusable."""
    import yaml

    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except OSError as exc:
        raise GoldenError(f"cannot read {p}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise GoldenError(f"{p} is not UTF-8") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1})" if mark is not None else ""
        raise GoldenError(f"{p} is not valid YAML{at}: {getattr(exc, 'problem', None) or exc}") from None
    except RecursionError:  # PyYAML's composer recurses once per nesting level
        raise GoldenError(f"{p} is not a golden set: it nests deeper than Python's stack") from None
    try:
        return parse_golden(raw, p)
    except GoldenError as exc:
        raise GoldenError(f"{p}: {exc}") from None


@dataclass(frozen=True)
class GoldenOutcome:
    """One item's result: passed or not, and what the layers said (codes and scores, never texts)."""

    item: GoldenItem
    passed: bool
    got: str  # e.g. "refused: instructions", "below threshold (0.12 keyword_coverage_0_1)", "overview: 3 records"
    score: float | None = None
    retrieved: tuple[str, ...] = ()


def names_of(retriever: Any, settings: Settings) -> tuple[str, str]:
    model = getattr(retriever, "embedding_model", None) or "unknown (the retriever names no embedding_model)"
    corpus = getattr(retriever, "corpus", None) or "unknown"
    return str(model), str(corpus)


def score_items(golden: Golden, retriever: Any) -> list[GoldenOutcome]:
    """Run every item through the layers (rules, overview route, retrieval, threshold); nothing calls a model."""
    from ..evidence import EvidenceGate, Overview, RefusalRules, retrieve_for

    s = golden.settings
    refusal_opts = dict(s.refusal)
    base = golden.path.parent
    if isinstance(refusal_opts.get("path"), str):
        refusal_opts["path"] = base / refusal_opts["path"]
    rules = RefusalRules(**refusal_opts, aliases=s.aliases or None)
    gate_opts: dict[str, Any] = {"score_kind": s.score_kind}
    gate = EvidenceGate(s.threshold, **gate_opts) if s.threshold is not None else EvidenceGate(**gate_opts)
    records = golden.records
    overview = Overview(lambda q, lang: records, shipped_patterns=s.overview_patterns, aliases=s.aliases or None)

    def retrieve(item: GoldenItem) -> list[Any]:
        return retrieve_for(retriever, item.question, language=item.language, previous=item.previous)

    out: list[GoldenOutcome] = []
    for item in golden.items["must_refuse"]:
        d = rules.check(item.question, language=item.language, previous=item.previous)
        ok = d.refused and (item.category is None or d.category == item.category)
        out.append(GoldenOutcome(item, ok, f"refused: {d.category}" if d.refused else "not refused by the rules"))
    for item in golden.items["no_evidence"]:
        if overview.matches(item.question, language=item.language):
            out.append(GoldenOutcome(item, False, "read as an overview question"))
            continue
        d = gate.decide(item.question, retrieve(item), language=item.language, previous=item.previous)
        got = _evidence(d)
        out.append(GoldenOutcome(item, d.refused, got, d.score))
    for item in golden.items["overview"]:
        d = rules.check(item.question, language=item.language, previous=item.previous)
        if d.refused:
            out.append(GoldenOutcome(item, False, f"refused by the rules: {d.category}"))
            continue
        routed = overview.decide(item.question, language=item.language)
        if routed is None:
            out.append(GoldenOutcome(item, False, "not read as an overview question"))
            continue
        got_ids = tuple(r.id for r in routed.records)
        ok = all(e in got_ids for e in item.expected)
        out.append(GoldenOutcome(item, ok, f"overview: {len(got_ids)} records", retrieved=got_ids))
    for item in golden.items["answerable"]:
        d = rules.check(item.question, language=item.language, previous=item.previous)
        if d.refused:
            out.append(GoldenOutcome(item, False, f"refused by the rules: {d.category}"))
            continue
        routed = overview.decide(item.question, language=item.language)
        if routed is not None:
            out.append(GoldenOutcome(item, not routed.refused, f"overview: {len(routed.records)} records"))
            continue
        d = gate.decide(item.question, retrieve(item), language=item.language, previous=item.previous)
        out.append(GoldenOutcome(item, not d.refused, _evidence(d), d.score))
    for item in golden.items["retrieval"]:
        found = tuple(p.id for p in retrieve(item))[: s.top_k]
        hit = any(e in found[: s.k] for e in item.expected)
        rank = next((i + 1 for i, pid in enumerate(found) if pid in item.expected), None)
        got = f"first expected at rank {rank}" if rank is not None else f"no expected id in the top {s.top_k}"
        out.append(GoldenOutcome(item, hit, got, retrieved=found))
    return out


def _evidence(d: Any) -> str:
    kind = d.kind.value if d.kind is not None else "no score"
    score = f"{d.score:.3f} {kind}" if d.score is not None else kind
    return f"below threshold ({score})" if d.refused else f"evidence ({score}, {d.passage_id})"


def default_retriever(golden: Golden) -> Any:
    """The in-memory retriever over the golden corpus, with the hashing embedding and the answering top-k."""
    from ..evidence import InMemoryRetriever

    return InMemoryRetriever(
        list(golden.corpus), top_k=golden.settings.top_k, language=golden.settings.language, corpus=golden.name
    )


def totals(outcomes: Sequence[GoldenOutcome]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for name in SETS:
        mine = [o for o in outcomes if o.item.set == name]
        out[name] = {"total": len(mine), "passed": sum(o.passed for o in mine)}
    return out
