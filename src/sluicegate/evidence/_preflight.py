"""The layers before the model in their fixed order: refusal rules, then the overview route or retrieval and
the evidence threshold. A refusal at any step returns the fixed text; nothing later runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ._decision import Decision, Passage
from ._gate import EvidenceGate
from ._ordinal import FollowUp, read_follow_up
from ._overview import Overview
from ._retriever import Retriever, retrieve_for
from ._rules import RefusalRules

RetrieveFn = Callable[[str], Sequence[Passage]]


class Preflight:
    """`run(question, language=..., previous=..., previous_answer=...)` -> the Decision that says whether to call
    the model and with what.

    Order: `rules.check` (zero embedding, zero retrieval, zero model calls) -> `overview.decide` (records, no
    threshold) -> `retriever` (with the joined follow-up query) -> `gate.decide`. `retriever` is a `Retriever`
    or a callable `query -> passages`. `names`: the site's own headings and names (titles of its records and
    pages), read in a previous answer to tell which item an ordinal follow-up ("the second one") means.
    """

    def __init__(
        self,
        retriever: Retriever | RetrieveFn,
        *,
        rules: RefusalRules | None = None,
        gate: EvidenceGate | None = None,
        overview: Overview | None = None,
        names: Iterable[str] = (),
    ) -> None:
        self.retriever = retriever
        self.rules = rules if rules is not None else RefusalRules()
        self.gate = gate if gate is not None else EvidenceGate()
        self.overview = overview
        self.names: tuple[str, ...] = tuple(names)

    def run(
        self,
        question: str,
        *,
        language: str,
        previous: str | None = None,
        previous_answer: str | None = None,
    ) -> Decision:
        """`previous`: the previous question (the question is a follow-up); `previous_answer`: the answer the
        reader saw to it, read for an ordinal follow-up. Leave both out for a new question."""
        screened = self.screen(question, language=language, previous=previous)
        if screened is not None:
            return screened
        follow_up = self.follow_up(question, previous_answer, language=language)
        passages = self.retrieve(question, language=language, previous=previous, follow_up=follow_up)
        return self.judge(question, passages, language=language, previous=previous, follow_up=follow_up)

    def follow_up(self, question: str, previous_answer: str | None, *, language: str) -> FollowUp | None:
        """What an ordinal follow-up refers to (None: the question names no position, or there is no answer)."""
        found = read_follow_up(question, previous_answer, language=language, names=self.names)
        return found if found.position is not None or found.reason is not None else None

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
        self,
        question: str,
        passages: Sequence[Passage],
        *,
        language: str,
        previous: str | None = None,
        follow_up: FollowUp | None = None,
    ) -> Decision:
        """The step after retrieval: the evidence threshold (and the overview fallback for the subject)."""
        decision = self.gate.decide(question, passages, language=language, previous=previous, follow_up=follow_up)
        overview = self.overview
        if decision.refused and overview is not None and overview.fallback and overview.about(question):
            return overview.brief(question, language=language)
        return decision

    def retrieve(
        self,
        question: str,
        *,
        language: str,
        previous: str | None = None,
        follow_up: FollowUp | None = None,
    ) -> list[Passage]:
        """The passages for `question` (and its joined follow-up), from either kind of retriever."""
        retriever = self.retriever
        if not isinstance(retriever, Retriever):
            retriever = _Callable(retriever)
        return retrieve_for(retriever, question, language=language, previous=previous, follow_up=follow_up)


class _Callable:
    def __init__(self, fn: RetrieveFn) -> None:
        self._fn = fn

    def retrieve(self, query: str, *, language: str) -> Sequence[Passage]:
        return self._fn(query)
