"""Budget benchmark: reservations per second per store, and the latency the spend cap adds before the first token.

Run: `python tests/benchmarks/budget.py [--ops N] [--repeats R]` (a real redis-server is started on a loopback
port; SQLite files live in a temp dir). Prints markdown tables. Defaults are small (the CI machine has 2 cores
shared by several jobs): figures are medians of the repeats, measured side by side in one run.

1. Throughput: one thread doing reserve+settle pairs (the money path of one request), and 8 threads racing.
2. Time to first token: a scripted provider whose first piece is ready at once, driven through the
   SentenceGate with `drive`; "no cap" is the same call without `reserve()`. The difference is what the cap
   adds in front of every answer.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "integrations"), str(ROOT)]

from sluicegate import SentenceGate, drive  # noqa: E402
from sluicegate.budget import Price, RedisStore, SpendCap, SQLiteStore  # noqa: E402
from tests.services.redis_server import RedisServer  # noqa: E402

PRICES = {"m": Price("0.15", "0.60")}
PROMPT = [{"role": "system", "content": "Answer from the sources."}, {"role": "user", "content": "When is it open?"}]
SOURCES = ["The library opens at nine."]
ANSWER = ["The library opens at nine [S1]. ", "It closes late [S1]."]


def _redis_client(url: str):  # type: ignore[no-untyped-def]
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis.from_url(url, socket_timeout=1.0, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0))


def _cap(store, scope: str) -> SpendCap:  # type: ignore[no-untyped-def]
    return SpendCap(store, "1000000", PRICES, scope=scope)


def pairs_per_second(store, ops: int, threads: int, scope: str) -> float:  # type: ignore[no-untyped-def]
    cap = _cap(store, scope)
    per = ops // threads
    barrier = threading.Barrier(threads + 1)

    def work() -> None:
        barrier.wait()
        for _ in range(per):
            cap.settle(cap.reserve(PROMPT, max_output_tokens=512, model="m"), None)

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in pool:
        t.join()
    elapsed = time.perf_counter() - start
    assert cap.stats.refused_store == 0, "the store refused during the benchmark"
    return per * threads / elapsed


def first_token_seconds(cap: SpendCap | None) -> float:
    start = time.perf_counter()
    if cap is not None:
        reservation = cap.reserve(PROMPT, max_output_tokens=512, model="m")
        assert reservation.admitted
    steps = drive(iter(ANSWER), SentenceGate(SOURCES))
    first = next(s for s in steps if s.text)
    elapsed = time.perf_counter() - start
    assert first.text
    steps.close()
    return elapsed


def median(fn: Callable[[], float], repeats: int) -> float:
    return statistics.median(fn() for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", type=int, default=400, help="reserve+settle pairs per throughput measurement")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp))
        server.start()
        try:
            stores = {
                "SQLite (synchronous=NORMAL, default)": SQLiteStore(Path(tmp) / "normal.db"),
                "SQLite (synchronous=FULL)": SQLiteStore(Path(tmp) / "full.db", synchronous="FULL"),
                "Redis (loopback, one Lua script per step)": RedisStore(_redis_client(server.url)),
            }
            print(f"## Budget: reserve+settle pairs per second ({args.ops} pairs, median of {args.repeats})\n")
            print("| store | 1 thread | 8 threads |")
            print("|---|---:|---:|")
            for name, store in stores.items():
                one = median(lambda s=store: pairs_per_second(s, args.ops, 1, f"b1-{time.time_ns()}"), args.repeats)
                eight = median(lambda s=store: pairs_per_second(s, args.ops, 8, f"b8-{time.time_ns()}"), args.repeats)
                print(f"| {name} | {one:,.0f} | {eight:,.0f} |")
            n = args.repeats * 40
            print(f"\n## Budget: time to the first released token (median of {n} calls, microseconds)\n")
            print("| path | first token | added by the cap |")
            print("|---|---:|---:|")
            base = median(lambda: first_token_seconds(None), n)
            print(f"| no cap | {base * 1e6:,.0f} | — |")
            for name, store in stores.items():
                cap = _cap(store, f"ttft-{time.time_ns()}")
                with_cap = median(lambda c=cap: first_token_seconds(c), n)
                print(f"| cap on {name} | {with_cap * 1e6:,.0f} | {(with_cap - base) * 1e6:,.0f} |")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
