"""Validation of an assembled candidate: strict JSON parse, strict schema, then business rules.

A tool is defined by a pydantic model (validated with `strict=True`) or by the JSON Schema the caller sent to
the provider (validated by the `jsonschema` library: no coercion, `1.0` is not an integer, unknown properties
refused unless the schema allows them). pydantic and jsonschema are imported here only, lazily, and this
module is imported only by `sluicegate.lifecycle`, never by `sluicegate/__init__.py`.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from .._errors import SluicegateError

if TYPE_CHECKING:
    from pydantic import BaseModel

Rule = Callable[[Any], object]
"""A business rule: called with the validated model (or JSON value); raises to reject, server-side."""

ToolDefinition = Union["type[BaseModel]", Mapping[str, Any], "JsonSchemaTool"]
"""A tool's arguments: a pydantic model, or a JSON Schema (a mapping), e.g. the `parameters` sent to OpenAI."""


@dataclass(frozen=True)
class Rejection:
    """Why an item was refused. `code` is safe for telemetry; `detail` stays server-side (no argument values)."""

    item: str
    code: str
    detail: str = ""
    tool: str | None = None
    provider_code: str | None = None  # the provider's error code/type on a provider failure (`overloaded_error`)


class Rejected(SluicegateError, ValueError):
    """Raised inside validation; carries the rejection code and a value-free detail."""

    def __init__(self, code: str, detail: str = "") -> None:
        self.code = code
        self.detail = detail
        super().__init__(f"{code}: {detail}" if detail else code)


def require_closed_schema(name: str, model: ToolDefinition) -> None:
    """Refuse, at construction, a model that would accept unknown fields anywhere (extra="forbid" needed).

    Mapping fields (`dict[str, float]`) are not models: their schema says what every value must be, so they
    are accepted. A JSON Schema is compiled (and checked against its metaschema) by `compile_tool`."""
    from pydantic import BaseModel as _BaseModel

    if isinstance(model, (Mapping, JsonSchemaTool)):
        compile_tool(name, model)
        return
    if not (isinstance(model, type) and issubclass(model, _BaseModel)):
        raise TypeError(
            f"tool {name!r}: expected a pydantic BaseModel subclass or a JSON Schema (a mapping), got {model!r}"
        )
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
    """The model (and TypedDict / dataclass) object schemas: those with `properties`. A mapping field has none:
    its `additionalProperties` is the schema of every value, which is what `dict[str, float]` means."""
    if isinstance(node, dict):
        if node.get("type") == "object" and "properties" in node:
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


def validate_model(model: ToolDefinition, raw: str, rule: Rule | None) -> Any:
    """Parse, validate strictly (no coercion: "5" is not 5, 1 is not True), then run the business rule."""
    parsed = parse_strict(raw)
    value: Any
    if isinstance(model, (Mapping, JsonSchemaTool)):
        value = compile_tool("tool", model).validate(parsed)
    else:
        from pydantic import ValidationError

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


def canonical_json(value: Any) -> str:
    """The validated arguments as canonical JSON (sorted keys, no spaces): what the digest and the store see."""
    dump = getattr(value, "model_dump", None)
    data = dump(mode="json") if callable(dump) else value
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rules_for(tools: Mapping[str, Any], rules: Mapping[str, Rule] | None) -> dict[str, Rule]:
    """Check that every rule names a declared tool (a typo would silently skip a rule)."""
    rules = dict(rules or {})
    unknown = sorted(set(rules) - set(tools) - {"output"})
    if unknown:
        raise ValueError(f"rules for undeclared tools: {unknown}")
    return rules


# -- JSON Schema tools --------------------------------------------------------------------------------------

#: Keywords whose value is one subschema / a list of subschemas / a mapping of name -> subschema.
_ONE = (
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
)
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
_NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_COMPOSED = ("allOf", "anyOf", "oneOf", "$ref", "$dynamicRef")


