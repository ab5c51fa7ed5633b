"""The distributed store: one Redis (or a cluster slot) shared by every instance, each money step one Lua script.

Why Lua: "read the room left, then hold it" must be one step or two instances both see room and both pass
(LiteLLM's concurrency overruns). A script runs atomically on the server, so the check and the hold cannot be
interleaved. All keys of one scope and month share a hash tag, so the scripts also run on Redis Cluster.

Keys, for scope s and month m (`{sg|s|m}` is the hash tag):
  committed  settled spend (INCRBY)            held     zset: reservation id -> expires_at
  reserved   sum of live holds                  amounts  hash: reservation id -> amount (held or expired)
  done:<id>  a settled marker, with a TTL, so a replayed settle is a no-op
Expired holds are swept by the next reserve (their amount leaves `reserved`, stays in `amounts` so a late settle
is still recorded once). Every key carries a TTL, so a month's state ends by itself.

The client is the caller's (`redis.Redis(...)`): give it short `socket_timeout`/`socket_connect_timeout` so a
dead server turns into a quick refusal. Constructing the store never contacts the server.
"""

from __future__ import annotations

import logging
from typing import Any

from .base import ReserveResult, StoreUnavailable, Totals

log = logging.getLogger("sluicegate.budget")

KEY_TTL_SECONDS = 70 * 86400  # a month plus the time to report on it
DONE_TTL_SECONDS = 40 * 86400

RESERVE = """
local now = tonumber(ARGV[2])
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 100)
for _, id in ipairs(expired) do
  local a = tonumber(redis.call('HGET', KEYS[3], id) or '0')
  redis.call('DECRBY', KEYS[4], a)
  redis.call('ZREM', KEYS[2], id)
end
local committed = tonumber(redis.call('GET', KEYS[1]) or '0')
local reserved = tonumber(redis.call('GET', KEYS[4]) or '0')
local amount = tonumber(ARGV[4])
if committed + reserved + amount > tonumber(ARGV[5]) then
  return {0, committed, reserved}
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], amount)
redis.call('INCRBY', KEYS[4], amount)
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[6]) end
return {1, committed, reserved + amount}
"""

SETTLE = """
if redis.call('EXISTS', KEYS[5]) == 1 then return 0 end
local amount = redis.call('HGET', KEYS[3], ARGV[1])
if not amount then return -1 end
if redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then
  redis.call('DECRBY', KEYS[4], tonumber(amount))
end
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('INCRBY', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SET', KEYS[5], '1', 'EX', ARGV[4])
return 1
"""

TOTALS = """
local committed = tonumber(redis.call('GET', KEYS[1]) or '0')
local live = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '+inf')
local reserved = 0
for _, id in ipairs(live) do reserved = reserved + tonumber(redis.call('HGET', KEYS[3], id) or '0') end
return {committed, reserved}
"""


class RedisStore:
    """Spend (and rate-limit) state in Redis, through the caller's redis-py client (sync `redis.Redis`)."""

    def __init__(self, client: Any, *, prefix: str = "sg") -> None:
        if not hasattr(client, "register_script"):
            raise TypeError("RedisStore needs a redis-py client (redis.Redis or redis.RedisCluster)")
        self.client = client
        self.prefix = prefix
        self._reserve = client.register_script(RESERVE)  # EVALSHA, reloaded by redis-py after a restart
        self._settle = client.register_script(SETTLE)
        self._totals = client.register_script(TOTALS)

    def __repr__(self) -> str:
        return f"RedisStore({self.client!r})"

    def _keys(self, scope: str, month: str) -> list[str]:
        tag = f"{self.prefix}:{{{scope}|{month}}}"
        return [f"{tag}:committed", f"{tag}:held", f"{tag}:amounts", f"{tag}:reserved"]

    def _call(self, what: str, script: Any, keys: list[str], args: list[Any]) -> Any:
        from redis.exceptions import RedisError  # lazily: the core never imports redis on its own

        try:
            return script(keys=keys, args=args)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"redis {what}: {type(exc).__name__}: {exc}") from exc

    def reserve(
        self, scope: str, month: str, rid: str, amount: int, cap: int, *, now: float, expires_at: float
    ) -> ReserveResult:
        args = [rid, repr(now), repr(expires_at), amount, cap, KEY_TTL_SECONDS]
        admitted, committed, reserved = self._call("reserve", self._reserve, self._keys(scope, month), args)
        return ReserveResult(bool(admitted), Totals(int(committed), int(reserved)))

    def settle(self, scope: str, month: str, rid: str, cost: int, *, now: float) -> bool:
        keys = self._keys(scope, month)
        keys.append(keys[0].rsplit(":", 1)[0] + f":done:{rid}")
        result = self._call("settle", self._settle, keys, [rid, cost, KEY_TTL_SECONDS, DONE_TTL_SECONDS])
        return int(result) == 1

    def totals(self, scope: str, month: str, *, now: float) -> Totals:
        committed, reserved = self._call("totals", self._totals, self._keys(scope, month)[:3], [repr(now)])
        return Totals(int(committed), int(reserved))

    def close(self) -> None:
        """The client is the caller's: closing it is theirs too."""
