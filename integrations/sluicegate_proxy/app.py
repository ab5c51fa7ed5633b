"""The proxy app: Starlette routes and an `httpx.AsyncClient` upstream, around `sluicegate.dialects`.

Thin on purpose: what a request means, what is shown, how each end looks, all come from the core's `Relay`
(a sans-I/O bridge over the `GuardedCall`); this file reads bodies, checks keys, opens and closes the
upstream, and writes frames. The upstream is always asked to stream, so a stop (or a reader gone) closes it
at once, for non-streaming requests too; it is closed before the stop's last frames are written.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import suppress
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from sluicegate.budget import DEGRADED_HEADER, CallBudget, RateDecision, RateLimits, SpendCap
from sluicegate.call import (
    NO_USAGE,
    CallModel,
    GuardedCall,
    Refuse,
    Reserve,
    areserve_call,
    ascreen_call,
    asettle_call,
)
from sluicegate.dialects import (
    OPTIONS_KEY,
    ClientRequest,
    Relay,
    RequestError,
    build_call,
    encoder_for,
    error_body,
    parse_request,
    quote_redactor,
)
from sluicegate.redaction import Redactor
from sluicegate.sse import SSE_HEADERS

from .config import ProxyConfig
from .metrics import Metrics

log = logging.getLogger("sluicegate.proxy")

ROUTES = {"/v1/chat/completions": "chat", "/v1/responses": "responses", "/v1/messages": "anthropic"}
_HOP = frozenset(
    {
        "host",
        "content-length",
        "connection",
        "keep-alive",
        "transfer-encoding",
        "te",
        "upgrade",
        "trailer",
        "proxy-authorization",
        "proxy-connection",
        "accept-encoding",
    }
)
_KEYS = frozenset({"authorization", "x-api-key"})
# Each guarded stream holds one upstream connection while it lasts: no cap by default (httpx's default, 100,
# would hold the 101st concurrent request until another stream ended; `[upstream] max_connections` sets one),
# and enough idle ones kept to reuse under load.
UPSTREAM_LIMITS = httpx.Limits(max_connections=None, max_keepalive_connections=256)
_WARM_FRAME = b'data: {"choices":[{"index":0,"delta":%s,"finish_reason":null}]}\n\n'
_OUTPUT_CAP = {"chat": "max_completion_tokens", "responses": "max_output_tokens", "anthropic": "max_tokens"}


class TooLarge(Exception):
    pass


class DisconnectWatchingStream(StreamingResponse):
    """A `StreamingResponse` that always watches for the client leaving (Starlette stops watching on ASGI
    spec 2.4 servers and notices only at the next write, which a filter holding a sentence may not make):
    the stream task is cancelled the moment `http.disconnect` arrives, and its `finally` closes the upstream."""

    async def stream_response(self, send: Any) -> None:
        try:
            await super().stream_response(send)
        finally:
            # Cancelled while awaiting the client's send, the generator sits at a `yield`: only a collector
            # pass would run its `finally` (which closes the upstream). Close it now.
            aclose = getattr(self.body_iterator, "aclose", None)
            if aclose is not None:
                await aclose()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        stream = asyncio.ensure_future(self.stream_response(send))
        watcher = asyncio.ensure_future(self.listen_for_disconnect(receive))
        try:
            await asyncio.wait({stream, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watcher.cancel()
            if not stream.done():
                stream.cancel()
            with suppress(asyncio.CancelledError, OSError, ClientDisconnect):
                await stream
            with suppress(asyncio.CancelledError):
                await watcher


class Proxy:
    """The proxy's state: config, upstream client, spend cap, counters."""

    def __init__(self, config: ProxyConfig, *, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.config = config
        self.metrics = Metrics()
        self.client = httpx.AsyncClient(
            base_url=config.upstream_url,
            timeout=httpx.Timeout(config.timeout_seconds, connect=10.0),
            limits=_upstream_limits(config),
            transport=transport,
        )
        self.cap = _cap(config)
        self.limits = _limits(config)
        self._rules: Any = None
        self._gate: Any = None
        # The redactor's detectors compiled once, here: each request's stream gets a fresh Redactor over them.
        self.redactor = Redactor.factory(**config.redactor)
        self._warm()

    def _warm(self) -> None:
        """One answer of each pipeline through the core, sans I/O, at start-up (no metrics, no upstream): the
        first request would otherwise import the tool-call readers and the evidence layer and load the gate's
        data, about 250 ms before its upstream call (docs/performance.md, issue 26)."""
        text = "The proxy is ready [S1]. "
        upstream = (
            _WARM_FRAME % json.dumps({"role": "assistant", "content": ""}).encode()
            + _WARM_FRAME % json.dumps({"content": text}).encode()
            + b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
        )
        for options in ({}, {"sources": [text]}):
            body: dict[str, Any] = {"model": "warm-up", "stream": True, "messages": [{"role": "user", "content": "?"}]}
            creq = parse_request("chat", json.dumps({**body, OPTIONS_KEY: options} if options else body))
            self._preflight(creq)  # the refusal rules and evidence gate, when configured: built once, now
            call = build_call(creq, redact=self.config.redact, redactor=self.redactor)
            _retriever(creq)
            relay = Relay(call, encoder_for(creq), "chat")
            call.start()
            relay.feed(upstream)
            relay.close()

    # -- helpers -------------------------------------------------------------------------------------------

    def _error(
        self, dialect: str, status: int, code: str, message: str, kind: str = "invalid_request_error"
    ) -> Response:
        self.metrics.count(self.metrics.statuses, str(status))
        log.info("answered %d %s dialect=%s", status, code, dialect)
        return JSONResponse(error_body(dialect, code, message, kind), status_code=status)

    def _client_key(self, request: Request) -> str | None:
        auth = request.headers.get("authorization", "")
        if auth[:7].lower() == "bearer ":
            return auth[7:].strip()
        return request.headers.get("x-api-key")

    def authorized(self, request: Request) -> bool:
        """Passthrough (no upstream key): the upstream judges the client's key. Else a client key is required."""
        if not self.config.upstream_api_key:
            return True
        given = self._client_key(request) or ""
        return any(hmac.compare_digest(given.encode(), k.encode()) for k in self.config.client_keys)

    def upstream_headers(self, request: Request, dialect: str | None) -> dict[str, str]:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP}
        key = self.config.upstream_api_key
        if key:
            anthropic_style = dialect == "anthropic" or "x-api-key" in request.headers
            headers = {k: v for k, v in headers.items() if k.lower() not in _KEYS}
            headers["x-api-key" if anthropic_style else "authorization"] = key if anthropic_style else f"Bearer {key}"
        return headers

    def _rate_key(self, request: Request) -> str:
        """The client key (hashed: keys are not written to the store) when `by = "key"` and one is sent, else
        the address (the peer, or the trusted proxies' X-Forwarded-For)."""
        assert self.limits is not None and self.config.rate_limits is not None
        given = self._client_key(request) if self.config.rate_limits.by == "key" else None
        if given:
            return "key:" + hashlib.sha256(given.encode()).hexdigest()[:32]
        return self.limits.client_key(request.scope)

    async def rate_check(self, request: Request, dialect: str) -> tuple[RateDecision | None, Response | None]:
        """One hit against the limits (in a worker thread: a slow store delays this request only)."""
        if self.limits is None:
            return None, None
        decision = await run_in_threadpool(self.limits.hit, self._rate_key(request))
        if decision.degraded:
            self.metrics.count(self.metrics.refusals, "rate_limit_fail_open")
            log.warning("rate limiter store down: request let through (fail open) dialect=%s", dialect)
        if decision.allowed:
            return decision, None
        self.metrics.count(self.metrics.refusals, "rate_limited")
        response = self._error(
            dialect, 429, "rate_limited", f"rate limit reached ({decision.limit})", "rate_limit_error"
        )
        response.headers["retry-after"] = str(decision.retry_after)
        return decision, response

    async def read_body(self, request: Request) -> bytes:
        limit = self.config.max_body_bytes
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise TooLarge
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise TooLarge
        return bytes(body)

    # -- the guarded endpoints -----------------------------------------------------------------------------

    async def guarded(self, request: Request) -> Response:
        dialect = ROUTES[request.url.path]
        if not self.authorized(request):
            return self._error(
                dialect, 401, "invalid_api_key", "a valid client key is required", "authentication_error"
            )
        decision, limited = await self.rate_check(request, dialect)
        if limited is not None:
            return limited
        response = await self._guarded(request, dialect)
        if decision is not None and decision.degraded:
            response.headers[DEGRADED_HEADER] = "fail-open"
        return response

    async def _guarded(self, request: Request, dialect: str) -> Response:
        m = self.metrics
        try:
            raw = await self.read_body(request)
        except TooLarge:
            return self._error(
                dialect,
                413,
                "request_too_large",
                f"the body is over {self.config.max_body_bytes} bytes",
                "request_too_large",
            )
        try:
            creq = parse_request(dialect, raw)
            budget = self._budget(creq)
            call = build_call(
                creq,
                budget=budget,
                preflight=self._preflight(creq),
                redact=self.config.redact,
                redactor=self.redactor,
            )
        except RequestError as exc:
            return self._error(dialect, exc.status, exc.code, exc.message)
        except (TypeError, ValueError) as exc:  # a tool schema the strict validator cannot close, a price missing
            return self._error(dialect, 400, "invalid_request", type(exc).__name__ + ": " + str(exc)[:200])
        m.count(m.requests, (dialect, str(creq.stream).lower()))
        log.info(
            "request dialect=%s stream=%s body_bytes=%d tools=%d sources=%s",
            dialect,
            creq.stream,
            len(raw),
            len(creq.tools),
            None if creq.sources is None else len(creq.sources),
        )
        quotes = quote_redactor(redact=self.config.redact, redactor=self.redactor)  # memoized per request
        relay = Relay(call, encoder_for(creq), dialect, reasoning=self._reasoning(), quotes=quotes)
        action = await ascreen_call(call, _retriever(creq))
        if isinstance(action, Reserve):
            action = await areserve_call(call, json.dumps(creq.upstream, ensure_ascii=False))
        if isinstance(action, Refuse):
            m.count(m.refusals, action.reason)
            m.count(m.ends, (dialect, "refused"))
            log.info("refused before the model dialect=%s reason=%s stage=%s", dialect, action.reason, action.stage)
            frames = relay.refuse(action.text)
            if creq.stream:
                return Response(frames, headers=dict(SSE_HEADERS))
            return JSONResponse(relay.body()[1])
        assert isinstance(action, CallModel)
        body = dict(creq.upstream)
        if action.max_output_tokens is not None:
            field = _OUTPUT_CAP[dialect]
            given = body.get(field) or body.get("max_tokens")
            body[field] = min(given, action.max_output_tokens) if isinstance(given, int) else action.max_output_tokens
            if dialect == "chat":
                body.pop("max_tokens", None)
        try:
            upstream = await self.client.send(
                self.client.build_request(
                    "POST",
                    request.url.path,
                    content=json.dumps(body).encode(),
                    headers={
                        **self.upstream_headers(request, dialect),
                        "content-type": "application/json",
                        "accept": "text/event-stream",
                    },
                    params=request.query_params,
                ),
                stream=True,
            )
        except httpx.HTTPError as exc:
            await asettle_call(call, usage=NO_USAGE, error=exc)
            return self._error(
                dialect,
                502,
                "upstream_unreachable",
                f"the upstream could not be reached ({type(exc).__name__})",
                "api_error",
            )
        if upstream.status_code >= 400 or "text/event-stream" not in upstream.headers.get("content-type", ""):
            try:
                content = await upstream.aread()
            finally:
                await upstream.aclose()
            await asettle_call(call, usage=NO_USAGE if upstream.status_code >= 400 else None, reason="truncated")
            m.count(m.statuses, str(upstream.status_code))
            log.info(
                "upstream answered %d (passed through) dialect=%s bytes=%d", upstream.status_code, dialect, len(content)
            )
            if upstream.status_code < 400:  # a 2xx that is not a stream: not what was asked for, not shown
                return self._error(dialect, 502, "upstream_not_streaming", "the upstream did not stream", "api_error")
            return Response(
                content,
                status_code=upstream.status_code,
                media_type=upstream.headers.get("content-type", "application/json"),
            )
        answer = self._frames(relay, upstream)
        if creq.stream:
            return DisconnectWatchingStream(answer, headers=dict(SSE_HEADERS))
        async for _ in answer:  # the same path, frames discarded: the body is what the stream would have shown
            pass
        status, payload = relay.body()
        return JSONResponse(payload, status_code=status)

    def _reasoning(self) -> Callable[[], Any] | None:
        """The reasoning path's redactor maker when `[reasoning] show = true` (always redacted), else None."""
        return self.redactor if self.config.show_reasoning else None

    async def _frames(self, relay: Relay, upstream: httpx.Response) -> AsyncIterator[bytes]:
        m = self.metrics
        call = relay.call
        error: str | None = None
        why = "end"
        first = True
        try:
            try:
                async for chunk in upstream.aiter_raw():
                    t = time.perf_counter()
                    out = relay.feed(chunk)
                    if out:
                        elapsed = time.perf_counter() - t
                        m.observe(m.added, elapsed)
                        if first:
                            first = False
                            m.observe(m.first_frame, elapsed)
                        if relay.stopped:
                            why = "stop"
                            await upstream.aclose()  # closed before the stop's frames go out
                        yield out
                    if relay.ended:
                        break
            except httpx.HTTPError as exc:
                error = "upstream_disconnected"
                log.info("upstream failed mid-stream (%s) after %d bytes", type(exc).__name__, relay.bytes_in)
            except BaseException:
                why = "client_disconnect"
                raise
            finally:
                if why != "end" or not upstream.is_closed:
                    m.count(m.upstream_closes, why)
                await upstream.aclose()
            tail = relay.close(error=error)
            if tail:
                yield tail
        finally:
            reason = relay.reason or "cancelled"
            m.count(m.ends, (relay.dialect, reason))
            reasoning = relay.reasoning
            if relay.stopped:
                stopped_in_reasoning = reasoning is not None and reasoning.notice is not None
                m.count(m.stops, "reasoning_unsettled_secret" if stopped_in_reasoning else _stop_code(call))
            for entity, n in _redactions(call).items():
                m.count(m.redactions, entity, n)
            for entity, n in (reasoning.redactions if reasoning is not None else {}).items():
                m.count(m.redactions, entity, n)
            end = (
                "stopped"
                if reason == "stopped"
                else "complete"
                if reason in ("complete", "tool_calls", "length", "pause_turn")
                else None
            )
            finished = await asettle_call(call, reason=end or ("cancelled" if reason == "cancelled" else "truncated"))
            usage = finished.outcome.usage
            log.info(
                "answer ended dialect=%s reason=%s upstream_bytes=%d events=%d shown_chars=%d server_blocks=%d "
                "usage=%s/%s",
                relay.dialect,
                reason,
                relay.bytes_in,
                relay.events,
                len(relay.encoder.answer.text),
                relay.passed,
                usage.output_tokens if usage else None,
                usage.source if usage else None,
            )

    # -- everything else -----------------------------------------------------------------------------------

    async def forward(self, request: Request) -> Response:
        """Any other path (`GET /v1/models` ...): forwarded unchanged, the response streamed back as it comes."""
        if not self.authorized(request):
            return self._error("chat", 401, "invalid_api_key", "a valid client key is required", "authentication_error")
        try:
            raw = await self.read_body(request)
        except TooLarge:
            return self._error("chat", 413, "request_too_large", "the body is too large", "request_too_large")
        try:
            upstream = await self.client.send(
                self.client.build_request(
                    request.method,
                    request.url.path,
                    content=raw,
                    headers=self.upstream_headers(request, None),
                    params=request.query_params,
                ),
                stream=True,
            )
        except httpx.HTTPError as exc:
            return self._error(
                "chat",
                502,
                "upstream_unreachable",
                f"the upstream could not be reached ({type(exc).__name__})",
                "api_error",
            )
        headers = {k: v for k, v in upstream.headers.items() if k.lower() not in _HOP | {"content-encoding"}}

        async def body() -> AsyncIterator[bytes]:
            try:
                async for chunk in upstream.aiter_bytes():
                    yield chunk
            finally:
                await upstream.aclose()

        return DisconnectWatchingStream(body(), status_code=upstream.status_code, headers=headers)

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def metrics_page(self, request: Request) -> Response:
        return PlainTextResponse(self.metrics.render(), media_type="text/plain; version=0.0.4")

    # -- budget and preflight ------------------------------------------------------------------------------

    def _budget(self, creq: ClientRequest) -> CallBudget | None:
        if self.cap is None:
            return None
        assert self.config.budget is not None
        if creq.model not in self.config.budget.prices:
            raise RequestError("model_not_priced", f"the spend cap has no price for model {creq.model!r}")
        return CallBudget(
            self.cap, model=creq.model, max_output_tokens=self.config.budget.max_output_tokens, language=creq.language
        )

    def _preflight(self, creq: ClientRequest) -> Any:
        if not self.config.preflight or creq.sources is None:
            return None
        from sluicegate.evidence import EvidenceGate, InMemoryRetriever, Preflight, RefusalRules

        if self._rules is None:  # built once (the patterns compile once), on the first screened request
            self._rules = RefusalRules(**self.config.refusal)
            self._gate = EvidenceGate(**self.config.evidence)
        return Preflight(InMemoryRetriever(list(creq.sources)), rules=self._rules, gate=self._gate)

    async def aclose(self) -> None:
        await self.client.aclose()


