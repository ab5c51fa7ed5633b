"""One numbering of the sources for the prompt *and* the gate, so the two can never disagree.

Adapters take passages in retrieval order, show them to the model as `[S1] ...`, `[S2] ...`, and build the
gate from the same list in the same order: `[Si]` in the answer then means `sources[i-1]` for both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ._public import publish
from ._stream import StreamFilter

__all__ = [
    "FilterFactory",
    "RequestFactory",
    "format_sources",
    "gate_factory",
    "gate_from",
    "marker",
    "refusal_text",
    "source_text",
    "source_texts",
]

FilterFactory = Callable[[Sequence[str]], StreamFilter]
RequestFactory = Callable[[Mapping[str, Any]], StreamFilter]


def marker(index: int) -> str:
    """The marker of the 1-based source `index` (the gate's own format, `gate.markers.MARKER_FORMAT`)."""
    from ._gate.markers import marker as gate_marker

    return gate_marker(index)


def source_text(source: Any) -> str:
    """The text of one source: a `str`, or an object with `page_content` (LangChain `Document`) or `text`."""
    if isinstance(source, str):
        return source
    for attr in ("page_content", "text"):
        value = getattr(source, attr, None)
        if isinstance(value, str):
            return value
    raise TypeError(f"a source must be a str or have a str `page_content`/`text`, got {type(source).__name__}")


def source_texts(sources: Any) -> list[str]:
    """Texts of `sources` in order; a single str or document counts as one source."""
    if sources is None:
        raise ValueError("no sources given: pass a list of passages (an empty list if retrieval found none)")
    if isinstance(sources, str) or not isinstance(sources, Iterable):
        sources = [sources]
    return [source_text(s) for s in sources]


def format_sources(texts: Sequence[str], *, separator: str = "\n\n") -> str:
    """The prompt's context block: `[S1] first passage` + separator + `[S2] second passage` ..."""
    return separator.join(f"{marker(i)} {text}" for i, text in enumerate(texts, start=1))


def gate_factory(*, redact: bool = False, **gate_options: Any) -> FilterFactory:
    """The default filter: the `SentenceGate` over the numbered sources, optionally followed by the `Redactor`.

    `gate_options` go to `SentenceGate` (language, refusal_token, notice, ...). The redactor runs after the
    gate, on text the gate already approved, so the gate still checks values against the sources verbatim.
    """

    def make(texts: Sequence[str]) -> StreamFilter:
        from ._gate import SentenceGate
        from ._stream import Pipeline
        from .redaction import Redactor

        gate = SentenceGate(list(texts), **gate_options)
        return Pipeline(gate, Redactor()) if redact else gate

    return make


def gate_from(key: str = "sources", *, redact: bool = False, **gate_options: Any) -> RequestFactory:
    """A per-request filter factory: the `gate_factory` filter over `request[key]`.

    For adapters that hand the factory a mapping per request (NeMo's rail context, Guardrails AI's call
    metadata). A request without sources is an error, never an ungrounded pass.
    """
    make = gate_factory(redact=redact, **gate_options)

    def build(request: Mapping[str, Any]) -> StreamFilter:
        if not isinstance(request, Mapping):
            raise TypeError(f"the request must be a mapping with {key!r}, got {type(request).__name__}")
        if key not in request:
            raise ValueError(f"the request has no {key!r}: pass the passages (a list; empty if retrieval found none)")
        return make(source_texts(request[key]))

    return build


# Ready per-request factories, for settings that can only name a callable by dotted path (NeMo's config.yml
# `custom_data.sluicegate.filter`, a Guardrails AI RAIL spec): the gate over `request["sources"]`.
request_gate: RequestFactory = gate_from("sources")
request_gate_redacted: RequestFactory = gate_from("sources", redact=True)


def refusal_text(filt: StreamFilter) -> str:
    """What the reader sees when there is nothing to answer from (retrieval found no sources): the filter's
    own `refusal_text` (a `SentenceGate`, also inside a `Pipeline`), else the fixed English refusal."""
    text = getattr(filt, "refusal_text", None)
    if isinstance(text, str):
        return text
    for stage in getattr(filt, "filters", ()):
        text = getattr(stage, "refusal_text", None)
        if isinstance(text, str):
            return text
    from ._notices import notice

    return notice("en", "refusal")


publish(__name__, globals())  # one documented place per public name (docs/api.md)
