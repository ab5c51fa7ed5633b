"""The store protocol: two small tables, confirmed generations and operations keyed by idempotency key.

An operation moves pending -> done (result recorded) or pending -> unknown (the tool's response was lost);
unknown -> not_applied only after a reconcile lookup said so, and only then may it be claimed again. `claim`
is atomic in both stores: of two executors racing for the same key, exactly one gets `claimed=True`.

A *pending* operation is never marked not_applied: it may be a peer still running the tool, whose effect a
lookup cannot see yet (re-running it is the double execution this store exists to prevent), and a second
reconciler of the same lost response must not reset the first one's fresh claim. An executor that died while
holding a claim is declared by an operator with `mark_unknown(key)`; reconciliation then applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..._errors import SluicegateError

PENDING = "pending"
DONE = "done"
UNKNOWN = "unknown"
NOT_APPLIED = "not_applied"

# The statuses each write may leave (one table for both stores).
COMPLETE_FROM = (PENDING, UNKNOWN)
UNKNOWN_FROM = (PENDING,)
NOT_APPLIED_FROM = (UNKNOWN,)


@dataclass(frozen=True)
class OperationRecord:
    """One operation's state in the store; `claimed` is True only for the caller that just took it."""

    key: str
    status: str
    result: str | None = None
    claimed: bool = False


class ConfirmationConflict(SluicegateError, ValueError):
    """A generation id was confirmed before with a different validated version."""


class OperationStore(Protocol):
    """What `Generation.confirm` and `Generation.execute` need from a store."""

    def put_confirmed(self, generation_id: str, record: str) -> str:
        """Store the validated version once; return what is stored (the earlier one if it already existed)."""
        ...

    def get_confirmed(self, generation_id: str) -> str | None: ...

    def claim(self, key: str, meta: str) -> OperationRecord:
        """Atomically take an absent (or not-applied) key as pending, or return its current record."""
        ...

    def complete(self, key: str, result: str) -> None: ...

    def mark_unknown(self, key: str) -> None: ...

    def mark_not_applied(self, key: str) -> None: ...

    def get(self, key: str) -> OperationRecord | None: ...


class StatusMoves:
    """The three status moves both stores make, each as one allowed-from check and one write (`_set`).

    Why a base: the moves and their allowed sources are the same table for SQLite and Redis; only the atomic
    compare-and-set differs."""

    def _set(self, key: str, status: str, result: str | None, allowed: tuple[str, ...]) -> None:
        raise NotImplementedError

    def complete(self, key: str, result: str) -> None:
        self._set(key, DONE, result, COMPLETE_FROM)

    def mark_unknown(self, key: str) -> None:
        self._set(key, UNKNOWN, None, UNKNOWN_FROM)

    def mark_not_applied(self, key: str) -> None:
        self._set(key, NOT_APPLIED, None, NOT_APPLIED_FROM)
