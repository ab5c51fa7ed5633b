"""Redis store for many instances: `RedisOperationStore(redis.Redis.from_url(url))`. Claims are one Lua step.

The client is the caller's (we never open one behind their back). Use Redis with AOF persistence
(`appendonly yes`, `appendfsync everysec` or `always`) if recorded results must survive a Redis restart.
"""

from __future__ import annotations

from typing import Any

from .base import (
    PENDING,
    ConfirmationConflict,
    OperationRecord,
    StatusMoves,
)

_CLAIM = """
local s = redis.call('HGET', KEYS[1], 'status')
if not s then
  redis.call('HSET', KEYS[1], 'status', 'pending', 'meta', ARGV[1])
  return {'pending', false, 1}
elseif s == 'not_applied' then
  redis.call('HSET', KEYS[1], 'status', 'pending')
  return {'pending', false, 1}
end
return {s, redis.call('HGET', KEYS[1], 'result'), 0}
"""

_SET = """
local s = redis.call('HGET', KEYS[1], 'status')
for i = 3, #ARGV do
  if s == ARGV[i] then
    redis.call('HSET', KEYS[1], 'status', ARGV[1])
    if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'result', ARGV[2]) end
    return 1
  end
end
return 0
"""


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


class RedisOperationStore(StatusMoves):
    """Same semantics as `SQLiteOperationStore`; keys live under `prefix`."""

    def __init__(self, client: Any, *, prefix: str = "sluicegate:lifecycle:") -> None:
        self.client = client
        self.prefix = prefix
        self._claim = client.register_script(_CLAIM)
        self._set_status = client.register_script(_SET)

    def put_confirmed(self, generation_id: str, record: str) -> str:
        key = f"{self.prefix}gen:{generation_id}"
        self.client.set(key, record, nx=True)
        stored = _text(self.client.get(key))
        if stored != record:
            raise ConfirmationConflict(f"generation {generation_id} was confirmed with a different version")
        return record

    def get_confirmed(self, generation_id: str) -> str | None:
        return _text(self.client.get(f"{self.prefix}gen:{generation_id}"))

    def claim(self, key: str, meta: str) -> OperationRecord:
        status, result, claimed = self._claim(keys=[f"{self.prefix}op:{key}"], args=[meta])
        return OperationRecord(key, _text(status) or PENDING, _text(result), claimed=bool(claimed))

    def _set(self, key: str, status: str, result: str | None, allowed: tuple[str, ...]) -> None:
        done = self._set_status(keys=[f"{self.prefix}op:{key}"], args=[status, result or "", *allowed])
        if not done:
            raise KeyError(f"operation {key} is not in {allowed}")

    def get(self, key: str) -> OperationRecord | None:
        raw = self.client.hgetall(f"{self.prefix}op:{key}")
        if not raw:
            return None
        fields = {_text(k): _text(v) for k, v in raw.items()}
        return OperationRecord(key, fields.get("status") or PENDING, fields.get("result"))
