"""sluicegate for the LiteLLM proxy: `SluicegateGuardrail`, a custom guardrail registered in the proxy's
`config.yaml` (`guardrails:` ... `guardrail: sluicegate_litellm.SluicegateGuardrail`, `mode: post_call`).

Streams go through `async_post_call_streaming_iterator_hook`: the gate and the redactor release text as they
release it, re-emitted as LiteLLM's own `ModelResponseStream` chunks; tool calls are held to the provider's
terminal event and validated against the request's `tools`; a stop closes the upstream and ends the stream with
`finish_reason: "content_filter"` and the fixed notice. Whole answers go through the post-call success hook and
come out as the stream would have shown them. See docs/litellm.md.
"""

from .guardrail import SluicegateGuardrail
from .options import OPTIONS_KEY, RequestOptions, options_of

__all__ = ["OPTIONS_KEY", "RequestOptions", "SluicegateGuardrail", "options_of"]
