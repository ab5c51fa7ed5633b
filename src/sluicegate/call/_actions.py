"""What a `GuardedCall` tells its caller to do next: one small frozen class per action.

Don't subclass these: the drivers and adapters dispatch on the exact class (h11's rule for its events).
Before the model: `Refuse`, `Retrieve`, `Reserve`, `CallModel`. During it: `Show`, `Stop`, `ToolCallValidated`.
At the end: `Settle`, then `Finished`. A `Refuse` and a `Finished` are the only ends; nothing follows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # the budget and evidence layers are only named here: the actions carry their values
    from .._driver import Outcome
    from .._stream import Guard
    from .._usage import Usage
    from ..budget import CallBudget, Reservation
    from ..evidence import Decision
    from ..prompts import Prompt

Stage = Literal["rules", "overview", "evidence", "budget"]


@dataclass(frozen=True)
class Refuse:
    """Show `text` as the whole answer and end: the model is not called, nothing is reserved or billed.

    `text` is a fixed text (never the model's words). `reason` is the code for logs and guard events: a
    refusal category ("instructions", "tasks", a user category), "no_evidence", "no_records",
    "monthly_limit" or "store_unavailable". `stage` says which layer refused. `decision` (a layer before the
    model; its `log()` is safe to log) or `reservation` (the spend cap) holds the details.
    """

    text: str
    reason: str
    stage: Stage
    decision: Decision | None = None
    reservation: Reservation | None = None


@dataclass(frozen=True)
class Retrieve:
    """Retrieve passages for `query` (in `language`) and hand them to `GuardedCall.retrieved`.

    A follow-up asks twice: for the question, then for it joined to the previous one (`joined` True).
    """

    query: str
    language: str
    joined: bool = False


@dataclass(frozen=True)
class Reserve:
    """Build the prompt the model will be sent for `sources`, hold its bound with `budget.reserve(prompt,
    language=language)` (blocking store I/O: off the event loop) and hand the reservation to
    `GuardedCall.reserved`. The prompt must be everything sent, or the reservation bounds nothing."""

    budget: CallBudget
    sources: tuple[str, ...]
    language: str | None
    prompt: Prompt | None = None  # sluicegate's prompt for these sources, when the call renders one (send it)


@dataclass(frozen=True)
class CallModel:
    """Open the model stream now, then feed its pieces to the call (or drive the call as a filter).

    `sources` are the texts to number [S1]..[Sn] in the prompt (the gate is built from the same list);
    `decision` is the allowed decision of the layers before the model (its passages keep their metadata,
    e.g. the framework's documents), or None when the caller gave the sources. `max_output_tokens` and
    `model`, when a budget was reserved, are the limits the reservation holds: the model must be called with
    that output cap. `prompt` is the system prompt and user message rendered for these sources and the
    question with the gate's own language, refusal token and markers (`sluicegate.prompts.render_prompt`; an
    ordinal follow-up's item named), or None when the call was built with `prompt=False` or no question.
    """

    sources: tuple[str, ...]
    decision: Decision | None = None
    max_output_tokens: int | None = None
    model: str | None = None
    prompt: Prompt | None = None  # sluicegate's prompt for these sources, in the gate's settings (send it)


@dataclass(frozen=True)
class Show:
    """Append `text` to what the reader sees (released text only: it passed the gate and the redactor)."""

    text: str


@dataclass(frozen=True)
class Stop:
    """The gate stopped the answer for good: close the model stream now, then show `notice` (a fixed text,
    set off from released text by the caller's convention). `guard` holds the reason codes; None when the
    filter stopped without a `Guard` event."""

    notice: str
    guard: Guard | None = None


@dataclass(frozen=True)
class ToolCallValidated:
    """A tool call passed validation after the provider's terminal event: it may now be confirmed and run.

    `call` is a `sluicegate.lifecycle.ToolCall` (arguments validated strictly). Drafts are never handed out.
    """

    call: Any


@dataclass(frozen=True)
class Settle:
    """Replace the reservation's hold by the real cost: `budget.settle(reservation, usage)` (never raises),
    then `GuardedCall.settled()`. Handed out exactly once per admitted reservation, on every end."""

    budget: CallBudget
    reservation: Reservation
    usage: Usage | None


@dataclass(frozen=True)
class Finished:
    """The call is over; `outcome` says how (reason, events, violations, usage, released text)."""

    outcome: Outcome


Before = Refuse | Retrieve | Reserve | CallModel
During = Show | Stop | ToolCallValidated
After = Settle | Finished
Action = Before | During | After
