"""Stores behind one protocol: `SQLiteStore` (embedded default) and `RedisStore` (several instances)."""

from .base import ReserveResult, SpendStore, StoreUnavailable, Totals
from .redis import RedisStore
from .sqlite import SQLiteStore

__all__ = ["RedisStore", "ReserveResult", "SQLiteStore", "SpendStore", "StoreUnavailable", "Totals"]
