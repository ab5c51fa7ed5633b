"""sluicegate for LlamaIndex: a response synthesizer that gates the streamed answer and closes the LLM stream.

- `GatedSynthesizer(inner)`: wraps a single-call synthesizer; labels nodes [S1]..[Sn] in prompt order, gates
  `response_gen` (sync and async), keeps `source_nodes`, exposes the outcome as `response.guard`.
- `UsageEventHandler`: output tokens of every LLM call from instrumentation events, stopped streams included.
"""

from sluicegate.host import require_extra

require_extra("llama_index.core", adapter="sluicegate_llamaindex", framework="LlamaIndex", extra="llamaindex")

# GatedSynthesizer is the capped one: the same wrapper plus cap= (sluicegate.budget); cap=None is unchanged.
from .capped import GatedSynthesizer  # noqa: E402
from .preflight import PreflightQueryEngine as PreflightQueryEngine  # noqa: E402  (explicit re-export)
from .preflight import ScoredLeg as ScoredLeg  # noqa: E402
from .synthesizer import GATED_QA_TEMPLATE, MultiCallModeError, gated_qa_template  # noqa: E402
from .tools import IdempotentToolExecutor, astream_tool_calls, stream_tool_calls  # noqa: E402
from .usage import LLMUsage, UsageEventHandler  # noqa: E402

__all__ = [
    "GATED_QA_TEMPLATE",
    "GatedSynthesizer",
    "IdempotentToolExecutor",
    "LLMUsage",
    "MultiCallModeError",
    "UsageEventHandler",
    "astream_tool_calls",
    "gated_qa_template",
    "stream_tool_calls",
]
