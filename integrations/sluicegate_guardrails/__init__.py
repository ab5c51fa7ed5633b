"""sluicegate for Guardrails AI (0.11.x): validators whose units are what a sluicegate filter released.

Streaming goes through `stream(guard, llm_api, ...)` / `astream(...)`: the filter runs on the model stream
(the core driver, which closes the model stream at a stop), each released piece reaches the validator as one
chunk, and an end-of-stream marker makes the validator report the stop. Read the verdict from the returned
stream's `violation` / `outcome`, never from `validation_passed` (guardrails does not keep it per chunk).
"""

from __future__ import annotations

from sluicegate.host import require_extra

require_extra("guardrails", adapter="sluicegate_guardrails", framework="Guardrails AI", extra="guardrails")

# stream/astream are the capped ones: the same functions plus cap= (sluicegate.budget); cap=None is unchanged.
from .capped import CappedStream, RefusedStream, UnreservedCall, astream, stream  # noqa: E402
from .refuse import Refuse as Refuse  # noqa: E402  (explicit re-exports)
from .refuse import Refused as Refused  # noqa: E402
from .state import EOS, StreamState  # noqa: E402
from .stream import Checked, GuardedStream, default_messages, validate  # noqa: E402
from .structured import GuardrailsRejected, guard_rule  # noqa: E402  (pydantic comes with guardrails-ai)
from .validators import Redact, SluicegateValidator, StreamGate  # noqa: E402

__all__ = [
    "EOS",
    "CappedStream",
    "Checked",
    "GuardedStream",
    "GuardrailsRejected",
    "Redact",
    "RefusedStream",
    "SluicegateValidator",
    "StreamGate",
    "StreamState",
    "UnreservedCall",
    "astream",
    "default_messages",
    "guard_rule",
    "stream",
    "validate",
]
