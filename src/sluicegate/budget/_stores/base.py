"""The one small protocol both stores implement, so the spend cap never knows which one it talks to.

Why so small: every operation that touches money is one atomic step in the store (a SQLite transaction, one
Lua script), so the protocol is just those steps. The caller passes the clock, so the rule "a reservation counts
until `expires_at`" is the same in both stores and tests can move time without sleeping.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..._errors import SluicegateError


class StoreUnavailable(SluicegateError):
    """The store could not answer (server down, database locked past the retries, disk error)."""


@dataclass(frozen=True)
class Totals:
    """One month of one scope, in nano-units: settled spend, and live (unexpired, unsettled) reservations."""

    committed: int
    reserved: int


@dataclass(frozen=True)
class ReserveResult:
    admitted: bool
    totals: Totals  # after this reservation, if admitted


@runtime_checkable
class SpendStore(Protocol):
    """Money state for `SpendCap`. Every method is atomic; any failure raises `StoreUnavailable`."""

    def reserve(
        self, scope: str, month: str, rid: str, amount: int, cap: int, *, now: float, expires_at: float
    ) -> ReserveResult:
        """Hold `amount` under `rid` iff committed + live reservations + amount <= cap."""
        ...

    def settle(self, scope: str, month: str, rid: str, cost: int, *, now: float) -> bool:
        """Replace reservation `rid` by `cost`. True if recorded now; False if already settled or unknown."""
        ...

    def totals(self, scope: str, month: str, *, now: float) -> Totals: ...

    def close(self) -> None: ...
