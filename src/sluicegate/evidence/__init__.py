"""Layers 1 and 2 before the model (seed 002): refuse by pattern before retrieval, then refuse when no
retrieved passage reaches the evidence threshold. Either refusal is a fixed text and costs no model call.

`RefusalRules.check` -> (`Overview` for whole-work questions) -> retrieval -> `EvidenceGate.decide`; `Preflight`
runs them in that order. Every score carries its `ScoreKind`; rank-fusion and raw BM25 scores are refused.
"""

from .._gate.person import SUPPORTED_LANGUAGES
from .._public import publish
from ._coverage import content_words, keyword_coverage, stopwords
from ._decision import NO_EVIDENCE, NO_RECORDS, Decision, Passage, Record, record_text
from ._embedding import EmbeddingUnavailable, HashingEmbedding, cosine
from ._gate import DEFAULT_THRESHOLD, Evidence, EvidenceGate
from ._normalize import normalize_question
from ._ordinal import LAST, NOT_ORDINAL, FollowUp, Ordinal, read_follow_up, read_items, read_ordinals, start_of
from ._overview import Overview
from ._patterns import PatternError
from ._preflight import Preflight
from ._retriever import InMemoryRetriever, Retriever, joined_query, merge_follow_up, retrieve_for
from ._rules import GENERIC, RefusalRules
from ._scores import UNUSABLE, Score, ScoreKind, UnusableScoreError, score_kind

__all__ = [
    "DEFAULT_THRESHOLD",
    "GENERIC",
    "LAST",
    "NOT_ORDINAL",
    "NO_EVIDENCE",
    "NO_RECORDS",
    "SUPPORTED_LANGUAGES",
    "UNUSABLE",
    "Decision",
    "EmbeddingUnavailable",
    "Evidence",
    "FollowUp",
    "EvidenceGate",
    "HashingEmbedding",
    "InMemoryRetriever",
    "Ordinal",
    "Overview",
    "Passage",
    "PatternError",
    "Preflight",
    "Record",
    "RefusalRules",
    "Retriever",
    "Score",
    "ScoreKind",
    "UnusableScoreError",
    "content_words",
    "cosine",
    "joined_query",
    "keyword_coverage",
    "merge_follow_up",
    "normalize_question",
    "read_follow_up",
    "read_items",
    "read_ordinals",
    "record_text",
    "retrieve_for",
    "score_kind",
    "start_of",
    "stopwords",
]

publish(__name__, globals())  # one documented place per public name (docs/api.md)
