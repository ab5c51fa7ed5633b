"""Validators `sluicegate/stream_gate` and `sluicegate/redact` (data type string, use with on_fail="fix").

`validate_stream` is overridden: guardrails' own sentence chunker drops whitespace and loses the tail, so
the units here are exactly the pieces the sluicegate filter released (fed by `stream()`, which runs the
filter on the model stream). A chunk that did not come from our filter fails closed. `validate` (whole
string, non-streaming guards) runs a fresh filter over the whole value. A rewrite (markers stripped, PII
replaced) is returned as a FailResult whose fix_value is the filtered text: guardrails' default
AsyncValidatorService drops a PassResult's value_override, so a pass could not carry it. Hence `on_fail` must
be "fix", and `validation_passed` says nothing about a stop: read the adapter's `violation`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from types import FrameType
from typing import Any

from guardrails.types import OnFailAction
from guardrails.validator_base import Validator, register_validator
from guardrails_ai.types import FailResult, PassResult, ValidationResult

from sluicegate import StreamFilter, drive
from sluicegate.host import Session, load_factory

from .state import EOS, STATE_KEY, StreamState

FilterFactory = Callable[[Mapping[str, Any]], StreamFilter]
USES_ATTR = "_sluicegate_uses"


def _note_use(frame: FrameType | None) -> None:
    """If called from `Guard.use()` (guardrails 0.11's private `__add_validators`), record that call's
    validators on the guard, once per call. Anything else (to_dict, a RAIL spec) records nothing."""
    for _ in range(3):  # the call sits in a list comprehension (its own frame before Python 3.12)
        if frame is None or frame.f_code.co_name == "__add_validators":
            break
        frame = frame.f_back
    if frame is None or frame.f_code.co_name != "__add_validators":
        return
    guard, on, validators = (frame.f_locals.get(k) for k in ("self", "on", "validators"))
    if guard is None or not isinstance(validators, list):
        return
    uses = guard.__dict__.get(USES_ATTR)
    if uses is None:
        uses = []
        try:
            object.__setattr__(guard, USES_ATTR, uses)
        except (AttributeError, TypeError):  # a guard that takes no attributes: nothing to check later
            return
    if not any(v is validators for _, v in uses):
        uses.append((on, validators))


def uses_on_output(guard: Any) -> list[list[Any]]:
    """The validator lists of each `Guard.use()` call on the output that included a sluicegate validator."""
    uses = getattr(guard, "__dict__", {}).get(USES_ATTR) or []
    return [list(v) for on, v in uses if on == "$"]


class SluicegateValidator(Validator):
    """Shared behaviour; subclasses say how to build the filter for one call (`make_filter(metadata)`)."""

    def __init__(self, on_fail: Any = "fix", **kwargs: Any) -> None:
        # None is what guardrails passes when a RAIL spec or dict names no action: ours is "fix".
        super().__init__(on_fail=OnFailAction.FIX if on_fail is None else on_fail, **kwargs)
        self.require_fix()

    def require_fix(self) -> None:
        """Refuse any action but "fix" (RAIL specs set it after construction, so this runs again at use)."""
        if self.on_fail_descriptor != OnFailAction.FIX:
            # noop would show the unfiltered text, exception would raise on every rewrite, the others drop
            # or re-ask text in ways that break the stream's byte-exactness.
            got = getattr(self.on_fail_descriptor, "value", self.on_fail_descriptor)
            raise ValueError(f'{self.rail_alias} needs on_fail="fix" (got {got!r}): the fix is the filtered text')

    def make_filter(self, metadata: Mapping[str, Any]) -> StreamFilter:
        raise NotImplementedError

    def get_args(self) -> Any:
        """guardrails' own hook, called by `Guard.use()` for each validator it adds: we note the call on the
        guard, because a second `use()` on the output silently replaces the first (see `uses_on_output`)."""
        _note_use(sys._getframe(1))
        return super().get_args()

    def _validate(self, value: Any, metadata: dict[str, Any]) -> ValidationResult:
        self.require_fix()
        if not isinstance(value, str):
            return FailResult(error_message=f"sluicegate validates strings, got {type(value).__name__}", fix_value="")
        run = Session(self.make_filter(metadata))
        released = "".join(step.text for step in drive([value], run.filter, outcome=run.outcome, meter=run.meter))
        holder = metadata.get(STATE_KEY) if isinstance(metadata, dict) else None
        if isinstance(holder, StreamState) and holder.source is None:  # validate() helper, not a stream
            holder.outcome = run.outcome  # so Checked.text can show the notice after a stop
        if run.stopped:
            if isinstance(holder, StreamState):  # validate() helper: report the verdict outside guardrails
                holder.violation = run.stop_message
            return FailResult(error_message=run.stop_message, fix_value=released)
        if released != value:  # a rewrite travels as the fix (see the module docstring), never as a stop
            message = "sluicegate rewrote the answer (markers or personal data)"
            return FailResult(error_message=message, fix_value=released)
        return PassResult()

    def validate_stream(self, chunk: Any, metadata: dict[str, Any], **kwargs: Any) -> ValidationResult | None:
        state = metadata.get(STATE_KEY) if isinstance(metadata, dict) else None
        if not isinstance(state, StreamState):
            return FailResult(
                error_message="sluicegate: stream without sluicegate state; use sluicegate_guardrails.stream()",
                fix_value="",
                validated_chunk="",
            )
        if chunk == EOS:
            state.ended = True
            if state.stopped:
                state.violation = state.stop_message
                return FailResult(error_message=state.violation, fix_value="", validated_chunk="")
            return PassResult(validated_chunk="")
        expected = state.pending.popleft() if state.pending else None
        if chunk != expected:  # not what our filter released: never pass it on
            state.violation = "sluicegate: a chunk that the filter did not release reached the validator"
            return FailResult(error_message=state.violation, fix_value="", validated_chunk="")
        return PassResult(validated_chunk=chunk)


@register_validator(name="sluicegate/stream_gate", data_type="string")
class StreamGate(SluicegateValidator):
    """Any sluicegate filter: `filter` is a factory (called with the call's metadata) or its dotted path."""

    def __init__(self, filter: str | FilterFactory, on_fail: Any = "fix", **kwargs: Any) -> None:
        super().__init__(on_fail, filter=filter, **kwargs)
        self._factory = load_factory(filter)

    def make_filter(self, metadata: Mapping[str, Any]) -> StreamFilter:
        return self._factory(metadata)


@register_validator(name="sluicegate/redact", data_type="string")
class Redact(SluicegateValidator):
    """`sluicegate.Redactor(**kwargs)`: PII replaced at the settlement point; fails closed at the hold cap."""

    def __init__(self, on_fail: Any = "fix", **kwargs: Any) -> None:
        super().__init__(on_fail, **kwargs)
        import sluicegate

        if not hasattr(sluicegate, "Redactor"):
            raise ImportError("sluicegate.Redactor is not available in this sluicegate version")
        self._options = {k: v for k, v in kwargs.items() if k not in ("use_local", "validation_endpoint")}
        sluicegate.Redactor(**self._options)  # fail now on bad options, not mid-stream

    def make_filter(self, metadata: Mapping[str, Any]) -> StreamFilter:
        import sluicegate

        return sluicegate.Redactor(**self._options)