def _upstream_limits(config: ProxyConfig) -> httpx.Limits:
    cap = config.upstream_max_connections
    if cap is None:
        return UPSTREAM_LIMITS
    return httpx.Limits(max_connections=cap, max_keepalive_connections=min(cap, 256))


def _retriever(creq: ClientRequest) -> Callable[[str], Awaitable[Any] | Any]:
    """The passages the client sent, retrieved against the question (the evidence threshold reads them)."""
    from sluicegate.evidence import InMemoryRetriever

    retriever = InMemoryRetriever(list(creq.sources or ()))
    return lambda query: retriever.retrieve(query)


def _stop_code(call: GuardedCall) -> str:
    violations = call.violations
    if violations:
        first = violations[0]
        return str(getattr(first, "code", None) or getattr(first, "reason", None) or type(first).__name__)
    gen = call.generation
    return "text_gate_stopped" if gen is not None and gen.rejections else "refusal"


def _redactions(call: GuardedCall) -> dict[str, int]:
    filt = call.filter
    stages = list(getattr(filt, "filters", ())) or [filt]
    for stage in stages:
        counts = getattr(stage, "counts", None)
        if isinstance(counts, dict):
            return {str(k): int(v) for k, v in counts.items() if v}
    return {}


def _cap(config: ProxyConfig) -> SpendCap | None:
    b = config.budget
    if b is None:
        return None
    if b.store.startswith("redis://") or b.store.startswith("rediss://"):
        import redis

        from sluicegate.budget import RedisStore

        store: Any = RedisStore(redis.Redis.from_url(b.store))
    else:
        from sluicegate.budget import SQLiteStore

        path = b.store.removeprefix("sqlite:///") if b.store.startswith("sqlite:///") else b.store
        store = SQLiteStore(path)
    return SpendCap(store, b.monthly_limit, dict(b.prices), scope=b.scope)


