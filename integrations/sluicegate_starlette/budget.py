"""Rate limits and the spend cap in front of the SSE endpoint, both decided before the upstream opens.

Why here: the endpoint is where a request first exists, so this is where a client is counted (the ASGI peer, or
the right-most untrusted X-Forwarded-For hop behind configured proxies) and where the money is held, before
`answer()` can open a provider. The order of one request:
1. rate limits (before the body is read): over a limit, 429 with `Retry-After` and a fixed JSON text; with
   the limiter's store down the request passes (fail open) and the response says so in `x-ratelimit-degraded`;
2. the body, compression check and the app's own `before_upstream`, as `gated_sse_endpoint` does them;
3. the spend cap: `cap.reserve(prompt_of(chat, request))`; refused (cap reached, or its store down: fail
   closed), a 200 SSE answer with one `guard` frame carrying the fixed localized notice and `done`
   `{"reason": "refused"}`: a notice, not an error, and no provider is opened;
4. the stream; `on_done` settles the reservation on every end (complete, stopped, client gone, provider
   failed before or after the first byte) with the usage that was generated.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sluicegate import GuardedCall, Outcome, Refuse, areserve_call, asettle_call
from sluicegate.budget import DEGRADED_HEADER, CallBudget, RateDecision, RateLimits, Reservation, refused
from sluicegate.host import languages
from sluicegate.sse import SSE_HEADERS, encode_event

from .route import AnswerFn, BeforeUpstream, OnDone, _maybe_await, gated_sse_endpoint

log = logging.getLogger("sluicegate.starlette")

PromptOf = Callable[[Any, Request], Any]
RESERVATION_STATE = "sluicegate_reservation"  # request.state attribute holding the request's Reservation
CALL_STATE = "sluicegate_call"  # request.state attribute holding the request's GuardedCall
PUBLIC_REFUSAL_REASON = "monthly_limit"  # the guard frame's reason for any cap refusal (full, or store down)
RATE_LIMITED = "Too many requests from this address. Please wait a moment before asking again."


def notice_language(chat: Any) -> str | None:
    """The chat's language if the notices have it ("pt-BR" -> "pt"), else None (the cap's default)."""
    code = str(getattr(chat, "language", "") or "").split("-")[0].lower()
    return code if code in languages() else None


def rate_limited_response(decision: RateDecision) -> JSONResponse:
    body = {"error": {"code": "rate_limited", "message": RATE_LIMITED, "limit": decision.limit}}
    return JSONResponse(body, status_code=429, headers={"Retry-After": str(decision.retry_after or 60)})


def refused_response(reservation: Reservation) -> Response:
    """The cap said no: the notice as a `guard` frame, then `done` refused with zero usage (nothing ran)."""
    outcome = refused(reservation)
    usage = asdict(outcome.usage) if outcome.usage is not None else None
    # One public reason for both refusals: whether the cap is full or its store is down stays server-side
    # (outcome.violations, the cap's counters and log), as every violation does.
    frames = encode_event("guard", {"reasons": [PUBLIC_REFUSAL_REASON], "notice": reservation.notice})
    frames += encode_event("done", {"reason": outcome.reason, "usage": usage})
    return Response(frames, media_type="text/event-stream", headers=dict(SSE_HEADERS))


def capped_sse_endpoint(
    answer: AnswerFn,
    *,
    cap: CallBudget | None = None,
    prompt_of: PromptOf | None = None,
    limits: RateLimits | None = None,
    before_upstream: BeforeUpstream | None = None,
    on_done: OnDone | None = None,
    **options: Any,
) -> Callable[[Request], Awaitable[Response]]:
    """`gated_sse_endpoint` with `limits=` (RateLimits) and `cap=` (CallBudget) checked before the upstream.

    `prompt_of(chat, request)` must return everything the model will be sent for this chat (system prompt,
    retrieved sources, history, question), or an upper bound of it (e.g. your top-k times the chunk size of
    filler): the reservation is a bound only if the prompt is.
    """
    if cap is not None and not isinstance(cap, CallBudget):
        raise TypeError(f"cap must be a sluicegate.budget.CallBudget, got {type(cap).__name__}")
    if cap is not None and prompt_of is None:
        raise ValueError("cap= needs prompt_of=(chat, request) -> the prompt the model will be sent (or a bound)")
    if limits is not None and not isinstance(limits, RateLimits):
        raise TypeError(f"limits must be a sluicegate.budget.RateLimits, got {type(limits).__name__}")

    async def before(request: Request, chat: Any) -> Response | None:
        if before_upstream is not None:
            early = await _maybe_await(before_upstream(request, chat))
            if early is not None:
                return early
        if cap is None or prompt_of is None:
            return None
        # The guarded call owns the order (reserve, then the model; settle on every end); the store's blocking
        # I/O runs in a worker thread, so a slow store delays this request only, never the event loop.
        call = GuardedCall(budget=cap, language=notice_language(chat))
        setattr(request.state, CALL_STATE, call)
        try:
            action = await areserve_call(call, prompt_of(chat, request))
        except BaseException:  # cancelled (a shutdown) while reserving: no stream will settle the hold
            with anyio.CancelScope(shield=True):
                await asettle_call(call, reason="cancelled")
            raise
        setattr(request.state, RESERVATION_STATE, call.reservation)
        return refused_response(action.reservation) if isinstance(action, Refuse) and action.reservation else None

    async def done(request: Request, outcome: Outcome) -> None:
        try:
            if on_done is not None:
                await _maybe_await(on_done(request, outcome))
        finally:
            call: GuardedCall | None = getattr(request.state, CALL_STATE, None)
            if call is not None:
                with anyio.CancelScope(shield=True):  # a server shutting down must not cut the settle off
                    await asettle_call(call, reason=outcome.reason, usage=outcome.usage, error=outcome.error)

    inner = gated_sse_endpoint(answer, before_upstream=before, on_done=done, **options)

    async def endpoint(request: Request) -> Response:
        decision = await run_in_threadpool(limits.hit_asgi, request.scope) if limits is not None else None
        if decision is not None and not decision.allowed:
            return rate_limited_response(decision)
        response = await inner(request)
        if decision is not None and decision.degraded:
            response.headers[DEGRADED_HEADER] = "fail-open"
        return response

    return endpoint


def capped_sse_route(path: str, answer: AnswerFn, *, name: str | None = None, **options: Any) -> Route:
    """A Starlette POST `Route` for `capped_sse_endpoint` (options as there and for `gated_sse_endpoint`)."""
    return Route(path, capped_sse_endpoint(answer, **options), methods=["POST"], name=name)
