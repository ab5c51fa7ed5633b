"""Shared bits of the budget tests: a redis client that fails fast, a settable clock, a standard price table."""

from __future__ import annotations

import threading
from typing import Any

from sluicegate.budget import Price, RedisStore, SpendStore, SQLiteStore

PRICES = {"small": Price("0.15", "0.60"), "big": Price("3", "15")}


def redis_client(url: str) -> Any:
    """A redis-py client that gives up quickly: a dead server must become a refusal, not a hang."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis.from_url(url, socket_timeout=1.0, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0))


def store_from_spec(spec: tuple[str, str, str]) -> SpendStore:
    kind, where, prefix = spec
    if kind == "sqlite":
        return SQLiteStore(where)
    return RedisStore(redis_client(where), prefix=prefix)


class Clock:
    """A clock the test moves by hand, so TTL expiry and month rollover need no sleeping."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class SlowStore:
    """A real store whose `reserve` waits (as a locked SQLite file or a slow Redis does) until `release` is set,
    at most `wait` seconds; `released` records whether it was released or gave up waiting."""

    def __init__(self, inner: SpendStore, wait: float = 10.0) -> None:
        self.inner = inner
        self.wait = wait
        self.entered = threading.Event()
        self.release = threading.Event()
        self.released: list[bool] = []

    def reserve(self, *args: Any, **kwargs: Any) -> Any:
        self.entered.set()
        self.released.append(self.release.wait(self.wait))
        return self.inner.reserve(*args, **kwargs)

    def settle(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.settle(*args, **kwargs)

    def totals(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.totals(*args, **kwargs)

    def close(self) -> None:
        self.inner.close()