def _limits(config: ProxyConfig) -> RateLimits | None:
    r = config.rate_limits
    if r is None:
        return None
    store: Any
    if r.store.startswith(("redis://", "rediss://")):
        import redis

        from sluicegate.budget import RedisStore

        store = RedisStore(redis.Redis.from_url(r.store, socket_connect_timeout=2, socket_timeout=2))
    elif r.store.startswith("sqlite:///"):
        from sluicegate.budget import SQLiteStore

        store = SQLiteStore(r.store.removeprefix("sqlite:///"))
    else:
        from limits.storage import MemoryStorage

        store = MemoryStorage()
    return RateLimits(
        store,
        per_minute=r.per_minute,
        per_hour=r.per_hour,
        per_day=r.per_day,
        trusted_proxies=r.trusted_proxies,
        scope="proxy",
    )


def create_app(config: ProxyConfig, *, transport: httpx.AsyncBaseTransport | None = None) -> Starlette:
    """The ASGI app (`app.state.proxy` is the `Proxy`)."""
    proxy = Proxy(config, transport=transport)
    routes = [Route(path, proxy.guarded, methods=["POST"]) for path in ROUTES]
    routes += [
        Route("/healthz", proxy.healthz, methods=["GET"]),
        Route("/metrics", proxy.metrics_page, methods=["GET"]),
        Route("/{path:path}", proxy.forward, methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await proxy.aclose()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.proxy = proxy
    return app
