"""What a request tells the guardrail: its sources and language, under `metadata.sluicegate`.

`metadata` because the proxy keeps it for its hooks and never forwards it to the provider (a top-level extra
field would be sent upstream); with the OpenAI SDK: `extra_body={"metadata": {"sluicegate": {"sources": [...],
"language": "en"}}}`. Malformed options are an error the guardrail turns into a fail-closed stop, never a
silent pass without the gate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

OPTIONS_KEY = "sluicegate"


@dataclass(frozen=True)
class RequestOptions:
    """`sources`: the passages the answer must be supported by (None: no gate, the redactor only)."""

    sources: tuple[str, ...] | None = None
    language: str | None = None


def _metadata_options(request_data: Mapping[str, object]) -> object:
    for key in ("metadata", "litellm_metadata"):
        metadata = request_data.get(key)
        if isinstance(metadata, Mapping) and OPTIONS_KEY in metadata:
            return metadata[OPTIONS_KEY]
    return None


def options_of(request_data: Mapping[str, object]) -> RequestOptions:
    """The request's options; `ValueError` when they are present but malformed."""
    raw = _metadata_options(request_data)
    if raw is None:
        return RequestOptions()
    if not isinstance(raw, Mapping):
        raise ValueError(f"metadata.{OPTIONS_KEY} must be an object, got {type(raw).__name__}")
    unknown = set(raw) - {"sources", "language"}
    if unknown:
        raise ValueError(f"metadata.{OPTIONS_KEY} has unknown keys: {sorted(unknown)}")
    sources = raw.get("sources")
    if sources is not None and (not isinstance(sources, (list, tuple)) or not all(isinstance(s, str) for s in sources)):
        raise ValueError(f"metadata.{OPTIONS_KEY}.sources must be a list of strings")
    language = raw.get("language")
    if language is not None and not isinstance(language, str):
        raise ValueError(f"metadata.{OPTIONS_KEY}.language must be a string")
    return RequestOptions(tuple(sources) if sources is not None else None, language)
