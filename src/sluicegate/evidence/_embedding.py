"""A hashing bag-of-tokens embedding: deterministic, offline, with no learned meaning.

Why ship one: tests, `sluicegate eval` and `sluicegate calibrate --demo` need cosine scores without a model
download, as the seed's own CI does. It is a substitute: a threshold checked on it is a default, never a
calibration of the embedding you deploy.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from .._errors import SluicegateError
from ._coverage import content_words
from ._normalize import normalize_question


class EmbeddingUnavailable(SluicegateError, RuntimeError):
    """The embedding service cannot be reached: retrieval falls back to keywords, and the threshold still applies."""


class HashingEmbedding:
    """Content words (and Chinese bigrams) hashed with BLAKE2b into signed buckets, L2-normalized.

    The cosine of two vectors is the dot product, in -1..1 (score kind "cosine"). The last of the `dimensions`
    is reserved: a text with no content word gets it as its vector, so no vector is all zeros (a zero vector
    makes a cosine NaN, and LangChain's vector store raises on it) and such a text is orthogonal to every other.
    """

    def __init__(self, dimensions: int = 1024, *, language: str = "en") -> None:
        if dimensions < 8:
            raise ValueError("dimensions must be at least 8")
        self.dimensions = dimensions
        self.language = language
        self.name = f"sluicegate-hashing-bow-{dimensions}"

    def embed(self, text: str, *, language: str | None = None) -> list[float]:
        """The unit vector of `text`."""
        vector = [0.0] * self.dimensions
        for unit in sorted(content_words(normalize_question(text), language or self.language)):
            digest = hashlib.blake2b(unit.encode("utf-8"), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % (self.dimensions - 1)
            vector[bucket] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vector))
        if not norm:  # no content word, or the signs cancelled out
            vector[-1] = 1.0
            return vector
        return [v / norm for v in vector]

    def embed_many(self, texts: Sequence[str], *, language: str | None = None) -> list[list[float]]:
        return [self.embed(t, language=language) for t in texts]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine of two vectors (0.0 when either is all zeros)."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0
