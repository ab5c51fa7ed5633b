"""The LiteLLM custom guardrail: the two hooks, thin, over `AnswerSession`.

`use_native_lifecycle_hooks` makes the proxy call these hooks themselves instead of its unified
`apply_guardrail` path (which samples every 5th chunk by default, or holds the whole answer with
`streaming_buffer_until_moderated`). Here every chunk goes through the gate; text appears as the gate releases
it, so the first byte waits only for the first supported sentence.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any, ClassVar

from litellm.integrations.custom_guardrail import CustomGuardrail
from litellm.types.guardrails import GuardrailEventHooks
from litellm.types.utils import ChatCompletionMessageToolCall, ModelResponse, ModelResponseStream

from .chunks import finish_chunk, notice_chunk, text_chunk, tool_call_dicts, tool_calls_chunk
from .options import options_of
from .session import OPTIONS_NOTICE, AnswerSession
from .upstream import close_upstream


class SluicegateGuardrail(CustomGuardrail):
    """Register in config.yaml:

    ```yaml
    guardrails:
      - guardrail_name: sluicegate
        litellm_params:
          guardrail: sluicegate_litellm.SluicegateGuardrail
          mode: post_call
          default_on: true
    ```

    `redact` (a `litellm_params` key; default true) runs the redactor after the gate, and alone when a request
    carries no sources.
    """

    use_native_lifecycle_hooks: ClassVar[bool] = True

    def __init__(self, *, redact: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("supported_event_hooks", [GuardrailEventHooks.post_call, GuardrailEventHooks.during_call])
        super().__init__(**kwargs)
        hooks = self.event_hook if isinstance(self.event_hook, list) else [self.event_hook]
        if not any(str(getattr(h, "value", h)) == GuardrailEventHooks.post_call.value for h in hooks):
            # the proxy runs a guardrail's stream and success hooks only for post_call: any other mode alone
            # (during_call runs beside the model call, on the request) would leave every answer unguarded
            raise ValueError(
                f"SluicegateGuardrail guards the answer: its mode must include post_call, got {self.event_hook!r}"
            )
        self.redact = redact

    def session(self, request_data: Mapping[str, Any]) -> AnswerSession | None:
        """The guarded call for this request; None when its options are malformed (the answer is held back)."""
        try:
            options = options_of(request_data)
        except ValueError:
            return None
        return AnswerSession(options, request_data.get("tools"), redact=self.redact)

    # -- streams --------------------------------------------------------------------------------------------

    async def async_post_call_streaming_iterator_hook(
        self, user_api_key_dict: Any, response: Any, request_data: dict
    ) -> AsyncGenerator[ModelResponseStream, None]:
        if not self.should_run_guardrail(data=request_data, event_type=GuardrailEventHooks.post_call):
            async for item in response:
                yield item
            return
        session = self.session(request_data)
        iterator: AsyncIterator[Any] = response.__aiter__()
        error: BaseException | None = None
        try:
            if session is None:
                first = await anext(iterator, None)
                await close_upstream(response)
                yield notice_chunk(first, OPTIONS_NOTICE)
                return
            template: Any = None
            async for chunk in iterator:
                if not isinstance(chunk, ModelResponseStream):
                    continue  # never forward what we cannot read (fail closed)
                template = template or chunk
                if not chunk.choices:  # usage-only chunk: no text, passes as it is
                    yield chunk
                    continue
                out = session.feed(chunk.model_dump())  # type: ignore[no-untyped-call]
                for text in out.texts:
                    yield text_chunk(template, text)
                if out.notice is not None:
                    await close_upstream(response)
                    notice = session.notice_text(out.notice, released_before=session.released_text)
                    yield notice_chunk(template, notice)
                    return
                if out.tool_calls:
                    yield tool_calls_chunk(template, out.tool_calls)
                if out.finish_reason is not None:
                    yield finish_chunk(template, out.finish_reason)
        except BaseException as exc:  # the client left, the provider failed, a bug: the provider stream closes
            error = exc
            await close_upstream(response)
            raise
        finally:
            if session is not None:
                session.end(error)

    # -- whole answers --------------------------------------------------------------------------------------

    async def async_post_call_success_hook(self, data: dict, user_api_key_dict: Any, response: Any) -> Any:
        if not isinstance(response, ModelResponse) or not response.choices:
            return response
        if not self.should_run_guardrail(data=data, event_type=GuardrailEventHooks.post_call):
            return response
        choice = response.choices[0]
        message = getattr(choice, "message", None)
        if message is None:
            return response
        session = self.session(data)
        if session is None:
            return _shown(response, OPTIONS_NOTICE, [], "content_filter")
        try:
            out = session.feed(_whole_payload(response))
        finally:
            session.end()
        text = "".join(out.texts)
        if out.notice is not None:
            text += session.notice_text(out.notice, released_before=bool(text))
            return _shown(response, text, [], "content_filter")
        if out.finish_reason is None:  # no terminal event: nothing is proven complete
            return _shown(response, text, [], getattr(choice, "finish_reason", None) or "length")
        return _shown(response, text, tool_call_dicts(out.tool_calls), out.finish_reason)


def _whole_payload(response: ModelResponse) -> dict[str, Any]:
    """A whole answer as the one `chat.completion.chunk` a stream of it would add up to."""
    choice: Any = response.choices[0]
    message = choice.message
    calls = [
        {
            "index": i,
            "id": call.id,
            "type": "function",
            "function": {"name": call.function.name, "arguments": call.function.arguments or ""},
        }
        for i, call in enumerate(message.tool_calls or [])
    ]
    delta: dict[str, Any] = {"role": "assistant", "content": message.content or None}
    if calls:
        delta["tool_calls"] = calls
    return {
        "id": response.id,
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": choice.finish_reason or None}],
    }


def _shown(response: ModelResponse, text: str, calls: list[dict[str, Any]], reason: str) -> ModelResponse:
    choice: Any = response.choices[0]
    choice.message.content = text or (None if calls else "")
    choice.message.tool_calls = [ChatCompletionMessageToolCall(**c) for c in calls] or None
    choice.finish_reason = reason
    return response
