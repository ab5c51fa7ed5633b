"""A tiny in-memory retriever (dense leg and whole-word keyword leg), and how a follow-up is retrieved.

Why: tests and `sluicegate eval`/`calibrate` need a real retriever to run the layers against, offline. Its two
legs report bounded scores (cosine, keyword coverage), never a fused one; when the embedding is down, the
keyword leg alone returns passages with no cosine, and the evidence gate still applies its threshold.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from ._coverage import PassageWords, content_words, coverage
from ._decision import Passage
from ._embedding import EmbeddingUnavailable, HashingEmbedding
from ._normalize import normalize_question
from ._ordinal import FollowUp
from ._scores import Score, ScoreKind


@runtime_checkable
class Retriever(Protocol):
    """What the layers (and `sluicegate calibrate`) need from a retriever: passages with their own scores."""

    def retrieve(self, query: str, *, language: str) -> Sequence[Passage]: ...


class Embedding(Protocol):
    name: str

    def embed(self, text: str, *, language: str | None = None) -> list[float]: ...


class InMemoryRetriever:
    """Top-k passages of a small corpus by cosine (kind "cosine", -1..1), filled up by keyword coverage.

    `passages`: texts, or `(id, text)` pairs (ids default to "p1", "p2", ...). `embedding`: anything with
    `embed(text, language=...)` and a `name` (default: `HashingEmbedding`); `None`, or an embedding that raises
    `EmbeddingUnavailable`, leaves the keyword leg alone. `corpus` names the corpus for calibration reports.
    """

    def __init__(
        self,
        passages: Iterable[str | tuple[str, str]],
        *,
        embedding: Embedding | None = None,
        top_k: int = 8,
        language: str = "en",
        corpus: str = "in-memory",
        use_embedding: bool = True,
    ) -> None:
        self.items: list[tuple[str, str]] = [
            (item if isinstance(item, tuple) else (f"p{i}", item)) for i, item in enumerate(passages, start=1)
        ]
        self.embedding: Embedding | None = (embedding or HashingEmbedding(language=language)) if use_embedding else None
        self.top_k = top_k
        self.language = language
        self.corpus = corpus
        self.embedding_model = self.embedding.name if self.embedding is not None else "none (keyword leg only)"
        self._words = [PassageWords.of(text) for _, text in self.items]
        self._vectors: list[_Sparse] | None = None
        self.calls = 0  # retrievals run (tests assert that a refusal made none)

    def retrieve(self, query: str, *, language: str | None = None) -> list[Passage]:
        """The top-k passages for `query`, each with its cosine (or None when the embedding is down)."""
        self.calls += 1
        lang = language or self.language
        units = content_words(normalize_question(query), lang)
        keyword = [coverage(units, w) for w in self._words]
        dense = self._dense(query, lang)
        if dense is None:
            order = sorted(range(len(self.items)), key=lambda i: -keyword[i])
            chosen = [i for i in order if keyword[i] > 0.0][: self.top_k]
            return [Passage(self.items[i][0], self.items[i][1], None) for i in chosen]
        order = sorted(range(len(self.items)), key=lambda i: (-max(dense[i], 0.0), -keyword[i]))
        return [
            Passage(self.items[i][0], self.items[i][1], Score(dense[i], ScoreKind.COSINE)) for i in order[: self.top_k]
        ]

    def _dense(self, query: str, language: str) -> list[float] | None:
        if self.embedding is None:
            return None
        try:
            if self._vectors is None:
                self._vectors = [_sparse(self.embedding.embed(text, language=language)) for _, text in self.items]
            q = _sparse(self.embedding.embed(query, language=language))
        except EmbeddingUnavailable:
            return None
        return [_cosine(q, v) for v in self._vectors]


_Sparse = tuple[dict[int, float], float]  # non-zero components, norm


def _sparse(vector: Sequence[float]) -> _Sparse:
    """A vector as its non-zero components and its norm (a hashing embedding is mostly zeros)."""
    items = {i: v for i, v in enumerate(vector) if v}
    return items, sum(v * v for v in items.values()) ** 0.5


def _cosine(a: _Sparse, b: _Sparse) -> float:
    (small, na), (large, nb) = (a, b) if len(a[0]) <= len(b[0]) else (b, a)
    if not na or not nb:
        return 0.0
    return sum(v * large.get(i, 0.0) for i, v in small.items()) / (na * nb)


def retrieve_for(
    retriever: Retriever,
    question: str,
    *,
    language: str,
    previous: str | None = None,
    follow_up: FollowUp | None = None,
) -> list[Passage]:
    """Retrieve for `question`, and for a follow-up also for it joined to `previous`, merged by passage id.

    A passage found by both keeps both similarities (`score`, `joined_score`); the evidence gate takes the
    higher. Order: the question's own passages first, then those only the joined query found. An ordinal
    `follow_up` ("the second one") adds the item it names, or the start of the previous answer, to the join.
    """
    own = list(retriever.retrieve(question, language=language))
    joined = joined_query(question, previous, follow_up)
    if joined == question:
        return own
    return merge_follow_up(own, retriever.retrieve(joined, language=language))


def joined_query(question: str, previous: str | None, follow_up: FollowUp | None = None) -> str:
    """The query of a follow-up joined to the previous question, and to what an ordinal follow-up refers to
    (retrieval and coverage use the same text). Without either, the question itself."""
    context = follow_up.context if follow_up is not None else ""
    return " ".join(part for part in (previous, question, context) if part)


def merge_follow_up(own: Iterable[Passage], joined: Iterable[Passage]) -> list[Passage]:
    """Passages of the question and of the joined query, merged by id; each keeps both similarities.

    Ordered by the higher of a passage's two similarities (stable; passages without one last), so the
    passages the joined query found come first when the follow-up alone ("and since when?") finds nothing.
    Bare floats are compared as they are (one retriever, one kind).
    """
    by_id = {p.id: p for p in joined}
    merged: list[Passage] = []
    for p in own:
        other = by_id.pop(p.id, None)
        merged.append(Passage(p.id, p.text, p.score, other.score if other else None, p.metadata))
    merged += [Passage(p.id, p.text, None, p.score, p.metadata) for p in by_id.values()]
    return sorted(merged, key=lambda p: -max(_order_value(p.score), _order_value(p.joined_score)))


def _order_value(score: Score | float | None) -> float:
    if score is None:
        return -2.0
    return score.unit() if isinstance(score, Score) else float(score)
