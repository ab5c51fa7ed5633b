"""Per-generation telemetry: timers, counters, transitions and rejection codes — never content.

The timers separate perceived speed from correctness (seed 003): first fragment, terminal signal, validated,
confirmed, executed, each in seconds since the generation was created. Counters say what the stream did:
replays dropped, late events, cancellations, incompletes, and items shown provisionally but not confirmed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Telemetry:
    """Safe to export: ids, sequence, event types, transitions and codes; no text, no argument values."""

    generation_id: str
    provider: str
    principal: str | None
    config_version: str | None
    operation: str | None
    provider_id: str | None = None
    to_first_fragment: float | None = None
    to_terminal: float | None = None
    to_validated: float | None = None
    to_confirmed: float | None = None
    to_executed: float | None = None
    events: int = 0
    fragments: int = 0
    duplicates_dropped: int = 0
    late_events: int = 0
    incompletes: int = 0
    cancellations: int = 0
    provisional_differences: int = 0
    executions: int = 0
    recorded_results_returned: int = 0
    unknown_outcomes: int = 0
    unterminated_events: int = 0  # an event left without its blank line at the end of the byte stream
    terminal_reason: str | None = None
    last_sequence: int | None = None
    event_types: dict[str, int] = field(default_factory=dict)
    transitions: list[tuple[str, float]] = field(default_factory=list)
    rejection_codes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Clock:
    """Seconds since the generation began, from an injectable monotonic source (tests use a fake)."""

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self._t0 = now()

    def elapsed(self) -> float:
        return self._now() - self._t0
