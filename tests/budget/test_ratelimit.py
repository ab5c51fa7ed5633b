"""RateLimits against both real stores: stacked windows, per-client keys, and failing open when the store is down."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from limits.storage import MemoryStorage

from sluicegate.budget import RateLimits, RedisStore, SQLiteStore, client_key
from tests.services.ports import free_port

from .helpers import redis_client


def asgi(peer: str | None, *xff: str) -> dict:
    headers = [(b"x-forwarded-for", v.encode()) for v in xff]
    return {"type": "http", "client": (peer, 50000) if peer else None, "headers": headers}


def test_a_full_minute_refuses_with_retry_after_and_other_clients_are_untouched(make_store):
    limits = RateLimits(make_store(), per_minute=3, per_day=100)
    assert [limits.hit("1.2.3.4").allowed for _ in range(4)] == [True, True, True, False]
    refused = limits.hit("1.2.3.4")
    assert not refused and refused.limit is not None and "minute" in refused.limit
    assert refused.retry_after is not None and 1 <= refused.retry_after <= 60
    assert limits.hit("5.6.7.8").allowed and limits.refused == 2 and limits.failed_open == 0


def test_the_hour_window_refuses_when_the_minute_has_room(make_store):
    limits = RateLimits(make_store(), per_minute=10, per_hour=2)
    got = [limits.hit("k") for _ in range(3)]
    assert [d.allowed for d in got] == [True, True, False] and "hour" in (got[2].limit or "")


def test_limits_are_shared_by_instances_on_one_store(make_store):
    a, b = RateLimits(make_store(), per_minute=2), RateLimits(make_store(), per_minute=2)
    assert a.hit("k") and b.hit("k") and not a.hit("k") and not b.hit("k")


def test_a_spoofed_forwarded_for_without_a_trusted_proxy_changes_nothing(make_store):
    limits = RateLimits(make_store(), per_minute=2)
    decisions = [limits.hit_asgi(asgi("203.0.113.7", f"198.51.100.{i}")) for i in range(3)]
    assert [d.key for d in decisions] == ["203.0.113.7"] * 3
    assert [d.allowed for d in decisions] == [True, True, False]


def test_redis_down_fails_open_counted_and_marked_degraded(caplog):
    limits = RateLimits(RedisStore(redis_client(f"redis://127.0.0.1:{free_port()}/0")), per_minute=1)
    got = [limits.hit("k") for _ in range(3)]
    assert all(d.allowed and d.degraded for d in got) and limits.failed_open == 3
    assert "fail open" in caplog.text


def test_redis_killed_then_restarted_fails_open_then_limits_again(redis_server):
    limits = RateLimits(RedisStore(redis_client(redis_server.url), prefix="rl-kill"), per_minute=1)
    assert limits.hit("k").allowed and not limits.hit("k").allowed
    redis_server.stop()
    try:
        assert limits.hit("k").degraded and limits.failed_open == 1
    finally:
        redis_server.start()
    assert limits.hit("k").allowed and not limits.hit("k").allowed  # a fresh server: a fresh window


def test_sqlite_locked_fails_open(tmp_path: Path):
    store = SQLiteStore(tmp_path / "rl.sqlite3", busy_timeout=0.02, attempts=2)
    limits = RateLimits(store, per_minute=5)
    assert limits.hit("k").allowed and not limits.hit("k").degraded
    other = sqlite3.connect(tmp_path / "rl.sqlite3", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        d = limits.hit("k")
        assert d.allowed and d.degraded and limits.failed_open == 1
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_any_limits_storage_works_as_is():
    limits = RateLimits(MemoryStorage(), per_minute=1)
    assert limits.hit("k") and not limits.hit("k")


def test_configuration_errors_are_clear():
    with pytest.raises(ValueError, match="at least one"):
        RateLimits(MemoryStorage())
    with pytest.raises(ValueError, match="positive"):
        RateLimits(MemoryStorage(), per_minute=0)
    with pytest.raises(ValueError, match="trusted proxy"):
        RateLimits(MemoryStorage(), per_minute=1, trusted_proxies=["not-an-ip"])
    with pytest.raises(TypeError):
        RateLimits(object(), per_minute=1)


# -- client keys ------------------------------------------------------------------------------------------------


def test_no_trusted_proxy_means_the_peer_whatever_the_header_says():
    assert client_key(asgi("203.0.113.7", "1.1.1.1")) == "203.0.113.7"


def test_behind_a_trusted_proxy_the_right_most_untrusted_hop_is_the_client():
    proxies = ["10.0.0.0/8"]
    assert client_key(asgi("10.0.0.2", "198.51.100.9"), proxies) == "198.51.100.9"
    # the client wrote the left part: it cannot move itself to another bucket
    assert client_key(asgi("10.0.0.2", "1.1.1.1, 198.51.100.9"), proxies) == "198.51.100.9"
    # two of our proxies in the chain, and several headers joined in order
    assert client_key(asgi("10.0.0.2", "6.6.6.6, 198.51.100.9", "10.0.0.7"), proxies) == "198.51.100.9"
    # a peer that is not one of our proxies: its header is ignored
    assert client_key(asgi("192.0.2.1", "198.51.100.9"), proxies) == "192.0.2.1"
    # no header from a trusted proxy: the proxy itself; only our hops: the left-most of them
    assert client_key(asgi("10.0.0.2"), proxies) == "10.0.0.2"
    assert client_key(asgi("10.0.0.2", "10.9.9.9, 10.0.0.3"), proxies) == "10.9.9.9"


def test_garbage_in_the_chain_stops_the_walk_at_the_last_trusted_hop():
    assert client_key(asgi("10.0.0.2", "198.51.100.9, bogus"), ["10.0.0.0/8"]) == "10.0.0.2"


def test_ports_brackets_mapped_addresses_and_ipv6_prefixes():
    proxies = ["127.0.0.1", "::1"]
    assert client_key(asgi("127.0.0.1", "198.51.100.9:4711"), proxies) == "198.51.100.9"
    assert client_key(asgi("::1", "[2001:db8:1:2::5]:443"), proxies) == "2001:db8:1:2::/64"
    assert client_key(asgi("2001:db8:1:2:aaaa::1")) == client_key(asgi("2001:db8:1:2:bbbb::9"))
    assert client_key(asgi("::ffff:192.0.2.5")) == "192.0.2.5"
    assert client_key(asgi(None)) == "unknown"


# -- what the limits library does on its own (why RateLimits wraps it) --------------------------------------------


def test_limits_alone_raises_when_its_redis_is_down_so_fail_open_is_ours():
    from limits import RateLimitItemPerMinute
    from limits.storage import RedisStorage
    from limits.strategies import FixedWindowRateLimiter

    storage = RedisStorage(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=0.5)
    with pytest.raises(Exception) as raised:
        FixedWindowRateLimiter(storage).hit(RateLimitItemPerMinute(1), "k")
    assert "ConnectionError" in type(raised.value).__name__


def test_limits_has_no_sqlite_storage_so_we_ship_one():
    from limits.errors import ConfigurationError
    from limits.storage import storage_from_string

    with pytest.raises(ConfigurationError):
        storage_from_string("sqlite:///tmp/x.db")
