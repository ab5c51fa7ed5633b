"""The layers before the model in an LCEL chain: refusal rules, then retrieval and the evidence threshold,
in front of `SourceGate`. A refused question comes back as the answer (the fixed text) with a `guard` custom
event, and neither the retriever (for a pattern refusal) nor the model is ever invoked.

Why read scores from the vector store: a LangChain retriever returns Documents without scores (and
`EnsembleRetriever` fuses ranks and drops them), so the evidence check needs `similarity_search_with_score`
with the kind of number that store returns declared (`"cosine"` for `InMemoryVectorStore`, `"cosine_distance"`
for Chroma's cosine space...). A plain retriever works too: scores are read from `metadata[score_key]` when
present; when absent, keyword coverage alone decides, and the threshold still applies.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import aclosing, suppress
from typing import Any, cast

from langchain_core.callbacks import adispatch_custom_event, dispatch_custom_event
from langchain_core.documents import Document
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import patch_config
from langchain_core.vectorstores import VectorStore

from sluicegate import GuardedCall, Refuse, ascreen_call, screen_call
from sluicegate.evidence import (
    Decision,
    EvidenceGate,
    Overview,
    Passage,
    Preflight,
    RefusalRules,
    Score,
    ScoreKind,
    record_text,
    score_kind,
)

OnDecision = Callable[[Decision], None]


def guard_payload(decision: Decision) -> dict[str, Any]:
    """The `guard` event of a refusal before the model: codes, the fixed text, the best score; no question text."""
    return {
        "reasons": [decision.category] if decision.category else [],
        "notice": decision.text,
        "route": decision.route,
        "score": decision.score,
        "kind": decision.kind.value if decision.kind else None,
        "passage_id": decision.passage_id,
    }


class PreflightGate(Runnable[Mapping[str, Any], str]):
    """`RunnablePassthrough.assign(answer=PreflightGate(SourceGate(prompt | model), vectorstore=store))`.

    Input: the chain's dict with `question_key` (and optionally `previous_key`, the previous question,
    `previous_answer_key`, the answer the reader saw to it, read for an ordinal follow-up, and `language_key`).
    Order: `RefusalRules` (nothing else runs on a refusal) -> `Overview` records, if given -> retrieval
    (`vectorstore.similarity_search_with_score` with `k`, or `retriever`) -> `EvidenceGate`. Allowed:
    `answer` is streamed with the passages (the original Documents, or the records' texts) under `sources_key`.
    Refused: the fixed text is the answer, and a `guard` custom event carries the reason code. `on_decision`
    receives every Decision (its `log()` is safe to log).
    """

    def __init__(
        self,
        answer: Runnable[Any, Any],
        *,
        vectorstore: VectorStore | None = None,
        retriever: Runnable[str, list[Document]] | None = None,
        k: int = 4,
        score_kind: ScoreKind | str = ScoreKind.COSINE,
        score_key: str = "score",
        rules: RefusalRules | None = None,
        evidence: EvidenceGate | None = None,
        overview: Overview | None = None,
        language: str = "en",
        question_key: str = "question",
        previous_key: str = "previous",
        previous_answer_key: str = "previous_answer",
        language_key: str = "language",
        sources_key: str = "sources",
        on_decision: OnDecision | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__()
        if (vectorstore is None) == (retriever is None):
            raise ValueError("PreflightGate needs exactly one of vectorstore= (scores read) or retriever=")
        self.answer = answer
        self.vectorstore = vectorstore
        self.retriever = retriever
        self.k = k
        self.score_kind = _declared(score_kind)
        self.score_key = score_key
        self.preflight = Preflight(lambda q: [], rules=rules, gate=evidence, overview=overview)
        self.language = language
        self.question_key = question_key
        self.previous_key = previous_key
        self.previous_answer_key = previous_answer_key
        self.language_key = language_key
        self.sources_key = sources_key
        self.on_decision = on_decision
        self.name = name or "PreflightGate"

    @property
    def InputType(self) -> type:  # noqa: N802 - LangChain's name
        return dict

    @property
    def OutputType(self) -> type:  # noqa: N802
        return str

    # -- reading the input and the retrieval results ------------------------------------------------------
    def _read(self, inp: Any) -> tuple[str, str | None, str, str | None]:
        if not isinstance(inp, Mapping) or not isinstance(inp.get(self.question_key), str):
            raise TypeError(f"PreflightGate takes the chain's dict with a str {self.question_key!r}")
        previous = inp.get(self.previous_key)
        answer = inp.get(self.previous_answer_key)
        return (
            inp[self.question_key],
            previous if isinstance(previous, str) and previous else None,
            str(inp.get(self.language_key) or self.language),
            answer if isinstance(answer, str) and answer else None,
        )

    def _passages(self, found: Sequence[Any]) -> list[Passage]:
        out: list[Passage] = []
        for i, item in enumerate(found, start=1):
            doc, raw = item if isinstance(item, tuple) else (item, item.metadata.get(self.score_key))
            pid = str(doc.id or doc.metadata.get("id") or f"d{i}")
            score = None if raw is None else Score(float(raw), self.score_kind)
            out.append(Passage(pid, doc.page_content, score, metadata={"document": doc}))
        return out

    def _retrieve(self, query: str, config: RunnableConfig) -> list[Passage]:
        if self.vectorstore is not None:
            return self._passages(self.vectorstore.similarity_search_with_score(query, k=self.k))
        assert self.retriever is not None
        return self._passages(self.retriever.invoke(query, config))

    async def _aretrieve(self, query: str, config: RunnableConfig) -> list[Passage]:
        if self.vectorstore is not None:
            return self._passages(await self.vectorstore.asimilarity_search_with_score(query, k=self.k))
        assert self.retriever is not None
        return self._passages(await self.retriever.ainvoke(query, config))

    def _answer_input(self, inp: Mapping[str, Any], decision: Decision) -> dict[str, Any]:
        if decision.route == "overview":
            sources: list[Any] = [record_text(r) for r in decision.records]
        else:
            sources = [p.metadata.get("document", p.text) for p in decision.passages]
        return {**inp, self.sources_key: sources}

    def _call(self, question: str, previous: str | None, language: str, answer: str | None) -> GuardedCall:
        """The guarded call owns the order (rules, overview, retrieval, the threshold); we retrieve. The
        previous answer is read for an ordinal follow-up ("the second one")."""
        return GuardedCall(
            question, language=language, previous=previous, previous_answer=answer, preflight=self.preflight
        )

    def _decided(self, call: GuardedCall) -> Decision:
        decision = call.decision
        assert decision is not None  # the call decided: it refused or handed out CallModel
        if self.on_decision is not None:
            self.on_decision(decision)
        return decision

    # -- sync -----------------------------------------------------------------------------------------------
    def invoke(self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return "".join(self.stream(input, config, **kwargs))

    def stream(self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[str]:
        yield from self._transform_stream_with_config(iter([input]), self._run, config, **kwargs)

    def _run(self, inputs: Iterator[Mapping[str, Any]], run_manager: Any, config: RunnableConfig) -> Iterator[str]:
        inp = next(inputs)
        question, previous, language, previous_answer = self._read(inp)
        child = patch_config(config, callbacks=run_manager.get_child())
        call = self._call(question, previous, language, previous_answer)
        action = screen_call(call, lambda query: self._retrieve(query, child))
        decision = self._decided(call)
        if isinstance(action, Refuse):
            _dispatch(decision, config)
            yield action.text
            return
        yield from self.answer.stream(self._answer_input(inp, decision), child)

    # -- async ----------------------------------------------------------------------------------------------
    async def ainvoke(self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return "".join([chunk async for chunk in self.astream(input, config, **kwargs)])

    async def astream(
        self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[str]:
        stream = self._atransform_stream_with_config(_aone(input), self._arun, config, **kwargs)
        async with aclosing(cast(AsyncGenerator[str, None], stream)) as it:
            async for chunk in it:
                yield chunk

    async def _arun(
        self, inputs: AsyncIterator[Mapping[str, Any]], run_manager: Any, config: RunnableConfig
    ) -> AsyncIterator[str]:
        inp = await inputs.__anext__()
        question, previous, language, previous_answer = self._read(inp)
        child = patch_config(config, callbacks=run_manager.get_child())
        call = self._call(question, previous, language, previous_answer)
        action = await ascreen_call(call, lambda query: self._aretrieve(query, child))
        decision = self._decided(call)
        if isinstance(action, Refuse):
            await _adispatch(decision, config)
            yield action.text
            return
        answer = self.answer.astream(self._answer_input(inp, decision), child)
        async with aclosing(cast(AsyncGenerator[Any, None], answer)) as chunks:
            async for chunk in chunks:
                yield chunk


def _declared(kind: ScoreKind | str) -> ScoreKind:
    return score_kind(kind)  # rrf / bm25_raw refused here, when the chain is built


def _dispatch(decision: Decision, config: RunnableConfig) -> None:
    with suppress(RuntimeError):  # no run to attach it to: the fixed text is still the answer
        dispatch_custom_event("guard", guard_payload(decision), config=config)


async def _adispatch(decision: Decision, config: RunnableConfig) -> None:
    with suppress(RuntimeError):
        await adispatch_custom_event("guard", guard_payload(decision), config=config)


async def _aone(value: Any) -> AsyncIterator[Any]:
    yield value
