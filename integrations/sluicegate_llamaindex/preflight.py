"""The layers before the model as a LlamaIndex query engine: refusal rules, retrieval, the evidence threshold,
then the (gated) synthesizer. A refused question, or retrieval below the threshold, returns the fixed text
and the LLM is never called.

Why legs: `QueryFusionRetriever` overwrites each `node.score` with the fused value (reciprocal rank fusion:
about 0.016..0.05, from ranks alone; relative-score fusion: the top node is always 1.0), so a cutoff after it
(`SimilarityPostprocessor`) thresholds a rank. Wrap each leg in `ScoredLeg(retriever, kind=...)`: the leg's
own scores are copied *before* fusion, per query, and the evidence gate reads those (a "bm25_raw" leg gives
no score: the gate's keyword coverage stands in for it). A fusion retriever whose legs are not wrapped is
refused when the engine is built, as is query generation (`num_queries > 1`: an LLM call before the check).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from contextvars import ContextVar
from typing import Any

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.response.schema import RESPONSE_TYPE, Response
from llama_index.core.response_synthesizers import BaseSynthesizer
from llama_index.core.retrievers import QueryFusionRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from sluicegate import GuardedCall, Refuse, ascreen_call, screen_call
from sluicegate.evidence import (
    UNUSABLE,
    Decision,
    EvidenceGate,
    Overview,
    Passage,
    Preflight,
    RefusalRules,
    Score,
    ScoreKind,
    UnusableScoreError,
    record_text,
    score_kind,
)

from .synthesizer import GatedAsyncStreamingResponse, GatedStreamingResponse, GuardEvent, dispatcher

OnDecision = Callable[[Decision], None]
# node id -> the scores its legs gave it for the query being retrieved (set around one retrieval)
_LEG_SCORES: ContextVar[dict[str, list[Score]] | None] = ContextVar("sluicegate_leg_scores", default=None)


class ScoredLeg(BaseRetriever):
    """A fusion leg that records its own scores, with their kind, before the fusion overwrites them."""

    def __init__(self, retriever: BaseRetriever, *, kind: ScoreKind | str) -> None:
        self.retriever = retriever
        self.kind = ScoreKind(kind)  # any kind: an unusable one is recorded as no score, not refused
        super().__init__(callback_manager=retriever.callback_manager)

    def _record(self, nodes: list[NodeWithScore]) -> list[NodeWithScore]:
        seen = _LEG_SCORES.get()
        if seen is not None and self.kind not in UNUSABLE:
            for n in nodes:
                if n.score is not None:
                    seen.setdefault(n.node.node_id, []).append(Score(float(n.score), self.kind))
        return nodes

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._record(self.retriever.retrieve(query_bundle))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._record(await self.retriever.aretrieve(query_bundle))


def _check_fusion(retriever: BaseRetriever, allow_query_generation: bool) -> bool:
    if not isinstance(retriever, QueryFusionRetriever):
        return False
    legs = retriever._retrievers
    if not all(isinstance(leg, ScoredLeg) for leg in legs):
        raise UnusableScoreError(
            "QueryFusionRetriever overwrites node.score with the fused value, a rank rather than a similarity: "
            "wrap each leg in ScoredLeg(retriever, kind='cosine' | 'bm25_raw' | ...) so the evidence gate reads "
            "the legs' own scores before fusion"
        )
    if retriever.num_queries > 1 and not allow_query_generation:
        raise ValueError(
            "QueryFusionRetriever(num_queries > 1) asks the LLM for extra queries before the evidence check, so "
            "a question without evidence would still cost an LLM call: set num_queries=1, or pass "
            "allow_query_generation=True to accept that call"
        )
    return True


class PreflightQueryEngine(BaseQueryEngine):
    """`PreflightQueryEngine(retriever, GatedSynthesizer(inner))`: `query(q)` or `ask(q, language=, previous=)`.

    Order: `RefusalRules` (nothing else runs) -> `Overview` records, if given -> `retriever` -> `EvidenceGate` ->
    `synthesizer` with the retrieved nodes (or the records as nodes). A plain retriever's `node.score` is read
    as `score_kind` (LlamaIndex's default vector store gives a cosine, -1..1: "cosine"); a fusion retriever's
    legs are read through `ScoredLeg`. Refusals come back as a Response (a one-piece streaming response when
    the synthesizer streams) with the fixed text, no source nodes, `response.decision`, and a `GuardEvent`.
    """

    def __init__(
        self,
        retriever: BaseRetriever,
        synthesizer: BaseSynthesizer,
        *,
        rules: RefusalRules | None = None,
        evidence: EvidenceGate | None = None,
        overview: Overview | None = None,
        score_kind: ScoreKind | str = ScoreKind.COSINE,
        language: str = "en",
        allow_query_generation: bool = False,
        on_decision: OnDecision | None = None,
    ) -> None:
        self._fused = _check_fusion(retriever, allow_query_generation)
        self._score_kind = _declared(score_kind)
        self._retriever = retriever
        self._synthesizer = synthesizer
        self._preflight = Preflight(lambda q: [], rules=rules, gate=evidence, overview=overview)
        self._language = language
        self._on_decision = on_decision
        super().__init__(callback_manager=synthesizer.callback_manager)

    def _get_prompt_modules(self) -> dict[str, Any]:
        return {"synthesizer": self._synthesizer}

    # -- public entry points with a language and the previous question ----------------------------------------
    def ask(
        self,
        question: str,
        *,
        language: str | None = None,
        previous: str | None = None,
        previous_answer: str | None = None,
    ) -> RESPONSE_TYPE:
        """`query` with the question's language and, for a follow-up, the previous question and the answer the
        reader saw to it (read for an ordinal follow-up: "the second one")."""
        return self._answer(QueryBundle(question), language or self._language, previous, previous_answer)

    async def aask(
        self,
        question: str,
        *,
        language: str | None = None,
        previous: str | None = None,
        previous_answer: str | None = None,
    ) -> RESPONSE_TYPE:
        return await self._aanswer(QueryBundle(question), language or self._language, previous, previous_answer)

    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        return self._answer(query_bundle, self._language, None)

    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        return await self._aanswer(query_bundle, self._language, None)

    # -- the steps -------------------------------------------------------------------------------------------
    def _passages(self, nodes: Sequence[NodeWithScore], legs: dict[str, list[Score]] | None) -> list[Passage]:
        out: list[Passage] = []
        for n in nodes:
            node_id = n.node.node_id
            if self._fused:
                scores = (legs or {}).get(node_id, [])
                score: Score | None = max(scores, key=lambda s: s.unit()) if scores else None
            else:
                score = None if n.score is None else Score(float(n.score), self._score_kind)
            out.append(Passage(node_id, n.node.get_content(), score, metadata={"node": n}))
        return out

    def _retrieve(self, query: str) -> list[Passage]:
        token = _LEG_SCORES.set({})
        try:
            nodes = self._retriever.retrieve(QueryBundle(query))
            return self._passages(nodes, _LEG_SCORES.get())
        finally:
            _LEG_SCORES.reset(token)

    async def _aretrieve(self, query: str) -> list[Passage]:
        token = _LEG_SCORES.set({})
        try:
            nodes = await self._retriever.aretrieve(QueryBundle(query))
            return self._passages(nodes, _LEG_SCORES.get())
        finally:
            _LEG_SCORES.reset(token)

    def _nodes(self, decision: Decision) -> list[NodeWithScore]:
        if decision.route == "overview":
            return [NodeWithScore(node=TextNode(text=record_text(r), id_=r.id), score=None) for r in decision.records]
        return [p.metadata["node"] for p in decision.passages]

    def _call(self, bundle: QueryBundle, language: str, previous: str | None, answer: str | None) -> GuardedCall:
        """The guarded call owns the order (rules, overview, retrieval, the threshold); we retrieve."""
        return GuardedCall(
            bundle.query_str, language=language, previous=previous, previous_answer=answer, preflight=self._preflight
        )

    def _decided(self, call: GuardedCall) -> Decision:
        decision = call.decision
        assert decision is not None  # the call decided: it refused or handed out CallModel
        self._report(decision)
        return decision

    def _answer(
        self, bundle: QueryBundle, language: str, previous: str | None, answer: str | None = None
    ) -> RESPONSE_TYPE:
        call = self._call(bundle, language, previous, answer)
        action = screen_call(call, lambda query: self._retrieve(query))
        decision = self._decided(call)
        if isinstance(action, Refuse):
            return self._refusal(decision, streaming=False)
        response = self._synthesizer.synthesize(bundle, nodes=self._nodes(decision))
        response.decision = decision  # type: ignore[union-attr]
        return response

    async def _aanswer(
        self, bundle: QueryBundle, language: str, previous: str | None, answer: str | None = None
    ) -> RESPONSE_TYPE:
        call = self._call(bundle, language, previous, answer)
        action = await ascreen_call(call, lambda query: self._aretrieve(query))
        decision = self._decided(call)
        if isinstance(action, Refuse):
            return self._refusal(decision, streaming=True)
        response = await self._synthesizer.asynthesize(bundle, nodes=self._nodes(decision))
        response.decision = decision  # type: ignore[union-attr]
        return response

    def _report(self, decision: Decision) -> None:
        if decision.refused:
            dispatcher.event(GuardEvent(reasons=[decision.category or "refused"], notice=decision.text))
        if self._on_decision is not None:
            self._on_decision(decision)

    def _refusal(self, decision: Decision, *, streaming: bool) -> RESPONSE_TYPE:
        text = decision.text or ""
        metadata = {"sluicegate": decision.log()}
        response: RESPONSE_TYPE
        if not self._synthesizer._streaming:
            response = Response(response=text, source_nodes=[], metadata=metadata)
        elif streaming:
            response = GatedAsyncStreamingResponse(response_gen=_aone(text), source_nodes=[], metadata=metadata)
        else:
            response = GatedStreamingResponse(response_gen=_one(text), source_nodes=[], metadata=metadata)
        response.decision = decision  # type: ignore[union-attr]
        return response


def _declared(kind: ScoreKind | str) -> ScoreKind:
    return score_kind(kind)  # rrf / bm25_raw refused when the engine is built


def _one(text: str) -> Generator[str, None, None]:
    yield text


async def _aone(text: str) -> Any:
    yield text
