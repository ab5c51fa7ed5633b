"""The gate as LCEL Runnables that close the model stream on a stop.

Not built on `RunnableGenerator` or `BaseTransformOutputParser`: their wrapper keeps pulling (and the provider
keeps generating and billing) the rest of the model output after the transformer stops. `SourceGate` owns the
model call instead; `GateStep` has a raw `transform` that closes its input, so it must sit directly after the
chat model (after a `StrOutputParser`, a sync stop can no longer cancel the model).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import aclosing, suppress
from typing import Any, cast
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler, adispatch_custom_event, dispatch_custom_event
from langchain_core.language_models import BaseLanguageModel
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig, RunnableSequence
from langchain_core.runnables.config import ensure_config, patch_config
from langchain_core.runnables.fallbacks import RunnableWithFallbacks

from sluicegate import Outcome, StreamFilter, adrive_text, drive_text
from sluicegate.prompts import settings_of
from sluicegate.sources import FilterFactory, format_sources, gate_factory, source_texts

from ._chunks import text_of, usage_of
from .prompt import gated_prompt

DEFAULT_UNVERIFIED_TAG = "gate:unverified"
DEFAULT_PROMPT: Any = object()  # SourceGate(prompt=...): sluicegate's prompt in front of a bare model
OnOutcome = Callable[[Outcome], None]


def _guard_payload(outcome: Outcome) -> dict[str, Any]:
    """The `guard` custom event: reason codes and the fixed notice, never the withheld text."""
    guard = outcome.guard
    return {"reasons": list(guard.reasons) if guard else [], "notice": guard.notice if guard else None}


def _dispatch_guard(outcome: Outcome, config: RunnableConfig) -> None:
    # RuntimeError: no run to attach the event to (called outside any traced run): the notice still shows
    with suppress(RuntimeError):
        dispatch_custom_event("guard", _guard_payload(outcome), config=config)


async def _adispatch_guard(outcome: Outcome, config: RunnableConfig) -> None:
    with suppress(RuntimeError):
        await adispatch_custom_event("guard", _guard_payload(outcome), config=config)


def _ends_at_model(runnable: Any) -> bool:
    """True if the last step of `runnable` is a language model (through bind/with_config/fallbacks)."""
    if isinstance(runnable, BaseLanguageModel):
        return True
    if isinstance(runnable, RunnableSequence):
        return _ends_at_model(runnable.last)
    if isinstance(runnable, RunnableBinding):
        return _ends_at_model(runnable.bound)
    if isinstance(runnable, RunnableWithFallbacks):
        return all(_ends_at_model(r) for r in (runnable.runnable, *runnable.fallbacks))
    return False


def _require_model_last(bound: Any) -> None:
    if not _ends_at_model(bound):
        last = bound.last if isinstance(bound, RunnableSequence) else bound
        raise TypeError(
            f"SourceGate's bound must end at the chat model (a model, or prompt | model), not at "
            f"{type(last).__name__}: a step after the model keeps reading it after a sync stop, so the provider "
            "generates and bills the rest. Drop the StrOutputParser (SourceGate emits strings), or use "
            "GateStep right after the model."
        )


def _bare_model(runnable: Any) -> bool:
    """A model with no prompt in front (through bind/with_config/fallbacks)."""
    if isinstance(runnable, BaseLanguageModel):
        return True
    if isinstance(runnable, RunnableBinding):
        return _bare_model(runnable.bound)
    if isinstance(runnable, RunnableWithFallbacks):
        return all(_bare_model(r) for r in (runnable.runnable, *runnable.fallbacks))
    return False


def _default_prompt(
    bound: Any, factory: FilterFactory, context_key: str, question_key: str, subject: str | None
) -> Any:
    """sluicegate's prompt for a bare model, from the gate's settings; None when `bound` has a prompt of its
    own or the filter holds no SentenceGate (no token or markers to promise)."""
    if not _bare_model(bound):
        return None
    try:
        settings = settings_of(factory([]))
    except TypeError:
        return None
    return gated_prompt(settings=settings, subject=subject, context_key=context_key, question_key=question_key)


class _ModelRuns(BaseCallbackHandler):
    """Tracks the model runs under one SourceGate call, so its async path can wait for them to close.

    In async, closing `bound.astream(...)` closes only LangChain's outermost generator; the model's own
    generator (and with it `on_llm_error`, hence any usage handler's record) is closed when the event loop
    finalises the inner ones, a few turns later. Waiting for that here means the record exists by the time
    the consumer's loop ends.
    """

    run_inline = True  # called in the event loop's thread, not an executor

    def __init__(self) -> None:
        self.open: set[UUID] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    def _start(self, run_id: UUID) -> None:
        self.open.add(run_id)
        self._idle.clear()

    def _end(self, run_id: UUID) -> None:
        self.open.discard(run_id)
        if not self.open:
            self._idle.set()

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._start(run_id)

    def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._start(run_id)

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id)

    async def closed(self, timeout: float) -> None:
        if self.open:
            with suppress(asyncio.TimeoutError):  # a model generator held elsewhere: do not hang the caller
                await asyncio.wait_for(self._idle.wait(), timeout)


async def _aone(value: Any) -> AsyncIterator[Any]:
    yield value


class _Gating:
    """What both runnables do with an upstream once they have a filter: drive it, dispatch `guard`, report."""

    name: str | None  # Runnable's attribute, always set here

    def __init__(
        self, *, filter_factory: FilterFactory | None, notice: str | None, on_outcome: OnOutcome | None, name: str
    ) -> None:
        super().__init__()
        self.filter_factory = filter_factory or gate_factory()
        self.notice = notice
        self.on_outcome = on_outcome
        self.name = name

    def _finish(self, outcome: Outcome) -> None:
        if self.on_outcome is not None and outcome.reason is not None:
            self.on_outcome(outcome)

    def _options(self, outcome: Outcome, on_guard: Callable[[Outcome], Any]) -> dict[str, Any]:
        """The driver settings both directions share: how to read LangChain chunks, the notice, the callbacks."""
        return {
            "text_of": text_of,
            "usage_of": usage_of,
            "outcome": outcome,
            "notice": self.notice,
            "on_guard": on_guard,
        }

    def _run(
        self, upstream: Iterator[Any], filt: StreamFilter, config: RunnableConfig, outcome: Outcome | None = None
    ) -> Iterator[str]:
        outcome = outcome if outcome is not None else Outcome()
        try:
            yield from drive_text(upstream, filt, **self._options(outcome, lambda o: _dispatch_guard(o, config)))
        finally:
            self._finish(outcome)

    async def _arun(
        self, upstream: AsyncIterator[Any], filt: StreamFilter, config: RunnableConfig, outcome: Outcome | None = None
    ) -> AsyncGenerator[str, None]:
        outcome = outcome if outcome is not None else Outcome()

        async def on_guard(o: Outcome) -> None:
            await _adispatch_guard(o, config)

        chunks = adrive_text(upstream, filt, **self._options(outcome, on_guard))
        try:
            async with aclosing(chunks):  # closing us closes the driver, hence the model stream, at once
                async for chunk in chunks:
                    yield chunk
        finally:
            self._finish(outcome)


class SourceGate(_Gating, Runnable[Mapping[str, Any], str]):
    """Runs `bound` (a chat model, or `prompt | model`) and streams only the text the gate released.

    Input: the chain's dict, with the passages under `sources_key` (`str`s or `Document`s, in retrieval order).
    They are numbered once: the prompt gets `context_key` = "[S1] ...\\n\\n[S2] ...", and the filter is built
    by `filter_factory(texts)` from the same list (default: the `SentenceGate`). On a stop, the model stream is
    closed, a `guard` custom event is dispatched, and the notice is the last chunk. `bound` must end at the
    model (checked: a parser inside it would drain the model after a stop; `TypeError` otherwise). In async,
    the stream ends only once the model run has closed (at most `close_wait` seconds), so a usage handler
    already holds its record when the consumer's loop ends. A bare model (no prompt in `bound`) gets
    sluicegate's prompt in front (`gated_prompt`, in the gate's language with its refusal token, reading
    `context_key` and `question_key`); `prompt=` puts another in front, `prompt=None` none.
    """

    def __init__(
        self,
        bound: Runnable[Any, Any],
        *,
        sources_key: str = "sources",
        context_key: str = "context",
        filter_factory: FilterFactory | None = None,
        notice: str | None = None,
        unverified_tag: str = DEFAULT_UNVERIFIED_TAG,
        on_outcome: OnOutcome | None = None,
        name: str | None = None,
        close_wait: float = 1.0,
        prompt: Any = DEFAULT_PROMPT,
        question_key: str = "question",
        subject: str | None = None,
    ) -> None:
        _require_model_last(bound)
        self.close_wait = close_wait
        super().__init__(filter_factory=filter_factory, notice=notice, on_outcome=on_outcome, name=name or "SourceGate")
        if prompt is DEFAULT_PROMPT:
            prompt = _default_prompt(bound, self.filter_factory, context_key, question_key, subject)
        self.bound = bound if prompt is None else prompt | bound
        self.sources_key = sources_key
        self.context_key = context_key
        self.unverified_tag = unverified_tag

    @property
    def InputType(self) -> type:  # noqa: N802 - LangChain's name
        return dict

    @property
    def OutputType(self) -> type:  # noqa: N802
        return str

    def _prepare(self, inp: Any) -> tuple[dict[str, Any], StreamFilter]:
        if not isinstance(inp, Mapping):
            raise TypeError(f"SourceGate takes the chain's input dict, got {type(inp).__name__}")
        if self.sources_key not in inp:
            raise ValueError(
                f"SourceGate input has no {self.sources_key!r}: add the passages, e.g. "
                f"RunnablePassthrough.assign({self.sources_key}=retriever)"
            )
        texts = source_texts(inp[self.sources_key])
        return {**inp, self.context_key: format_sources(texts)}, self.filter_factory(texts)

    def _child_config(self, config: RunnableConfig, run_manager: Any, runs: _ModelRuns | None = None) -> RunnableConfig:
        """The model runs as our child, tagged (inheritably) so UIs can drop its raw, unverified tokens."""
        callbacks = run_manager.get_child()
        if runs is not None:
            callbacks.add_handler(runs, inherit=True)
        child = patch_config(config, callbacks=callbacks)
        child["tags"] = [*child.get("tags", []), self.unverified_tag]
        return child

    # -- sync ----------------------------------------------------------------------------------------------
    def invoke(self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> str:
        """Streams the model underneath, so a stop cancels the generation even here."""
        return "".join(self.stream(input, config, **kwargs))

    def stream(self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[str]:
        yield from self._transform_stream_with_config(iter([input]), self._gate, config, **kwargs)

    def _gate(self, inputs: Iterator[Mapping[str, Any]], run_manager: Any, config: RunnableConfig) -> Iterator[str]:
        prompt_input, filt = self._prepare(next(inputs))
        yield from self._run(self.bound.stream(prompt_input, self._child_config(config, run_manager)), filt, config)

    # -- async ---------------------------------------------------------------------------------------------
    async def ainvoke(self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return "".join([chunk async for chunk in self.astream(input, config, **kwargs)])

    async def astream(
        self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[str]:
        # aclosing: a consumer's aclose() must reach _agate now (and wait for the model), not when finalised
        stream = self._atransform_stream_with_config(_aone(input), self._agate, config, **kwargs)
        async with aclosing(cast(AsyncGenerator[str, None], stream)) as it:
            async for chunk in it:
                yield chunk

    async def atransform(
        self, input: AsyncIterator[Mapping[str, Any]], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[str]:
        """LangChain's default reads `astream` with a bare `async for`, leaving it to the loop's finaliser when
        its reader leaves (inside `RunnableParallel`/`assign`): close it at once instead."""
        last: Any = None
        async for item in input:
            last = item if last is None or not isinstance(item, Mapping) else {**last, **item}
        if last is None:
            return
        stream: Any = self.astream(last, config, **kwargs)  # an async generator: it has aclose()
        async with aclosing(stream) as it:
            async for chunk in it:
                yield chunk

    async def _agate(
        self, inputs: AsyncIterator[Mapping[str, Any]], run_manager: Any, config: RunnableConfig
    ) -> AsyncIterator[str]:
        prompt_input, filt = self._prepare(await inputs.__anext__())
        runs = _ModelRuns()
        child = self._child_config(config, run_manager, runs)
        async with aclosing(self._astream_model(prompt_input, filt, config, child, runs)) as chunks:
            async for chunk in chunks:
                yield chunk

    async def _astream_model(
        self,
        prompt_input: Mapping[str, Any],
        filt: StreamFilter,
        config: RunnableConfig,
        child: RunnableConfig,
        runs: _ModelRuns,
        outcome: Outcome | None = None,
    ) -> AsyncGenerator[str, None]:
        """The gated model stream; it ends only once the model run has closed (see the class doc), so what
        the run's handlers record (usage) is there when the caller's loop ends."""
        try:
            upstream = self.bound.astream(prompt_input, child)
            async with aclosing(self._arun(upstream, filt, config, outcome)) as chunks:
                async for chunk in chunks:
                    yield chunk
        finally:
            await runs.closed(self.close_wait)


class GateStep(_Gating, Runnable[Any, str]):
    """A step placed directly after a chat model: `prompt | model | GateStep(sources=[...])`.

    Sources come from `config["configurable"][configurable_key]` when given there (per request), else from the
    constructor. Replace `StrOutputParser` with it rather than following one: after a parser, a sync stop
    cannot cancel the model. It has no traced run of its own (a traced wrapper would drain the model when the
    consumer stops); its `guard` event belongs to the enclosing chain's run.
    """

    def __init__(
        self,
        sources: Sequence[Any] | None = None,
        *,
        filter_factory: FilterFactory | None = None,
        configurable_key: str = "gate_sources",
        notice: str | None = None,
        on_outcome: OnOutcome | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(filter_factory=filter_factory, notice=notice, on_outcome=on_outcome, name=name or "GateStep")
        self.sources = sources
        self.configurable_key = configurable_key

    @property
    def OutputType(self) -> type:  # noqa: N802
        return str

    def _filter(self, config: RunnableConfig) -> StreamFilter:
        sources = config.get("configurable", {}).get(self.configurable_key, self.sources)
        if sources is None:
            raise ValueError(
                f"GateStep has no sources: pass GateStep(sources=[...]) or "
                f"config={{'configurable': {{{self.configurable_key!r}: [...]}}}}"
            )
        return self.filter_factory(source_texts(sources))

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return "".join(self.transform(iter([input]), config, **kwargs))

    def stream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[str]:
        yield from self.transform(iter([input]), config, **kwargs)

    def transform(self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[str]:
        config = ensure_config(config)
        yield from self._run(input, self._filter(config), config)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return "".join([chunk async for chunk in self.astream(input, config, **kwargs)])

    async def astream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> AsyncIterator[str]:
        async for chunk in self.atransform(_aone(input), config, **kwargs):
            yield chunk

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[str]:
        config = ensure_config(config)
        async with aclosing(self._arun(input, self._filter(config), config)) as chunks:
            async for chunk in chunks:
                yield chunk
