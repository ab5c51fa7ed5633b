"""Reasoning/thinking text, shown only when the operator allows it, and then through its own redactor.

The tool-call `Generation` assembles reasoning items but never shows them; this module is the separate path
that does, for the relay (`Relay(reasoning=...)`). It reads each upstream event's reasoning parts in the
dialect's own words (`read`), runs every part's text through a `Redactor` of its own (a separate stream from
the answer's, so a value split across reasoning deltas is held like one split across answer deltas; never
the sentence gate: sources are for the answer), and writes it with the encoder's `think_*` frames.

A part is one piece of reasoning text the client shows on its own: Chat Completions' `reasoning_content` (or
`reasoning`) field until the answer starts, one Anthropic `thinking` block, one Responses summary part or
`reasoning_text` part. A part ends at its own end event (or when the answer, a tool call or the terminal
event arrives): its redactor is flushed then. A redactor stop (an unsettled secret) stops the whole response
the way an answer stop does (`notice` is set; the relay writes the stop). Everything depends on events only,
so it is chunk-invariant like the rest of the relay.

Anthropic's `signature` signs the thinking the model produced: it is passed on only when the text shown is the
upstream's text exactly; otherwise the block carries `UNSIGNED_THINKING` instead, which `parse_request`
refuses with a clear 400 if a client sends the block back (Anthropic would refuse it as an invalid signature).
Opaque reasoning (`redacted_thinking` blocks, Responses `encrypted_content`) is ciphertext only the provider
reads: its ciphertext is passed on as it came (no other field of the block: those would pass unredacted).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._stream import Guard

if TYPE_CHECKING:
    from ._base import Encoder

UNSIGNED_THINKING = "sluicegate-redacted-thinking"
"""The signature of a thinking block whose text the redactor changed (or a stop cut): not Anthropic's."""

_CHAT_FIELDS = ("reasoning_content", "reasoning")


@dataclass(frozen=True)
class Op:
    """One reasoning fact of an upstream event.

    `what`: "item" (a Responses reasoning item opens; `extra` its opaque fields), "open" (a part opens),
    "delta" (text of a part), "signature" (Anthropic's, held to the part's end), "close" (a part ends),
    "item_done" (a Responses item ends; `extra` its opaque fields), "opaque" (a block passed on as it came),
    "settle" (the answer, a tool call or the end arrives: every open part ends first)."""

    what: str
    key: str = ""
    kind: str = ""  # chat: the field name; anthropic: "thinking"; responses: "summary" | "text"
    text: str = ""
    item: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


def read(dialect: str, payload: Mapping[str, Any] | None, data: str) -> list[Op]:
    """The reasoning ops of one upstream event (`payload` its decoded JSON object, None if it is none)."""
    if payload is None:
        return [Op("settle")] if data.strip() == "[DONE]" else []
    try:
        if dialect == "chat":
            return _chat(payload)
        if dialect == "anthropic":
            return _anthropic(payload)
        return _responses(payload)
    except (AttributeError, TypeError, ValueError):
        return []  # a malformed payload: the generation fails on it


def _chat(p: Mapping[str, Any]) -> list[Op]:
    ops: list[Op] = []
    settle = False
    for choice in p.get("choices") or []:
        if choice.get("index", 0) != 0:
            continue
        delta = choice.get("delta") or {}
        for name in _CHAT_FIELDS:
            text = delta.get(name)
            if isinstance(text, str) and text:
                ops.append(Op("delta", name, name, text))
        if delta.get("content") or delta.get("refusal") or delta.get("tool_calls") or choice.get("finish_reason"):
            settle = True
    return [*ops, Op("settle")] if settle else ops


