"""The spend cap in NeMo Guardrails: an input rail that reserves before NeMo calls the model, settled when the
stream ends.

Why an input rail: NeMo runs input rails before it generates, so a refusal there means no model call at all.
The `sluicegate spend cap` flow runs the `sluicegate_reserve` action, which reserves the request's messages
plus `prompt_allowance_tokens` for the text NeMo's own prompt template adds (instructions, "User:"/"Assistant:"
framing); `CappedLLM` then checks, at the real call, that the prompt NeMo built is within that bound and that it
is the only call (a second one, or a longer prompt, was never reserved: it fails closed with `UnreservedCall`).
Refused: the flow stops, and `guarded_stream` yields the cap's fixed notice as the only chunk (NeMo's streaming
handler would send nothing). With an app-owned `generator=` NeMo runs no input rails, so `guarded_stream`
reserves `prompt=` (the app's prompt; default: the messages) itself, before NeMo starts.

Settled from the session's meter when the stream ends, however it ends (complete, stopped, closed, failed).
"""

from __future__ import annotations

import json
import weakref
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from nemoguardrails import LLMRails, RailsConfig
from nemoguardrails.types import LLMResponseChunk

from sluicegate import (
    GuardedCall,
    Refuse,
    StreamFilter,
    areserve_call,
    asettle_call,
    reserve_call,
)
from sluicegate import UnreservedCall as UnreservedCall  # the core's: one class for every adapter
from sluicegate.budget import CallBudget, Reservation
from sluicegate.call import NO_USAGE
from sluicegate.host import aclose_now, notice

from .llm import GatedLLM
from .session import StreamSession, current_session
from .stream import GuardedStream
from .stream import guarded_stream as _guarded_stream

CAP_FLOW_NAME = "sluicegate spend cap"
CAP_ACTION_NAME = "sluicegate_reserve"
DEFAULT_PROMPT_ALLOWANCE = 2048  # tokens; NeMo 0.24's general prompt adds about 330 bytes to a one-turn chat

CAP_COLANG = f"""
# The spend cap (sluicegate.budget), as an input rail: refused, NeMo stops before any model call.
define subflow {CAP_FLOW_NAME}
  $sluicegate_cap = execute {CAP_ACTION_NAME}
  if not $sluicegate_cap.admitted
    $sluicegate_notice = $sluicegate_cap.notice
    create event StartUtteranceBotAction(script=$sluicegate_notice)
    stop
"""

NOTHING = NO_USAGE  # the usage settled when NeMo never called the model


@dataclass
class _Entry:
    """One request's budget state, keyed by its stream session: the guarded call that owns its reservation,
    its one model call and its settle."""

    budget: CallBudget
    messages: Any
    app_owned: bool = False  # generator= : the app calls the model, NeMo runs no input rail
    call: GuardedCall = field(init=False)

    def __post_init__(self) -> None:
        self.call = GuardedCall(budget=self.budget)

    @property
    def reservation(self) -> Reservation | None:
        return self.call.reservation


@dataclass(frozen=True)
class CapResult:
    """What the action returns to Colang (attribute access: `$sluicegate_cap.admitted`)."""

    admitted: bool
    notice: str


_ENTRIES: weakref.WeakKeyDictionary[StreamSession, _Entry] = weakref.WeakKeyDictionary()
_CAPS: weakref.WeakKeyDictionary[LLMRails, tuple[CallBudget, int]] = weakref.WeakKeyDictionary()


def cap_config(config: RailsConfig | None = None) -> RailsConfig:
    """A config with the spend-cap input rail (amends `config` if given; combine with `sluicegate_config`)."""
    yaml = json.dumps({"rails": {"input": {"flows": [CAP_FLOW_NAME]}}})
    ours = RailsConfig.from_content(colang_content=CAP_COLANG, yaml_content=yaml)
    return ours if config is None else ours + config  # config last: its settings (streaming) win


def install_cap(rails: LLMRails, cap: CallBudget, *, prompt_allowance_tokens: int = DEFAULT_PROMPT_ALLOWANCE) -> None:
    """Register the `sluicegate_reserve` action with `cap` on `rails` (its config must list the flow)."""
    if not isinstance(cap, CallBudget):
        raise TypeError(f"cap must be a sluicegate.budget.CallBudget, got {type(cap).__name__}")
    if CAP_FLOW_NAME not in rails.config.rails.input.flows:
        raise ValueError(f"rails.input.flows must list {CAP_FLOW_NAME!r}: build the config with cap_config()")
    if not isinstance(getattr(rails, "llm", None), CappedLLM):
        raise ValueError("the spend cap needs NeMo's model wrapped in CappedLLM: LLMRails(config, llm=CappedLLM(m))")
    _CAPS[rails] = (cap, prompt_allowance_tokens)

    async def reserve(context: dict[str, Any] | None = None, **kwargs: Any) -> CapResult:
        session = current_session(context)
        entry = _ENTRIES.get(session) if session is not None else None
        if entry is None:  # not started by guarded_stream: nothing to settle it later, so no call (fail closed)
            return CapResult(False, notice(cap.language or cap.cap.language, "monthly_limit"))
        ours = [session.prompt] if session is not None and session.prompt else []  # what GatedLLM adds
        prompt = [*entry.messages, *ours, "x" * prompt_allowance_tokens]
        await areserve_call(entry.call, prompt)  # blocking store I/O: off the loop
        reservation = entry.reservation
        assert reservation is not None
        return CapResult(reservation.admitted, reservation.notice or "")

    rails.register_action(reserve, name=CAP_ACTION_NAME)


