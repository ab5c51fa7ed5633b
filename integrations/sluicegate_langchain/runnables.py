"""The gate as LCEL Runnables that close the model stream on a stop.

Not built on `RunnableGenerator` or `BaseTransformOutputParser`: their wrapper keeps pulling (and the provider
keeps generating and billing) the rest of the model output after the transformer stops. `SourceGate` owns the
model call instead; `GateStep` has a raw `transform` that closes its input, so it must sit directly after the
chat model (after a `StrOutputParser`, a sync stop can no longer cancel the model).
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Callable, Iterator, Mapping, Sequence

from langchain_core.callbacks import adispatch_custom_event, dispatch_custom_event
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import ensure_config, patch_config

from sluicegate import Outcome, StreamFilter, adrive_text, drive_text
from sluicegate.sources import FilterFactory, format_sources, gate_factory, source_texts

from ._chunks import text_of, usage_of

DEFAULT_UNVERIFIED_TAG = "gate:unverified"
OnOutcome = Callable[[Outcome], None]


def _guard_payload(outcome: Outcome) -> dict[str, Any]:
    """The `guard` custom event: reason codes and the fixed notice, never the withheld text."""
    guard = outcome.guard
    return {"reasons": list(guard.reasons) if guard else [], "notice": guard.notice if guard else None}


def _dispatch_guard(outcome: Outcome, config: RunnableConfig) -> None:
    try:
        dispatch_custom_event("guard", _guard_payload(outcome), config=config)
    except RuntimeError:  # no run to attach the event to (called outside any traced run): the notice still shows
        pass


async def _adispatch_guard(outcome: Outcome, config: RunnableConfig) -> None:
    try:
        await adispatch_custom_event("guard", _guard_payload(outcome), config=config)
    except RuntimeError:
        pass


async def _aone(value: Any) -> AsyncIterator[Any]:
    yield value


class SourceGate(Runnable[Mapping[str, Any], str]):
    """Runs `bound` (a chat model, or `prompt | model`) and streams only the text the gate released.

    Input: the chain's dict, with the passages under `sources_key` (`str`s or `Document`s, in retrieval order).
    They are numbered once: the prompt gets `context_key` = "[S1] ...\\n\\n[S2] ...", and the filter is built
    by `filter_factory(texts)` from the same list (default: the `SentenceGate`). On a stop, the model stream is
    closed, a `guard` custom event is dispatched, and the notice is the last chunk. `bound` must end at the
    model: a parser inside it would drain the model after a stop.
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
    ) -> None:
        self.bound = bound
        self.sources_key = sources_key
        self.context_key = context_key
        self.filter_factory = filter_factory or gate_factory()
        self.notice = notice
        self.unverified_tag = unverified_tag
        self.on_outcome = on_outcome
        self.name = name or "SourceGate"

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

    def _finish(self, outcome: Outcome) -> None:
        if self.on_outcome is not None and outcome.reason is not None:
            self.on_outcome(outcome)

    def _child_config(self, config: RunnableConfig, run_manager: Any) -> RunnableConfig:
        """The model runs as our child, tagged (inheritably) so UIs can drop its raw, unverified tokens."""
        child = patch_config(config, callbacks=run_manager.get_child())
        child["tags"] = [*child.get("tags", []), self.unverified_tag]
        return child

    # -- sync ----------------------------------------------------------------------------------------------
    def invoke(self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> str:
        """Streams the model underneath, so a stop cancels the generation even here."""
        return "".join(self.stream(input, config, **kwargs))

    def stream(
        self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[str]:
        yield from self._transform_stream_with_config(iter([input]), self._gate, config, **kwargs)

    def _gate(self, inputs: Iterator[Mapping[str, Any]], run_manager: Any, config: RunnableConfig) -> Iterator[str]:
        prompt_input, filt = self._prepare(next(inputs))
        child = self._child_config(config, run_manager)
        outcome = Outcome()
        try:
            yield from drive_text(
                self.bound.stream(prompt_input, child),
                filt,
                text_of=text_of,
                usage_of=usage_of,
                outcome=outcome,
                notice=self.notice,
                on_guard=lambda o: _dispatch_guard(o, config),
            )
        finally:
            self._finish(outcome)

    # -- async ---------------------------------------------------------------------------------------------
    async def ainvoke(self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return "".join([chunk async for chunk in self.astream(input, config, **kwargs)])

    async def astream(
        self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[str]:
        async for chunk in self._atransform_stream_with_config(_aone(input), self._agate, config, **kwargs):
            yield chunk

    async def _agate(
        self, inputs: AsyncIterator[Mapping[str, Any]], run_manager: Any, config: RunnableConfig
    ) -> AsyncIterator[str]:
        prompt_input, filt = self._prepare(await inputs.__anext__())
        child = self._child_config(config, run_manager)
        outcome = Outcome()

        async def on_guard(o: Outcome) -> None:
            await _adispatch_guard(o, config)

        try:
            async for chunk in adrive_text(
                self.bound.astream(prompt_input, child),
                filt,
                text_of=text_of,
                usage_of=usage_of,
                outcome=outcome,
                notice=self.notice,
                on_guard=on_guard,
            ):
                yield chunk
        finally:
            self._finish(outcome)


class GateStep(Runnable[Any, str]):
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
        self.sources = sources
        self.filter_factory = filter_factory or gate_factory()
        self.configurable_key = configurable_key
        self.notice = notice
        self.on_outcome = on_outcome
        self.name = name or "GateStep"

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

    def _finish(self, outcome: Outcome) -> None:
        if self.on_outcome is not None and outcome.reason is not None:
            self.on_outcome(outcome)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return "".join(self.transform(iter([input]), config, **kwargs))

    def stream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[str]:
        yield from self.transform(iter([input]), config, **kwargs)

    def transform(self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[str]:
        config = ensure_config(config)
        outcome = Outcome()
        try:
            yield from drive_text(
                input,
                self._filter(config),
                text_of=text_of,
                usage_of=usage_of,
                outcome=outcome,
                notice=self.notice,
                on_guard=lambda o: _dispatch_guard(o, config),
            )
        finally:
            self._finish(outcome)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return "".join([chunk async for chunk in self.astream(input, config, **kwargs)])

    async def astream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> AsyncIterator[str]:
        async for chunk in self.atransform(_aone(input), config, **kwargs):
            yield chunk

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[str]:
        config = ensure_config(config)
        outcome = Outcome()

        async def on_guard(o: Outcome) -> None:
            await _adispatch_guard(o, config)

        try:
            async for chunk in adrive_text(
                input,
                self._filter(config),
                text_of=text_of,
                usage_of=usage_of,
                outcome=outcome,
                notice=self.notice,
                on_guard=on_guard,
            ):
                yield chunk
        finally:
            self._finish(outcome)
