"""Retrievers for the eval tests, loaded by the CLI through `--retriever tests.cli.retrievers:NAME`."""

from __future__ import annotations

from sluicegate.evidence import Passage, Score, ScoreKind

IDS = [f"p{i}" for i in range(1, 11)]


class FixedOrder:
    """Returns p1..p10 in that order whatever the query, scored by rank (a stand-in for a deployed index)."""

    embedding_model = "test-fixed-order"
    corpus = "ten numbered passages"

    def retrieve(self, query: str, *, language: str) -> list[Passage]:
        return [
            Passage(pid, f"passage number {pid}", Score(1.0 - i / 10, ScoreKind.COSINE_0_1))
            for i, pid in enumerate(IDS[:8])
        ]


fixed_order = FixedOrder()
