"""Confirmation and idempotent execution, against a real SQLite file and a real redis-server."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import pytest

from sluicegate.lifecycle import (
    NOT_APPLIED,
    ConfirmationConflict,
    Generation,
    IllegalTransition,
    NotAuthorized,
    OperationStore,
    OutcomeUnknown,
    Policy,
    State,
)

from .helpers import TOOLS, TRANSFER_ARGS, Transfer, run

POLICY = Policy(version="pol-1", tools={"transfer", "get_weather"})


class Bank:
    """A fake external system that counts how often it really applied a transfer."""

    def __init__(self, lose_response: bool = False) -> None:
        self.applied: list[dict[str, Any]] = []
        self.lose_response = lose_response
        self.lock = threading.Lock()

    def transfer(self, t: Transfer) -> dict[str, Any]:
        with self.lock:
            self.applied.append(t.model_dump())
            if self.lose_response:
                raise TimeoutError("the bank accepted it, but its response never came back")
            return {"bank_ref": f"TX-{len(self.applied)}"}


def confirmed(store: OperationStore, name: str = "anthropic") -> Generation:
    gen = run(name)
    assert gen.state == State.VALIDATED
    gen.confirm(store)
    assert gen.state == State.CONFIRMED
    return gen


def call_id(gen: Generation) -> str:
    return next(c.call_id for c in gen.tool_calls if c.name == "transfer")


def test_execute_once_then_recorded_result(store: OperationStore) -> None:
    bank = Bank()
    gen = confirmed(store)
    first = gen.execute(call_id(gen), bank.transfer, store=store, policy=POLICY)
    assert first == {"bank_ref": "TX-1"}
    assert gen.state == State.EXECUTED
    again = gen.execute(call_id(gen), bank.transfer, store=store, policy=POLICY)
    assert again == first and len(bank.applied) == 1
    assert bank.applied[0] == TRANSFER_ARGS
    assert gen.telemetry.executions == 1 and gen.telemetry.recorded_results_returned == 1


def test_execute_needs_confirmation(store: OperationStore) -> None:
    gen = run("anthropic")
    with pytest.raises(IllegalTransition, match="validated -> executed"):
        gen.execute(call_id(gen), Bank().transfer, store=store, policy=POLICY)


def test_execute_in_a_store_that_never_saw_the_confirmation(store: OperationStore, tmp_path: Any) -> None:
    from sluicegate.lifecycle import SQLiteOperationStore

    gen = confirmed(SQLiteOperationStore(tmp_path / "other.sqlite3"))
    with pytest.raises(IllegalTransition, match="no such confirmed version"):
        gen.execute(call_id(gen), Bank().transfer, store=store, policy=POLICY)


def test_policy_refusal_executes_nothing(store: OperationStore) -> None:
    bank = Bank()
    gen = confirmed(store)
    deny_tool = Policy(version="pol-2", tools={"get_weather"})
    with pytest.raises(NotAuthorized):
        gen.execute(call_id(gen), bank.transfer, store=store, policy=deny_tool)
    small_only = Policy(version="pol-3", authorize=lambda who, op, call: call.arguments.amount_cents < 1000)
    with pytest.raises(NotAuthorized):
        gen.execute(call_id(gen), bank.transfer, store=store, policy=small_only)
    assert bank.applied == [] and gen.state == State.CONFIRMED
    assert gen.telemetry.rejection_codes.count("not_authorized") == 2


def test_the_key_binds_the_confirmed_intent() -> None:
    gen = run("anthropic")
    call = gen.tool_calls[0]
    key = gen.idempotency_key(call, POLICY)
    assert key == gen.idempotency_key(call, POLICY)  # same for every retry
    assert key != gen.idempotency_key(call, Policy(version="pol-9"))  # a new policy is a new decision
    other = run("anthropic")  # same content, another generation: another intent
    assert other.tool_calls[0].digest == call.digest
    assert other.idempotency_key(other.tool_calls[0], POLICY) != key


def test_lost_response_is_unknown_never_retried(store: OperationStore) -> None:
    bank = Bank(lose_response=True)
    gen = confirmed(store)
    with pytest.raises(OutcomeUnknown):
        gen.execute(call_id(gen), bank.transfer, store=store, policy=POLICY)
    bank.lose_response = False
    for _ in range(3):  # a retry button pressed three times
        with pytest.raises(OutcomeUnknown, match="reconcile"):
            gen.execute(call_id(gen), bank.transfer, store=store, policy=POLICY)
    assert len(bank.applied) == 1
    assert gen.state == State.CONFIRMED


def test_reconcile_finds_the_result(store: OperationStore) -> None:
    bank = Bank(lose_response=True)
    gen = confirmed(store)
    with pytest.raises(OutcomeUnknown):
        gen.execute(call_id(gen), bank.transfer, store=store, policy=POLICY)
    looked_up: list[str] = []

    def reconcile(key: str, call: Any) -> object:
        looked_up.append(key)
        return {"bank_ref": "TX-1", "found_by": "lookup"}

    result = gen.execute(call_id(gen), bank.transfer, store=store, policy=POLICY, reconcile=reconcile)
    assert result["found_by"] == "lookup" and len(bank.applied) == 1
    assert looked_up == [gen.idempotency_key(gen.tool_calls[0], POLICY)]
    assert gen.state == State.EXECUTED
    # recorded now: no more lookups
    assert gen.execute(call_id(gen), bank.transfer, store=store, policy=POLICY) == result


def test_reconcile_not_applied_runs_exactly_once(store: OperationStore) -> None:
    attempts: list[int] = []

    def flaky(t: Transfer) -> dict[str, str]:
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("refused before sending")
        return {"bank_ref": "TX-ok"}

    gen = confirmed(store)
    with pytest.raises(OutcomeUnknown):
        gen.execute(call_id(gen), flaky, store=store, policy=POLICY)
    result = gen.execute(call_id(gen), flaky, store=store, policy=POLICY, reconcile=lambda k, c: NOT_APPLIED)
    assert result == {"bank_ref": "TX-ok"} and len(attempts) == 2


def test_reconcile_that_fails_leaves_it_unknown(store: OperationStore) -> None:
    gen = confirmed(store)
    with pytest.raises(OutcomeUnknown):
        gen.execute(call_id(gen), Bank(lose_response=True).transfer, store=store, policy=POLICY)

    def broken(key: str, call: Any) -> object:
        raise RuntimeError("bank lookup API down")

    with pytest.raises(OutcomeUnknown, match="reconcile could not tell"):
        gen.execute(call_id(gen), Bank().transfer, store=store, policy=POLICY, reconcile=broken)


def test_concurrent_executors_run_the_tool_once(store: OperationStore) -> None:
    bank = Bank()
    gen = confirmed(store)
    gate = threading.Barrier(8)
    outcomes: list[object] = []

    def worker() -> None:
        gate.wait()
        try:
            outcomes.append(gen.execute(call_id(gen), bank.transfer, store=store, policy=POLICY))
        except OutcomeUnknown as exc:  # a peer holds it in flight: unknown, not a second run
            outcomes.append(exc)

    _run_together(worker, 8)
    assert len(bank.applied) == 1
    assert len(outcomes) == 8


def _run_together(target: Any, n: int) -> None:
    """`n` threads running `target`, started together and all joined."""
    threads = [threading.Thread(target=target) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


class _MeetingClock:
    """A clock whose reading waits (up to a short timeout) for a second reader: two peers that both reach the move
    to EXECUTED meet here, which without the generation's lock lets both make that move."""

    def __init__(self, clock: Any) -> None:
        self._clock = clock
        self._meet = threading.Barrier(2, timeout=0.5)

    def elapsed(self) -> float:
        with contextlib.suppress(threading.BrokenBarrierError):  # (the lock kept the other out: no meeting)
            self._meet.wait()
        return self._clock.elapsed()


