"""`gated_sse_route`: a POST endpoint that answers a JSON question with a gated SSE stream.

The order of one request, and the status each step can still give (the status is final at the first byte):
1. the body: 413 over the limit, 415 not JSON, 422 invalid JSON or fields;
2. a compressing middleware around the route: 500, saying which one (frames must not be coalesced);
3. `before_upstream(request, chat)`: the checks before any money is spent (rate limits, spend-cap
   reservation); returning a `Response` answers with it (429, 402, a refusal...) and no provider is opened;
4. `answer(chat, request)` opens the provider stream and picks the filter; it or the provider failing before
   the first piece is 502 with a JSON body (the stream waits up to `first_piece_timeout` seconds for it);
5. then 200 and SSE frames; later failures are `error` events, and `on_done(request, outcome)` runs on every
   end (502 included) with the billed usage.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterable, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sluicegate import Outcome, StreamFilter, UsageMeter
from sluicegate.host import UsageOf
from sluicegate.sse import DEFAULT_PING_INTERVAL, ERROR_MESSAGES, UpstreamFailedEarly, peek_first

from .body import DEFAULT_MAX_BODY_BYTES, BodyError, ChatRequest, parse_body, read_body
from .compression import compressing_middleware
from .response import DEFAULT_SEND_TIMEOUT, GatedSSEResponse

log = logging.getLogger("sluicegate.starlette")


@dataclass
class Answer:
    """What `answer()` returns: the provider stream, the filter for this question, optional usage plumbing."""

    upstream: AsyncIterable[Any]
    filter: StreamFilter
    meter: UsageMeter | None = None
    usage_of: UsageOf | None = None


AnswerFn = Callable[[Any, Request], "Answer | Awaitable[Answer]"]
BeforeUpstream = Callable[[Request, Any], "Response | None | Awaitable[Response | None]"]
OnDone = Callable[[Request, Outcome], "None | Awaitable[None]"]


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _upstream_failed() -> JSONResponse:
    code = "upstream_error"
    return JSONResponse({"error": {"code": code, "message": ERROR_MESSAGES[code]}}, status_code=502)


def gated_sse_endpoint(
    answer: AnswerFn,
    *,
    body_model: type[BaseModel] = ChatRequest,
    before_upstream: BeforeUpstream | None = None,
    on_done: OnDone | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    ping_interval: float = DEFAULT_PING_INTERVAL,
    first_piece_timeout: float | None = None,
    send_timeout: float | None = DEFAULT_SEND_TIMEOUT,
) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint function (`async (request) -> Response`), for `app.add_route(path, it, methods=["POST"])`."""
    wait_first = ping_interval if first_piece_timeout is None else first_piece_timeout

    async def endpoint(request: Request) -> Response:
        try:
            chat = parse_body(await read_body(request, max_body_bytes), body_model, request.headers.get("content-type"))
        except BodyError as exc:
            return JSONResponse(exc.content, status_code=exc.status)
        compressor = compressing_middleware(request.scope.get("app"))
        if compressor is not None:
            message = (
                f"{compressor} would compress this text/event-stream response and coalesce its frames: keep "
                "'text/event-stream' in its exclude_content_types, or remove it from this app"
            )
            log.error(message)
            return JSONResponse({"error": {"code": "compression_middleware", "message": message}}, status_code=500)
        if before_upstream is not None:
            early = await _maybe_await(before_upstream(request, chat))
            if early is not None:
                return early

        async def done(outcome: Outcome) -> None:
            if on_done is not None:
                try:
                    await _maybe_await(on_done(request, outcome))
                except Exception:  # a failing usage hook must not turn a 502 into a 500, nor skip a close
                    log.exception("on_done hook failed")

        meter: UsageMeter | None = None
        try:
            gated: Answer = await _maybe_await(answer(chat, request))
            meter = gated.meter if gated.meter is not None else UsageMeter()
            upstream = await peek_first(gated.upstream, timeout=wait_first)
        except Exception as exc:  # the provider (or opening it) failed before any byte: a real status
            cause = exc.__cause__ if isinstance(exc, UpstreamFailedEarly) else exc
            log.warning("provider failed before its first piece: %s", type(cause).__name__)
            usage = (meter or UsageMeter()).usage
            await done(Outcome(reason="truncated", error=cause, usage=usage))
            return _upstream_failed()
        return GatedSSEResponse(
            upstream,
            gated.filter,
            meter=meter,
            on_done=done,
            usage_of=gated.usage_of,
            ping_interval=ping_interval,
            send_timeout=send_timeout,
        )

    return endpoint


def gated_sse_route(path: str, answer: AnswerFn, *, name: str | None = None, **options: Any) -> Route:
    """A Starlette `Route` (POST) for `path`; options as for `gated_sse_endpoint`. In FastAPI:
    `app.router.routes.append(gated_sse_route(...))`, or `app.add_route(path, gated_sse_endpoint(...), ["POST"])`.
    """
    return Route(path, gated_sse_endpoint(answer, **options), methods=["POST"], name=name)
