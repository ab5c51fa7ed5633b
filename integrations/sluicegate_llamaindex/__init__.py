"""sluicegate for LlamaIndex: a response synthesizer that gates the streamed answer and closes the LLM stream.

- `GatedSynthesizer(inner)`: wraps a single-call synthesizer; labels nodes [S1]..[Sn] in prompt order, gates
  `response_gen` (sync and async), keeps `source_nodes`, exposes the outcome as `response.guard`.
- `UsageEventHandler`: output tokens of every LLM call from instrumentation events, stopped streams included.
"""

from sluicegate.plugin import require_extra

require_extra("llama_index.core", adapter="sluicegate_llamaindex", framework="LlamaIndex", extra="llamaindex")

from .capped import GatedSynthesizer as CappedGatedSynthesizer  # noqa: E402
from .synthesizer import GATED_QA_TEMPLATE, GatedSynthesizer, MultiCallModeError  # noqa: E402
from .usage import LLMUsage, UsageEventHandler  # noqa: E402

GatedSynthesizer = CappedGatedSynthesizer  # noqa: F811  # plus cap= (sluicegate.budget); None: unchanged

__all__ = ["GATED_QA_TEMPLATE", "GatedSynthesizer", "LLMUsage", "MultiCallModeError", "UsageEventHandler"]