class CappedLLM(GatedLLM):
    """`GatedLLM` that streams only within the request's reservation (see module doc)."""

    async def stream_async(
        self, prompt: Any, *, stop: list[str] | None = None, **kwargs: Any
    ) -> AsyncIterator[LLMResponseChunk]:
        session = current_session()
        entry = _ENTRIES.get(session) if session is not None else None
        if entry is None:
            raise UnreservedCall("a model call with no admitted reservation (is the spend-cap input rail listed?)")
        sent = self.sent_prompt(prompt, session)  # with sluicegate's prompt, as the model gets it
        try:
            entry.call.model_call(_prompt_text(sent))  # once, within the reserved bound
        except UnreservedCall as exc:
            raise UnreservedCall(
                f"NeMo: {exc} (is the spend-cap input rail listed? raise prompt_allowance_tokens in install_cap "
                "if NeMo's prompt outgrew it)"
            ) from None
        async for chunk in super().stream_async(prompt, stop=stop, **kwargs):
            yield chunk


def _prompt_text(prompt: Any) -> Any:
    return prompt if isinstance(prompt, str) else list(prompt)


class CappedStream:
    """A `GuardedStream` whose reservation is settled when it ends; refused, it yields the notice alone."""

    def __init__(self, inner: GuardedStream | None, entry: _Entry, *, app_generator: Any = None) -> None:
        self.inner = inner
        self.entry = entry
        self._app_generator = app_generator  # refused before NeMo started: closed unread

    @property
    def reservation(self) -> Reservation | None:
        return self.entry.reservation

    @property
    def outcome(self) -> Any:
        return self.inner.outcome if self.inner is not None else None

    @property
    def blocked(self) -> bool:
        return self.inner.blocked if self.inner is not None else False

    def __aiter__(self) -> AsyncIterator[str]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[str]:
        try:
            if self.inner is not None:
                async for chunk in self.inner:
                    yield chunk
            reservation = self.entry.reservation
            if reservation is not None and not reservation.admitted:
                yield reservation.notice or ""
        finally:
            if self.inner is not None:
                await self.inner.aclose()
            if self._app_generator is not None:
                await aclose_now(self._app_generator)  # an SDK stream too (its awaitable close())
            await self._settle()

    async def aclose(self) -> None:
        if self.inner is not None:
            await self.inner.aclose()
        await self._settle()

    async def _settle(self) -> None:
        """Once (the guarded call sees to it); off the loop, and shielded: a cancelled reader must not cancel it."""
        if self.inner is None:
            return  # refused before NeMo started: nothing held
        entry = self.entry
        never_called = not entry.app_owned and entry.call.model_calls == 0
        usage = NOTHING if never_called else self.inner.session.meter.usage
        await asettle_call(entry.call, usage=usage, reason=getattr(self.inner.outcome, "reason", None))


def guarded_stream(
    rails: LLMRails,
    *,
    messages: list[dict[str, Any]],
    generator: AsyncIterable[Any] | None = None,
    filter: StreamFilter | None = None,
    cap: CallBudget | None = None,
    prompt: Any = None,
) -> GuardedStream | CappedStream:
    """`stream.guarded_stream` plus the spend cap: `cap=` (or the one `install_cap` put on `rails`).

    With `generator=` (the app calls the model), the cap reserves `prompt` (default: `messages`) here, before
    NeMo starts; refused, NeMo is not run and the generator is closed unread.
    """
    installed = _CAPS.get(rails)
    budget = cap or (installed[0] if installed else None)
    if budget is None:
        return _guarded_stream(rails, messages=messages, generator=generator, filter=filter)
    entry = _Entry(budget, messages, app_owned=generator is not None)
    if generator is not None:
        action = reserve_call(entry.call, prompt if prompt is not None else messages)
        if isinstance(action, Refuse):
            return CappedStream(None, entry, app_generator=generator)
    elif installed is None:
        raise ValueError("cap= without generator= needs install_cap(rails, cap): NeMo calls the model")
    inner = _guarded_stream(rails, messages=messages, generator=generator, filter=filter)
    _ENTRIES[inner.session] = entry  # before the first await: NeMo's task has not run the rail yet
    return CappedStream(inner, entry)