class JsonSchemaTool:
    """A tool defined by a JSON Schema, compiled once: strict types, formats checked, objects closed.

    Closed means: an object schema that does not say whether other properties are allowed (no
    `additionalProperties`, no `unevaluatedProperties`) refuses them, as a strict tool schema must. Where such
    an object is composed (`allOf`/`anyOf`/`oneOf`/`$ref`), closing it would change what the composition means,
    so the schema is refused at construction and must say it explicitly."""

    def __init__(self, schema: Mapping[str, Any], name: str = "tool") -> None:
        import copy

        from jsonschema import exceptions, validators

        self.name = name
        self.source = schema
        self.schema = _close(copy.deepcopy(dict(schema)), name, "", composed=False)
        base = validators.validator_for(self.schema, default=validators.Draft202012Validator)
        try:
            base.check_schema(self.schema)
        except exceptions.SchemaError as exc:
            raise TypeError(f"tool {name!r}: not a valid JSON Schema ({exc.message})") from None
        # No coercion: JSON Schema counts 1.0 as an integer, a strict tool schema does not.
        checker = base.TYPE_CHECKER.redefine("integer", lambda _c, x: isinstance(x, int) and not isinstance(x, bool))
        extend: Any = validators.extend  # untyped in the stubs
        strict = extend(base, type_checker=checker)
        self._validator = strict(self.schema, format_checker=base.FORMAT_CHECKER)

    def validate(self, value: object) -> object:
        """The value itself when it validates; else `Rejected("schema")` naming paths and keywords, no values."""
        errors = sorted(self._validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
        if errors:
            detail = "; ".join(
                f"{'.'.join(str(p) for p in e.absolute_path) or '<root>'}: {e.validator}" for e in errors
            )
            raise Rejected("schema", detail)
        return value


def compile_tool(name: str, definition: Mapping[str, Any] | JsonSchemaTool) -> JsonSchemaTool:
    """The compiled tool for a schema: the same mapping object, or (for plain JSON data: what a request body
    parses to) the same content under the same name, is compiled once. A proxy parses the same tools afresh for
    every request, and checking a schema against the metaschema costs milliseconds."""
    if isinstance(definition, JsonSchemaTool):
        return definition
    key = id(definition)
    cached = _COMPILED.get(key)
    if cached is not None and cached.source is definition:
        return cached
    content = (name, json.dumps(definition, sort_keys=True)) if _plain_json(definition) else None
    tool = None if content is None else _BY_CONTENT.get(content)
    if tool is None:
        tool = JsonSchemaTool(definition, name)
        if content is not None:
            _BY_CONTENT[content] = tool
            if len(_BY_CONTENT) > 1024:
                _BY_CONTENT.pop(next(iter(_BY_CONTENT)))
    _COMPILED[key] = tool
    if len(_COMPILED) > 1024:
        _COMPILED.pop(next(iter(_COMPILED)))
    return tool


def _plain_json(node: object) -> bool:
    """Only dicts with str keys, lists, str, int, float, bool and None (so json.dumps names the content exactly:
    a tuple or another Mapping type is compiled on its own, as `_close` treats them differently)."""
    if type(node) is dict:
        return all(type(k) is str and _plain_json(v) for k, v in node.items())
    if type(node) is list:
        return all(_plain_json(v) for v in node)
    return node is None or type(node) in (str, int, float, bool)


_COMPILED: dict[int, JsonSchemaTool] = {}
_BY_CONTENT: dict[tuple[str, str], JsonSchemaTool] = {}


def _close(node: Any, name: str, path: str, *, composed: bool) -> Any:
    if isinstance(node, list):
        return [_close(v, name, path, composed=composed) for v in node]
    if not isinstance(node, dict):
        return node
    is_object = node.get("type") == "object" or "properties" in node
    silent = "additionalProperties" not in node and "unevaluatedProperties" not in node
    if is_object and silent:
        if composed or any(k in node for k in _COMPOSED):
            raise TypeError(
                f"tool {name!r}: the object schema at {path or '<root>'} is composed and does not say whether "
                "unknown properties are allowed; set additionalProperties (or unevaluatedProperties) explicitly"
            )
        node["additionalProperties"] = False
    for key in _ONE:
        if isinstance(node.get(key), dict):
            node[key] = _close(node[key], name, f"{path}.{key}", composed=False)
    for key in _MANY:
        if isinstance(node.get(key), list):
            member_composed = key == "allOf"
            node[key] = [
                _close(v, name, f"{path}.{key}[{i}]", composed=member_composed) for i, v in enumerate(node[key])
            ]
    for key in _NAMED:
        if isinstance(node.get(key), dict):
            node[key] = {k: _close(v, name, f"{path}.{k}", composed=False) for k, v in node[key].items()}
    return node


def schema_tools(definitions: Any) -> dict[str, Mapping[str, Any]]:
    """Tool name -> JSON Schema from the tool list you sent the provider: OpenAI Chat
    (`{"type": "function", "function": {"name", "parameters"}}`), Responses (`{"type": "function", "name",
    "parameters"}`) or Anthropic (`{"name", "input_schema"}`). Other tool types (hosted tools) are skipped."""
    tools: dict[str, Mapping[str, Any]] = {}
    for entry in definitions:
        spec = entry.get("function") if isinstance(entry.get("function"), Mapping) else entry
        name = spec.get("name")
        schema = spec.get("parameters", spec.get("input_schema"))
        if not isinstance(name, str) or not isinstance(schema, Mapping):
            continue
        if name in tools:
            raise ValueError(f"tool {name!r} is defined twice")
        tools[name] = schema
    return tools
