"""One suite, both stores: every test that takes `make_store` runs against a real SQLite file and a real Redis."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sluicegate.budget import RedisStore, SpendStore, SQLiteStore

from .helpers import redis_client


class Stores:
    """Builds stores of one kind that share state (same file / same server and prefix), like two instances."""

    def __init__(self, kind: str, tmp_path: Path, redis_url: str) -> None:
        self.kind = kind
        self.path = tmp_path / "spend.sqlite3"
        self.redis_url = redis_url
        self.prefix = f"t{uuid.uuid4().hex[:10]}"
        self._made: list[Any] = []

    def __call__(self, **kwargs: Any) -> SpendStore:
        if self.kind == "sqlite":
            store: SpendStore = SQLiteStore(self.path, **kwargs)
        else:
            client = redis_client(self.redis_url)
            self._made.append(client)
            store = RedisStore(client, prefix=self.prefix, **kwargs)
        self._made.append(store)
        return store

    def spec(self) -> tuple[str, str, str]:
        """What a child process needs to build the same store."""
        return (self.kind, str(self.path) if self.kind == "sqlite" else self.redis_url, self.prefix)

    def close(self) -> None:
        for made in self._made:
            made.close()


@pytest.fixture(params=["sqlite", "redis"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., SpendStore]]:
    url = request.getfixturevalue("redis_server").url if request.param == "redis" else ""
    stores = Stores(request.param, tmp_path, url)
    yield stores
    stores.close()
