"""What a reader turns a provider event into: a few provider-neutral operations on the assembly.

Readers know one provider's documented stream format; the assembly and the generation know only these.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Kind(str, Enum):
    """The kind of an output item: each kind has its own buffers."""

    TEXT = "text"
    REASONING = "reasoning"
    TOOL = "tool"
    OTHER = "other"  # provider-side items (server tools and their results): buffered, never validated or run

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Start:
    """An output item begins (Responses `output_item.added`, Anthropic `content_block_start`, first tool delta)."""

    key: str
    kind: Kind
    call_id: str | None = None
    name: str | None = None
    initial: str = ""  # a documented initial value (Anthropic's `input: {}`), used only if no delta arrives


@dataclass(frozen=True)
class Delta:
    """A fragment of an item, appended to its provisional buffer."""

    key: str
    text: str
    kind: Kind | None = None  # set when the item may start implicitly (Chat Completions text)
    call_id: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class ItemDone:
    """The item's own terminal event; `final` is the provider's complete payload when it sends one."""

    key: str
    final: str | None = None
    source: str = "item_done"  # the event type, named in an integrity rejection
    copy: bool = False  # a documented second close (Responses `output_item.done`): not a replay when repeated


@dataclass(frozen=True)
class Check:
    """A second copy of a finished item's payload (e.g. `output_item.done`, the final response): must match."""

    key: str
    final: str
    source: str  # the event type it came from, for the rejection reason


@dataclass(frozen=True)
class Terminal:
    """The provider's documented end of the whole generation: completed, incomplete or failed."""

    outcome: str  # "completed" | "incomplete" | "failed"
    reason: str  # finish/stop reason or error code (a code, never text)
    provider_code: str | None = None  # the provider's own error code/type on a failure (`insufficient_quota`)


@dataclass(frozen=True)
class ProviderId:
    """The provider's id for this response (message id, response id, completion id)."""

    value: str


@dataclass(frozen=True)
class Duplicate:
    """A replayed event, dropped (never applied) and counted."""

    reason: str


@dataclass(frozen=True)
class StreamViolation:
    """The stream broke its documented contract (bad JSON, delta for an unknown item...): the generation fails."""

    code: str
    detail: str = ""  # e.g. the output item type that is not modelled (a type name, never content)


Op = Start | Delta | ItemDone | Check | Terminal | ProviderId | Duplicate | StreamViolation
