"""sluicegate for Guardrails AI (0.11.x): validators whose units are what a sluicegate filter released.

Streaming goes through `stream(guard, llm_api, ...)` / `astream(...)`: the filter runs on the model stream
(the core driver, which closes the model stream at a stop), each released piece reaches the validator as one
chunk, and an end-of-stream marker makes the validator report the stop. Read the verdict from the returned
stream's `violation` / `outcome`, never from `validation_passed` (guardrails does not keep it per chunk).
"""

from __future__ import annotations

from sluicegate.plugin import require_extra

require_extra("guardrails", adapter="sluicegate_guardrails", framework="Guardrails AI", extra="guardrails")

from .capped import CappedStream, RefusedStream, UnreservedCall  # noqa: E402
from .capped import astream as capped_astream  # noqa: E402
from .capped import stream as capped_stream  # noqa: E402
from .state import EOS, StreamState  # noqa: E402
from .stream import Checked, GuardedStream, astream, stream, validate  # noqa: E402
from .validators import Redact, SluicegateValidator, StreamGate  # noqa: E402

stream = capped_stream  # noqa: F811  # plus cap= (sluicegate.budget); cap=None: unchanged
astream = capped_astream  # noqa: F811

__all__ = [
    "EOS",
    "CappedStream",
    "Checked",
    "GuardedStream",
    "Redact",
    "RefusedStream",
    "SluicegateValidator",
    "StreamGate",
    "StreamState",
    "UnreservedCall",
    "astream",
    "stream",
    "validate",
]
