"""The embedded default: one SQLite file, safe across threads and processes, surviving restarts.

Why these settings: WAL lets readers work while one writer commits; every money step runs in `BEGIN IMMEDIATE`
so two processes cannot both read "room left" and both insert (the write lock is taken before the read).
Threads of one process share one connection behind a lock, so they queue in Python instead of spinning in
SQLite's busy handler; processes contend through the file lock. A locked database is retried a bounded number
of times, then the step fails (`StoreUnavailable`), which the cap turns into a refusal: never an unbounded wait.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .base import ReserveResult, StoreUnavailable, Totals

log = logging.getLogger("sluicegate.budget")
T = TypeVar("T")

RETENTION_SECONDS = 2 * 86400.0  # settled/expired rows are kept this long past expiry, so a late settle is known

SCHEMA = """
CREATE TABLE IF NOT EXISTS spend (
    scope TEXT NOT NULL, month TEXT NOT NULL, committed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (scope, month)
);
CREATE TABLE IF NOT EXISTS reservations (
    id TEXT PRIMARY KEY, scope TEXT NOT NULL, month TEXT NOT NULL, amount INTEGER NOT NULL,
    expires_at REAL NOT NULL, settled INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS reservations_live ON reservations (scope, month, settled, expires_at);
CREATE INDEX IF NOT EXISTS reservations_expiry ON reservations (expires_at);
CREATE TABLE IF NOT EXISTS rate_windows (key TEXT PRIMARY KEY, count INTEGER NOT NULL, expires_at REAL NOT NULL);
"""


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class SQLiteStore:
    """Spend (and rate-limit) state in the SQLite file at `path`; the file is created on first use.

    `busy_timeout` is SQLite's own wait per attempt, `attempts` how many times a locked database is tried
    before the step fails. `synchronous="NORMAL"` (default; SQLite's advice for WAL) keeps every commit across
    a process crash or restart; only a power loss or OS crash can lose the last commits. "FULL" fsyncs each
    commit (power-loss safe) at about 4 ms per step on this machine (tests/benchmarks/budget.py). Opening is
    lazy: a bad path makes the first `reserve` refuse (logged), it does not raise here.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = 1.0,
        attempts: int = 4,
        synchronous: str = "NORMAL",
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        if synchronous.upper() not in ("FULL", "NORMAL", "EXTRA"):
            raise ValueError("synchronous must be FULL, NORMAL or EXTRA")
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self.attempts = attempts
        self.synchronous = synchronous.upper()
        self.busy_retries = 0  # how often a step found the database locked (a gauge of contention)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = 0

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    # -- connection -------------------------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():  # a forked child must not reuse its parent's handle
            conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(f"PRAGMA synchronous={self.synchronous}")
                conn.executescript(SCHEMA)
            except BaseException:
                conn.close()
                raise
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def _drop(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
        self._conn = None

    def _run(self, what: str, step: Callable[[sqlite3.Connection], T]) -> T:
        """Run `step` in one BEGIN IMMEDIATE transaction, retrying a locked database `attempts` times."""
        if not self._lock.acquire(timeout=self.busy_timeout * self.attempts + 1.0):
            raise StoreUnavailable(f"sqlite {what}: this process's connection stayed busy")
        try:
            for attempt in range(self.attempts):
                try:
                    conn = self._connection()
                    conn.execute("BEGIN IMMEDIATE")
                    try:
                        result = step(conn)
                        conn.execute("COMMIT")
                        return result
                    except BaseException:
                        if conn.in_transaction:
                            conn.execute("ROLLBACK")
                        raise
                except sqlite3.OperationalError as exc:
                    if not _is_busy(exc):
                        self._drop()
                        raise StoreUnavailable(f"sqlite {what}: {exc}") from exc
                    self.busy_retries += 1
                    if attempt + 1 < self.attempts:
                        time.sleep(random.uniform(0.0, 0.01 * 2**attempt))
                except sqlite3.Error as exc:
                    self._drop()
                    raise StoreUnavailable(f"sqlite {what}: {exc}") from exc
            raise StoreUnavailable(f"sqlite {what}: database locked after {self.attempts} attempts")
        finally:
            self._lock.release()

    # -- the SpendStore protocol ----------------------------------------------------------------------------

    @staticmethod
    def _totals(conn: sqlite3.Connection, scope: str, month: str, now: float) -> Totals:
        row = conn.execute("SELECT committed FROM spend WHERE scope = ? AND month = ?", (scope, month)).fetchone()
        (reserved,) = conn.execute(
            "SELECT COALESCE(SUM(amount), 0) FROM reservations"
            " WHERE scope = ? AND month = ? AND settled = 0 AND expires_at > ?",
            (scope, month, now),
        ).fetchone()
        return Totals(int(row[0]) if row else 0, int(reserved))

    def reserve(
        self, scope: str, month: str, rid: str, amount: int, cap: int, *, now: float, expires_at: float
    ) -> ReserveResult:
        def step(conn: sqlite3.Connection) -> ReserveResult:
            conn.execute(
                "DELETE FROM reservations WHERE rowid IN"
                " (SELECT rowid FROM reservations WHERE expires_at < ? LIMIT 100)",
                (now - RETENTION_SECONDS,),
            )
            totals = self._totals(conn, scope, month, now)
            if totals.committed + totals.reserved + amount > cap:
                return ReserveResult(False, totals)
            conn.execute(
                "INSERT INTO reservations (id, scope, month, amount, expires_at) VALUES (?, ?, ?, ?, ?)",
                (rid, scope, month, amount, expires_at),
            )
            return ReserveResult(True, Totals(totals.committed, totals.reserved + amount))

        return self._run("reserve", step)

    def settle(self, scope: str, month: str, rid: str, cost: int, *, now: float) -> bool:
        def step(conn: sqlite3.Connection) -> bool:
            row = conn.execute(
                "SELECT settled FROM reservations WHERE id = ? AND scope = ? AND month = ?", (rid, scope, month)
            ).fetchone()
            if row is None or row[0]:
                return False
            conn.execute("UPDATE reservations SET settled = 1 WHERE id = ?", (rid,))
            conn.execute(
                "INSERT INTO spend (scope, month, committed) VALUES (?, ?, ?)"
                " ON CONFLICT (scope, month) DO UPDATE SET committed = committed + excluded.committed",
                (scope, month, cost),
            )
            return True

        return self._run("settle", step)

    def totals(self, scope: str, month: str, *, now: float) -> Totals:
        return self._run("totals", lambda conn: self._totals(conn, scope, month, now))

    def close(self) -> None:
        with self._lock:
            self._drop()
