"""Per-stream state for adapters whose framework holds the stream (NeMo, Guardrails AI): one guarded stream's
filter, the `Outcome` the driver fills in, its usage meter, and the verdict read back without blocked text.

Framework-free; the adapters add only what their framework needs (a session id, the chunks in flight).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._driver import Outcome
from ._stream import StreamFilter
from ._usage import UsageMeter

STOP_PREFIX = "sluicegate stopped the stream: "


@dataclass(eq=False)
class Session:
    """One guarded stream: its filter, how it ended (`outcome`, filled in by `drive`/`adrive`), what it cost."""

    filter: StreamFilter
    outcome: Outcome = field(default_factory=Outcome)
    meter: UsageMeter = field(default_factory=UsageMeter)

    @property
    def stopped(self) -> bool:
        return self.filter.stopped

    @property
    def reasons(self) -> tuple[str, ...]:
        """The stop's reason codes (never blocked text)."""
        guard = self.outcome.guard
        return guard.reasons if guard is not None else ()

    @property
    def violations(self) -> tuple[Any, ...]:
        """Server-side details from the filter (may quote blocked text: keep them out of client responses)."""
        return tuple(getattr(self.filter, "violations", ()))  # a Pipeline gathers its stages'

    @property
    def stop_message(self) -> str:
        """A client-safe line: the reason codes, else the first violation's code, else "stopped"."""
        codes = self.reasons or tuple(str(getattr(v, "code", "stopped")) for v in self.violations)[:1]
        return STOP_PREFIX + ",".join(codes or ("stopped",))
