"""The spend cap in NeMo: the input rail reserves before NeMo calls the model, the stream's end settles.

Real LLMRails (Colang 1.0) and a real SQLite store; only the model is scripted.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from nemoguardrails import LLMRails

import sluicegate_nemo as sn
from sluicegate._notices import notice
from sluicegate.budget import CallBudget, Price, SpendCap, SQLiteStore
from sluicegate.budget._bound import prompt_tokens_bound
from tests.budget.helpers import SlowStore
from tests.nemo.scripted import ScriptedModel, agen
from tests.support import BAD, BAD_RELEASED, GOOD, make_stop_filter

MESSAGES = [{"role": "user", "content": "What does the report cover?"}]
PRICE = Price("1", "2")
PIECES = ["The report is ready. ", "It covers the year 2018 only. ", "Bye now."]
BAD_PIECES = ["The report is ready. ", "It covers the year 2019 only. ", "Bye now."]
assert "".join(PIECES) == GOOD and "".join(BAD_PIECES) == BAD


class PromptRecorder(ScriptedModel):
    def __init__(self, *scripts: list[str]) -> None:
        super().__init__(*scripts)
        self.prompts: list[object] = []

    async def stream_async(self, prompt, **kwargs):  # type: ignore[no-untyped-def]
        self.prompts.append(prompt)
        async for chunk in super().stream_async(prompt, **kwargs):
            yield chunk


def budget(path: Path, monthly: str = "1") -> CallBudget:
    return CallBudget(SpendCap(SQLiteStore(path), monthly, {"scripted": PRICE}, language="hi"), "scripted", 256)


def capped_rails(model: ScriptedModel, cap: CallBudget, allowance: int = 2048) -> LLMRails:
    rails = LLMRails(sn.cap_config(sn.sluicegate_config()), llm=sn.CappedLLM(model))
    sn.install(rails, make_stop_filter)
    sn.install_cap(rails, cap, prompt_allowance_tokens=allowance)
    return rails


def committed(cap: CallBudget) -> int:
    return cap.cap.totals().committed


async def test_refused_by_the_input_rail_no_model_call_and_the_notice(tmp_path: Path) -> None:
    model = PromptRecorder(PIECES)
    cap = budget(tmp_path / "s.db", monthly="0")
    chunks = [c async for c in sn.guarded_stream(capped_rails(model, cap), messages=MESSAGES)]
    assert chunks == [notice("hi", "monthly_limit")] and model.prompts == [] and model.pulled == 0
    assert cap.cap.stats.refused_limit == 1 and committed(cap) == 0


async def test_the_input_rail_reserve_does_not_block_the_event_loop(tmp_path: Path) -> None:
    """The store's calls are blocking I/O: run on NeMo's loop, one slow reserve would freeze the whole app."""
    store = SlowStore(SQLiteStore(tmp_path / "s.db"), wait=5.0)
    cap = CallBudget(SpendCap(store, "1", {"scripted": PRICE}), "scripted", 256)
    model = PromptRecorder(PIECES)

    async def releaser() -> None:
        await asyncio.to_thread(store.entered.wait, 5)
        store.release.set()  # runs only if the loop is free while reserve waits

    helper = asyncio.ensure_future(releaser())
    got = "".join([c async for c in sn.guarded_stream(capped_rails(model, cap), messages=MESSAGES)])
    await helper
    assert store.released == [True]
    assert got == GOOD and cap.cap.totals().reserved == 0


async def test_admitted_streams_and_settles_the_bytes_received(tmp_path: Path) -> None:
    model = PromptRecorder(PIECES)
    cap = budget(tmp_path / "s.db")
    s = sn.guarded_stream(capped_rails(model, cap), messages=MESSAGES)
    assert "".join([c async for c in s]) == GOOD
    reservation = s.reservation
    assert reservation is not None and reservation.admitted
    # NeMo's real prompt was within the bound the rail reserved
    assert prompt_tokens_bound(model.prompts[0])[0] <= reservation.input_bound
    assert committed(cap) == PRICE.cost(reservation.input_bound, len(GOOD.encode()))
    assert cap.cap.totals().reserved == 0


async def test_a_stopped_stream_settles_only_what_was_generated(tmp_path: Path) -> None:
    model = PromptRecorder(BAD_PIECES)
    cap = budget(tmp_path / "s.db")
    s = sn.guarded_stream(capped_rails(model, cap), messages=MESSAGES)
    chunks = [c async for c in s]
    assert chunks[0] == BAD_RELEASED and sn.is_block_frame(chunks[-1])
    received = len("".join(BAD_PIECES[: model.pulled]).encode())
    assert committed(cap) == PRICE.cost(s.reservation.input_bound, received)


async def test_a_prompt_longer_than_reserved_fails_closed(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    model = PromptRecorder(PIECES)
    cap = budget(tmp_path / "s.db")
    s = sn.guarded_stream(capped_rails(model, cap, allowance=10), messages=MESSAGES)
    chunks = [c async for c in s]
    assert model.pulled == 0 and GOOD not in "".join(chunks)
    assert sn.is_block_frame(chunks[-1])  # NeMo's standard block; the reason stays in the server log
    assert "exceeds the reservation" in caplog.text
    assert committed(cap) == 0 and cap.cap.totals().reserved == 0  # the model was never called


async def test_app_owned_generator_is_reserved_before_nemo_starts(tmp_path: Path) -> None:
    rails = LLMRails(sn.sluicegate_config())
    sn.install(rails, make_stop_filter)
    cap = budget(tmp_path / "s.db")
    log: list[str] = []
    prompt = "Answer from the report: What does the report cover?"
    s = sn.guarded_stream(rails, messages=MESSAGES, generator=agen(PIECES, log), cap=cap, prompt=prompt)
    assert "".join([c async for c in s]) == GOOD
    assert committed(cap) == PRICE.cost(prompt_tokens_bound(prompt)[0], len(GOOD.encode()))
    refused_log: list[str] = []
    broke = budget(tmp_path / "other.db", monthly="0")
    s = sn.guarded_stream(rails, messages=MESSAGES, generator=agen(PIECES, refused_log), cap=broke)
    assert [c async for c in s] == [notice("hi", "monthly_limit")] and refused_log == []


async def test_install_cap_checks_the_config_and_the_model(tmp_path: Path) -> None:
    cap = budget(tmp_path / "s.db")
    plain = LLMRails(sn.sluicegate_config(), llm=sn.CappedLLM(ScriptedModel()))
    with pytest.raises(ValueError, match="rails.input.flows"):
        sn.install_cap(plain, cap)
    ungated = LLMRails(sn.cap_config(sn.sluicegate_config()), llm=sn.GatedLLM(ScriptedModel()))
    with pytest.raises(ValueError, match="CappedLLM"):
        sn.install_cap(ungated, cap)


async def test_non_streaming_generate_without_a_session_is_refused_fail_closed(tmp_path: Path) -> None:
    model = PromptRecorder(PIECES)
    rails = capped_rails(model, budget(tmp_path / "s.db"))
    result = await rails.generate_async(messages=MESSAGES)
    assert result["content"] == notice("hi", "monthly_limit") and model.prompts == [] and model.pulled == 0