def test_peers_finishing_together_move_to_executed_once(store: OperationStore) -> None:
    # CI saw it once on 3.13 (the concurrent test above): two executors both read CONFIRMED with every call executed,
    # then both moved, and the second raised IllegalTransition executed -> executed in its thread.
    gen = confirmed(store)
    gen._clock = _MeetingClock(gen._clock)  # type: ignore[assignment]
    errors: list[BaseException] = []

    def finish() -> None:
        try:
            gen._executed_call(call_id(gen))
        except BaseException as exc:
            errors.append(exc)

    _run_together(finish, 2)
    assert errors == []
    assert gen.state is State.EXECUTED
    assert [s for s, _ in gen.telemetry.transitions].count(State.EXECUTED.value) == 1


def test_restore_after_restart_returns_the_recorded_result(store: OperationStore) -> None:
    bank = Bank()
    gen = confirmed(store, "responses")
    restored = Generation.restore(store, gen.id, TOOLS)
    assert restored.state == State.CONFIRMED
    assert [c.canonical for c in restored.tool_calls] == [c.canonical for c in gen.tool_calls]
    assert restored.text == gen.text
    first = restored.execute(call_id(restored), bank.transfer, store=store, policy=POLICY)
    assert gen.execute(call_id(gen), bank.transfer, store=store, policy=POLICY) == first
    assert len(bank.applied) == 1


def test_confirm_twice_and_conflicting_versions(store: OperationStore) -> None:
    gen = confirmed(store)
    with pytest.raises(IllegalTransition):
        gen.confirm(store)
    impostor = run("chat", generation_id=gen.id)  # same id, different validated content
    with pytest.raises(ConfirmationConflict):
        impostor.confirm(store)


