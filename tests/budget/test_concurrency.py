"""Racing reservations: 64 threads and 4 processes against a cap with room for exactly k, 20 rounds, both stores.

The invariant: at most k admitted (exactly k here: the store must not refuse spuriously either), and no
admitted step ever saw committed + reserved above the cap. Each round uses a fresh scope, so rounds are
independent races without resetting the store.
"""

from __future__ import annotations

import multiprocessing as mp
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

from sluicegate.budget import SpendCap, from_nano

from .helpers import PRICES, store_from_spec

ROUNDS = 20
K = 10
THREADS = 64
PROCESSES = 4
PER_PROCESS = 16  # 64 attempts per round in all


def _cap_for_k(store, scope: str) -> SpendCap:
    one = SpendCap(store, "1", PRICES).bound("q", max_output_tokens=100, model="small")
    return SpendCap(store, from_nano(K * one), PRICES, scope=scope)


def test_64_threads_never_overrun_the_cap(make_store):
    store = make_store()
    barrier = threading.Barrier(THREADS)
    base = uuid.uuid4().hex[:8]

    def attempt(args: tuple[SpendCap, int]) -> tuple[bool, bool]:
        cap, _ = args
        barrier.wait()
        r = cap.reserve("q", max_output_tokens=100, model="small")
        within = r.totals is None or r.totals.committed + r.totals.reserved <= cap.cap
        return r.admitted, within

    with ThreadPoolExecutor(THREADS) as pool:
        for round_no in range(ROUNDS):
            cap = _cap_for_k(store, f"{base}-{round_no}")
            results = list(pool.map(attempt, [(cap, i) for i in range(THREADS)]))
            assert sum(admitted for admitted, _ in results) == K, f"round {round_no}"
            assert all(within for _, within in results)
            totals = cap.totals()
            assert totals.committed + totals.reserved <= cap.cap and cap.stats.refused_store == 0


def _racer(spec, base: str, barrier, results) -> None:
    store = store_from_spec(spec)
    for round_no in range(ROUNDS):
        cap = _cap_for_k(store, f"{base}-{round_no}")
        barrier.wait()
        got = [cap.reserve("q", max_output_tokens=100, model="small") for _ in range(PER_PROCESS)]
        over = any(r.totals and r.totals.committed + r.totals.reserved > cap.cap for r in got if r.admitted)
        results.put((round_no, sum(r.admitted for r in got), over, cap.stats.refused_store))
    store.close()


def test_4_processes_never_overrun_the_cap(make_store):
    ctx = mp.get_context("fork")  # Linux CI; the store reopens its connection in the child (pid check)
    barrier, results = ctx.Barrier(PROCESSES), ctx.Queue()
    base = uuid.uuid4().hex[:8]
    procs = [ctx.Process(target=_racer, args=(make_store.spec(), base, barrier, results)) for _ in range(PROCESSES)]
    for p in procs:
        p.start()
    rows = [results.get(timeout=120) for _ in range(ROUNDS * PROCESSES)]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    store = make_store()
    for round_no in range(ROUNDS):
        mine = [row for row in rows if row[0] == round_no]
        assert sum(row[1] for row in mine) == K, f"round {round_no}"
        assert not any(row[2] for row in mine) and not any(row[3] for row in mine)
        totals = _cap_for_k(store, f"{base}-{round_no}").totals()
        assert totals.reserved == totals.committed + totals.reserved <= _cap_for_k(store, "x").cap


def test_64_threads_reserving_and_settling_keep_the_books_exact(make_store):
    """Holds and settles interleave: every admitted step saw committed + reserved <= cap, and at the end the
    committed spend is exactly the sum of the settled costs (no settle lost or counted twice)."""
    store = make_store()
    cap = _cap_for_k(store, f"mix-{uuid.uuid4().hex[:8]}")
    barrier = threading.Barrier(THREADS)

    def attempt(i: int) -> tuple[bool, bool, int]:
        barrier.wait()
        r = cap.reserve("q", max_output_tokens=100, model="small")
        within = r.totals is None or r.totals.committed + r.totals.reserved <= cap.cap
        if not r.admitted:
            return False, within, 0
        cost = cap.cost(r, None) if i % 2 else 0
        cap.settle(r, None) if i % 2 else cap.store.settle(r.scope, r.month, r.id, 0, now=cap.clock())
        return True, within, cost

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(attempt, range(THREADS)))
    assert all(within for _, within, _ in results)
    assert sum(admitted for admitted, _, _ in results) >= K  # settling frees room, so more than k may pass
    totals = cap.totals()
    assert totals.reserved == 0 and totals.committed == sum(cost for _, _, cost in results)
