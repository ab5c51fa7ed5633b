"""`GatedSynthesizer`: a LlamaIndex response synthesizer whose streamed answer passes a gate first.

It numbers the retrieved texts [S1]..[Sn] in prompt order, hands the labelled texts to a single-call inner
synthesizer, builds the filter from the same texts, and gates what comes back: `response_gen` (sync) or the
async generator (async), closing the LLM stream on a stop. `source_nodes` stay the original nodes, so
`source_nodes[i-1]` is `[Si]`. The outcome is on the response as `response.guard` (filled in as it streams).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator, Sequence
from typing import Any

from llama_index.core.base.response.schema import RESPONSE_TYPE, AsyncStreamingResponse, Response, StreamingResponse
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]  # re-exported
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.prompts import BasePromptTemplate, ChatMessage, ChatPromptTemplate, MessageRole
from llama_index.core.prompts.default_prompt_selectors import DEFAULT_TEXT_QA_PROMPT_SEL
from llama_index.core.response_synthesizers import BaseSynthesizer, CompactAndRefine, Refine, SimpleSummarize
from llama_index.core.response_synthesizers.base import QueryTextType
from llama_index.core.schema import NodeWithScore
from llama_index.core.types import RESPONSE_TEXT_TYPE

from sluicegate import Done, Outcome, UsageMeter, adrive_text, drive_text
from sluicegate.prompts import PromptSettings, settings_of, template_prompt
from sluicegate.sources import FilterFactory, gate_factory, marker, refusal_text

from .usage import Metered, install_provider_figures

dispatcher = get_dispatcher(__name__)


def gated_qa_template(
    *, gate: Any = None, settings: PromptSettings | None = None, language: str | None = None, subject: str | None = None
) -> ChatPromptTemplate:
    """sluicegate's system prompt (`sluicegate.prompts`) as a LlamaIndex QA template: the rules in the system
    message, the numbered sources (`{context_str}`) and the question (`{query_str}`) in the user message.
    `gate`/`settings`: the filter whose language and refusal token the prompt must name."""
    p = template_prompt(
        gate=gate, settings=settings, language=language, subject=subject, context="context_str", question="query_str"
    )
    return ChatPromptTemplate(
        message_templates=[
            ChatMessage(role=MessageRole.SYSTEM, content=p.system),
            ChatMessage(role=MessageRole.USER, content=p.user),
        ]
    )


GATED_QA_TEMPLATE = gated_qa_template()  # English, the gate's default token; GatedSynthesizer fits its own


_OUTCOME_KEY = "_sluicegate_outcome"


class MultiCallModeError(ValueError):
    """The inner synthesizer would make LLM calls the gate never sees (still generated, still billed)."""


class GuardEvent(BaseEvent):
    """Dispatched when the gate stops a stream: reason codes and the fixed notice, never the withheld text."""

    reasons: list[str]
    notice: str | None = None

    @classmethod
    def class_name(cls) -> str:
        return "SluicegateGuardEvent"


def _dispatch_guard(outcome: Outcome) -> None:
    guard = outcome.guard
    dispatcher.event(GuardEvent(reasons=list(guard.reasons) if guard else [], notice=guard.notice if guard else None))


def _closing(gen: Any) -> Iterator[str]:
    try:
        yield from gen
    finally:
        close = getattr(gen, "close", None)
        if callable(close):
            close()


class GatedStreamingResponse(StreamingResponse):
    """A `StreamingResponse` whose `response_gen` closes the gated stream (and so the LLM's) when the reader
    stops: each access returns a fresh wrapper over the one gated generator, so `for t in r.response_gen: break`
    ends the generation although the response still holds the stream. Stopping is for good; to read on later,
    keep the generator (`gen = r.response_gen`)."""

    @property  # type: ignore[override]
    def response_gen(self) -> Iterator[str]:
        return _closing(self._gated)

    @response_gen.setter
    def response_gen(self, gen: Any) -> None:
        self._gated = gen


class GatedAsyncStreamingResponse(AsyncStreamingResponse):
    """An `AsyncStreamingResponse` whose readers close the gated stream (and the LLM's) when they stop early:
    `aclose()` at once, an abandoned `async for ... break` when the loop finalises it. LlamaIndex's own
    generators would only drop theirs, leaving the LLM stream open while the response lives."""

    async def _yield_response(self) -> AsyncGenerator[str, None]:
        inner = super()._yield_response()
        try:
            async for text in inner:
                yield text
        finally:
            await inner.aclose()  # releases the response's lock
            aclose = getattr(self.response_gen, "aclose", None)
            if callable(aclose):
                await aclose()

    async def async_response_gen(self) -> AsyncGenerator[str, None]:
        inner = self._yield_response()
        try:
            async for text in inner:
                yield text
        finally:
            await inner.aclose()


def _closing_response(response: Any) -> Any:
    """LlamaIndex's streaming response as our closing subclass (same fields); anything else unchanged."""
    pairs: tuple[tuple[Any, Any], ...] = (
        (StreamingResponse, GatedStreamingResponse),
        (AsyncStreamingResponse, GatedAsyncStreamingResponse),
    )
    for base, ours in pairs:
        if isinstance(response, base) and not isinstance(response, ours):
            return ours(
                response_gen=response.response_gen,
                source_nodes=response.source_nodes,
                metadata=response.metadata,
                response_txt=response.response_txt,
            )
    return response


async def _aone(text: str) -> AsyncGenerator[str, None]:
    yield text


def _refused(response: Any, text: str, outcome: Outcome) -> Any:
    """Retrieval found nothing, so LlamaIndex answered without the LLM ("Empty Response"): show the gate's
    refusal instead, and record it as one (no LLM call, zero usage)."""
    outcome.events.append(Done("refused"))
    outcome.reason, outcome.released, outcome.usage = "refused", text, UsageMeter().usage
    if isinstance(response, Response):
        response.response = text
        return response
    if isinstance(response, AsyncStreamingResponse):
        return GatedAsyncStreamingResponse(response_gen=_aone(text), metadata=response.metadata)
    return GatedStreamingResponse(response_gen=(t for t in [text]), metadata=response.metadata)


class GatedSynthesizer(BaseSynthesizer):
    """Wrap `inner` (SimpleSummarize, or Compact/Refine whose texts fit one prompt; set `streaming` there).

    `filter_factory(texts)` builds the filter from the numbered texts (default: the `SentenceGate`). Modes that
    make several LLM calls are refused: at construction (tree summarize, accumulate, ...) or, for compact and
    refine, before any call when the texts would not fit one prompt. The prompt: an inner synthesizer left
    with LlamaIndex's default QA template gets sluicegate's (`gated_qa_template`, in the gate's language with
    its refusal token, `subject` named); `text_qa_template=` installs another; a template the inner was built
    with is kept.
    """

    def __init__(
        self,
        inner: BaseSynthesizer,
        *,
        filter_factory: FilterFactory | None = None,
        notice: str | None = None,
        text_qa_template: BasePromptTemplate | None = None,
        subject: str | None = None,
    ) -> None:
        if not isinstance(inner, (SimpleSummarize, Refine)):
            raise MultiCallModeError(
                f"{type(inner).__name__} makes LLM calls the gate cannot see; use a single-call mode: "
                "get_response_synthesizer(response_mode='simple_summarize' or 'compact', streaming=True)"
            )
        if getattr(inner, "_output_cls", None) is not None or getattr(inner, "_multimodal", False):
            raise ValueError("GatedSynthesizer gates text answers only (no output_cls, no multimodal synthesis)")
        super().__init__(
            llm=inner._llm,
            callback_manager=inner.callback_manager,
            prompt_helper=inner._prompt_helper,
            streaming=inner._streaming,
        )
        self._inner = inner
        self._filter_factory = filter_factory or gate_factory()
        self._notice = notice
        if text_qa_template is None and getattr(inner, "_text_qa_template", None) is DEFAULT_TEXT_QA_PROMPT_SEL:
            try:
                text_qa_template = gated_qa_template(settings=settings_of(self._filter_factory([])), subject=subject)
            except TypeError:  # a filter without a SentenceGate: no token or markers to promise
                text_qa_template = None
        if text_qa_template is not None:
            inner.update_prompts({"text_qa_template": text_qa_template})

    def _get_prompt_modules(self) -> dict[str, Any]:
        return {"inner": self._inner}

    def _get_prompts(self) -> dict[str, Any]:
        return {}

    def _update_prompts(self, prompts: Any) -> None:
        """Prompts live on the inner synthesizer (`inner:text_qa_template`)."""

    # -- numbering and the single-call check -------------------------------------------------------------------
    @staticmethod
    def _label(text_chunks: Sequence[str]) -> list[str]:
        return [f"{marker(i)} {text}" for i, text in enumerate(text_chunks, start=1)]

    def _check_single_call(self, query_str: str, labelled: Sequence[str]) -> None:
        inner = self._inner
        if isinstance(inner, CompactAndRefine):
            calls = len(inner._make_compact_text_chunks(query_str, labelled))
        elif isinstance(inner, Refine):
            qa = inner._text_qa_template.partial_format(query_str=query_str)
            calls = sum(len(inner._prompt_helper.repack(qa, [t], llm=inner._llm)) for t in labelled)
        else:  # SimpleSummarize truncates to one prompt
            calls = 1
        if calls > 1:
            raise MultiCallModeError(
                f"{type(inner).__name__} would make {calls} LLM calls for these {len(labelled)} texts; only the "
                "last would be gated, the others still generated and billed. Use response_mode="
                "'simple_summarize', fewer nodes (similarity_top_k) or smaller chunks."
            )

    def _prepare(
        self, query_str: str, text_chunks: Sequence[str], kwargs: dict[str, Any]
    ) -> tuple[list[str], Any, Outcome]:
        outcome = kwargs.pop(_OUTCOME_KEY, None) or Outcome()
        labelled = self._label(text_chunks)
        self._check_single_call(query_str, labelled)
        return labelled, self._filter_factory(list(text_chunks)), outcome

    def _gate(self, result: RESPONSE_TEXT_TYPE, filt: Any, outcome: Outcome) -> RESPONSE_TEXT_TYPE:
        """The inner result through the filter: a whole string at once, else its token stream (sync or async)."""
        if isinstance(result, str):
            return "".join(drive_text([result], filt, outcome=outcome, notice=self._notice, on_guard=_dispatch_guard))
        install_provider_figures()
        meter = UsageMeter()
        is_async = hasattr(result, "__aiter__")
        upstream = Metered(result if is_async else iter(result), meter)  # type: ignore[arg-type]  # a str stream
        run = adrive_text if is_async else drive_text
        return run(upstream, filt, meter=meter, outcome=outcome, notice=self._notice, on_guard=_dispatch_guard)

    def _refusal(self, response: Any, outcome: Outcome) -> Any:
        return _refused(response, refusal_text(self._filter_factory([])), outcome)

    # -- BaseSynthesizer -------------------------------------------------------------------------------------
    def get_response(self, query_str: str, text_chunks: Sequence[str], **response_kwargs: Any) -> RESPONSE_TEXT_TYPE:
        labelled, filt, outcome = self._prepare(query_str, text_chunks, response_kwargs)
        return self._gate(self._inner.get_response(query_str, labelled, **response_kwargs), filt, outcome)

    async def aget_response(
        self, query_str: str, text_chunks: Sequence[str], **response_kwargs: Any
    ) -> RESPONSE_TEXT_TYPE:
        labelled, filt, outcome = self._prepare(query_str, text_chunks, response_kwargs)
        return self._gate(await self._inner.aget_response(query_str, labelled, **response_kwargs), filt, outcome)

    def synthesize(
        self,
        query: QueryTextType,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
        **response_kwargs: Any,
    ) -> RESPONSE_TYPE:
        outcome = Outcome()
        response = super().synthesize(
            query, nodes, additional_source_nodes, **{_OUTCOME_KEY: outcome}, **response_kwargs
        )
        response = self._refusal(response, outcome) if not nodes else _closing_response(response)
        response.guard = outcome  # filled in as the answer streams
        return response

    async def asynthesize(
        self,
        query: QueryTextType,
        nodes: list[NodeWithScore],
        additional_source_nodes: Sequence[NodeWithScore] | None = None,
        **response_kwargs: Any,
    ) -> RESPONSE_TYPE:
        outcome = Outcome()
        response = await super().asynthesize(
            query, nodes, additional_source_nodes, **{_OUTCOME_KEY: outcome}, **response_kwargs
        )
        response = self._refusal(response, outcome) if not nodes else _closing_response(response)
        response.guard = outcome
        return response
