"""The HTTP responses a guarded stream's upstream opened, so a stop closes them where the framework does not.

Why: some frameworks iterate the SDK stream and never close it. LlamaIndex's OpenAI LLM
(`llama-index-llms-openai`) does `for response in client.chat.completions.create(..., stream=True)` in a
generator; LangChain's Anthropic chat model does `for event in stream` without a `with`. Closing their
generator (which the drivers do at once) then leaves the SDK stream, and its HTTP response, open until a
garbage-collector pass, and the provider generates and bills all the while (measured: up to the whole answer).

How: every official client of the providers we support (OpenAI, Anthropic, litellm, LangChain's and LlamaIndex's
models built on them, NeMo's own OpenAI-compatible client) sends through `httpx.Client.send` /
`httpx.AsyncClient.send`. Those two methods are wrapped once, when a guarded stream first pulls and httpx is
loaded. The wrapper calls the original and, only while a driver is pulling its upstream (a `ContextVar` set
around each pull, so threads, tasks and concurrent streams stay apart) and only for a streamed response
(`stream=True`), records the response with that stream. The driver closes what it recorded when it closes the
upstream. Outside a pull the wrapper is one `ContextVar.get()` and a call-through. `SLUICEGATE_TRACK_HTTP=0`
in the environment turns it off (then a framework that never closes its SDK stream keeps generating until GC).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from typing import Any

_ACTIVE: ContextVar[OpenResponses | None] = ContextVar("sluicegate_open_responses", default=None)
_installed = False


class OpenResponses:
    """Streamed HTTP responses opened while one upstream was being pulled; `close()`/`aclose()` close them."""

    def __init__(self) -> None:
        self._responses: list[Any] = []

    def add(self, response: Any) -> None:
        self._responses = [r for r in self._responses if not getattr(r, "is_closed", False)]
        self._responses.append(response)

    def tracked(self) -> list[Any]:
        """The responses recorded so far (open or not)."""
        return list(self._responses)

    def __len__(self) -> int:
        return sum(1 for r in self._responses if not getattr(r, "is_closed", False))

    @contextmanager
    def pulling(self) -> Iterator[None]:
        """Record the streamed responses opened in this block (around one pull of the upstream)."""
        if not _installed:
            _install()
        token = _ACTIVE.set(self)
        try:
            yield
        finally:
            _ACTIVE.reset(token)

    def close(self) -> None:
        """Close the sync responses (an async one cannot be closed from sync code: it is left to its stream)."""
        responses, self._responses = self._responses, []
        for response in responses:
            if not getattr(response, "is_closed", True) and callable(getattr(response, "close", None)):
                response.close()

    async def aclose(self) -> None:
        responses, self._responses = self._responses, []
        for response in responses:
            if getattr(response, "is_closed", True):
                continue
            aclose = getattr(response, "aclose", None)
            if callable(aclose) and _is_async_response(response):
                await aclose()
                from ._closing import close_transport

                close_transport(response)  # litellm's aiohttp transport only released it
            elif callable(getattr(response, "close", None)):
                response.close()


def _is_async_response(response: Any) -> bool:
    httpx = sys.modules.get("httpx")
    stream = getattr(response, "stream", None)
    return httpx is not None and isinstance(stream, httpx.AsyncByteStream)


def _install() -> None:
    """Wrap `httpx.Client.send` and `httpx.AsyncClient.send` once (if httpx is loaded and tracking is on)."""
    global _installed
    httpx = sys.modules.get("httpx")
    if httpx is None:
        return  # no SDK loaded yet: nothing to track; tried again at the next pull
    _installed = True
    if os.environ.get("SLUICEGATE_TRACK_HTTP", "1").strip().lower() in ("0", "false", "no", "off"):
        return
    sync_send = httpx.Client.send
    async_send = httpx.AsyncClient.send
    if getattr(sync_send, "_sluicegate", False):
        return

    def send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        response = sync_send(self, request, *args, **kwargs)
        active = _ACTIVE.get()
        if active is not None and kwargs.get("stream"):
            active.add(response)
        return response

    async def asend(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        response = await async_send(self, request, *args, **kwargs)
        active = _ACTIVE.get()
        if active is not None and kwargs.get("stream"):
            active.add(response)
        return response

    for wrapper, original in ((send, sync_send), (asend, async_send)):
        wrapper.__doc__ = original.__doc__
        setattr(wrapper, "__wrapped__", original)  # noqa: B010 - a function attribute mypy does not know
        setattr(wrapper, "_sluicegate", True)  # noqa: B010
    httpx.Client.send = send
    httpx.AsyncClient.send = asend


# -- what was delivered but not read, counted just before a close (issue 22: usage >= what was generated) ------

UNREAD_BOUND = 1 << 20  # bytes peeked per response at most: an estimate, never a read that could block


def unread_bytes(response: Any) -> bytes:
    """The bytes of `response` already on this machine but not read: h11's receive buffer, then the kernel's
    socket buffer (`MSG_PEEK | MSG_DONTWAIT` after a zero-timeout `poll`, so nothing blocks and nothing more is
    read from the provider). Over TLS the socket holds ciphertext: what is already decrypted or already buffered
    is decrypted and *consumed* (`_tls_unread`), which is fine since the connection is closed right after."""
    import select
    import socket

    buffered = _h11_buffered(getattr(response, "stream", None))
    extensions = getattr(response, "extensions", None) or {}
    network = extensions.get("network_stream")
    if network is None:
        return buffered
    if network.get_extra_info("ssl_object") is not None:
        return buffered + _tls_unread(network)
    sock = network.get_extra_info("socket")
    if not isinstance(sock, socket.socket) or sock.fileno() < 0:
        return buffered
    if hasattr(select, "poll"):  # poll, not select: select refuses a descriptor past 1023
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        if not poller.poll(0):
            return buffered
    elif not select.select([sock], [], [], 0)[0]:
        return buffered
    try:
        peeked = sock.recv(UNREAD_BOUND, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except (BlockingIOError, InterruptedError):
        peeked = b""
    return buffered + peeked


def _tls_unread(network: Any) -> bytes:
    """The plaintext of a TLS connection already on this machine, read without waiting for the network.

    Sync (httpcore's `SyncStream` over an `ssl.SSLSocket`): what the SSL object decrypted and holds
    (`pending()`), then the records in the kernel buffer, read with the socket non-blocking until
    `SSLWantReadError`. Async (httpcore's `AnyIOStream` over anyio's `TLSStream` over its asyncio socket
    stream): the ciphertext asyncio already read into the protocol's `read_queue`, then what waits in the kernel
    buffer (anyio pauses reading between receives; read from the non-blocking descriptor) is fed into the TLS
    stream's read BIO and decrypted until `SSLWantReadError`; nothing is awaited. Both consume: the connection is about
    to be closed. Any attribute missing (another backend, a newer private layout) counts nothing more."""
    import socket
    import ssl

    sock = network.get_extra_info("socket")
    inner, incoming = getattr(network, "ssl_obj", None), getattr(network, "_incoming", None)
    if isinstance(inner, ssl.SSLObject) and isinstance(incoming, ssl.MemoryBIO):
        # httpcore's TLSinTLSStream (HTTPS through an HTTPS proxy): the socket yields the inner ciphertext
        if isinstance(sock, ssl.SSLSocket):
            incoming.write(_sslsocket_unread(sock))
        elif isinstance(sock, socket.socket):
            incoming.write(_nonblocking(sock, sock.recv))
        return _drain(inner.read)
    if isinstance(sock, ssl.SSLSocket):
        return _sslsocket_unread(sock)
    tls = getattr(network, "_stream", None)
    ssl_object = getattr(tls, "_ssl_object", None)
    read_bio = getattr(tls, "_read_bio", None)
    if not isinstance(ssl_object, ssl.SSLObject) or not isinstance(read_bio, ssl.MemoryBIO):
        return b""
    transport_stream = getattr(tls, "transport_stream", None)
    queue = getattr(getattr(transport_stream, "_protocol", None), "read_queue", None)
    fed = 0
    while queue and fed < UNREAD_BOUND:  # a deque of the bytes asyncio read from the socket
        chunk = queue.popleft()
        if isinstance(chunk, bytes | bytearray):
            read_bio.write(chunk)
            fed += len(chunk)
    # anyio pauses the transport's reading between receives, so the rest waits in the kernel buffer: read it
    # from the descriptor (non-blocking, as asyncio set it; nobody else reads it while this code runs)
    abc = sys.modules.get("anyio.abc")
    on_socket = abc is not None and isinstance(transport_stream, abc.SocketStream)  # not TLS over TLS
    fileno = getattr(sock, "fileno", None) if on_socket else None
    fd = fileno() if callable(fileno) else -1
    while fd >= 0 and fed < UNREAD_BOUND:
        try:
            chunk = os.read(fd, min(65536, UNREAD_BOUND - fed))
        except OSError:  # BlockingIOError: nothing more there; anything else: count what was read
            break
        if not chunk:
            break
        read_bio.write(chunk)
        fed += len(chunk)
    return _drain(ssl_object.read)


def _sslsocket_unread(sock: Any) -> bytes:
    """Decrypted bytes pending in the SSL socket, then the complete records in the kernel buffer."""
    return _nonblocking(sock, sock.recv)


def _nonblocking(sock: Any, read: Any) -> bytes:
    """`_drain(read)` with `sock` non-blocking (a read with nothing, or no complete record, there raises at
    once), its timeout restored after."""
    timeout = sock.gettimeout()
    try:
        sock.settimeout(0.0)
        return _drain(read)
    finally:
        with suppress(OSError):
            sock.settimeout(timeout)


def _drain(read: Any) -> bytes:
    """`read(n)` until the TLS layer wants more from the network (or the bound, or the end of the stream)."""
    import ssl

    out = bytearray()
    while len(out) < UNREAD_BOUND:
        try:
            data = read(min(65536, UNREAD_BOUND - len(out)))
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError, InterruptedError):
            break
        except (ssl.SSLError, OSError):  # a close_notify, a reset: what was read so far still counts
            break
        if not data:
            break
        out += data
    return bytes(out)


def _h11_buffered(stream: Any) -> bytes:
    """What h11 received and has not handed on: httpx's stream wraps httpcore's pool stream, which wraps the
    connection's stream, whose connection holds the h11 state (private names, so any miss is just no bytes)."""
    for _ in range(8):
        state = getattr(stream, "_h11_state", None)
        if state is not None:
            data = getattr(getattr(state, "_receive_buffer", None), "_data", None)
            return bytes(data) if isinstance(data, bytes | bytearray) else b""
        stream = next(
            (getattr(stream, n) for n in ("_httpcore_stream", "_stream", "_connection") if hasattr(stream, n)),
            None,
        )
        if stream is None:
            break
    return b""


def unread_text(data: bytes) -> list[str]:
    """The text deltas in unread SSE bytes (Chat `choices[].delta.content`, Anthropic `text_delta`, Responses
    `output_text.delta`); any other data event that is not JSON (a cut-off line, chunk framing) counts as one
    one-byte piece, so the estimate errs high. Bytes from mid-event (the first partial line) parse as nothing."""
    import json

    from .sse import SSEParser

    pieces: list[str] = []
    events = SSEParser(max_event_bytes=len(data) + 1).feed(data)
    for event in events:
        if not event.data or event.data == "[DONE]":
            continue
        try:
            payload = json.loads(event.data)
        except ValueError:
            pieces.append("?")
            continue
        pieces.extend(_delta_texts(payload))
    return pieces


def _delta_texts(payload: Any) -> list[str]:
    if not isinstance(payload, dict):
        return []
    kind = payload.get("type")
    delta = payload.get("delta")
    if kind == "response.output_text.delta" and isinstance(delta, str):
        return [delta]
    if kind == "content_block_delta" and isinstance(delta, dict) and isinstance(delta.get("text"), str):
        return [delta["text"]]
    out: list[str] = []
    for choice in payload.get("choices") or ():
        content = ((choice or {}).get("delta") or {}).get("content") if isinstance(choice, dict) else None
        if isinstance(content, str) and content:
            out.append(content)
    return out
