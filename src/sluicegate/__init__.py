"""sluicegate: guards for streamed LLM answers.

A filter holds streamed text until it can be judged, releases only what passed, and stops for good on a
violation. For any chunking of the same input, the released text, the stop flag and the events are identical
to filtering the whole string at once.
"""

from .decode import InvalidUtf8Error, Utf8Decoder
from .driver import Outcome, adrive, drive
from .redact import Redactor, redact
from .segment import SentenceSplitter  # noqa: F401
from .stream import Done, Event, Guard, Pipeline, Step, StreamFilter
from .usage import Usage, UsageMeter

__all__ = [
    "Done",
    "Event",
    "Guard",
    "InvalidUtf8Error",
    "Outcome",
    "Pipeline",
    "Redactor",
    "SentenceSplitter",
    "Step",
    "StreamFilter",
    "Usage",
    "UsageMeter",
    "Utf8Decoder",
    "adrive",
    "drive",
    "redact",
]
__version__ = "0.1.0"
