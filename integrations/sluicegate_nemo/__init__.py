"""sluicegate for NeMo Guardrails (0.24.x, Colang 1.0): the gate runs upstream of NeMo's rolling buffer.

Two ways to stream:
- the app owns the model stream: `guarded_stream(rails, messages=..., generator=model_stream)`;
- NeMo calls the model: `LLMRails(config, llm=GatedLLM(model))` (or `gate_llm(rails)` when the config's
  `models:` names it), then `guarded_stream(rails, messages=...)`; without either, guarded_stream refuses.
The `sluicegate output` rail turns "gate stopped" into NeMo's standard `guardrails_violation` frame, and
filters the whole answer in non-streaming `generate_async`.
"""

from __future__ import annotations

from sluicegate.host import require_extra

require_extra("nemoguardrails", adapter="sluicegate_nemo", framework="NeMo Guardrails", extra="nemo")

# guarded_stream is the capped one: the same function plus cap= (sluicegate.budget); no cap is unchanged.
from .budget import (  # noqa: E402
    CAP_FLOW_NAME,
    CappedLLM,
    CappedStream,
    UnreservedCall,
    cap_config,
    guarded_stream,  # noqa: E402
    install_cap,
)
from .evidence import EVIDENCE_RAIL_PATH as EVIDENCE_RAIL_PATH  # noqa: E402  (explicit re-exports)
from .evidence import install_evidence as install_evidence  # noqa: E402
from .llm import GatedLLM, GateStopped, UngatedStream, gate_llm  # noqa: E402
from .rail_config import (  # noqa: E402  # noqa: E402
    FLOW_NAME,
    RAIL_PATH,
    SluicegateRail,
    UnsafeStreamingConfig,
    check_streaming,
    install,
    sluicegate_config,
)
from .session import CONTEXT_KEY, SessionMissing, StreamSession, current_session, use_session  # noqa: E402
from .stream import GuardedStream, gated, is_block_frame, parse_error_frame  # noqa: E402
from .tools import TOOL_RAIL_FLOW, ToolCallRail, install_tool_rail, tool_rail_config  # noqa: E402  (pydantic: NeMo's)

__all__ = [
    "TOOL_RAIL_FLOW",
    "ToolCallRail",
    "install_tool_rail",
    "tool_rail_config",
    "CAP_FLOW_NAME",
    "CONTEXT_KEY",
    "FLOW_NAME",
    "RAIL_PATH",
    "CappedLLM",
    "CappedStream",
    "GateStopped",
    "GatedLLM",
    "GuardedStream",
    "SessionMissing",
    "SluicegateRail",
    "StreamSession",
    "UngatedStream",
    "UnreservedCall",
    "UnsafeStreamingConfig",
    "cap_config",
    "check_streaming",
    "current_session",
    "gate_llm",
    "gated",
    "guarded_stream",
    "install",
    "install_cap",
    "is_block_frame",
    "parse_error_frame",
    "sluicegate_config",
    "use_session",
]
