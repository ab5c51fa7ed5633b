"""One numbering of the sources for the prompt *and* the gate, so the two can never disagree.

Adapters take passages in retrieval order, show them to the model as `[S1] ...`, `[S2] ...`, and build the
gate from the same list in the same order: `[Si]` in the answer then means `sources[i-1]` for both.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from .stream import StreamFilter

FilterFactory = Callable[[Sequence[str]], StreamFilter]


def marker(index: int) -> str:
    """The marker of the 1-based source `index`."""
    return f"[S{index}]"


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
        import sluicegate

        gate_cls = getattr(sluicegate, "SentenceGate", None)
        if gate_cls is None:
            raise ImportError("sluicegate.SentenceGate is not available in this build")
        gate = gate_cls(list(texts), **gate_options)
        if not redact:
            return gate
        redactor_cls = getattr(sluicegate, "Redactor", None)
        if redactor_cls is None:
            raise ImportError("sluicegate.Redactor is not available in this build")
        return sluicegate.Pipeline(gate, redactor_cls())

    return make
