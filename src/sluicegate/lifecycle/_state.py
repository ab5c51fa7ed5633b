"""The ten states of a generation and the only moves between them.

A table, not scattered ifs: every transition goes through `check_transition`, so an illegal move (confirming a
generation that never validated, executing an unconfirmed one, resurrecting a cancelled one) raises instead of
silently promoting a provisional buffer.
"""

from __future__ import annotations

from enum import Enum

from .._errors import SluicegateError


class State(str, Enum):
    """Where a generation is. Terminal alternatives (cancelled/incomplete/failed/expired) never lead anywhere."""

    RECEIVED = "received"  # created (id minted before the connection opens); no content accepted yet
    PROVISIONAL = "provisional"  # fragments in the provisional buffers: a draft, nothing else
    ASSEMBLED = "assembled"  # the provider's terminal signal arrived; candidates are complete, not yet checked
    VALIDATED = "validated"  # parsed, strict schema, business rules, integrity: all passed
    CONFIRMED = "confirmed"  # the validated version is persisted under a stable key
    EXECUTED = "executed"  # every confirmed tool call has a recorded result
    CANCELLED = "cancelled"
    INCOMPLETE = "incomplete"
    FAILED = "failed"
    EXPIRED = "expired"

    def __str__(self) -> str:
        return self.value

    @property
    def terminal(self) -> bool:
        """No transition leaves this state."""
        return not _MOVES[self]


_ALTERNATIVES = {State.CANCELLED, State.INCOMPLETE, State.FAILED, State.EXPIRED}

_MOVES: dict[State, frozenset[State]] = {
    State.RECEIVED: frozenset({State.PROVISIONAL, State.ASSEMBLED} | _ALTERNATIVES),
    State.PROVISIONAL: frozenset({State.ASSEMBLED} | _ALTERNATIVES),
    State.ASSEMBLED: frozenset({State.VALIDATED, State.FAILED, State.CANCELLED, State.EXPIRED}),
    State.VALIDATED: frozenset({State.CONFIRMED, State.CANCELLED, State.EXPIRED}),
    # A confirmed intent can still be withdrawn or time out before anything ran; once a call ran, only
    # reconciliation or compensation (outside this machine) can answer for it.
    State.CONFIRMED: frozenset({State.EXECUTED, State.CANCELLED, State.EXPIRED}),
    State.EXECUTED: frozenset(),
    State.CANCELLED: frozenset(),
    State.INCOMPLETE: frozenset(),
    State.FAILED: frozenset(),
    State.EXPIRED: frozenset(),
}

ALTERNATIVE_TERMINALS: frozenset[State] = frozenset(_ALTERNATIVES)


class IllegalTransition(SluicegateError, RuntimeError):
    """A move the state machine does not allow (e.g. confirm before validated, execute before confirmed)."""

    def __init__(self, current: State, target: State, why: str = "") -> None:
        self.current = current
        self.target = target
        detail = f": {why}" if why else ""
        super().__init__(f"illegal transition {current.value} -> {target.value}{detail}")


class OutcomeUnknown(SluicegateError, RuntimeError):
    """A tool call may or may not have been applied (its response was lost, or another executor holds it).

    Never retried automatically: pass `reconcile=` to `Generation.execute` to look the operation up.
    """

    def __init__(self, key: str, why: str) -> None:
        self.key = key
        super().__init__(f"outcome of operation {key} is unknown: {why}")


def check_transition(current: State, target: State, why: str = "") -> None:
    """Raise `IllegalTransition` unless `current -> target` is in the table."""
    if target not in _MOVES[current]:
        raise IllegalTransition(current, target, why)
