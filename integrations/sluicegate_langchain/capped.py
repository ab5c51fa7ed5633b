"""`SourceGate(..., cap=CallBudget(...))`: the spend cap before the model call, settled after it.

Why here and how: the reservation needs the exact prompt, so the gate formats it with the `bound`'s own steps
before the model (the same template and input the model run gets), reserves its upper bound, and only then
starts the model. Refused: the reader gets the cap's fixed notice as the one chunk, the model is never called,
and `on_outcome` sees reason "monthly_limit". Admitted: the model run reports to a `UsageCallbackHandler` of
our own, and its record (the provider's figures, or one token per UTF-8 byte of what was received) settles the
reservation when the stream ends, however it ends: complete, stopped by the gate, closed by the reader, failed.

This class extends `runnables.SourceGate` (same name, `cap=None` behaves exactly like it) so the cap can be
merged into the base class later without changing user code.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from contextlib import aclosing
from typing import Any, cast

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.language_models import BaseLanguageModel
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig, RunnableSequence
from langchain_core.runnables.fallbacks import RunnableWithFallbacks

from sluicegate import GuardedCall, Refuse, Usage, areserve_call, asettling, reserve_call, settling
from sluicegate.budget import CallBudget

from .callbacks import UsageCallbackHandler
from .runnables import SourceGate as _SourceGate
from .runnables import _ModelRuns

MAX_TOKEN_FIELDS = ("max_tokens", "max_completion_tokens", "max_output_tokens", "num_predict")


def _models(runnable: Any) -> list[BaseLanguageModel[Any]]:
    """The model object(s) `runnable` ends at (through sequences, bindings, fallbacks)."""
    if isinstance(runnable, BaseLanguageModel):
        return [runnable]
    if isinstance(runnable, RunnableSequence):
        return _models(runnable.last)
    if isinstance(runnable, RunnableBinding):
        return _models(runnable.bound)
    if isinstance(runnable, RunnableWithFallbacks):
        return [m for r in (runnable.runnable, *runnable.fallbacks) for m in _models(r)]
    return []


def check_output_cap(bound: Any, budget: CallBudget) -> None:
    """Refuse a model configured to generate more than the budget reserves (where the model says how much).

    A model with no such field (a custom one) is the app's word; one with the field unset (None: the
    provider's maximum) or above the budget would make the reservation no bound at all.
    """
    for model in _models(bound):
        for name in MAX_TOKEN_FIELDS:
            if name in type(model).model_fields:
                value = getattr(model, name)
                if value is None or value > budget.max_output_tokens:
                    raise ValueError(
                        f"{type(model).__name__}.{name} is {value!r} but the cap reserves "
                        f"{budget.max_output_tokens} output tokens: set {name}={budget.max_output_tokens} on the model"
                    )


def _prompt_head(bound: Runnable[Any, Any]) -> Runnable[Any, Any] | None:
    if isinstance(bound, RunnableSequence):
        steps = bound.steps[:-1]
        return steps[0] if len(steps) == 1 else RunnableSequence(*steps)
    return None


def _messages(value: Any) -> Any:
    return value.to_messages() if isinstance(value, PromptValue) else value


def _usage(handler: UsageCallbackHandler) -> Usage | None:
    """The model run(s)' usage: one run normally; fallbacks or retries add up."""
    runs = [r.usage for r in handler.runs]
    if not runs:
        return None
    inputs = [u.input_tokens for u in runs]
    return Usage(
        output_tokens=sum(u.output_tokens for u in runs),
        input_tokens=None if any(i is None for i in inputs) else sum(i or 0 for i in inputs),
        source="provider" if all(u.source == "provider" for u in runs) else "estimate",
        received_chars=sum(u.received_chars for u in runs),
        received_bytes=sum(u.received_bytes for u in runs),
        pieces=sum(u.pieces for u in runs),
    )


class SourceGate(_SourceGate):
    """`runnables.SourceGate` plus `cap=`: a `CallBudget` reserved before each model call (see module doc)."""

    def __init__(self, bound: Runnable[Any, Any], *, cap: CallBudget | None = None, **kwargs: Any) -> None:
        super().__init__(bound, **kwargs)
        if cap is not None:
            if not isinstance(cap, CallBudget):
                raise TypeError(f"cap must be a sluicegate.budget.CallBudget, got {type(cap).__name__}")
            check_output_cap(bound, cap)
        self.cap = cap
        self._head = _prompt_head(self.bound)  # the bound with its prompt (sluicegate's, for a bare model)

    def _prompt(self, prompt_input: Mapping[str, Any]) -> Any:
        return _messages(self._head.invoke(prompt_input)) if self._head is not None else prompt_input

    async def _aprompt(self, prompt_input: Mapping[str, Any]) -> Any:
        return _messages(await self._head.ainvoke(prompt_input)) if self._head is not None else prompt_input

    def _refuse(self, call: GuardedCall, action: Refuse) -> str:
        self._finish(call.outcome)
        return action.text

    def _metered(self, config: RunnableConfig, run_manager: Any, runs: _ModelRuns | None = None) -> Any:
        child = self._child_config(config, run_manager, runs)
        handler = UsageCallbackHandler()
        callbacks = child.get("callbacks")
        assert isinstance(callbacks, BaseCallbackManager)  # _child_config builds a manager
        callbacks.add_handler(handler, inherit=True)
        return child, handler

    def _gate(self, inputs: Iterator[Mapping[str, Any]], run_manager: Any, config: RunnableConfig) -> Iterator[str]:
        if self.cap is None:
            yield from super()._gate(inputs, run_manager, config)
            return
        prompt_input, filt = self._prepare(next(inputs))
        call = GuardedCall(budget=self.cap)  # owns the order: reserve, the model, settle on every end
        action = reserve_call(call, self._prompt(prompt_input))
        if isinstance(action, Refuse):
            yield self._refuse(call, action)
            return
        child, handler = self._metered(config, run_manager)
        call.open(filt)
        with settling(call, lambda: _usage(handler)):
            yield from self._run(self.bound.stream(prompt_input, child), call, config, call.outcome)

    async def _agate(
        self, inputs: AsyncIterator[Mapping[str, Any]], run_manager: Any, config: RunnableConfig
    ) -> AsyncIterator[str]:
        if self.cap is None:
            async with aclosing(cast(AsyncGenerator[str, None], super()._agate(inputs, run_manager, config))) as chunks:
                async for chunk in chunks:
                    yield chunk
            return
        prompt_input, filt = self._prepare(await inputs.__anext__())
        call = GuardedCall(budget=self.cap)
        action = await areserve_call(call, await self._aprompt(prompt_input))
        if isinstance(action, Refuse):
            yield self._refuse(call, action)
            return
        runs = _ModelRuns()
        child, handler = self._metered(config, run_manager, runs)
        call.open(filt)
        # Settled when the model run has closed (`_astream_model` waits for it, so its record is complete), off
        # the loop (blocking store I/O) and shielded: a cancelled reader must not cancel the settle.
        model = self._astream_model(prompt_input, call, config, child, runs, call.outcome)
        async with asettling(call, lambda: _usage(handler)), aclosing(model) as chunks:
            async for chunk in chunks:
                yield chunk
