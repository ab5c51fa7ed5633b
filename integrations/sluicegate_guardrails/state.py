"""Per-stream state, carried in the guard call's `metadata` (a fresh dict per call, so streams never share it)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from sluicegate.host import Session

STATE_KEY = "sluicegate_stream"
# End of stream: a private-use marker the model cannot be confused with (guardrails drops empty chunks, and
# neither of its runners reliably calls validate_stream(remainder=True), so the end must travel as a chunk).
EOS = "\ue000sluicegate-eos\ue000"


@dataclass(eq=False)
class StreamState(Session):
    """One guarded stream (`sluicegate.sessions.Session`), the released pieces in flight, and the verdict."""

    pending: deque = field(default_factory=deque)  # released pieces the validator has yet to see, in order
    ended: bool = False
    cancelled: bool = False  # the consumer stopped reading: the model callable returns at its next step
    source: Any = None  # the gated model generator guardrails reads, closed when the consumer stops
    violation: str | None = None  # set by the validator when it reports the stop (reason codes only)
