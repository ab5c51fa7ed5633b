"""The layers before the model in their fixed order: refusal rules, then the overview route or retrieval and
the evidence threshold. A refusal at any step returns the fixed text; nothing later runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .decision import Decision, Passage
from .gate import EvidenceGate
from .overview import Overview
from .retriever import Retriever, retrieve_for
from .rules import RefusalRules

RetrieveFn = Callable[[str], Sequence[Passage]]


class Preflight:
    """`run(question, language=..., previous=...)` -> the Decision that says whether to call the model and with what.

    Order: `rules.check` (zero embedding, zero retrieval, zero model calls) -> `overview.decide` (records, no
    threshold) -> `retriever` (with the joined follow-up query) -> `gate.decide`. `retriever` is a `Retriever`
    or a callable `query -> passages`.
    """

    def __init__(
        self,
        retriever: Retriever | RetrieveFn,
        *,
        rules: RefusalRules | None = None,
        gate: EvidenceGate | None = None,
        overview: Overview | None = None,
    ) -> None:
        self.retriever = retriever
        self.rules = rules if rules is not None else RefusalRules()
        self.gate = gate if gate is not None else EvidenceGate()
        self.overview = overview

    def run(self, question: str, *, language: str, previous: str | None = None) -> Decision:
        screened = self.screen(question, language=language, previous=previous)
        if screened is not None:
            return screened
        passages = self.retrieve(question, language=language, previous=previous)
        return self.judge(question, passages, language=language, previous=previous)

    def screen(self, question: str, *, language: str, previous: str | None = None) -> Decision | None:
        """The steps before retrieval: a refusal, an overview decision, or None (go and retrieve).

        For adapters that run their framework's own (possibly async) retrieval between `screen` and `judge`.
        """
        refusal = self.rules.check(question, language=language, previous=previous)
        if refusal.refused:
            return refusal
        if self.overview is not None:
            return self.overview.decide(question, language=language)
        return None

    def judge(
        self, question: str, passages: Sequence[Passage], *, language: str, previous: str | None = None
    ) -> Decision:
        """The step after retrieval: the evidence threshold (and the overview fallback for the subject)."""
        decision = self.gate.decide(question, passages, language=language, previous=previous)
        overview = self.overview
        if decision.refused and overview is not None and overview.fallback and overview.about(question):
            return overview.brief(question, language=language)
        return decision

    def retrieve(self, question: str, *, language: str, previous: str | None = None) -> list[Passage]:
        """The passages for `question` (and its joined follow-up), from either kind of retriever."""
        retriever = self.retriever
        if isinstance(retriever, Retriever):
            return retrieve_for(retriever, question, language=language, previous=previous)
        return retrieve_for(_Callable(retriever), question, language=language, previous=previous)


class _Callable:
    def __init__(self, fn: RetrieveFn) -> None:
        self._fn = fn

    def retrieve(self, query: str, *, language: str) -> Sequence[Passage]:
        return self._fn(query)
