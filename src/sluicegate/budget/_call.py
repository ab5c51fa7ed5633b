"""`CallBudget`: a SpendCap bound to one kind of model call, the object every adapter takes as `cap=`.

Why a separate object: the bound depends on the call's model and output cap, which the adapter cannot read
reliably from a framework's model object; the app states them once, next to the model it configures with the
same `max_output_tokens`. Adapters then only reserve before the call, settle after it, and show
`refused(...)` when the cap says no: the decision logic stays here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._driver import Outcome
from .._stream import Done
from .._usage import Usage, UsageMeter
from ._cap import Reservation, SpendCap

REFUSED_REASON = "refused"  # Outcome.reason / Done reason of a call the cap refused (no model call)


@dataclass(frozen=True)
class CallBudget:
    """Reserve for calls to `model` made with `max_output_tokens` (reasoning included where the provider
    counts it there; `reasoning_tokens` for a thinking budget billed on top). The model must really be called
    with that output cap: the reservation is an upper bound only if the provider cannot exceed it."""

    cap: SpendCap
    model: str
    max_output_tokens: int
    reasoning_tokens: int = 0
    language: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.cap, SpendCap):
            raise TypeError(f"CallBudget needs a SpendCap, got {type(self.cap).__name__}")
        self.cap.bound("", max_output_tokens=self.max_output_tokens, model=self.model)  # validates now

    def reserve(self, prompt: Any, *, language: str | None = None) -> Reservation:
        return self.cap.reserve(
            prompt,
            max_output_tokens=self.max_output_tokens,
            model=self.model,
            reasoning_tokens=self.reasoning_tokens,
            language=language or self.language,
        )

    def settle(self, reservation: Reservation, usage: Usage | None) -> bool:
        """Never raises (see `SpendCap.settle`)."""
        return self.cap.settle(reservation, usage)


def refused(reservation: Reservation, outcome: Outcome | None = None) -> Outcome:
    """The outcome of a call the cap refused: the notice is all the reader sees, nothing was generated.

    `reason` is "refused" (the stream's vocabulary); `violations` says why: ("monthly_limit",) or
    ("store_unavailable",), server-side only, like every violation."""
    out = outcome if outcome is not None else Outcome()
    out.events.append(Done(REFUSED_REASON))
    out.reason = REFUSED_REASON
    out.violations = (reservation.decision.reason,)
    out.released = reservation.notice or ""
    out.usage = UsageMeter().usage
    return out
