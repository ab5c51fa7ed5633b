"""sluicegate for LlamaIndex: a response synthesizer that gates the streamed answer and closes the LLM stream.

- `GatedSynthesizer(inner)`: wraps a single-call synthesizer; labels nodes [S1]..[Sn] in prompt order, gates
  `response_gen` (sync and async), keeps `source_nodes`, exposes the outcome as `response.guard`.
- `UsageEventHandler`: output tokens of every LLM call from instrumentation events, stopped streams included.
"""

try:
    import llama_index.core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        'sluicegate_llamaindex needs LlamaIndex; install the extra: pip install "sluicegate[llamaindex]"'
    ) from exc

from .synthesizer import GATED_QA_TEMPLATE, GatedSynthesizer, MultiCallModeError
from .usage import LLMUsage, UsageEventHandler

__all__ = ["GATED_QA_TEMPLATE", "GatedSynthesizer", "LLMUsage", "MultiCallModeError", "UsageEventHandler"]