def _anthropic(p: Mapping[str, Any]) -> list[Op]:
    kind = p.get("type")
    if kind == "content_block_start":
        block = p.get("content_block") or {}
        key = str(p.get("index"))
        if block.get("type") == "thinking":
            first = block.get("thinking")
            ops = [Op("open", key, "thinking")]
            if isinstance(first, str) and first:
                ops.append(Op("delta", key, "thinking", first))
            if isinstance(block.get("signature"), str) and block["signature"]:
                ops.append(Op("signature", key, text=block["signature"]))
            return ops
        if block.get("type") == "redacted_thinking":  # only the ciphertext: no other field passes unredacted
            data = block.get("data")
            opaque = {"type": "redacted_thinking", "data": data if isinstance(data, str) else ""}
            return [Op("settle"), Op("opaque", key, extra=opaque)]
        return [Op("settle")]
    if kind == "content_block_delta":
        delta = p.get("delta") or {}
        key = str(p.get("index"))
        if delta.get("type") == "thinking_delta" and isinstance(delta.get("thinking"), str):
            return [Op("delta", key, "thinking", delta["thinking"])] if delta["thinking"] else []
        if delta.get("type") == "signature_delta" and isinstance(delta.get("signature"), str):
            return [Op("signature", key, text=delta["signature"])]
        return []
    if kind == "content_block_stop":
        return [Op("close", str(p.get("index")))]
    if kind in ("message_delta", "message_stop"):
        return [Op("settle")]
    return []


def _responses(p: Mapping[str, Any]) -> list[Op]:
    kind = str(p.get("type"))
    given = p.get("item")
    item: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    if kind == "response.output_item.added":
        if item.get("type") == "reasoning":
            return [Op("settle"), Op("item", item=str(item.get("id")), extra=_opaque(item))]
        return [Op("settle")]
    if kind == "response.output_item.done" and item.get("type") == "reasoning":
        return [Op("item_done", item=str(item.get("id")), extra=_opaque(item))]
    iid = str(p.get("item_id"))
    if kind == "response.reasoning_summary_part.added":
        return [Op("open", _key(iid, "summary", p.get("summary_index")), "summary", item=iid)]
    if kind == "response.content_part.added" and (p.get("part") or {}).get("type") == "reasoning_text":
        return [Op("open", _key(iid, "text", p.get("content_index")), "text", item=iid)]
    if kind == "response.reasoning_summary_text.delta" and isinstance(p.get("delta"), str):
        key = _key(iid, "summary", p.get("summary_index"))
        return [Op("delta", key, "summary", p["delta"], item=iid)] if p["delta"] else []
    if kind == "response.reasoning_text.delta" and isinstance(p.get("delta"), str):
        key = _key(iid, "text", p.get("content_index"))
        return [Op("delta", key, "text", p["delta"], item=iid)] if p["delta"] else []
    if kind == "response.reasoning_summary_text.done":
        return [Op("close", _key(iid, "summary", p.get("summary_index")))]
    if kind == "response.reasoning_text.done":
        return [Op("close", _key(iid, "text", p.get("content_index")))]
    if kind in ("response.completed", "response.incomplete", "response.failed"):
        return [Op("settle")]
    return []


def _key(item: str, kind: str, index: Any) -> str:
    return f"{item}:{kind}:{index if isinstance(index, int) else 0}"


def _opaque(item: Mapping[str, Any]) -> dict[str, Any]:
    value = item.get("encrypted_content")
    return {"encrypted_content": value} if isinstance(value, str) and value else {}


@dataclass
class _Part:
    key: str
    kind: str
    item: str
    redactor: Any
    raw: str = ""  # what the upstream sent (for the signature decision only; never written)
    signature: str | None = None


