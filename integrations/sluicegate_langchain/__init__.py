"""sluicegate for LangChain: gate a streamed answer inside an LCEL chain, and count what a stop still cost.

- `SourceGate(bound=prompt | model)`: the primary shape. It owns the model call, reads `sources` from the chain
  input, numbers them [S1]..[Sn] once for the prompt and the gate, and closes the model stream on a stop.
- `GateStep(sources=...)`: placed right after a chat model (`prompt | model | GateStep(...)`).
- `assign(answer=SourceGate(...))`: `RunnablePassthrough.assign` whose async stream closes the gate (and the
  model) before `aclose()` returns; LangChain's leaves that to the event loop's finaliser.
- `UsageCallbackHandler`: output tokens of every model run, including runs a stop cut short.
- `GateMiddleware(sources=...)`: for LangChain 1.x agents, `create_agent(model, tools, middleware=[...])`
  (needs `langchain`, the `[langchain-agents]` extra; imported on first use). `stream_agent(agent, input)`:
  `agent.stream` whose close also stops the model (LangGraph's sync close does not).
"""

from typing import Any

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
    "GateMiddleware",
    "GateStep",
    "IdempotentToolExecutor",
    "SourceGate",
    "ToolCallGate",
    "UsageCallbackHandler",
    "assign",
    "gated_prompt",
    "stream_agent",
]


def __getattr__(name: str) -> Any:
    """`GateMiddleware` and `stream_agent` need `langchain` (not only langchain-core): imported when first
    asked for."""
    if name in ("GateMiddleware", "stream_agent"):
        require_extra("langchain.agents", adapter=name, framework="LangChain 1.x", extra="langchain-agents")
        from . import agents

        return getattr(agents, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
