"""The adapter contract: one suite every adapter's tests subclass (as LangChain partner packages subclass
langchain-tests' standard suites), so what the guarded call promises is proved once per host.

A subclass states its capabilities (`supports_preflight`, `supports_budget`) and implements `run(case)`: send
`case` through the adapter with a scripted model and say what the reader saw and what the model did. The
scenarios below then hold for every adapter:

- a refusal (a refusal rule, a full spend cap) costs no model call and holds nothing;
- the shown text is byte-identical for every chunking of the same answer, and equal to the core's own
  (`sluicegate.run_call` over the same pieces is the oracle);
- a stop closes the model stream before it ran out;
- a reservation is settled exactly once on each path: complete, gate stop, reader gone, provider error.

The counting store is a real SQLite store that also records every settle it is asked for, by reservation id.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterable, Awaitable, Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sluicegate import GuardedCall, run_call
from sluicegate._driver import NOTICE_SEPARATOR
from sluicegate._notices import notice
from sluicegate.budget import CallBudget
from tests.call.helpers import (
    PASSING,
    QUESTION,
    REFUSED_QUESTION,
    SOURCES,
    STOPPING,
    CountingStore,
    budget,
    pieces,
    settled_once,
)

# Chunkings tried for each answer: fixed sizes, and cuts at every 7th position (one cut each).
SIZES = (1, 2, 3, 7, 16, 10_000)
CUT_STEP = 7


def chunked(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def chunkings(text: str) -> list[list[str]]:
    return [chunked(text, s) for s in SIZES] + [pieces(text, [c]) for c in range(1, len(text), CUT_STEP)]


@dataclass
class Case:
    """One run: the model's pieces, the budget to reserve against (or None), the question (None: the adapter
    is given `SOURCES` directly), a provider error raised instead of piece `fail_at`, and a reader that leaves
    after `leave_after` shown chunks."""

    pieces: list[str]
    budget: CallBudget | None = None
    question: str | None = None
    fail_at: int | None = None
    leave_after: int | None = None


@dataclass
class Ran:
    """What happened: the reader's text (released text, then the notice after `NOTICE_SEPARATOR` on a stop),
    how many times the model was opened, whether its stream was closed, how many pieces it produced."""

    shown: str
    model_calls: int
    closed: bool
    produced: int


def read(chunks: Iterable[str], case: Case, *, errors: tuple[type[BaseException], ...] = (ConnectionError,)) -> str:
    """What a reader of `chunks` sees: every chunk, until the stream ends, fails (`errors`), or the reader
    leaves after `case.leave_after` chunks; the stream is closed either way (as a reader's frame would)."""
    shown: list[str] = []
    with suppress(*errors):
        try:
            for chunk in chunks:
                shown.append(chunk)
                if case.leave_after is not None and len(shown) >= case.leave_after:
                    break
        finally:
            close = getattr(chunks, "close", None)
            if callable(close):
                close()
    return "".join(shown)


def aread(
    open_chunks: Callable[[], Awaitable[AsyncIterable[str]]],
    case: Case,
    *,
    errors: tuple[type[BaseException], ...] = (ConnectionError,),
) -> str:
    """`read` for an async stream, on a fresh event loop: `open_chunks()` opens it (in the loop), and the
    stream is `aclose()`d when the reader stops."""
    shown: list[str] = []

    async def main() -> None:
        chunks: Any = await open_chunks()
        try:
            async for chunk in chunks:
                shown.append(chunk)
                if case.leave_after is not None and len(shown) >= case.leave_after:
                    break
        finally:
            aclose = getattr(chunks, "aclose", None)
            if callable(aclose):
                await aclose()

    with suppress(*errors):
        asyncio.run(main())
    return "".join(shown)


def oracle(text_pieces: list[str]) -> str:
    """What the core shows for these pieces: the guarded call over the same sources, no adapter."""
    return "".join(run_call(GuardedCall(sources=SOURCES), model=lambda action: list(text_pieces)))


class AdapterContract:
    """Subclass as `class TestStarletteContract(AdapterContract)` and implement `run`."""

    supports_preflight = False  # the adapter runs refusal rules and retrieval before the model
    supports_budget = True  # the adapter takes a `CallBudget` (cap=)
    settle_wait = 0.0  # seconds to wait for a settle that runs beside the last frame (a server)

    def run(self, case: Case) -> Ran:
        raise NotImplementedError

    # -- helpers ----------------------------------------------------------------------------------------------

    def _budget(self, tmp_path: Path, monthly_cap: str = "10") -> tuple[CallBudget, CountingStore]:
        return budget(tmp_path, monthly_cap)

    def _settled(self, store: CountingStore, reservations: int) -> bool:
        deadline = time.monotonic() + self.settle_wait
        while True:
            ok = settled_once(store) and len(store.reserved_ids) == reservations
            if ok or time.monotonic() >= deadline:
                return ok
            time.sleep(0.01)

    def _question(self) -> str | None:
        return QUESTION if self.supports_preflight else None

    # -- refusals ---------------------------------------------------------------------------------------------

    def test_contract_a_refusal_rule_costs_no_model_call(self, tmp_path: Path) -> None:
        if not self.supports_preflight:
            pytest.skip("this adapter has no layers before the model (its app's own retrieval decides)")
        cap, store = self._budget(tmp_path) if self.supports_budget else (None, None)
        ran = self.run(Case(list(PASSING), budget=cap, question=REFUSED_QUESTION))
        assert ran.model_calls == 0 and ran.produced == 0
        assert ran.shown and "1843" not in ran.shown
        if store is not None:
            assert store.reserved_ids == [] and not store.asked

    def test_contract_a_full_cap_costs_no_model_call(self, tmp_path: Path) -> None:
        if not self.supports_budget:
            pytest.skip("this adapter takes no spend cap")
        cap, store = self._budget(tmp_path, monthly_cap="0")
        ran = self.run(Case(list(PASSING), budget=cap, question=self._question()))
        assert ran.model_calls == 0 and ran.produced == 0
        assert ran.shown == notice("en", "monthly_limit")  # the cap's fixed notice, all the reader sees
        assert store.reserved_ids == [] and not store.asked

    # -- what is shown ----------------------------------------------------------------------------------------

    @pytest.mark.parametrize("answer", [PASSING, STOPPING], ids=["passing", "stopping"])
    def test_contract_shown_text_is_byte_identical_for_every_chunking(self, answer: str) -> None:
        expected = oracle([answer])
        assert "2019" not in expected
        for split in chunkings(answer):
            assert self.run(Case(split, question=self._question())).shown == expected, split

    def test_contract_a_stop_closes_the_model_stream(self) -> None:
        split = chunked(STOPPING, 2)
        ran = self.run(Case(split, question=self._question()))
        assert ran.closed and ran.produced < len(split)
        assert NOTICE_SEPARATOR in ran.shown and "2019" not in ran.shown

    # -- settled exactly once ---------------------------------------------------------------------------------

    @pytest.mark.parametrize(
        ("answer", "fail_at", "leave_after"),
        [(PASSING, None, None), (STOPPING, None, None), (PASSING, None, 1), (PASSING, 5, None)],
        ids=["complete", "gate_stop", "reader_gone", "provider_error"],
    )
    def test_contract_settled_exactly_once(
        self, tmp_path: Path, answer: str, fail_at: int | None, leave_after: int | None
    ) -> None:
        if not self.supports_budget:
            pytest.skip("this adapter takes no spend cap")
        cap, store = self._budget(tmp_path)
        ran = self.run(Case(chunked(answer, 3), cap, self._question(), fail_at, leave_after))
        assert ran.model_calls == 1
        assert self._settled(store, 1), (dict(store.asked), store.reserved_ids)
        if leave_after is not None or fail_at is not None:
            assert ran.closed
