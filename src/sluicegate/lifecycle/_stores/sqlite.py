"""SQLite store: one file, survives restarts, safe across threads and processes (WAL, BEGIN IMMEDIATE)."""

from __future__ import annotations

import sqlite3
import threading
import time
from os import PathLike

from .base import (
    NOT_APPLIED,
    PENDING,
    ConfirmationConflict,
    OperationRecord,
    StatusMoves,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sg_confirmed (generation_id TEXT PRIMARY KEY, record TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sg_operations (
    key TEXT PRIMARY KEY, status TEXT NOT NULL, meta TEXT NOT NULL, result TEXT, at REAL NOT NULL
);
"""


class SQLiteOperationStore(StatusMoves):
    """The embedded default: `SQLiteOperationStore("ops.sqlite3")`. Every write is its own committed transaction."""

    def __init__(self, path: str | PathLike[str], *, timeout: float = 30.0) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # a recorded result must survive a power cut
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def put_confirmed(self, generation_id: str, record: str) -> str:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT OR IGNORE INTO sg_confirmed VALUES (?, ?, ?)", (generation_id, record, time.time())
                )
                (stored,) = self._db.execute(
                    "SELECT record FROM sg_confirmed WHERE generation_id = ?", (generation_id,)
                ).fetchone()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        if stored != record:
            raise ConfirmationConflict(f"generation {generation_id} was confirmed with a different version")
        return str(stored)

    def get_confirmed(self, generation_id: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT record FROM sg_confirmed WHERE generation_id = ?", (generation_id,))
            found = row.fetchone()
        return None if found is None else str(found[0])

    def claim(self, key: str, meta: str) -> OperationRecord:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")  # takes the write lock first: no two claimers see "absent"
            try:
                row = self._db.execute("SELECT status, result FROM sg_operations WHERE key = ?", (key,)).fetchone()
                if row is None:
                    self._db.execute(
                        "INSERT INTO sg_operations VALUES (?, ?, ?, NULL, ?)", (key, PENDING, meta, time.time())
                    )
                    record = OperationRecord(key, PENDING, None, claimed=True)
                elif row[0] == NOT_APPLIED:
                    self._db.execute(
                        "UPDATE sg_operations SET status = ?, at = ? WHERE key = ?", (PENDING, time.time(), key)
                    )
                    record = OperationRecord(key, PENDING, None, claimed=True)
                else:
                    record = OperationRecord(key, str(row[0]), row[1])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return record

    def _set(self, key: str, status: str, result: str | None, allowed: tuple[str, ...]) -> None:
        with self._lock:
            placeholders = ",".join("?" * len(allowed))
            cur = self._db.execute(
                f"UPDATE sg_operations SET status = ?, result = COALESCE(?, result), at = ? "
                f"WHERE key = ? AND status IN ({placeholders})",
                (status, result, time.time(), key, *allowed),
            )
            if cur.rowcount != 1:
                raise KeyError(f"operation {key} is not in {allowed}")

    def get(self, key: str) -> OperationRecord | None:
        with self._lock:
            row = self._db.execute("SELECT status, result FROM sg_operations WHERE key = ?", (key,)).fetchone()
        return None if row is None else OperationRecord(key, str(row[0]), row[1])
