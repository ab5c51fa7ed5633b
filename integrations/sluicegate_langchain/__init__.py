"""sluicegate for LangChain: gate a streamed answer inside an LCEL chain, and count what a stop still cost.

- `SourceGate(bound=prompt | model)`: the primary shape. It owns the model call, reads `sources` from the chain
  input, numbers them [S1]..[Sn] once for the prompt and the gate, and closes the model stream on a stop.
- `GateStep(sources=...)`: placed right after a chat model (`prompt | model | GateStep(...)`).
- `assign(answer=SourceGate(...))`: `RunnablePassthrough.assign` whose async stream closes the gate (and the
  model) before `aclose()` returns; LangChain's leaves that to the event loop's finaliser.
- `UsageCallbackHandler`: output tokens of every model run, including runs a stop cut short.
"""

from sluicegate.host import require_extra

require_extra("langchain_core", adapter="sluicegate_langchain", framework="LangChain", extra="langchain")

from .assign import assign  # noqa: E402
from .callbacks import UsageCallbackHandler  # noqa: E402

# SourceGate is the capped one: the same runnable plus cap= (sluicegate.budget); cap=None is unchanged.
from .capped import SourceGate  # noqa: E402
from .preflight import PreflightGate as PreflightGate  # noqa: E402  (explicit re-export)
from .prompt import gated_prompt  # noqa: E402
from .runnables import DEFAULT_PROMPT, DEFAULT_UNVERIFIED_TAG, GateStep  # noqa: E402
from .tools import IdempotentToolExecutor, ToolCallGate  # noqa: E402  (pydantic comes with langchain-core)

__all__ = [
    "DEFAULT_PROMPT",
    "DEFAULT_UNVERIFIED_TAG",
    "GateStep",
    "IdempotentToolExecutor",
    "SourceGate",
    "ToolCallGate",
    "UsageCallbackHandler",
    "assign",
    "gated_prompt",
]
