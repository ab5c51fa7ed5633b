"""Which pipeline a replay runs: the default (`SentenceGate` then `Redactor`) or the user's `module:factory`.

A user factory takes the record as a mapping (its `sources`, `language`, `question`, `id` and any extra fields),
the same shape as `sluicegate.sources.gate_from(...)` — so `sluicegate.sources:request_gate_redacted` works as
is — or takes no required argument (a filter class) and is called with none. Resolving happens once, before
the first record, so a typo is a one-line error and not a thousand failed records.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from .._errors import SluicegateError
from .._stream import StreamFilter
from ._imports import import_user_module

RecordFactory = Callable[[Mapping[str, Any], str], StreamFilter]

DEFAULT_NAME = "SentenceGate then Redactor (default)"


class FilterSpecError(SluicegateError, ValueError):
    """`--filter` names nothing importable or callable."""


def default_filter(record: Mapping[str, Any], language: str) -> StreamFilter:
    """The production default: the sentence gate over the record's numbered sources, then the redactor."""
    from .._gate import SentenceGate
    from .._stream import Pipeline
    from ..redaction import Redactor

    return Pipeline(SentenceGate(list(record["sources"]), language=language), Redactor())


def _takes_no_argument(factory: Callable[..., Any]) -> bool:
    """No required positional parameter: a filter class or a zero-argument factory, called with nothing."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: assume it takes the record
        return False
    return not any(
        p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params
    )


def load_filter(spec: str | None) -> tuple[RecordFactory, str]:
    """`(factory, name)` for `--filter module:attr` (None: the default). Raises `FilterSpecError`."""
    if spec is None:
        return default_filter, DEFAULT_NAME
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise FilterSpecError(f"--filter must be module:factory (e.g. mypkg.guards:make_filter), got {spec!r}")
    try:
        module = import_user_module(module_name)
    except ImportError as exc:
        raise FilterSpecError(f"--filter {spec}: cannot import {module_name!r} ({exc})") from None
    except Exception as exc:  # the module itself failed while importing: still one line, exit 2
        raise FilterSpecError(
            f"--filter {spec}: importing {module_name!r} raised {type(exc).__name__}: {exc}"
        ) from None
    target: Any = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise FilterSpecError(f"--filter {spec}: {module_name!r} has no attribute {attr!r}")
        target = getattr(target, part)
    if not callable(target):
        raise FilterSpecError(f"--filter {spec}: {attr!r} is not callable")
    factory: Callable[..., Any] = target
    bare = _takes_no_argument(factory)

    def make(record: Mapping[str, Any], language: str) -> StreamFilter:
        built = factory() if bare else factory(record)
        if not isinstance(built, StreamFilter):
            raise FilterSpecError(f"--filter {spec} returned {type(built).__name__}, not a stream filter")
        return built

    return make, spec
