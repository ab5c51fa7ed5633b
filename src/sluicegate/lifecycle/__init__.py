"""Streamed tool calls and structured output: nothing is stored, indexed or executed before it is validated.

`Generation` is the state machine (received -> provisional -> assembled -> validated -> confirmed -> executed,
or cancelled / incomplete / failed / expired); the readers turn documented provider streams into its input;
`SQLiteOperationStore` / `RedisOperationStore` hold confirmed versions and operations keyed by a server-computed
idempotency key.

Needs the `[lifecycle]` extra (pydantic). `import sluicegate` does not import this package.
"""

from .._deprecation import moved_names
from .._public import publish
from ._executor import ToolExecutor, aexecute_calls, execute_calls
from ._generation import NOT_APPLIED, Draft, Generation, Reconcile, ToolCall, validate_stream, validate_tool_calls
from ._ops import Kind
from ._policy import NotAuthorized, Policy, idempotency_key
from ._readers import AnthropicReader, ChunkReader, OpenAIChatReader, OpenAIResponsesReader, Reader
from ._state import IllegalTransition, OutcomeUnknown, State
from ._stores import OperationRecord, OperationStore, RedisOperationStore, SQLiteOperationStore
from ._stores.base import ConfirmationConflict
from ._telemetry import Telemetry
from ._validation import JsonSchemaTool, Rejection, Rule, ToolDefinition, schema_tools

__all__ = [
    "NOT_APPLIED",
    "AnthropicReader",
    "ChunkReader",
    "ConfirmationConflict",
    "Draft",
    "Generation",
    "IllegalTransition",
    "JsonSchemaTool",
    "Kind",
    "NotAuthorized",
    "OpenAIChatReader",
    "OpenAIResponsesReader",
    "OperationRecord",
    "OperationStore",
    "OutcomeUnknown",
    "Policy",
    "Reader",
    "Reconcile",
    "Rejection",
    "RedisOperationStore",
    "Rule",
    "SQLiteOperationStore",
    "State",
    "Telemetry",
    "ToolCall",
    "ToolExecutor",
    "ToolDefinition",
    "aexecute_calls",
    "execute_calls",
    "idempotency_key",
    "schema_tools",
    "validate_stream",
    "validate_tool_calls",
]

# Renamed so no class name is defined twice in the core (budget has its own SQLiteStore / RedisStore).
__getattr__ = moved_names(
    __name__,
    {
        "SQLiteStore": "sluicegate.lifecycle:SQLiteOperationStore",
        "RedisStore": "sluicegate.lifecycle:RedisOperationStore",
    },
)

publish(__name__, globals())  # one documented place per public name (docs/api.md)
