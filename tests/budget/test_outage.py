"""Fail closed on spend: a dead Redis or a locked SQLite refuses calls, never raises, never settles twice."""

from __future__ import annotations

import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from sluicegate import Usage
from sluicegate._notices import notice
from sluicegate.budget import Price, RedisStore, SpendCap, SQLiteStore
from tests.services.ports import free_port, wait_listening
from tests.services.redis_server import RedisServer

from .helpers import PRICES, redis_client


class DurableRedis(RedisServer):
    """The shared fixture's server with an fsync-per-write AOF, as money state should be run: a restart keeps
    the data, so "nothing settled twice when it returns" is tested against the state that was there."""

    def start(self) -> None:
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--dir", str(self.workdir)]
        args += ["--appendonly", "yes", "--appendfsync", "always"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_listening(self.port)


@pytest.fixture
def durable_redis(tmp_path: Path):
    server = DurableRedis(tmp_path)
    server.start()
    yield server
    server.stop()


def test_redis_killed_mid_run_refuses_never_raises_and_settles_once_when_back(durable_redis):
    cap = SpendCap(RedisStore(redis_client(durable_redis.url)), "10", PRICES, language="de")
    in_flight = cap.reserve("q", max_output_tokens=100, model="small")
    assert in_flight.admitted
    durable_redis.stop()  # SIGKILL while the answer streams

    refused = cap.reserve("q", max_output_tokens=100, model="small")
    assert not refused.admitted and refused.decision.reason == "store_unavailable"
    assert refused.notice == notice("de", "monthly_limit")
    usage = Usage(output_tokens=30, input_tokens=5, source="provider", received_chars=9, received_bytes=9, pieces=2)
    assert cap.settle(in_flight, usage) is False  # the stream ended during the outage: no exception
    assert cap.pending_settles == 1 and cap.stats.refused_store == 1 and cap.stats.settle_failures == 1

    durable_redis.start()
    assert cap.reserve("q", max_output_tokens=100, model="small").admitted  # and the queued settle is replayed
    assert cap.pending_settles == 0 and cap.stats.settles_replayed == 1
    assert cap.settle(in_flight, usage) is False  # already settled: nothing counted twice
    assert cap.totals().committed == Price("0.15", "0.60").cost(5, 30)


def test_a_store_whose_server_is_down_constructs_and_the_first_reserve_refuses():
    store = RedisStore(redis_client(f"redis://127.0.0.1:{free_port()}/0"))  # nothing listens there
    cap = SpendCap(store, "10", PRICES)
    started = time.monotonic()
    r = cap.reserve("q", max_output_tokens=10, model="small")
    assert not r.admitted and r.decision.reason == "store_unavailable" and r.notice
    assert cap.stats.store_errors == ["ConnectionError"]
    assert time.monotonic() - started < 2.0


def test_sqlite_locked_retries_a_bounded_number_of_times_then_refuses(tmp_path: Path):
    path = tmp_path / "spend.sqlite3"
    store = SQLiteStore(path, busy_timeout=0.05, attempts=3)
    cap = SpendCap(store, "10", PRICES)
    held = cap.reserve("q", max_output_tokens=10, model="small")  # creates the file and its schema
    assert held.admitted

    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    try:
        started = time.monotonic()
        r = cap.reserve("q", max_output_tokens=10, model="small")
        elapsed = time.monotonic() - started
        assert not r.admitted and r.decision.reason == "store_unavailable"
        assert store.busy_retries == 3 and elapsed < 1.0
        assert cap.settle(held, None) is False and cap.pending_settles == 1  # no exception to the reader
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert cap.reserve("q", max_output_tokens=10, model="small").admitted
    assert cap.pending_settles == 0 and cap.totals().committed == Price("0.15", "0.60").cost(held.input_bound, 0)


def test_sqlite_on_a_path_that_cannot_be_opened_refuses_without_raising(tmp_path: Path):
    cap = SpendCap(SQLiteStore(tmp_path / "missing-dir" / "spend.sqlite3"), "10", PRICES)
    r = cap.reserve("q", max_output_tokens=10, model="small")
    assert not r.admitted and r.decision.reason == "store_unavailable"


def test_every_redis_key_of_a_month_has_a_ttl(redis_server):
    client = redis_client(redis_server.url)
    cap = SpendCap(RedisStore(client, prefix="ttl-check"), "10", PRICES)
    cap.settle(cap.reserve("q", max_output_tokens=10, model="small"), None)
    cap.reserve("q", max_output_tokens=10, model="small")
    keys = list(client.scan_iter("ttl-check:*"))
    assert len(keys) >= 5  # committed, held, amounts, reserved, one settled marker
    assert all(client.ttl(key) > 0 for key in keys)


def test_a_store_that_misbehaves_is_a_refusal_not_an_exception(tmp_path: Path):
    class Broken(SQLiteStore):
        def reserve(self, *args, **kwargs):  # a store bug, not an outage
            raise TypeError("unexpected reply")

    cap = SpendCap(Broken(tmp_path / "s.db"), "10", PRICES)
    r = cap.reserve("q", max_output_tokens=10, model="small")
    assert not r.admitted and r.decision.reason == "store_unavailable" and cap.stats.store_errors == ["TypeError"]
