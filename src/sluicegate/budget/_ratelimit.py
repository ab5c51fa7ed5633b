"""Per-client rate limits over a minute, an hour and a day, that fail open.

Why open: a cache outage must not take the site down, and the worst case of an open rate limiter is a few more
requests, while the spend cap (which fails closed) still bounds the bill (seed 002). Open is not silent: each
request let through unchecked is counted (`failed_open`), logged, and marked `degraded` so a server can say so
in a response header. Unlike slowapi, a store error never becomes a 500.

Built on the `limits` library (fixed windows): its Redis storage for `RedisStore` (sharing the caller's
connection pool), our SQLite storage for `SQLiteStore`, or any `limits` storage passed as is (MemoryStorage).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ._clientkey import IPNetwork, client_key, networks

log = logging.getLogger("sluicegate.budget")

DEGRADED_HEADER = "x-ratelimit-degraded"  # set (value "fail-open") on responses the limiter could not check


@dataclass(frozen=True)
class RateDecision:
    """`allowed`; else `limit` ("5 per 1 minute") that refused and `retry_after` seconds. `degraded`: the store
    failed and the request passed unchecked."""

    allowed: bool
    key: str
    degraded: bool = False
    limit: str | None = None
    retry_after: int | None = None

    def __bool__(self) -> bool:
        return self.allowed


def _limits_storage(store: Any) -> Any:
    from limits.storage import Storage

    if isinstance(store, Storage):
        return store
    from ._stores.redis import RedisStore
    from ._stores.sqlite import SQLiteStore

    if isinstance(store, SQLiteStore):
        from ._stores.sqlite_limits import SQLiteLimitsStorage

        return SQLiteLimitsStorage(store)
    if isinstance(store, RedisStore):
        from limits.storage import RedisStorage

        pool = store.client.connection_pool
        return RedisStorage("redis://", connection_pool=pool, key_prefix=f"{store.prefix}:rl", wrap_exceptions=True)
    raise TypeError(f"RateLimits needs a SQLiteStore, a RedisStore or a limits storage, got {type(store).__name__}")


class RateLimits:
    """`RateLimits(store, per_minute=…, per_hour=…, per_day=…)`: stacked per-client limits.

    `trusted_proxies` (addresses or networks) are the proxies whose X-Forwarded-For is believed; none by
    default, so the header is ignored. `scope` separates limit sets sharing a store.
    """

    def __init__(
        self,
        store: Any,
        *,
        per_minute: int | None = None,
        per_hour: int | None = None,
        per_day: int | None = None,
        trusted_proxies: Iterable[str | IPNetwork] = (),
        scope: str = "default",
        ipv6_prefix: int = 64,
    ) -> None:
        from limits import RateLimitItem, RateLimitItemPerDay, RateLimitItemPerHour, RateLimitItemPerMinute
        from limits.strategies import FixedWindowRateLimiter

        windows: list[tuple[int | None, type[RateLimitItem]]] = [
            (per_minute, RateLimitItemPerMinute),
            (per_hour, RateLimitItemPerHour),
            (per_day, RateLimitItemPerDay),
        ]
        items = [(amount, item) for amount, item in windows if amount is not None]
        if not items:
            raise ValueError("RateLimits needs at least one of per_minute, per_hour, per_day")
        for amount, _ in items:
            if not isinstance(amount, int) or isinstance(amount, bool) or amount < 1:
                raise ValueError(f"a rate limit must be a positive int, got {amount!r}")
        self.items = [item(amount, namespace=f"sluicegate:{scope}") for amount, item in items]
        self.limiter = FixedWindowRateLimiter(_limits_storage(store))
        self.trusted = networks(trusted_proxies)
        self.ipv6_prefix = ipv6_prefix
        self.failed_open = 0  # requests let through because the store failed
        self.refused = 0
        self._lock = threading.Lock()

    def client_key(self, scope: Mapping[str, Any]) -> str:
        """The key for an ASGI connection scope (peer, or trusted-proxy X-Forwarded-For)."""
        return client_key(scope, self.trusted, self.ipv6_prefix)

    def hit_asgi(self, scope: Mapping[str, Any]) -> RateDecision:
        return self.hit(self.client_key(scope))

    def hit(self, key: str) -> RateDecision:
        """Count one request for `key` against every window; refuse at the first window that is full."""
        try:
            for item in self.items:
                if not self.limiter.hit(item, key):
                    reset = self.limiter.get_window_stats(item, key).reset_time
                    with self._lock:
                        self.refused += 1
                    return RateDecision(False, key, limit=str(item), retry_after=max(1, math.ceil(reset - time.time())))
        except Exception as exc:  # fail open, audibly: never a 500 because a cache is down
            with self._lock:
                self.failed_open += 1
            log.warning("rate limiter store failed, request let through (fail open): %s: %s", type(exc).__name__, exc)
            return RateDecision(True, key, degraded=True)
        return RateDecision(True, key)
