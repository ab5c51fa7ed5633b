"""A monthly spend cap that holds an upper bound of each call's cost *before* the model is called.

Why a reservation and not a check: a check reads the spend and compares, so requests that arrive together all
see the same room and all pass (seed 002 names this hole; LiteLLM's users report it). Here the bound is held in
the store in the same atomic step that compares it, so k concurrent requests against room for k never admit
k+1. `settle` then replaces the hold by the real cost on every end: complete, stopped by the gate, cancelled by
the reader, failed. A hold never settled (the process was killed) counts until its TTL runs out.

Fail closed: with the store unreachable the spend is unknown, and unknown spend against a hard cap is refused
as if the cap were reached (logged, counted). `settle` never raises to the reader: a settle the store could not
take is kept and retried on the next call (settling is idempotent, so a retry never counts twice), while the
hold it replaces keeps counting in the store meanwhile.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .._notices import notice
from .._usage import Usage
from ._bound import MESSAGE_OVERHEAD_TOKENS, prompt_tokens_bound
from ._prices import Money, Price, PriceSpec, from_nano, price_of, price_table, to_nano
from ._stores.base import SpendStore, StoreUnavailable, Totals

log = logging.getLogger("sluicegate.budget")

DEFAULT_TTL_SECONDS = 30 * 60.0  # longer than any provider timeout (OpenAI's and Anthropic's SDKs: 10 min)
MAX_PENDING_SETTLES = 10_000


@dataclass(frozen=True)
class CapDecision:
    """Whether a call may go to the model. Refused: `notice` is the fixed text to show the reader.

    `reason` is "admitted", "monthly_limit" (the bound would pass the cap) or "store_unavailable" (refused
    because the spend could not be read: fail closed). The reader sees the same notice for both refusals.
    """

    admitted: bool
    reason: str
    notice: str | None = None

    def __bool__(self) -> bool:
        return self.admitted


@dataclass(frozen=True)
class Reservation:
    """One held upper bound. Pass it to `SpendCap.settle` when the call ends, however it ends."""

    id: str
    decision: CapDecision
    model: str
    scope: str
    month: str  # UTC calendar month the call started in, "YYYY-MM": the month it is charged to
    amount: int  # the held bound, nano-units
    input_bound: int  # tokens: prompt bytes + framing
    prompt_bytes: int
    max_output_tokens: int
    expires_at: float
    totals: Totals | None = None  # committed/reserved seen by the reserve step (None if the store failed)

    @property
    def admitted(self) -> bool:
        return self.decision.admitted

    @property
    def notice(self) -> str | None:
        return self.decision.notice


@dataclass
class CapStats:
    """Counters for logs and metrics (per SpendCap object, i.e. per process)."""

    admitted: int = 0
    refused_limit: int = 0
    refused_store: int = 0
    settled: int = 0
    settle_failures: int = 0
    settles_replayed: int = 0
    pending_dropped: int = 0
    store_errors: list[str] = field(default_factory=list)


def utc_month(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m")


class SpendCap:
    """`SpendCap(store, monthly_cap, prices)`: reserve before the call, settle after it.

    `monthly_cap` and `prices` are in one currency (prices per million tokens: `{"model": Price(in, out)}` or
    `(in, out)` tuples; `"*"` prices any other model). `scope` separates caps that share a store (one per
    tenant, say). `ttl` is how long a hold lives if it is never settled.
    """

    def __init__(
        self,
        store: SpendStore,
        monthly_cap: Money,
        prices: Mapping[str, PriceSpec],
        *,
        scope: str = "default",
        language: str = "en",
        ttl: float = DEFAULT_TTL_SECONDS,
        message_overhead_tokens: int = MESSAGE_OVERHEAD_TOKENS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not isinstance(store, SpendStore):
            raise TypeError(f"store must implement SpendStore (SQLiteStore, RedisStore), got {type(store).__name__}")
        if ttl <= 0:
            raise ValueError("ttl must be positive")
        if "|" in scope or "{" in scope or "}" in scope:
            raise ValueError("scope must not contain '|', '{' or '}'")
        notice(language, "monthly_limit")  # an unknown language is a configuration error, raised now
        self.store = store
        self.cap = to_nano(monthly_cap, "monthly_cap")
        self.prices: dict[str, Price] = price_table(prices)
        self.scope = scope
        self.language = language
        self.ttl = ttl
        self.overhead = message_overhead_tokens
        self.clock = clock
        self.stats = CapStats()
        self._pending: deque[tuple[Reservation, int]] = deque()
        self._lock = threading.Lock()

    # -- before the call ------------------------------------------------------------------------------------

    def bound(self, prompt: Any, *, max_output_tokens: int, model: str, reasoning_tokens: int = 0) -> int:
        """The upper bound of one call's cost in nano-units (what `reserve` would hold)."""
        return self._bound(prompt, max_output_tokens, model, reasoning_tokens)[0]

    def _bound(self, prompt: Any, max_output: int, model: str, reasoning: int) -> tuple[int, int, int]:
        for name, value in (("max_output_tokens", max_output), ("reasoning_tokens", reasoning)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a non-negative int, got {value!r}")
        input_bound, prompt_bytes = prompt_tokens_bound(prompt, overhead=self.overhead)
        return price_of(self.prices, model).cost(input_bound, max_output + reasoning), input_bound, prompt_bytes

    def reserve(
        self,
        prompt: Any,
        *,
        max_output_tokens: int,
        model: str,
        reasoning_tokens: int = 0,
        language: str | None = None,
    ) -> Reservation:
        """Hold the call's upper bound, or refuse. Never raises for a full cap or a failing store.

        `prompt` is everything sent (a str or all messages); `max_output_tokens` the output cap the call is
        made with, reasoning included where the provider counts it there; `reasoning_tokens` an extra thinking
        budget for providers that bill it on top. Raises ValueError only for bad arguments (an unpriced model).
        """
        amount, input_bound, prompt_bytes = self._bound(prompt, max_output_tokens, model, reasoning_tokens)
        refusal = notice(language or self.language, "monthly_limit")  # an unknown language raises before any hold
        now = self.clock()
        month, rid, expires = utc_month(now), uuid.uuid4().hex, now + self.ttl
        totals: Totals | None = None
        try:
            result = self.store.reserve(self.scope, month, rid, amount, self.cap, now=now, expires_at=expires)
            totals = result.totals
            self._replay_pending()  # the store answered: a good moment to retry settles it refused earlier
            decision = (
                CapDecision(True, "admitted") if result.admitted else CapDecision(False, "monthly_limit", refusal)
            )
        except Exception as exc:  # StoreUnavailable, or a store that misbehaves: unknown spend, so refuse
            self._store_error("reserve", exc)
            decision = CapDecision(False, "store_unavailable", refusal)
        with self._lock:
            if decision.admitted:
                self.stats.admitted += 1
            elif decision.reason == "monthly_limit":
                self.stats.refused_limit += 1
            else:
                self.stats.refused_store += 1
        if not decision.admitted:
            log.info("spend cap refused a call: %s (bound %s)", decision.reason, from_nano(amount))
        return Reservation(
            rid, decision, model, self.scope, month, amount, input_bound, prompt_bytes,
            max_output_tokens + reasoning_tokens, expires, totals,
        )  # fmt: skip

    # -- after the call -------------------------------------------------------------------------------------

    def cost(self, reservation: Reservation, usage: Usage | None) -> int:
        """The real cost in nano-units: the provider's figures where reported, else one token per UTF-8 byte.

        Input the provider did not report is the prompt's bound (its bytes plus framing); output it did not
        report is the received text's bytes (`Usage.source == "estimate"`). No usage at all (the call failed
        before a byte arrived) charges the prompt alone.
        """
        price = price_of(self.prices, reservation.model)
        if usage is None:
            return price.cost(reservation.input_bound, 0)
        input_tokens = usage.input_tokens if usage.input_tokens is not None else reservation.input_bound
        return price.cost(input_tokens, usage.output_tokens)

    def settle(self, reservation: Reservation, usage: Usage | None) -> bool:
        """Replace the hold by the real cost. Never raises; True if recorded now.

        A refused reservation has nothing to settle. A second settle of the same reservation is a no-op, in
        this process or another. If the store is down, the settle is kept (bounded) and retried on later calls.
        """
        if not reservation.admitted:
            return False
        try:
            cost = self.cost(reservation, usage)
        except Exception as exc:  # never to the reader; the hold keeps counting until its TTL
            log.error("spend cap could not price a settle: %s", exc)
            with self._lock:
                self.stats.settle_failures += 1
            return False
        done = self._settle(reservation, cost, queue=True)
        if done:
            self._replay_pending()
        return done

    def _settle(self, reservation: Reservation, cost: int, *, queue: bool) -> bool:
        try:
            done = self.store.settle(reservation.scope, reservation.month, reservation.id, cost, now=self.clock())
        except StoreUnavailable as exc:
            self._store_error("settle", exc)
            with self._lock:
                self.stats.settle_failures += 1
                if queue:
                    if len(self._pending) >= MAX_PENDING_SETTLES:
                        self._pending.popleft()
                        self.stats.pending_dropped += 1
                    self._pending.append((reservation, cost))
            return False
        except Exception as exc:  # a store bug must not reach the reader either
            log.exception("spend cap settle failed: %s", exc)
            with self._lock:
                self.stats.settle_failures += 1
            return False
        if done:
            with self._lock:
                self.stats.settled += 1
        return done

    def _replay_pending(self) -> None:
        """Retry settles the store refused earlier, oldest first; stop at the first that fails again."""
        while True:
            with self._lock:
                if not self._pending:
                    return
                reservation, cost = self._pending[0]
            try:
                done = self.store.settle(reservation.scope, reservation.month, reservation.id, cost, now=self.clock())
            except Exception:
                return
            with self._lock:
                if self._pending and self._pending[0][0] is reservation:
                    self._pending.popleft()
                self.stats.settles_replayed += done

    @property
    def pending_settles(self) -> int:
        return len(self._pending)

    # -- reports --------------------------------------------------------------------------------------------

    def totals(self, month: str | None = None) -> Totals:
        """Committed and live-reserved spend (nano-units) of `month` (default: this UTC month). May raise
        `StoreUnavailable`: this is for dashboards, not for the reader's path."""
        now = self.clock()
        return self.store.totals(self.scope, month or utc_month(now), now=now)

    def _store_error(self, what: str, exc: Exception) -> None:
        if isinstance(exc, StoreUnavailable):
            log.error("spend cap store failed on %s (failing closed): %s", what, exc)
        else:
            log.exception("spend cap store misbehaved on %s (failing closed)", what)
        with self._lock:
            self.stats.store_errors.append(type(exc.__cause__ or exc).__name__)
            del self.stats.store_errors[:-20]
