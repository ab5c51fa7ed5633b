"""sluicegate for LangChain: gate a streamed answer inside an LCEL chain, and count what a stop still cost.

- `SourceGate(bound=prompt | model)`: the primary shape. It owns the model call, reads `sources` from the chain
  input, numbers them [S1]..[Sn] once for the prompt and the gate, and closes the model stream on a stop.
- `GateStep(sources=...)`: placed right after a chat model (`prompt | model | GateStep(...)`).
- `UsageCallbackHandler`: output tokens of every model run, including runs a stop cut short.
"""

from sluicegate.plugin import require_extra

require_extra("langchain_core", adapter="sluicegate_langchain", framework="LangChain", extra="langchain")

from .callbacks import UsageCallbackHandler  # noqa: E402
from .capped import SourceGate as CappedSourceGate  # noqa: E402
from .runnables import DEFAULT_UNVERIFIED_TAG, GateStep, SourceGate  # noqa: E402

SourceGate = CappedSourceGate  # noqa: F811  # the same SourceGate plus cap= (sluicegate.budget); None: unchanged

__all__ = ["DEFAULT_UNVERIFIED_TAG", "GateStep", "SourceGate", "UsageCallbackHandler"]
