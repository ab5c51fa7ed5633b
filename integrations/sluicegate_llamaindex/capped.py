"""`GatedSynthesizer(inner, cap=CallBudget(...))`: the spend cap before the LLM call, settled when it ends.

Why before `inner`: the inner synthesizer calls the LLM, so the reservation must be made first. Its prompt is
bounded from the inner's own QA template filled with *all* the labelled texts (truncation and compaction only
remove text) and the query, plus the LLM's system prompt and completion wrapper where it has them: over, never
under, what is sent. Refused: the reader gets the cap's fixed notice, the LLM is never called, and
`response.guard` says `reason == "refused"`, `violations == ("monthly_limit",)`. Admitted: the reservation is
settled from the gated stream's meter (provider figures where LlamaIndex passed them on, else one token per
UTF-8 byte received) when the stream ends however it ends; a non-streaming answer settles at once. A stream
that is never read holds its reservation until the TTL.

This class extends `synthesizer.GatedSynthesizer` (same name; `cap=None` behaves exactly like it).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Sequence
from typing import Any

from llama_index.core.response_synthesizers import BaseSynthesizer
from llama_index.core.types import RESPONSE_TEXT_TYPE

from sluicegate import (
    GuardedCall,
    Outcome,
    Refuse,
    areserve_call,
    asettle_call,
    asettling,
    reserve_call,
    settle_call,
    settling,
)
from sluicegate.budget import CallBudget
from sluicegate.sources import FilterFactory

from .synthesizer import GatedSynthesizer as _GatedSynthesizer


def _settled_after(gen: Iterator[str], call: GuardedCall, outcome: Outcome) -> Generator[str, None, None]:
    with settling(call, lambda: outcome.usage):  # read once the gated stream has closed the LLM stream
        try:
            yield from gen
        finally:
            close = getattr(gen, "close", None)
            if callable(close):
                close()  # the gated stream closes the LLM stream and fills the outcome's usage


async def _asettled_after(gen: AsyncIterator[str], call: GuardedCall, outcome: Outcome) -> AsyncGenerator[str, None]:
    async with asettling(call, lambda: outcome.usage):
        try:
            async for text in gen:
                yield text
        finally:
            aclose = getattr(gen, "aclose", None)
            if callable(aclose):
                await aclose()


def _one(text: str) -> Generator[str, None, None]:
    yield text  # LlamaIndex wants a generator, not any iterator


async def _aone(text: str) -> AsyncGenerator[str, None]:
    yield text


class GatedSynthesizer(_GatedSynthesizer):
    """`synthesizer.GatedSynthesizer` plus `cap=`: a `CallBudget` reserved before each LLM call."""

    def __init__(
        self,
        inner: BaseSynthesizer,
        *,
        filter_factory: FilterFactory | None = None,
        notice: str | None = None,
        cap: CallBudget | None = None,
        **prompt_options: Any,  # text_qa_template=, subject= (see synthesizer.GatedSynthesizer)
    ) -> None:
        super().__init__(inner, filter_factory=filter_factory, notice=notice, **prompt_options)
        if cap is not None and not isinstance(cap, CallBudget):
            raise TypeError(f"cap must be a sluicegate.budget.CallBudget, got {type(cap).__name__}")
        self._cap = cap

    def prompt_bound_text(self, query_str: str, labelled: Sequence[str]) -> list[str]:
        """What the reservation counts: the system prompt (if any) and the filled QA template, wrapped."""
        inner = self._inner
        text = inner._text_qa_template.format(
            llm=inner._llm, query_str=query_str, context_str="\n\n".join(labelled)
        )  # llm=: a selector template picks the chat or completion variant the call will use
        wrap = getattr(inner._llm, "completion_to_prompt", None)
        if callable(wrap):
            text = max(text, str(wrap(text)), key=len)
        system = getattr(inner._llm, "system_prompt", None)
        return [system, text] if system else [text]

    def _over_cap(self, action: Refuse, is_async: bool) -> RESPONSE_TEXT_TYPE:
        if not self._streaming:
            return action.text
        return _aone(action.text) if is_async else _one(action.text)

    def _settled(self, result: RESPONSE_TEXT_TYPE, call: GuardedCall, outcome: Outcome) -> RESPONSE_TEXT_TYPE:
        if isinstance(result, str):
            settle_call(call, usage=outcome.usage)
            return result
        if hasattr(result, "__aiter__"):
            return _asettled_after(result, call, outcome)  # type: ignore[arg-type]
        return _settled_after(result, call, outcome)  # type: ignore[arg-type]

    def get_response(self, query_str: str, text_chunks: Sequence[str], **response_kwargs: Any) -> RESPONSE_TEXT_TYPE:
        if self._cap is None:
            return super().get_response(query_str, text_chunks, **response_kwargs)
        labelled, filt, outcome = self._prepare(query_str, text_chunks, response_kwargs)
        call = GuardedCall(budget=self._cap, outcome=outcome)  # owns the order; fills the response's outcome
        action = reserve_call(call, self.prompt_bound_text(query_str, labelled))
        if isinstance(action, Refuse):
            return self._over_cap(action, is_async=False)
        try:
            result = self._inner.get_response(query_str, labelled, **response_kwargs)
        except BaseException as exc:
            settle_call(call, error=exc)  # failed before a byte arrived: the prompt alone
            raise
        return self._settled(self._gate(result, filt, outcome), call, outcome)

    async def aget_response(
        self, query_str: str, text_chunks: Sequence[str], **response_kwargs: Any
    ) -> RESPONSE_TEXT_TYPE:
        if self._cap is None:
            return await super().aget_response(query_str, text_chunks, **response_kwargs)
        labelled, filt, outcome = self._prepare(query_str, text_chunks, response_kwargs)
        call = GuardedCall(budget=self._cap, outcome=outcome)
        action = await areserve_call(call, self.prompt_bound_text(query_str, labelled))
        if isinstance(action, Refuse):
            return self._over_cap(action, is_async=True)
        try:
            result = await self._inner.aget_response(query_str, labelled, **response_kwargs)
        except BaseException as exc:
            await asettle_call(call, error=exc)
            raise
        return self._settled(self._gate(result, filt, outcome), call, outcome)