def test_cancel_after_confirm_blocks_execution(store: OperationStore) -> None:
    gen = confirmed(store)
    cid = call_id(gen)
    gen.cancel()
    with pytest.raises(IllegalTransition):
        gen.execute(cid, Bank().transfer, store=store, policy=POLICY)


def test_unserializable_result_is_unknown(store: OperationStore) -> None:
    gen = confirmed(store)
    with pytest.raises(OutcomeUnknown):
        gen.execute(call_id(gen), lambda t: object(), store=store, policy=POLICY)


async def test_aexecute_once_and_lost_responses(store: OperationStore) -> None:
    import asyncio

    applied: list[int] = []

    async def transfer(t: Transfer) -> dict[str, str]:
        await asyncio.sleep(0)
        applied.append(t.amount_cents)
        return {"bank_ref": "TX-async"}

    gen = confirmed(store)
    first = await gen.aexecute(call_id(gen), transfer, store=store, policy=POLICY)
    assert await gen.aexecute(call_id(gen), transfer, store=store, policy=POLICY) == first
    assert applied == [125000] and gen.state == State.EXECUTED

    async def hangs(t: Transfer) -> None:
        await asyncio.sleep(10)

    other = confirmed(store, "responses")
    task = asyncio.ensure_future(other.aexecute(call_id(other), hangs, store=store, policy=POLICY))
    await asyncio.sleep(0.01)
    task.cancel()  # the request may already have reached the bank
    with pytest.raises(asyncio.CancelledError):
        await task
    with pytest.raises(OutcomeUnknown):
        await other.aexecute(call_id(other), transfer, store=store, policy=POLICY)
    assert applied == [125000]


def _in_thread(target: Any) -> tuple[threading.Thread, list[object]]:
    box: list[object] = []

    def body() -> None:
        try:
            box.append(target())
        except Exception as exc:  # the assertion is made on what it returned or raised
            box.append(exc)

    thread = threading.Thread(target=body)
    thread.start()
    return thread, box


def test_reconcile_never_reruns_an_operation_a_peer_holds_in_flight(store: OperationStore) -> None:
    """A pending claim may be a peer still running the tool: its effect is not visible to a lookup yet, so a
    NOT_APPLIED answer must not start a second run (this is the double execution of the same intent)."""
    bank = Bank()
    gen = confirmed(store)
    running, release = threading.Event(), threading.Event()

    def slow(t: Transfer) -> dict[str, Any]:
        running.set()
        assert release.wait(30)
        return bank.transfer(t)

    peer, peer_box = _in_thread(lambda: gen.execute(call_id(gen), slow, store=store, policy=POLICY))
    try:
        assert running.wait(30)
        with pytest.raises(OutcomeUnknown, match="pending"):
            gen.execute(call_id(gen), bank.transfer, store=store, policy=POLICY, reconcile=lambda k, c: NOT_APPLIED)
    finally:
        release.set()
        peer.join(30)
    assert peer_box == [{"bank_ref": "TX-1"}]
    assert len(bank.applied) == 1


def test_two_reconcilers_of_one_lost_response_run_the_tool_once(store: OperationStore) -> None:
    """Both saw `unknown` and both lookups said NOT_APPLIED: only one of them may take the operation again."""
    bank = Bank(lose_response=True)
    gen = confirmed(store)
    with pytest.raises(OutcomeUnknown):
        gen.execute(call_id(gen), bank.transfer, store=store, policy=POLICY)
    bank.applied.clear()  # the lookup says it never arrived: both reconcilers will answer NOT_APPLIED
    bank.lose_response = False
    b_looking, a_running, b_done = threading.Event(), threading.Event(), threading.Event()

    def slow_lookup(key: str, call: Any) -> object:
        b_looking.set()
        assert a_running.wait(30)  # answers only once A has re-claimed the operation and is running the tool
        return NOT_APPLIED

    def a_tool(t: Transfer) -> dict[str, Any]:
        a_running.set()
        b_done.wait(30)
        return bank.transfer(t)

    b, b_box = _in_thread(
        lambda: gen.execute(call_id(gen), bank.transfer, store=store, policy=POLICY, reconcile=slow_lookup)
    )
    try:
        assert b_looking.wait(30)
        a, a_box = _in_thread(
            lambda: gen.execute(call_id(gen), a_tool, store=store, policy=POLICY, reconcile=lambda k, c: NOT_APPLIED)
        )
        b.join(30)
    finally:
        b_done.set()
        a_running.set()
    a.join(30)
    assert a_box == [{"bank_ref": "TX-1"}]
    assert isinstance(b_box[0], OutcomeUnknown), b_box
    assert len(bank.applied) == 1
