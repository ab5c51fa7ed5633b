"""The guarded call: one model call's whole order (seed 002), sans-I/O, with thin sync and asyncio drivers.

`GuardedCall` owns the order (refusal rules -> retrieval -> evidence threshold -> spend reservation -> the model
-> gate and redactor -> tool-call lifecycle -> settle on every end) and tells its caller what to do next with
the actions of `_actions`. `run_call`/`arun_call` do the I/O for a caller that has plain callables; adapters
whose framework owns the stream use the step helpers. See docs/guarded_call.md.
"""

from .._public import publish
from ._actions import (
    Action,
    CallModel,
    Finished,
    Refuse,
    Reserve,
    Retrieve,
    Settle,
    Show,
    Stop,
    ToolCallValidated,
)
from ._call import NO_USAGE, CallState, CallStateError, GuardedCall, UnreservedCall
from ._drive import (
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
from ._tools import NoTextFilter, astream_tool_calls, stream_tool_calls, tool_call

__all__ = [
    "NO_USAGE",
    "Action",
    "CallModel",
    "CallState",
    "CallStateError",
    "Finished",
    "GuardedCall",
    "NoTextFilter",
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
    "astream_tool_calls",
    "reserve_call",
    "run_call",
    "screen_call",
    "settle_call",
    "settling",
    "stream_tool_calls",
    "tool_call",
]

publish(__name__, globals())  # one documented place per public name (docs/api.md)
