"""A streamed tool call, from raw SSE bytes to one executed transfer, offline (seed 003).

The "provider" is an Anthropic Messages stream written from the documented event shapes
(platform.claude.com/docs/en/build-with-claude/streaming), read in 7-byte pieces as a socket would deliver them.
The script shows what a UI may display while it streams (drafts), what happens when the connection drops just
before the terminal event (nothing to execute), and that a retried execution returns the recorded result
instead of paying twice — also after a lost response, once a reconcile lookup found it.

    pip install "sluicegate[lifecycle]"
    python examples/tool_calls.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from sluicegate.lifecycle import AnthropicReader, Generation, OutcomeUnknown, Policy, SQLiteOperationStore
from sluicegate.sse import SSEParser


class Transfer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    to: str
    amount_cents: int
    currency: Literal["EUR", "CHF"]
    memo: str


def sse(kind: str, **data: object) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data}, ensure_ascii=False)}\n\n"


ARGS = '{"to": "CH93 0076 2011 6238 5295 7", "amount_cents": 125000, "currency": "CHF", "memo": "Miete März"}'
STREAM = "".join(
    [
        sse("message_start", message={"id": "msg_example", "type": "message", "role": "assistant", "content": []}),
        sse(
            "content_block_start",
            index=0,
            content_block={"type": "tool_use", "id": "toolu_1", "name": "transfer", "input": {}},
        ),
        *[
            sse("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": ARGS[i : i + 12]})
            for i in range(0, len(ARGS), 12)
        ],
        sse("content_block_stop", index=0),
        sse("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 40}),
        sse("message_stop"),
    ]
).encode("utf-8")


class Bank:
    def __init__(self) -> None:
        self.applied: list[str] = []
        self.lose_next_response = False

    def transfer(self, t: Transfer) -> dict[str, str]:
        self.applied.append(t.to)
        if self.lose_next_response:
            self.lose_next_response = False
            raise TimeoutError("the bank took it, the answer never came back")
        return {"bank_ref": f"TX-{len(self.applied)}"}

    def lookup(self, key: str, call: object) -> object:
        return {"bank_ref": f"TX-{len(self.applied)}", "found_by": "reconcile"}


def stream(data: bytes, *, show: bool = True) -> Generation:
    gen = Generation(
        {"transfer": Transfer},
        reader=AnthropicReader(),
        principal="user-7",
        config_version="prompt-v1",
        operation="pay-rent",
    )
    parser = SSEParser()
    for i in range(0, len(data), 7):
        for event in parser.feed(data[i : i + 7]):
            for draft in gen.feed(event):
                if show:
                    print(f"   draft ({draft.kind}, {draft.name}): {draft.text!r}")
    gen.close()
    return gen


def main() -> None:
    print("1. The whole stream:")
    gen = stream(STREAM)
    print(f"   state={gen.state.value} calls={[c.name for c in gen.tool_calls]}")

    cut = STREAM[: STREAM.rindex(b"event: message_stop")]
    print("\n2. The same bytes, but the connection drops just before message_stop (the arguments look complete):")
    dropped = stream(cut, show=False)
    reasons = [r.detail for r in dropped.rejections]
    print(f"   state={dropped.state.value} calls={list(dropped.tool_calls)} reasons={reasons}")

    bank, policy = Bank(), Policy(version="policy-2026-12", tools={"transfer"})
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteOperationStore(Path(tmp) / "operations.sqlite3")
        gen.confirm(store)
        call = gen.tool_calls[0]
        print(f"\n3. Confirmed under {gen.id}; idempotency key {gen.idempotency_key(call, policy)[:20]}...")
        for attempt in (1, 2):
            print(f"   execute #{attempt}: {gen.execute(call.call_id, bank.transfer, store=store, policy=policy)}")
        print(f"   the bank applied {len(bank.applied)} transfer(s)")

        print("\n4. Another generation, whose tool response is lost:")
        lost = stream(STREAM, show=False)
        lost.confirm(store)
        bank.lose_next_response = True
        for attempt in (1, 2):
            try:
                lost.execute(lost.tool_calls[0].call_id, bank.transfer, store=store, policy=policy)
            except OutcomeUnknown as exc:
                print(f"   execute #{attempt}: unknown ({str(exc).split(': ', 1)[1]})")
        found = lost.execute(
            lost.tool_calls[0].call_id, bank.transfer, store=store, policy=policy, reconcile=bank.lookup
        )
        print(f"   with reconcile: {found}; the bank applied {len(bank.applied)} transfer(s) in all")
        store.close()


if __name__ == "__main__":
    main()
