"""A `limits` storage in the SQLiteStore's file, so rate limits need no server on one machine.

Why our own: `limits` ships memory, Redis, Memcached, MongoDB and etcd storages but none for SQLite, and a
memory storage is per process (four workers would each allow the full rate). Only the fixed-window methods
are implemented; each counter step is one `BEGIN IMMEDIATE` transaction through the store's bounded retries.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from limits.storage import Storage

from .base import StoreUnavailable
from .sqlite import SQLiteStore


class SQLiteLimitsStorage(Storage):
    STORAGE_SCHEME = ["sluicegate+sqlite"]

    def __init__(self, store: SQLiteStore, *, clock: Any = time.time) -> None:
        super().__init__(None, wrap_exceptions=True)
        self.store = store
        self.clock = clock

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return (StoreUnavailable, sqlite3.Error)

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = self.clock()

        def step(conn: sqlite3.Connection) -> int:
            conn.execute(
                "DELETE FROM rate_windows WHERE rowid IN"
                " (SELECT rowid FROM rate_windows WHERE expires_at <= ? LIMIT 50)",
                (now,),
            )
            row = conn.execute("SELECT count, expires_at FROM rate_windows WHERE key = ?", (key,)).fetchone()
            if row is None or row[1] <= now:  # a new window starts at its first hit (as limits' own storages do)
                conn.execute("INSERT OR REPLACE INTO rate_windows VALUES (?, ?, ?)", (key, amount, now + expiry))
                return amount
            conn.execute("UPDATE rate_windows SET count = count + ? WHERE key = ?", (amount, key))
            return int(row[0]) + amount

        return self.store._run("rate incr", step)

    def get(self, key: str) -> int:
        row = self.store._run(
            "rate get",
            lambda c: c.execute(
                "SELECT count FROM rate_windows WHERE key = ? AND expires_at > ?", (key, self.clock())
            ).fetchone(),
        )
        return int(row[0]) if row else 0

    def get_expiry(self, key: str) -> float:
        row = self.store._run(
            "rate expiry", lambda c: c.execute("SELECT expires_at FROM rate_windows WHERE key = ?", (key,)).fetchone()
        )
        return float(row[0]) if row else self.clock()

    def check(self) -> bool:
        try:
            self.store._run("rate check", lambda c: c.execute("SELECT 1").fetchone())
        except StoreUnavailable:
            return False
        return True

    def reset(self) -> int | None:
        return int(self.store._run("rate reset", lambda c: c.execute("DELETE FROM rate_windows").rowcount))

    def clear(self, key: str) -> None:
        self.store._run("rate clear", lambda c: c.execute("DELETE FROM rate_windows WHERE key = ?", (key,)))
