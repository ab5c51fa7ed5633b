"""sluicegate for Guardrails AI (0.11.x): validators whose units are what a sluicegate filter released.

Streaming goes through `stream(guard, llm_api, ...)` / `astream(...)`: the filter runs on the model stream
(the core driver, which closes the model stream at a stop), each released piece reaches the validator as one
chunk, and an end-of-stream marker makes the validator report the stop. Read the verdict from the returned
stream's `violation` / `outcome`, never from `validation_passed` (guardrails does not keep it per chunk).
"""

from __future__ import annotations

try:
    import guardrails  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "sluicegate_guardrails needs Guardrails AI: install the extra with `pip install 'sluicegate[guardrails]'`"
    ) from exc

from .state import EOS, StreamState
from .stream import Checked, GuardedStream, astream, stream, validate
from .validators import Redact, SluicegateValidator, StreamGate

__all__ = [
    "EOS",
    "Checked",
    "GuardedStream", "Redact", "SluicegateValidator", "StreamGate", "StreamState", "astream",
    "stream",
    "validate",
]
