"""Provisional buffers, one per output item and kind, keyed by the provider's documented ids or indexes.

Assembly turns fragments into complete candidates; it does not validate them. It refuses what the stream
contract forbids (a delta for a finished item, a second start for the same key with a different identity),
and it keeps each buffer as a list of parts joined once, so assembly stays linear in the stream length.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._errors import SluicegateError
from ._ops import Check, Delta, ItemDone, Kind, Start


class AssemblyError(SluicegateError, ValueError):
    """The stream broke the assembly contract; `code` is the rejection code."""

    def __init__(self, code: str, key: str) -> None:
        self.code = code
        self.key = key
        super().__init__(f"{code} (item {key})")


@dataclass
class Item:
    """One output item's buffer and identity."""

    key: str
    kind: Kind
    order: int
    call_id: str | None = None
    name: str | None = None
    initial: str = ""
    parts: list[str] = field(default_factory=list)
    done: bool = False
    final: str | None = None  # the provider's final payload, when it sent one
    mismatch: str | None = None  # the event type whose payload disagreed with the deltas

    @property
    def text(self) -> str:
        """The concatenated deltas (or the documented initial value when none arrived)."""
        joined = "".join(self.parts)
        return joined or self.initial

    @property
    def size(self) -> int:
        return sum(len(p) for p in self.parts)


class Assembly:
    """All buffers of one generation, in the order their items appeared."""

    def __init__(self) -> None:
        self.items: dict[str, Item] = {}

    def start(self, op: Start) -> bool:
        """Open an item; a repeated start with the same identity is a replay (returns False)."""
        item = self.items.get(op.key)
        if item is not None:
            if item.kind != op.kind or (op.call_id and item.call_id and op.call_id != item.call_id):
                raise AssemblyError("conflicting_item_start", op.key)
            if op.name and item.name and op.name != item.name:
                raise AssemblyError("conflicting_item_start", op.key)
            return False
        self.items[op.key] = Item(op.key, op.kind, len(self.items), op.call_id, op.name, op.initial)
        return True

    def delta(self, op: Delta) -> None:
        """Append a fragment; an item may start implicitly only when the reader says which kind it is."""
        item = self.items.get(op.key)
        if item is None:
            if op.kind is None:
                raise AssemblyError("delta_for_unknown_item", op.key)
            self.start(Start(op.key, op.kind, op.call_id, op.name))
            item = self.items[op.key]
        if item.done:
            raise AssemblyError("delta_after_item_done", op.key)
        if op.call_id:
            if item.call_id and item.call_id != op.call_id:
                raise AssemblyError("conflicting_call_id", op.key)
            item.call_id = op.call_id
        if op.name:
            # Chat Completions sends the name once; a second, different name on the same index is two calls merged.
            if item.name and item.name != op.name:
                raise AssemblyError("conflicting_tool_name", op.key)
            item.name = op.name
        if op.text:
            item.parts.append(op.text)

    def done(self, op: ItemDone) -> bool:
        """Close an item; a second close is a replay (returns False) unless its payload disagrees."""
        item = self.items.get(op.key)
        if item is None:
            raise AssemblyError("done_for_unknown_item", op.key)
        if item.done:
            if op.final is not None and op.final != item.text:
                item.mismatch = item.mismatch or op.source
            return op.copy
        item.done = True
        if op.final is not None:
            item.final = op.final
            if op.final != item.text:
                item.mismatch = op.source
        return True

    def check(self, op: Check) -> None:
        """Compare a later copy of an item's payload with the deltas; remember the first disagreement."""
        item = self.items.get(op.key)
        if item is None:
            raise AssemblyError("check_for_unknown_item", op.key)
        if op.final != item.text and item.mismatch is None:
            item.mismatch = op.source

    def open_items(self) -> list[Item]:
        return [i for i in self.items.values() if not i.done]

    def close_all(self) -> None:
        """Providers whose generation terminal also closes every item (Chat Completions)."""
        for item in self.items.values():
            item.done = True

    def of_kind(self, kind: Kind) -> list[Item]:
        return [i for i in self.items.values() if i.kind == kind]
