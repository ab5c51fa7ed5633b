"""What a settled finding becomes in the released text.

- `replace` (default): `<ENTITY_TYPE>` with Presidio's entity names;
- `mask`: one `*` per raw character, so layout and length survive;
- `hash`: `<ENTITY_TYPE:8 hex>` from a keyed HMAC-SHA256 of the normalized value, so the same value reads the
  same within a stream (and, with a key you pass, across streams) without being recoverable;
- a callable `(entity, raw_value) -> str` of your own.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, Union


class Operator(Protocol):
    def __call__(self, entity: str, raw: str, value: str) -> str: ...


@dataclass(frozen=True)
class Replace:
    def __call__(self, entity: str, raw: str, value: str) -> str:
        return f"<{entity}>"


@dataclass(frozen=True)
class Mask:
    char: str = "*"

    def __post_init__(self) -> None:
        if len(self.char) != 1:
            raise ValueError("Mask(char=...) takes exactly one character")

    def __call__(self, entity: str, raw: str, value: str) -> str:
        return self.char * len(raw)


@dataclass(frozen=True)
class Hash:
    """Keyed hash. Without a key, each `Redactor` draws a random one: stable within a stream, unlinkable
    across streams. Pass `key=` to link values across streams (and to test chunk invariance)."""

    key: bytes = field(default_factory=lambda: os.urandom(32), repr=False)
    digits: int = 8

    def __call__(self, entity: str, raw: str, value: str) -> str:
        mac = hmac.new(self.key, f"{entity}\0{value}".encode(), hashlib.sha256).hexdigest()
        return f"<{entity}:{mac[: self.digits]}>"


@dataclass(frozen=True)
class Call:
    fn: Callable[[str, str], str]

    def __call__(self, entity: str, raw: str, value: str) -> str:
        out = self.fn(entity, raw)
        if not isinstance(out, str):
            raise TypeError(f"the redaction callable must return str, got {type(out).__name__}")
        return out


OperatorSpec = Union[str, Operator, Callable[[str, str], str]]  # noqa: UP007 - a runtime alias (Python 3.10)


def resolve_operator(spec: OperatorSpec) -> Operator:
    """Map "replace" / "mask" / "hash" / an operator object / a plain `(entity, raw) -> str` callable."""
    if isinstance(spec, str):
        if spec == "replace":
            return Replace()
        if spec == "mask":
            return Mask()
        if spec == "hash":
            return Hash()
        raise ValueError(f"operator must be 'replace', 'mask', 'hash' or a callable, got {spec!r}")
    if isinstance(spec, (Replace, Mask, Hash, Call)):
        return spec
    if callable(spec):
        return Call(spec)  # type: ignore[arg-type]
    raise TypeError(f"operator must be 'replace', 'mask', 'hash' or a callable, got {type(spec).__name__}")
