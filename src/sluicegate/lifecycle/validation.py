"""Validation of an assembled candidate: strict JSON parse, strict pydantic schema, then business rules.

pydantic is imported here only, and this module is imported only by `sluicegate.lifecycle`, never by
`sluicegate/__init__.py`: the core stays importable without the `[lifecycle]` extra.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

Rule = Callable[[Any], object]
"""A business rule: called with the validated model; raises to reject (any exception), server-side."""


@dataclass(frozen=True)
class Rejection:
    """Why an item was refused. `code` is safe for telemetry; `detail` stays server-side (no argument values)."""

    item: str
    code: str
    detail: str = ""
    tool: str | None = None


class Rejected(ValueError):
    """Raised inside validation; carries the rejection code and a value-free detail."""

    def __init__(self, code: str, detail: str = "") -> None:
        self.code = code
        self.detail = detail
        super().__init__(f"{code}: {detail}" if detail else code)


def require_closed_schema(name: str, model: type[BaseModel]) -> None:
    """Refuse, at construction, a model that would accept unknown fields anywhere (extra="forbid" needed)."""
    from pydantic import BaseModel as _BaseModel

    if not (isinstance(model, type) and issubclass(model, _BaseModel)):
        raise TypeError(f"tool {name!r}: expected a pydantic BaseModel subclass, got {model!r}")
    path = _open_object(model)
    if path is not None:
        raise TypeError(
            f"tool {name!r}: {model.__name__}{path} accepts unknown fields; set "
            'model_config = ConfigDict(extra="forbid") on it and on every nested model'
        )


@functools.lru_cache(maxsize=1024)
def _open_object(model: type[BaseModel]) -> str | None:
    """The path of the first object schema that allows extra keys, or None (cached: one schema walk per model)."""
    for path, node in _object_schemas(model.model_json_schema()):
        if node.get("additionalProperties") is not False:
            return path or "<root>"
    return None


def _object_schemas(node: object, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        if node.get("type") == "object" and ("properties" in node or "additionalProperties" in node):
            yield path, node
        for key, value in node.items():
            yield from _object_schemas(value, f"{path}.{key}" if key != "properties" else path)
    elif isinstance(node, list):
        for value in node:
            yield from _object_schemas(value, path)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            # {"amount": 1, "amount": 1000}: parsers disagree on which wins; refuse instead of guessing.
            raise Rejected("duplicate_key")
        seen[key] = value
    return seen


def _no_constants(name: str) -> object:
    raise Rejected("non_finite_number")


def parse_strict(raw: str) -> object:
    """RFC 8259 JSON only: no NaN/Infinity, no duplicate keys, nothing after the value, no prefix salvage."""
    try:
        return json.loads(raw, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constants)
    except Rejected:
        raise
    except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than the stack (an attack too)
        raise Rejected("invalid_json", type(exc).__name__) from None


def validate_model(model: type[BaseModel], raw: str, rule: Rule | None) -> BaseModel:
    """Parse, validate strictly (no coercion: "5" is not 5, 1 is not True), then run the business rule."""
    from pydantic import ValidationError

    parse_strict(raw)
    try:
        value = model.model_validate_json(raw, strict=True)
    except ValidationError as exc:
        errors = exc.errors(include_input=False, include_url=False, include_context=False)
        detail = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['type']}" for e in errors)
        raise Rejected("schema", detail) from None
    if rule is not None:
        try:
            rule(value)
        except Exception as exc:  # a rule raises to reject; whatever it raises, the call is refused
            raise Rejected("business_rule", f"{type(exc).__name__}: {exc}") from None
    return value


def canonical_json(value: BaseModel) -> str:
    """The validated arguments as canonical JSON (sorted keys, no spaces): what the digest and the store see."""
    data = value.model_dump(mode="json")
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rules_for(tools: Mapping[str, type[BaseModel]], rules: Mapping[str, Rule] | None) -> dict[str, Rule]:
    """Check that every rule names a declared tool (a typo would silently skip a rule)."""
    rules = dict(rules or {})
    unknown = sorted(set(rules) - set(tools) - {"output"})
    if unknown:
        raise ValueError(f"rules for undeclared tools: {unknown}")
    return rules
