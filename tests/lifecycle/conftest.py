"""The store fixture: every store test runs against a real SQLite file and a real redis-server."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from sluicegate.lifecycle import OperationStore, RedisOperationStore, SQLiteOperationStore


@pytest.fixture(params=["sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OperationStore]:
    if request.param == "sqlite":
        sqlite = SQLiteOperationStore(tmp_path / "operations.sqlite3")
        yield sqlite
        sqlite.close()
    else:
        import redis

        server = request.getfixturevalue("redis_server")
        client = redis.Redis.from_url(server.url)
        yield RedisOperationStore(client, prefix=f"test:{uuid.uuid4().hex}:")
        client.close()
