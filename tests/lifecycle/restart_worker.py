"""A separate process for the restart test: `confirm`, `execute` or `crash` against a real store.

Run as `python -m tests.lifecycle.restart_worker PHASE STORE LEDGER [GENERATION_ID]`; STORE is `sqlite:PATH`
or `redis:URL`; LEDGER is a file where the fake external system appends one line per applied transfer.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from sluicegate.lifecycle import (
    NOT_APPLIED,
    Generation,
    OperationStore,
    OutcomeUnknown,
    Policy,
    RedisOperationStore,
    SQLiteOperationStore,
)

from .helpers import TOOLS, run

POLICY = Policy(version="pol-1", tools={"transfer"})


def open_store(spec: str) -> OperationStore:
    kind, _, where = spec.partition(":")
    if kind == "sqlite":
        return SQLiteOperationStore(where)
    import redis

    return RedisOperationStore(redis.Redis.from_url(where), prefix="restart-test:")


def main(phase: str, spec: str, ledger_path: str, generation_id: str = "") -> int:
    store = open_store(spec)
    ledger = Path(ledger_path)
    if phase == "confirm":
        gen = run("anthropic")
        gen.confirm(store)
        print(gen.id)
        return 0
    gen = Generation.restore(store, generation_id, TOOLS)
    call = gen.tool_calls[0]
    key = gen.idempotency_key(call, POLICY)

    def transfer(args: Any) -> dict[str, str]:
        with ledger.open("a") as f:
            f.write(key + "\n")
        if phase == "crash":
            os._exit(17)  # applied, then the process dies before the result is recorded
        return {"bank_ref": "TX-" + key[4:12]}

    def reconcile(k: str, c: object) -> object:
        return {"bank_ref": "TX-" + k[4:12]} if k in ledger.read_text().split() else NOT_APPLIED

    try:
        result = gen.execute(
            call.call_id, transfer, store=store, policy=POLICY, reconcile=reconcile if phase == "reconcile" else None
        )
    except OutcomeUnknown as exc:
        print(json.dumps({"unknown": exc.key}))
        return 3
    print(json.dumps({"result": result, "state": gen.state.value}))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