class Reasoning:
    """The reasoning path of one response: parts, their redactors, the frames (see the module docstring)."""

    def __init__(self, encoder: Encoder, redactor_options: Mapping[str, Any] | Callable[[], Any] | None = None) -> None:
        self.encoder = encoder
        if callable(redactor_options):  # a `Redactor.factory(...)`: detectors compiled once per server
            self._make: Callable[[], Any] = redactor_options
        else:
            from ..redaction import Redactor  # not imported with the dialects: only when reasoning is shown

            self._make = Redactor.factory(**dict(redactor_options or {}))
        self.notice: str | None = None  # set when a part's redactor stopped: the relay writes the stop
        self.redactions: dict[str, int] = {}
        self._parts: dict[str, _Part] = {}
        self._closed: set[str] = set()
        self._items: set[str] = set()

    def apply(self, ops: list[Op]) -> bytes:
        out = b""
        for op in ops:
            if self.notice is not None or self.encoder.ended:
                break
            out += self._op(op)
        return out

    def _op(self, op: Op) -> bytes:
        enc = self.encoder
        if op.what == "settle":
            return self.settle()
        if op.what == "item":
            self._items.add(op.item)
            return enc.think_item(op.item)
        if op.what == "item_done":
            out = self._close_item(op.item, flush=True)
            if self.notice is not None:
                return out
            self._items.discard(op.item)
            return out + enc.think_item_done(op.item, dict(op.extra))
        if op.what == "opaque":
            return enc.think_opaque(dict(op.extra))
        if op.what == "open":
            return self._open(op.key, op.kind, op.item)
        if op.what == "delta":
            key = self._segment(op.key)
            out = b"" if key in self._parts else self._open(key, op.kind, op.item)
            part = self._parts.get(key)
            if part is None:
                return out
            part.raw += op.text
            return out + self._released(part, part.redactor.feed(op.text))
        if op.what == "signature":
            part = self._parts.get(op.key)
            if part is not None:
                part.signature = op.text  # the SDKs keep the last signature_delta, not a concatenation
            return b""
        if op.what == "close":
            return self._close(op.key, flush=True)
        return b""

    def _segment(self, key: str) -> str:
        """Chat reasoning that resumes after the answer began (its part was settled): a new part of its own.
        (Anthropic and Responses parts have their own end events: a delta after it breaks the format and the
        generation fails on it.)"""
        n = 0
        while key in self._closed and key not in self._parts:
            n += 1
            key = f"{key.split('#')[0]}#{n}"
        return key

    def _open(self, key: str, kind: str, item: str) -> bytes:
        if key in self._parts or key in self._closed:
            return b""
        out = b""
        if item and item not in self._items:  # a part of an item the upstream never announced: opened here
            self._items.add(item)
            out += self.encoder.think_item(item)
        self._parts[key] = _Part(key, kind, item, self._make())
        return out + self.encoder.think_open(key, kind, item)

    def _released(self, part: _Part, step: Any) -> bytes:
        out = self.encoder.think(part.key, step.text) if step.text else b""
        if step.stopped:
            notices = [e.notice for e in step.events if isinstance(e, Guard) and e.notice]
            from .._driver import FALLBACK_NOTICE

            self.notice = notices[0] if notices else FALLBACK_NOTICE
        return out

    def _close(self, key: str, *, flush: bool) -> bytes:
        part = self._parts.pop(key, None)
        if part is None:
            return b""
        self._closed.add(key)
        out = self._released(part, part.redactor.flush()) if flush else b""
        for entity, n in part.redactor.counts.items():
            self.redactions[entity] = self.redactions.get(entity, 0) + n
        shown = self.encoder.thought(key)
        unchanged = flush and self.notice is None and shown == part.raw
        if part.signature is None:
            signature = None if unchanged else UNSIGNED_THINKING
        else:
            signature = part.signature if unchanged else UNSIGNED_THINKING
        return out + self.encoder.think_done(key, signature=signature, complete=flush and self.notice is None)

    def _close_item(self, item: str, *, flush: bool) -> bytes:
        out = b""
        for key in [k for k, p in self._parts.items() if p.item == item]:
            out += self._close(key, flush=flush and self.notice is None)
        return out

    def settle(self) -> bytes:
        """The answer, a tool call or the end arrives: every open part ends (flushed), every item too."""
        out = b""
        for key in list(self._parts):
            out += self._close(key, flush=self.notice is None)
        if self.notice is None:
            for item in sorted(self._items):
                out += self.encoder.think_item_done(item, {})
            self._items.clear()
        return out

    def abort(self) -> bytes:
        """A stop or a failure: open parts end with what was released (held text dropped), items close."""
        out = b""
        for key in list(self._parts):
            out += self._close(key, flush=False)
        for item in sorted(self._items):
            out += self.encoder.think_item_done(item, {}, complete=False)
        self._items.clear()
        return out
