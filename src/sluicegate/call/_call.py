"""`GuardedCall`: one model call's whole order, as a state machine its caller feeds (sans-I/O).

Rule 1: the order of seed 002 lives here and nowhere else: refusal rules -> retrieval -> evidence threshold ->
spend reservation -> the model -> gate and redactor (the filter) -> tool-call lifecycle -> settle.
Rule 2: this file does no I/O and knows no framework. Retrieval, the store's reserve and settle, and the model
stream are the caller's: the call says what to do next (an action) and is told what came of it.
Rule 3: a reservation is settled exactly once. `end()` hands out `Settle` the first time it is called after an
admitted reservation, whatever the end (complete, stopped, cancelled, failed), and never again.

Theory of operation. `start()` returns the first action. `Retrieve` is answered with `retrieved(passages)`,
`Reserve` with `reserved(reservation)`; each returns the next action, until `Refuse` (the end: nothing was
reserved, nothing is billed) or `CallModel`. From `CallModel` the call is a `StreamFilter` (`feed`, `flush`,
`stopped`), so `drive`/`adrive` (which close the model stream on a stop, a reader gone or a failure) or
`gated_events` run it as they run any filter; `receive(piece)` gives the same steps as `Show`/`Stop` actions,
and `event(provider_event)` feeds a tool-call `Generation` instead. Every end calls `end(...)`: it returns
`Settle` (do it, then call `settled()`) or `Finished`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .._driver import FALLBACK_NOTICE, Outcome
from .._errors import SluicegateError
from .._stream import Done, Guard, Step, StreamFilter
from .._usage import Usage, UsageMeter
from ..sources import FilterFactory, gate_factory
from ._actions import (
    After,
    Before,
    CallModel,
    Finished,
    Refuse,
    Reserve,
    Retrieve,
    Settle,
    Show,
    Stage,
    Stop,
    ToolCallValidated,
)

if TYPE_CHECKING:
    from ..budget import CallBudget, Reservation
    from ..evidence import Decision, Passage, Preflight
    from ..evidence._ordinal import FollowUp
    from ..lifecycle import Draft, Generation
    from ..prompts import Prompt

_B = TypeVar("_B", bound=Before)  # what `_told` hands back keeps its narrower type
GenerationFactory = Callable[[StreamFilter], "Generation"]
PromptFactory = Callable[[tuple[str, ...], str, StreamFilter, "FollowUp | None"], "Prompt | None"]

REFUSED = "refused"  # Outcome.reason of a call that ended before the model (the stream vocabulary's)


class CallState(enum.Enum):
    """Where a call is. `DONE` is final; `SETTLING` waits for `settled()`."""

    NEW = "new"
    RETRIEVING = "retrieving"
    RESERVING = "reserving"
    READY = "ready"  # CallModel handed out; the model stream may open
    STREAMING = "streaming"
    SETTLING = "settling"
    DONE = "done"


# Which method may run in which state (the leftovers are in the methods: `end` runs in every state).
_ALLOWED: dict[str, frozenset[CallState]] = {
    "start": frozenset({CallState.NEW}),
    "retrieved": frozenset({CallState.RETRIEVING}),
    "reserved": frozenset({CallState.RESERVING}),
    "open": frozenset({CallState.READY}),
    "stream": frozenset({CallState.READY, CallState.STREAMING}),
    "model_call": frozenset({CallState.READY, CallState.STREAMING}),
    "settled": frozenset({CallState.SETTLING}),
}


class CallStateError(SluicegateError, RuntimeError):
    """A method was called in a state where the order does not allow it (a bug in the caller)."""


class UnreservedCall(SluicegateError, RuntimeError):
    """The host asked for a model call the reservation does not cover: none is held, a second call (a reask, a
    retry), or a prompt longer than the one reserved. Raised before the call is made: it fails closed."""


# The usage of a reservation whose model was never called: nothing was spent, not even the prompt.
NO_USAGE = Usage(output_tokens=0, input_tokens=0, source="provider", received_chars=0, received_bytes=0, pieces=0)


class GuardedCall:
    """One model call, from the question to the settle.

    Args:
        question: the reader's question; needed when `preflight` is given.
        language: the question's language (refusal texts, the evidence check, the cap's notice); None: "en"
            for the layers before the model, the budget's own default for the cap's notice.
        previous: the question before it, for a follow-up ("and for next year?"); checked joined to it.
        previous_answer: the answer the reader saw to it, read for an ordinal follow-up ("the second one"):
            the item it names is joined to the retrieval query and the coverage check, and named in the prompt.
        sources: the passages when the caller has them already (no retrieval); `source_texts` rules apply.
        preflight: a `sluicegate.evidence.Preflight` (refusal rules, overview, evidence threshold).
        budget: a `sluicegate.budget.CallBudget` reserved before the model and settled on every end.
        filter_factory: builds the filter from the numbered sources (default: the `SentenceGate`).
        generation: builds a tool-call `Generation` around the filter (its `text_filter`) for provider events.
        outcome: the `Outcome` to fill (an adapter's own, shared with its driver); default a new one.
        prompt: True (default) renders sluicegate's prompt for the sources and the question with the filter's
            own settings (`sluicegate.prompts.render_prompt`), handed out on `Reserve` and `CallModel`; a
            callable `(sources, question, filter, follow_up) -> Prompt` renders another (`follow_up`: what an
            ordinal follow-up refers to, or None); False renders none.

    Raises `CallStateError` when a method is called out of order.
    """

    def __init__(
        self,
        question: str | None = None,
        *,
        language: str | None = None,
        previous: str | None = None,
        previous_answer: str | None = None,
        sources: Sequence[Any] | None = None,
        preflight: Preflight | None = None,
        budget: CallBudget | None = None,
        filter_factory: FilterFactory | None = None,
        generation: GenerationFactory | None = None,
        outcome: Outcome | None = None,
        prompt: bool | PromptFactory = True,
    ) -> None:
        if preflight is not None and not isinstance(question, str):
            raise TypeError("a GuardedCall with preflight= needs the question (a str)")
        if preflight is not None and sources is not None:
            raise ValueError("give either sources= (already retrieved) or preflight= (which retrieves), not both")
        self.question = question
        self.language = language
        self._asked_in = language or "en"  # the layers before the model need one
        self.previous = previous or None
        self.previous_answer = previous_answer or None  # read for an ordinal follow-up ("the second one")
        self._follow_up: FollowUp | None = None
        self.preflight = preflight
        self.budget = budget
        self.filter_factory = filter_factory or gate_factory()
        self.generation_factory = generation
        self.outcome = outcome if outcome is not None else Outcome()
        self.prompt_factory: PromptFactory | None = _render if prompt is True else (prompt or None)
        self.prompt: Prompt | None = None  # rendered once the sources are known
        self._built: StreamFilter | None = None  # the default filter, built with the prompt from the same sources
        self.meter = UsageMeter()
        self.decision: Decision | None = None
        self.reservation: Reservation | None = None
        self.filter: StreamFilter | None = None
        self.generation: Generation | None = None
        self._given = None if sources is None else _texts(sources)
        self._sources: tuple[str, ...] = ()
        self._passages: list[Passage] = []
        self._state = CallState.NEW
        self.model_calls = 0  # calls let through by `model_call`
        self._next: Before | None = None
        self._asked_joined = False
        self._stop_told = False
        self._validated = False

    @property
    def state(self) -> CallState:
        return self._state

    @property
    def admitted(self) -> bool:
        """True once a reservation is held that must be settled (none is held without a budget)."""
        return self.reservation is not None and self.reservation.admitted

    # -- before the model -----------------------------------------------------------------------------------

    def start(self) -> Before:
        """The first action: `Refuse` (rules, overview), `Retrieve`, `Reserve` or `CallModel`."""
        self._check("start")
        return self._told(self._start())

    def retrieved(self, passages: Sequence[Passage]) -> Before:
        """The passages for the last `Retrieve`; returns the next action."""
        self._check("retrieved")
        return self._told(self._retrieved(passages))

    def reserved(self, reservation: Reservation) -> Refuse | CallModel:
        """The reservation `Reserve` asked for: `Refuse` (the cap said no) or `CallModel`."""
        self._check("reserved")
        return self._told(self._reserved(reservation))

    @property
    def next_action(self) -> Before | None:
        """The last action handed out before the model (what the caller is to do now); None before `start`."""
        return self._next

    def _told(self, action: _B) -> _B:
        self._next = action
        return action

    def _start(self) -> Before:
        if self.preflight is None:
            return self._allowed(self._given or ())
        assert self.question is not None
        screened = self.preflight.screen(self.question, language=self._asked_in, previous=self.previous)
        if screened is not None:
            return self._decided(screened)
        self._follow_up = self.preflight.follow_up(self.question, self.previous_answer, language=self._asked_in)
        self._state = CallState.RETRIEVING
        return Retrieve(self.question, self._asked_in)

    def _retrieved(self, passages: Sequence[Passage]) -> Before:
        from ..evidence import joined_query, merge_follow_up

        assert self.preflight is not None and self.question is not None
        found = list(passages)
        joined = joined_query(self.question, self.previous, self._follow_up)
        if joined != self.question and not self._asked_joined:
            self._passages = found
            self._asked_joined = True
            return Retrieve(joined, self._asked_in, joined=True)
        merged = merge_follow_up(self._passages, found) if self._asked_joined else found
        decision = self.preflight.judge(
            self.question, merged, language=self._asked_in, previous=self.previous, follow_up=self._follow_up
        )
        return self._decided(decision)

    def _reserved(self, reservation: Reservation) -> Refuse | CallModel:
        self.reservation = reservation
        if not reservation.admitted:
            return self._refuse(reservation.notice or "", reservation.decision.reason, "budget", None, reservation)
        return self._ready()

    def _decided(self, decision: Decision) -> Before:
        self.decision = decision
        if decision.refused:
            stage: Stage = "rules" if decision.route == "refusal" else decision.route
            return self._refuse(decision.text or "", decision.category or "refused", stage, decision, None)
        return self._allowed(tuple(decision.sources))

    def _allowed(self, sources: tuple[str, ...]) -> Before:
        self._sources = sources
        if self.prompt_factory is not None and isinstance(self.question, str):
            self._built = self.filter_factory(list(sources))
            follow_up = self.decision.follow_up if self.decision is not None else None
            self.prompt = self.prompt_factory(sources, self.question, self._built, follow_up)
        if self.budget is not None:
            self._state = CallState.RESERVING
            return Reserve(self.budget, sources, self.language, self.prompt)
        return self._ready()

    def _ready(self) -> CallModel:
        self._state = CallState.READY
        budget = self.budget if self.admitted else None
        return CallModel(
            self._sources,
            self.decision,
            budget.max_output_tokens if budget is not None else None,
            budget.model if budget is not None else None,
            self.prompt,
        )

    def _refuse(
        self, text: str, reason: str, stage: Stage, decision: Decision | None, reservation: Reservation | None
    ) -> Refuse:
        out = self.outcome
        out.events.append(Done(REFUSED))
        out.reason = REFUSED
        out.violations = (reason,)
        out.released = text
        out.usage = self.meter.usage
        self._state = CallState.DONE
        return Refuse(text, reason, stage, decision, reservation)

    # -- the model ------------------------------------------------------------------------------------------

    def open(self, filter: StreamFilter | None = None) -> StreamFilter:
        """The model stream is opening: build the filter (or take the caller's, e.g. an app's own pipeline).

        Optional: the first `feed` opens with the default filter. Returns the filter.
        """
        self._check("open")
        if filter is not None:
            self.filter = filter
        else:
            self.filter = self._built if self._built is not None else self.filter_factory(list(self._sources))
        if self.generation_factory is not None:
            self.generation = self.generation_factory(self.filter)
        self._state = CallState.STREAMING
        return self.filter

    def model_call(self, prompt: Any = None) -> None:
        """The host's framework is about to call the model with `prompt` (it decides when, e.g. NeMo or
        Guardrails AI): allow it once, within the reservation, else raise `UnreservedCall` (fail closed).

        Without a budget only the one-call rule applies. `prompt` (a str or messages) is bounded as the
        reservation bounded its own; None skips that check.
        """
        if self._state not in _ALLOWED["model_call"]:
            raise UnreservedCall(f"a model call before the call was admitted (state {self._state.value})")
        if self.budget is not None and not self.admitted:
            raise UnreservedCall("a model call with no admitted reservation")
        if self.model_calls:
            raise UnreservedCall("a second model call in one guarded call (a reask?); the cap reserved one")
        if prompt is not None and self.budget is not None and self.reservation is not None:
            from ..budget._bound import prompt_tokens_bound

            bound, _ = prompt_tokens_bound(prompt, overhead=self.budget.cap.overhead)
            if bound > self.reservation.input_bound:
                raise UnreservedCall(
                    f"the prompt sent ({bound} tokens bound) exceeds the reservation ({self.reservation.input_bound})"
                )
        self.model_calls += 1

    def _filter(self) -> StreamFilter:
        self._check("stream")
        if self._state is CallState.READY:
            return self.open()
        assert self.filter is not None
        return self.filter

    def feed(self, piece: str) -> Step:
        """One model piece through the filter (the `StreamFilter` face, for `drive` and `gated_events`)."""
        return self._filter().feed(piece)

    def flush(self, *, truncated: bool = False) -> Step:
        """The model stream ended (`truncated`: it failed or was cut): judge what the filter holds."""
        return self._filter().flush(truncated=truncated)

    @property
    def stopped(self) -> bool:
        """The model stream must be closed: the filter stopped, or the tool-call generation failed."""
        if self.generation is not None and self.generation.state.value == "failed":
            return True
        return self.filter is not None and self.filter.stopped

    @property
    def violations(self) -> tuple[Any, ...]:
        return tuple(getattr(self.filter, "violations", ()))

    def receive(self, piece: str) -> tuple[Show | Stop, ...]:
        """`feed` as actions: the text to show, then `Stop` if the filter stopped on this piece."""
        self.meter.observe(piece)
        return self._actions(self.feed(piece))

    def end_of_stream(self, *, truncated: bool = False) -> tuple[Show | Stop, ...]:
        """`flush` as actions."""
        return self._actions(self.flush(truncated=truncated))

    def _actions(self, step: Step) -> tuple[Show | Stop, ...]:
        self._record(step)
        out: list[Show | Stop] = [Show(step.text)] if step.text else []
        if step.stopped and not self._stop_told:  # stops are sticky: `Stop` is told once
            self._stop_told = True
            guard = next((e for e in step.events if isinstance(e, Guard)), None)
            out.append(Stop(guard.notice if guard is not None and guard.notice else FALLBACK_NOTICE, guard))
        return tuple(out)

    def _record(self, step: Step) -> None:
        out = self.outcome
        out.released += step.text
        out.events.extend(step.events)
        for event in step.events:
            if isinstance(event, Done):
                out.reason = event.reason

    def drafts(self, provider_event: object) -> tuple[Draft, ...]:
        """One provider event for the tool-call `Generation` (needs `generation=`): the generation's own drafts
        (gated text, argument previews, a stop's notice), for a UI that shows previews. `event()` gives the
        same as actions; use one of the two per call."""
        self._filter()
        generation = self.generation
        if generation is None:
            raise CallStateError("event() needs GuardedCall(generation=...); feed text with feed()/receive()")
        found = generation.feed(provider_event)
        for draft in found:
            if draft.key == "text" and draft.text:
                self.outcome.released += draft.text
        return found

    def event(self, provider_event: object) -> tuple[Show | Stop | ToolCallValidated, ...]:
        """One provider event for the tool-call `Generation` (needs `generation=`): its gated text drafts as
        `Show`, a gate stop as `Stop`, and after the terminal event each validated call as `ToolCallValidated`."""
        out: list[Show | Stop | ToolCallValidated] = []
        for draft in self.drafts(provider_event):
            if draft.key == "text" and draft.text:
                out.append(Show(draft.text))
            elif draft.key == "notice" and not self._stop_told:
                self._stop_told = True
                out.append(Stop(draft.text))
        out.extend(self._newly_validated())
        return tuple(out)

    def _newly_validated(self) -> tuple[ToolCallValidated, ...]:
        generation = self.generation
        if self._validated or generation is None or generation.state.value != "validated":
            return ()
        self._validated = True
        return tuple(ToolCallValidated(c) for c in generation.tool_calls)

    @property
    def generation_ended(self) -> bool:
        """The tool-call generation reached a terminal state (validated, failed...): read no more events."""
        return self.generation is not None and self.generation.state.terminal

    def end_of_events(self) -> tuple[ToolCallValidated, ...]:
        """The provider's stream ended (or was stopped): close the generation (without the documented terminal
        event first it is incomplete) and hand out the calls not yet handed out, if it validated."""
        if self.generation is None:
            raise CallStateError("end_of_events() needs GuardedCall(generation=...)")
        self.generation.close()
        return self._newly_validated()

    # -- every end ------------------------------------------------------------------------------------------

    def end(
        self, *, reason: str | None = None, usage: Usage | None = None, error: BaseException | None = None
    ) -> After:
        """The call is over, however it ended: `Settle` the first time after an admitted reservation, else
        (and ever after) `Finished`. Safe to call from every `finally`: it never hands out a second `Settle`.

        `reason` fills `outcome.reason` if the driver did not (default: "cancelled" with an `error` that is
        not an `Exception`, "truncated" with one, else from the filter); `usage` overrides the metered usage
        (a framework's own callback record).
        """
        if self._state in (CallState.DONE, CallState.SETTLING):
            return Finished(self.outcome)  # the one Settle, if any, was handed out already
        out = self.outcome
        if out.reason is None:
            out.reason = reason or _reason(error, self.stopped, self._state)
        out.error = out.error or error
        if self.filter is not None:
            out.violations = out.violations or self.violations
        if self.generation is not None and self.generation.state.value in ("received", "provisional"):
            if out.reason == "cancelled":
                self.generation.cancel()
            else:
                self.generation.close()
        if usage is not None:
            out.usage = usage
        elif out.usage is None:
            out.usage = self.meter.usage
        if self.admitted and self.budget is not None and self.reservation is not None:
            self._state = CallState.SETTLING
            return Settle(self.budget, self.reservation, out.usage)
        self._state = CallState.DONE
        return Finished(out)

    def settled(self, recorded: bool = True) -> Finished:
        """The `Settle` was done (`recorded`: what `settle` returned; False means the cap queued a retry)."""
        self._check("settled")
        self._state = CallState.DONE
        return Finished(self.outcome)

    def _check(self, method: str) -> None:
        if self._state not in _ALLOWED[method]:
            raise CallStateError(f"GuardedCall.{method}() in state {self._state.value}")


def _reason(error: BaseException | None, stopped: bool, state: CallState) -> str:
    if error is not None:
        return "truncated" if isinstance(error, Exception) else "cancelled"
    if stopped:
        return "stopped"
    return "complete" if state is CallState.STREAMING else "cancelled"


def _texts(sources: Sequence[Any]) -> tuple[str, ...]:
    from ..sources import source_texts

    return tuple(source_texts(sources))


def _render(sources: tuple[str, ...], question: str, filter: StreamFilter, follow_up: FollowUp | None) -> Prompt | None:
    """sluicegate's prompt for `sources`, in the filter's own language, refusal token and markers, naming the
    item an ordinal follow-up refers to. None for a filter with no `SentenceGate` in it (redaction only)."""
    from ..prompts import render_prompt

    item = follow_up.item if follow_up is not None else None
    position = follow_up.position if follow_up is not None and item else None
    try:
        return render_prompt(list(sources), question, gate=filter, item=item, position=position)
    except TypeError:  # no SentenceGate in the filter: the prompt would promise checks nothing runs
        return None
