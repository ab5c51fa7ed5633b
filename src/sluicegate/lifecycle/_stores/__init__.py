"""Where confirmed generations and tool operations live: SQLite (embedded default) or Redis (many instances)."""

from .base import OperationRecord, OperationStore
from .redis import RedisOperationStore  # imports nothing from redis-py: the caller passes its client
from .sqlite import SQLiteOperationStore

__all__ = ["OperationRecord", "OperationStore", "RedisOperationStore", "SQLiteOperationStore"]
