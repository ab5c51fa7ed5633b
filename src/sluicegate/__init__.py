"""sluicegate: guards for streamed LLM answers.

A filter holds streamed text until it can be judged, releases only what passed, and stops for good on a
violation. For any chunking of the same input, the released text, the stop flag and the events are identical
to filtering the whole string at once.
"""

from ._decode import InvalidUtf8Error, Utf8Decoder
from ._driver import Outcome, adrive, adrive_text, cancellation_swallowed, drive, drive_text, notice_chunk
from ._errors import SluicegateError
from ._gate import SentenceGate, SentenceSplitter, Violation
from ._gate.person import SUPPORTED_LANGUAGES
from ._public import publish
from ._stream import Done, Event, Guard, Pipeline, Step, StreamFilter
from ._usage import RunMeter, Usage, UsageMeter
from .call import (
    CallModel,
    CallState,
    CallStateError,
    Finished,
    GuardedCall,
    Refuse,
    Reserve,
    Retrieve,
    Settle,
    Show,
    Stop,
    ToolCallValidated,
    UnreservedCall,
    areserve_call,
    arun_call,
    ascreen_call,
    asettle_call,
    asettling,
    reserve_call,
    run_call,
    screen_call,
    settle_call,
    settling,
)
from .redaction import Redactor, redact

__all__ = [
    "SUPPORTED_LANGUAGES",
    "CallModel",
    "CallState",
    "CallStateError",
    "Finished",
    "GuardedCall",
    "Refuse",
    "Reserve",
    "Retrieve",
    "Settle",
    "Show",
    "Stop",
    "ToolCallValidated",
    "UnreservedCall",
    "areserve_call",
    "arun_call",
    "ascreen_call",
    "asettle_call",
    "asettling",
    "reserve_call",
    "run_call",
    "screen_call",
    "settle_call",
    "settling",
    "Done",
    "Event",
    "Guard",
    "InvalidUtf8Error",
    "Outcome",
    "RunMeter",
    "Pipeline",
    "Redactor",
    "SentenceGate",
    "SentenceSplitter",
    "SluicegateError",
    "Step",
    "StreamFilter",
    "Usage",
    "UsageMeter",
    "Utf8Decoder",
    "Violation",
    "adrive",
    "adrive_text",
    "cancellation_swallowed",
    "drive",
    "drive_text",
    "notice_chunk",
    "redact",
]
__version__ = "0.1.0"

publish(__name__, globals())  # one documented place per public name (docs/api.md)
