"""Scores that carry their kind, and the one rule about them: only a bounded similarity can meet a threshold.

Why kinds: a threshold of 0.35 means something for a cosine in 0..1 and nothing for a reciprocal-rank-fusion
value (about 0.016..0.05, built from ranks alone, so pure noise still ranks first) or a raw BM25 score
(unbounded, corpus-dependent). Frameworks pass such numbers on as "score" (LlamaIndex's fusion retriever
overwrites `node.score` with the fused value); here every score says what it is, and the unusable kinds are
refused when the gate is configured, not discovered in production.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from .._errors import SluicegateError


class ScoreKind(str, Enum):
    """What a retriever's number is. The value is the code written in logs."""

    COSINE_0_1 = "cosine_0_1"  # a cosine similarity already brought to 0..1
    COSINE = "cosine"  # a raw cosine similarity, -1..1: negative values count as 0
    COSINE_DISTANCE = "cosine_distance"  # 1 - cosine, 0..2 (pgvector's <=>, Chroma's "cosine" space)
    KEYWORD_COVERAGE = "keyword_coverage_0_1"  # share of the question's content words found as whole words
    BM25_RAW = "bm25_raw"  # unbounded: refused as evidence
    RRF = "rrf"  # reciprocal rank fusion: a rank, not a relevance; refused as evidence


UNUSABLE: frozenset[ScoreKind] = frozenset({ScoreKind.BM25_RAW, ScoreKind.RRF})
_TOLERANCE = 1e-6  # float noise of a normalized dot product (1.0000001)


class UnusableScoreError(SluicegateError, ValueError):
    """A rank-fusion or unbounded score was offered as evidence (raised when configuring, or when one arrives)."""


def score_kind(kind: ScoreKind | str) -> ScoreKind:
    """`kind` as a ScoreKind; RRF and raw BM25 are refused here with an error that says what to do instead."""
    try:
        parsed = ScoreKind(kind)
    except ValueError:
        known = ", ".join(k.value for k in ScoreKind)
        raise ValueError(f"unknown score kind {kind!r}; known kinds: {known}") from None
    if parsed in UNUSABLE:
        what = (
            "a reciprocal-rank-fusion value measures rank, not relevance"
            if parsed is ScoreKind.RRF
            else ("a raw BM25 score is unbounded and corpus-dependent")
        )
        raise UnusableScoreError(
            f"score kind {parsed.value!r} cannot be compared with a threshold: {what}. Pass the per-leg "
            "scores before fusion (a cosine from the dense leg; keyword coverage is computed by the gate)"
        )
    return parsed


@dataclass(frozen=True)
class Score:
    """A retriever's number with its kind."""

    value: float
    kind: ScoreKind

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ScoreKind(self.kind))

    def unit(self) -> float:
        """The score on 0..1, or an error if it is out of its kind's range or its kind is unusable."""
        kind = score_kind(self.kind)
        value = float(self.value)
        if math.isnan(value):
            raise ValueError(f"a {kind.value} score is NaN")
        if kind is ScoreKind.COSINE:
            _check_range(value, -1.0, 1.0, kind)
            return min(max(value, 0.0), 1.0)
        if kind is ScoreKind.COSINE_DISTANCE:
            _check_range(value, 0.0, 2.0, kind)
            return min(max(1.0 - value, 0.0), 1.0)
        _check_range(value, 0.0, 1.0, kind)
        return min(max(value, 0.0), 1.0)


def _check_range(value: float, low: float, high: float, kind: ScoreKind) -> None:
    if not low - _TOLERANCE <= value <= high + _TOLERANCE:
        raise ValueError(
            f"a {kind.value} score must lie in {low:g}..{high:g}, got {value!r}: is it really a {kind.value} "
            "(an unnormalized dot product or a distance declared as a similarity)?"
        )
