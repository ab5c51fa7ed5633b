"""Per-stream state, carried in the guard call's `metadata` (a fresh dict per call, so streams never share it)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from sluicegate import Outcome, StreamFilter

STATE_KEY = "sluicegate_stream"
# End of stream: a private-use marker the model cannot be confused with (guardrails drops empty chunks, and
# neither of its runners reliably calls validate_stream(remainder=True), so the end must travel as a chunk).
EOS = "\ue000sluicegate-eos\ue000"


@dataclass(eq=False)
class StreamState:
    """One guarded stream: the filter, the released pieces in flight to the validator, and the verdict."""

    filter: StreamFilter
    outcome: Outcome = field(default_factory=Outcome)
    pending: deque = field(default_factory=deque)  # released pieces the validator has yet to see, in order
    ended: bool = False
    violation: str | None = None  # set by the validator when it reports the stop (reason codes only)

    @property
    def stopped(self) -> bool:
        return self.filter.stopped

    @property
    def reasons(self) -> tuple[str, ...]:
        guard = self.outcome.guard
        return guard.reasons if guard is not None else ()

    @property
    def violations(self) -> tuple[Any, ...]:
        """Server-side details from the filter (may quote blocked text: keep them out of client responses)."""
        return tuple(getattr(self.filter, "violations", ()))
