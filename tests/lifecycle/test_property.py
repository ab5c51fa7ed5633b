"""Hypothesis over event sequences: no scenario confirms incomplete content or executes twice for one intent."""

from __future__ import annotations

import functools
import json
from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st

from sluicegate.lifecycle import NOT_APPLIED, Generation, OutcomeUnknown, Policy, SQLiteOperationStore, State
from sluicegate.sse import SSEEvent

from .helpers import STREAMS, TOOLS, events, generation

ACCEPTED = (State.VALIDATED, State.CONFIRMED, State.EXECUTED)
ERRORS = {
    "chat": SSEEvent(data='{"error":{"type":"server_error","message":"x"}}'),
    "responses": SSEEvent(
        event="error", data='{"type":"error","code":"server_error","message":"x","sequence_number":7}'
    ),
    "anthropic": SSEEvent(event="error", data='{"type":"error","error":{"type":"overloaded_error","message":"x"}}'),
}
CANCEL = object()


@functools.cache
def reference(name: str) -> tuple[tuple[str, ...], str | None]:
    gen = generation(name)
    for e in events(name):
        gen.feed(e)
    assert gen.state == State.VALIDATED
    return tuple(c.canonical for c in gen.tool_calls), gen.text


def mutable(name: str, event: SSEEvent) -> bool:
    """Which events a mutation may drop or replay without making the stream undecidable.

    Responses numbers every event, so any of them. Chat Completions and Anthropic send no sequence numbers: a
    replayed or lost *delta* cannot be told from real content (the seed forbids guessing from content), so
    only their structural events are touched here; what happens to deltas is pinned in test_chaos.
    """
    return name == "responses" or ("_delta" not in event.data and '"delta":{"tool_calls"' not in event.data)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[str, list[object]]:
    name = draw(st.sampled_from(sorted(STREAMS)))
    stream: list[object] = list(events(name))
    for _ in range(draw(st.integers(0, 6))):
        action = draw(st.sampled_from(["replay", "drop", "swap", "truncate", "error", "cancel"]))
        if not stream:
            break
        i = draw(st.integers(0, len(stream) - 1))
        item = stream[i]
        touchable = isinstance(item, SSEEvent) and mutable(name, item)
        if action == "replay" and touchable:
            stream.insert(draw(st.integers(i + 1, len(stream))), item)
        elif action == "drop" and touchable:
            del stream[i]
        elif action == "swap" and name == "responses" and i + 1 < len(stream):
            stream[i], stream[i + 1] = stream[i + 1], stream[i]
        elif action == "truncate":
            del stream[i:]
        elif action == "error":
            stream.insert(i, ERRORS[name])
        elif action == "cancel":
            stream.insert(i, CANCEL)
    return name, stream


class Ledger:
    """The external system: what it really applied, by idempotency key; the response may get lost."""

    def __init__(self, losses: list[bool]) -> None:
        self.applied: dict[str, int] = {}
        self.losses = losses
        self.key = ""

    def tool(self, args: Any) -> dict[str, str]:
        self.applied[self.key] = self.applied.get(self.key, 0) + 1
        if self.losses and self.losses.pop(0):
            raise TimeoutError("lost")
        return {"ref": self.key[:12]}

    def reconcile(self, key: str, call: object) -> object:
        return {"ref": key[:12]} if self.applied.get(key) else NOT_APPLIED


@given(
    scenarios(),
    st.lists(st.booleans(), max_size=4),
    st.lists(st.sampled_from(["plain", "reconcile", "restart"]), max_size=5),
)
def test_never_confirms_incomplete_content_never_executes_twice(
    scenario: tuple[str, list[object]], losses: list[bool], attempts: list[str]
) -> None:
    name, stream = scenario
    gen = generation(name)
    for item in stream:
        if item is CANCEL:
            if gen.state.terminal:
                continue
            gen.cancel()
        else:
            gen.feed(item)
    gen.close()
    event(f"{name}: {gen.state.value}")
    calls, text = reference(name)
    if gen.state not in ACCEPTED:
        assert gen.tool_calls == () and gen.text is None and gen.output is None
        return
    # accepted: exactly the complete answer, never a prefix, a duplicate or a reordering of it
    assert tuple(c.canonical for c in gen.tool_calls) == calls and gen.text == text
    store = SQLiteOperationStore(":memory:")
    gen.confirm(store)
    ledger = Ledger(list(losses))
    policy = Policy(version="p1")
    results = []
    current = gen
    for attempt in attempts:
        if attempt == "restart":
            current = Generation.restore(store, gen.id, TOOLS)
        call = current.tool_calls[0]
        ledger.key = current.idempotency_key(call, policy)
        try:
            reconcile = ledger.reconcile if attempt == "reconcile" else None
            results.append(current.execute(call.call_id, ledger.tool, store=store, policy=policy, reconcile=reconcile))
        except OutcomeUnknown:
            pass
    assert all(count == 1 for count in ledger.applied.values())
    assert len({json.dumps(r, sort_keys=True) for r in results}) <= 1
