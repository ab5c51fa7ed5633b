"""`run_call` and `arun_call`: the I/O around one guarded call, and one settle on every path."""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from pathlib import Path

import pytest

from sluicegate import GuardedCall, arun_call, run_call

from .helpers import (
    PASSED,
    PASSING,
    QUESTION,
    REFUSED_QUESTION,
    STOP_RELEASED,
    STOPPING,
    Upstream,
    budget,
    preflight,
    retriever,
    settled_once,
)

NOTICE = "The rest of this answer could not be supported by the sources and was held back."


def _call(tmp_path: Path, question: str = QUESTION, cap: str = "10"):
    cap_, store = budget(tmp_path, cap)
    return GuardedCall(question, preflight=preflight(), budget=cap_), store


def _sync(call: GuardedCall, up: Upstream, **kw):
    return run_call(
        call, model=lambda a: up, retrieve=retriever().retrieve, prompt_of=lambda r: ["system", *r.sources], **kw
    )


def _async(call: GuardedCall, up: Upstream, **kw):
    async def model(action):
        return up

    async def retrieve(query):
        return retriever().retrieve(query)

    return arun_call(call, model=model, retrieve=retrieve, prompt_of=lambda r: ["system", *r.sources], **kw)


# -- sync -------------------------------------------------------------------------------------------------------


def test_complete(tmp_path: Path) -> None:
    call, store = _call(tmp_path)
    up = Upstream(list(PASSING))
    assert "".join(_sync(call, up)) == PASSED
    assert call.outcome.reason == "complete" and settled_once(store) and len(store.reserved_ids) == 1


def test_refusal_costs_no_model_call_and_no_reservation(tmp_path: Path) -> None:
    call, store = _call(tmp_path, REFUSED_QUESTION)
    up = Upstream(list(PASSING))
    shown = "".join(
        run_call(call, model=lambda a: pytest.fail("model called"), retrieve=lambda q: pytest.fail("retrieved"))
    )
    assert shown and shown == call.outcome.released and call.outcome.reason == "refused"
    assert up.read == 0 and store.reserved_ids == [] and store.asked == {}


def test_gate_stop_closes_the_model_and_settles_once(tmp_path: Path) -> None:
    call, store = _call(tmp_path)
    up = Upstream(list(STOPPING))
    shown = "".join(_sync(call, up))
    assert shown == STOP_RELEASED + "\n\n" + NOTICE
    assert up.closed and up.read < len(STOPPING) and call.outcome.reason == "stopped" and settled_once(store)


def test_reader_gone(tmp_path: Path) -> None:
    call, store = _call(tmp_path)
    up = Upstream(list(PASSING))
    chunks = _sync(call, up)
    next(chunks)
    chunks.close()
    assert up.closed and call.outcome.reason == "cancelled" and settled_once(store)


def test_provider_error_mid_stream(tmp_path: Path) -> None:
    call, store = _call(tmp_path)
    up = Upstream(list(PASSING), fail_at=40)
    shown: list[str] = []
    with pytest.raises(ConnectionError):
        for chunk in _sync(call, up):
            shown.append(chunk)
    assert call.outcome.reason == "truncated" and settled_once(store)
    assert PASSED.startswith("".join(shown))


def test_model_fails_to_open(tmp_path: Path) -> None:
    call, store = _call(tmp_path)

    def model(action):
        raise TimeoutError("no connection")

    with pytest.raises(TimeoutError):
        list(run_call(call, model=model, retrieve=retriever().retrieve, prompt_of=lambda r: "p"))
    assert call.outcome.reason == "truncated" and settled_once(store) and len(store.reserved_ids) == 1


def test_exception_in_the_callers_code(tmp_path: Path) -> None:
    call, store = _call(tmp_path)
    up = Upstream(list(STOPPING))

    def on_guard(outcome):
        raise RuntimeError("the app's hook failed")

    with pytest.raises(RuntimeError):
        list(_sync(call, up, on_guard=on_guard))
    assert up.closed and settled_once(store)


def test_exception_in_the_readers_loop(tmp_path: Path) -> None:
    call, store = _call(tmp_path)
    up = Upstream(list(PASSING))
    chunks = _sync(call, up)
    with pytest.raises(ValueError):
        for _ in chunks:
            raise ValueError("the reader's own bug")
    chunks.close()  # what the frame's end does in CPython at once
    assert up.closed and settled_once(store)


def test_never_started_runs_nothing(tmp_path: Path) -> None:
    call, store = _call(tmp_path)
    _sync(call, Upstream(list(PASSING))).close()
    assert store.reserved_ids == [] and store.asked == {}


# -- async ------------------------------------------------------------------------------------------------------


async def test_async_complete_and_stop(tmp_path: Path) -> None:
    call, store = _call(tmp_path)
    assert "".join([c async for c in _async(call, Upstream(list(PASSING)))]) == PASSED
    up = Upstream(list(STOPPING))
    call2 = GuardedCall(QUESTION, preflight=preflight(), budget=call.budget)
    assert "".join([c async for c in _async(call2, up)]) == STOP_RELEASED + "\n\n" + NOTICE
    assert up.closed and settled_once(store) and len(store.reserved_ids) == 2


async def test_async_reader_gone(tmp_path: Path) -> None:
    call, store = _call(tmp_path)
    up = Upstream(list(PASSING))
    async with aclosing(_async(call, up)) as chunks:
        async for _ in chunks:
            break
    assert up.closed and call.outcome.reason == "cancelled" and settled_once(store)


async def test_async_provider_error(tmp_path: Path) -> None:
    call, store = _call(tmp_path)
    with pytest.raises(ConnectionError):
        async with aclosing(_async(call, Upstream(list(PASSING), fail_at=3))) as chunks:
            async for _ in chunks:
                pass
    assert call.outcome.reason == "truncated" and settled_once(store)


async def test_async_cancellation_still_settles(tmp_path: Path) -> None:
    call, store = _call(tmp_path)
    started = asyncio.Event()

    class Slow(Upstream):
        async def __anext__(self) -> str:
            started.set()
            await asyncio.sleep(10)
            return await super().__anext__()

    up = Slow(list(PASSING))

    async def read() -> None:
        async with aclosing(_async(call, up)) as chunks:
            async for _ in chunks:
                pass

    task = asyncio.create_task(read())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert up.closed and call.outcome.reason == "cancelled" and settled_once(store)


async def test_async_exception_in_the_callers_hook(tmp_path: Path) -> None:
    call, store = _call(tmp_path)

    async def on_guard(outcome):
        raise RuntimeError("hook")

    with pytest.raises(RuntimeError):
        async with aclosing(_async(call, Upstream(list(STOPPING)), on_guard=on_guard)) as chunks:
            async for _ in chunks:
                pass
    assert settled_once(store)
