"""Telemetry: the five timers and the counters, and never any content."""

from __future__ import annotations

import json
import subprocess
import sys

from sluicegate.lifecycle import Policy, SQLiteOperationStore, State

from .helpers import TRANSFER_ARGS, events, generation


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_timers_and_counters(tmp_path: object) -> None:
    clock = FakeClock()
    gen = generation("anthropic", clock=clock)
    evs = events("anthropic")
    for i, event in enumerate(evs):
        clock.now = 100.0 + i  # one second per event
        gen.feed(event)
        if i == 4:
            gen.feed(event)  # a replayed text delta without a sequence number: see test_chaos for what it does
    t = gen.telemetry
    first_delta = next(i for i, e in enumerate(evs) if "text_delta" in e.data)
    assert t.to_first_fragment == first_delta
    assert t.to_terminal == len(evs) - 1 == t.to_validated
    store = SQLiteOperationStore(f"{tmp_path}/t.sqlite3")
    clock.now = 200.0
    gen2 = generation("anthropic", clock=clock)
    for event in evs:
        gen2.feed(event)
    clock.now = 205.0
    gen2.confirm(store)
    clock.now = 207.5
    gen2.execute(gen2.tool_calls[0].call_id, lambda a: {"ok": True}, store=store, policy=Policy(version="p"))
    t2 = gen2.telemetry
    assert (t2.to_confirmed, t2.to_executed) == (5.0, 7.5)
    assert [s for s, _ in t2.transitions] == [
        s.value
        for s in (State.RECEIVED, State.PROVISIONAL, State.ASSEMBLED, State.VALIDATED, State.CONFIRMED, State.EXECUTED)
    ]
    assert t2.event_types["content_block_delta"] == sum("content_block_delta" in e.data for e in evs)


def test_no_content_in_telemetry() -> None:
    for name in ("chat", "responses", "anthropic"):
        gen = generation(name, clock=FakeClock())  # integer times: no digits of a float look like an amount
        for event in events(name):
            gen.feed(event)
        exported = json.dumps(gen.telemetry.as_dict(), ensure_ascii=False)
        for value in (*map(str, TRANSFER_ARGS.values()), "Zürich", "CHF", "東京", "virement", "überweise"):
            assert value not in exported, (name, value)


def test_sluicegate_import_does_not_pull_pydantic_or_lifecycle() -> None:
    code = "import sys, sluicegate; print('pydantic' in sys.modules, 'sluicegate.lifecycle' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
