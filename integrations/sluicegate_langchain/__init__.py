"""sluicegate for LangChain: gate a streamed answer inside an LCEL chain, and count what a stop still cost.

- `SourceGate(bound=prompt | model)`: the primary shape. It owns the model call, reads `sources` from the chain
  input, numbers them [S1]..[Sn] once for the prompt and the gate, and closes the model stream on a stop.
- `GateStep(sources=...)`: placed right after a chat model (`prompt | model | GateStep(...)`).
- `UsageCallbackHandler`: output tokens of every model run, including runs a stop cut short.
"""

try:
    import langchain_core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        'sluicegate_langchain needs LangChain; install the extra: pip install "sluicegate[langchain]"'
    ) from exc

from .callbacks import UsageCallbackHandler
from .runnables import DEFAULT_UNVERIFIED_TAG, GateStep, SourceGate

__all__ = ["DEFAULT_UNVERIFIED_TAG", "GateStep", "SourceGate", "UsageCallbackHandler"]
