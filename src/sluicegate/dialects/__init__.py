"""Sans-I/O codecs of the three wire formats a client speaks: OpenAI Chat Completions, OpenAI Responses,
Anthropic Messages.

`parse_request` reads a client body (stream flag, model, tools' schemas, last user message, the `"sluicegate"`
options, removed from the body that goes upstream). `Relay` runs upstream SSE bytes through a `GuardedCall`
(`build_call`) and writes, with the dialect's `Encoder`, the frames the client's official SDK parses: released
text, whole validated tool calls, server-side tool blocks as the upstream sent them, the stop shape, the
normal end with usage, in-stream errors; `body()` is the non-streaming response. Nothing here does I/O:
`integrations/sluicegate_proxy` is the HTTP shell. See docs/proxy.md.

Needs the `[lifecycle]` dependencies (jsonschema) for tool-call validation; `import sluicegate` does not
import this package.
"""

from .._public import publish
from ._anthropic import AnthropicEncoder
from ._base import Answer, Billed, Encoder, End
from ._chat import ChatEncoder
from ._passthrough import quote_redactor
from ._reasoning import UNSIGNED_THINKING
from ._relay import Relay, build_call, encoder_for, error_body, text_filter
from ._request import DIALECTS, OPTIONS_KEY, ClientRequest, RequestError, parse_request
from ._responses import ResponsesEncoder, output_text

__all__ = [
    "DIALECTS",
    "OPTIONS_KEY",
    "UNSIGNED_THINKING",
    "AnthropicEncoder",
    "Answer",
    "Billed",
    "ChatEncoder",
    "ClientRequest",
    "Encoder",
    "End",
    "Relay",
    "RequestError",
    "ResponsesEncoder",
    "build_call",
    "encoder_for",
    "error_body",
    "output_text",
    "parse_request",
    "quote_redactor",
    "text_filter",
]

publish(__name__, globals())  # one documented place per public name (docs/api.md)
