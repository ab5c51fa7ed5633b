"""Issue 22 under TLS: usage of a stopped stream covers the tokens delivered but not read over HTTPS.

Every real provider endpoint is HTTPS, where the kernel's socket buffer holds ciphertext that a peek cannot
parse. The scripted provider here serves HTTPS (uvicorn, a self-signed certificate made at test time with the
`openssl` command, nothing downloaded), the official OpenAI and Anthropic SDKs trust it through their httpx
client, and the provider's burst leaves most tokens unread (in the SSL object, the kernel buffer, or asyncio's
read queue) when the gate stops or the reader leaves.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sluicegate import Outcome, adrive_text
from sluicegate import _responses as responses_module
from tests.core.unread_checks import BURST, run_async, run_sync, settle
from tests.services.llm_provider import serve_provider
from tests.services.provider_clients import MESSAGES
from tests.services.stop_checks import FIRST, SCRIPTS, make_filter

pytestmark = pytest.mark.usefixtures("no_gc")


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 (its own CA), made now by the openssl command."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        + ["-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
        + ["-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return str(cert), str(key)


@pytest.fixture(scope="module")
def tls_provider(tls_files: tuple[str, str]) -> Iterator[tuple[Any, str, str]]:
    with serve_provider(tls=tls_files) as (provider, url):
        assert url.startswith("https://")
        yield provider, url, tls_files[0]


@pytest.fixture
def bursting(tls_provider: tuple[Any, str, str]) -> Iterator[tuple[Any, str, str]]:
    provider = tls_provider[0]
    provider.burst = BURST
    try:
        yield tls_provider
    finally:
        provider.burst = 0


def _ctx(ca: str) -> Any:
    import ssl

    return ssl.create_default_context(cafile=ca)


def _sync_opener(client: str) -> Callable[[str, str], Any]:
    import anthropic
    import httpx
    import openai

    if client == "openai":
        return lambda url, ca: openai.OpenAI(
            base_url=url + "/v1", api_key="test", max_retries=0, http_client=httpx.Client(verify=_ctx(ca))
        ).chat.completions.create(model="m", messages=MESSAGES, stream=True)
    return lambda url, ca: anthropic.Anthropic(
        base_url=url, api_key="test", max_retries=0, http_client=httpx.Client(verify=_ctx(ca))
    ).messages.create(model="m", max_tokens=1024, messages=MESSAGES, stream=True)


async def _async_open(client: str, url: str, ca: str) -> Any:
    import anthropic
    import httpx
    import openai

    if client == "openai":
        oclient = openai.AsyncOpenAI(
            base_url=url + "/v1", api_key="test", max_retries=0, http_client=httpx.AsyncClient(verify=_ctx(ca))
        )
        return await oclient.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    aclient = anthropic.AsyncAnthropic(
        base_url=url, api_key="test", max_retries=0, http_client=httpx.AsyncClient(verify=_ctx(ca))
    )
    return await aclient.messages.create(model="m", max_tokens=1024, messages=MESSAGES, stream=True)


@pytest.mark.parametrize("mode", ["stop", "leave"])
@pytest.mark.parametrize("client", ["anthropic", "openai"])
def test_sync_usage_covers_unread_tokens_over_tls(bursting: Any, client: str, mode: str) -> None:
    provider, url, ca = bursting
    billed, generated = run_sync(provider, lambda: _sync_opener(client)(url, ca), mode)
    assert generated >= BURST
    assert billed >= generated, f"usage {billed} below the {generated} tokens generated before the close"


@pytest.mark.parametrize("mode", ["stop", "leave"])
@pytest.mark.parametrize("client", ["anthropic", "openai"])
async def test_async_usage_covers_unread_tokens_over_tls(bursting: Any, client: str, mode: str) -> None:
    provider, url, ca = bursting
    billed, generated = await run_async(provider, lambda: _async_open(client, url, ca), mode)
    assert generated >= BURST
    assert billed >= generated, f"usage {billed} below {generated}"


def test_a_failing_tls_count_never_prevents_the_close(bursting: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(network: Any) -> bytes:
        raise RuntimeError("the TLS count broke")

    monkeypatch.setattr(responses_module, "_tls_unread", broken)
    provider, url, ca = bursting
    billed, generated = run_sync(provider, lambda: _sync_opener("openai")(url, ca), "stop")
    assert billed < generated  # the count really did not run, and the close still happened (checked in run_sync)


async def test_a_failing_async_tls_count_never_prevents_the_close(
    bursting: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(network: Any) -> bytes:
        raise RuntimeError("the TLS count broke")

    monkeypatch.setattr(responses_module, "_tls_unread", broken)
    provider, url, ca = bursting
    provider.script(SCRIPTS["leave"])
    number = len(provider.generations) + 1
    outcome = Outcome()
    chunks = adrive_text(await _async_open("anthropic", url, ca), make_filter(), outcome=outcome)
    await asyncio.sleep(0.05)
    assert await chunks.__anext__() == FIRST
    await chunks.aclose()
    gen = provider.generations[number - 1]
    deadline = time.monotonic() + 10
    while not gen.done.is_set() and time.monotonic() < deadline:
        await asyncio.sleep(0.002)
    settle(gen)
    assert outcome.usage is not None and outcome.usage.output_tokens < len(gen.sent)


def test_an_unknown_tls_stream_counts_nothing_more() -> None:
    import ssl

    class Network:  # a TLS network stream of a layout this code does not know (no SSLSocket, no anyio parts)
        _stream = object()

        def get_extra_info(self, info: str) -> Any:
            return (
                ssl.create_default_context().wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO())
                if info == "ssl_object"
                else None
            )

    class Response:
        stream = None
        extensions = {"network_stream": Network()}

    assert responses_module.unread_bytes(Response()) == b""


def test_the_ca_is_really_checked(tls_provider: Any) -> None:
    import httpx

    _, url, _ = tls_provider
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/v1/models", verify=True)
    assert Path(tls_provider[2]).read_text().startswith("-----BEGIN CERTIFICATE-----")


def _handshake(client: Any, server: Any, pipes: tuple[Any, Any, Any, Any]) -> None:
    import ssl

    c_in, c_out, s_in, s_out = pipes
    for _ in range(20):
        done = 0
        for side in (client, server):
            try:
                side.do_handshake()
                done += 1
            except ssl.SSLWantReadError:
                pass
            s_in.write(c_out.read())
            c_in.write(s_out.read())
        if done == 2:
            return
    raise AssertionError("no handshake")


def test_tls_inside_tls_reads_the_inner_records(tls_files: tuple[str, str]) -> None:
    """httpcore's TLSinTLSStream (HTTPS through a proxy) keeps the inner TLS in `ssl_obj`/`_incoming`: the
    records waiting on the socket are fed into it and decrypted, a partial record left for never."""
    import socket
    import ssl

    cert, key = tls_files
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert, key)
    pipes = (ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO())
    client = _ctx(cert).wrap_bio(pipes[0], pipes[1], server_hostname="127.0.0.1")
    server = server_ctx.wrap_bio(pipes[2], pipes[3], server_side=True)
    _handshake(client, server, pipes)
    events = [f'data: {{"choices":[{{"delta":{{"content":"t{i} "}}}}]}}\n\n'.encode() for i in range(5)]
    for event in events:
        server.write(event)
    records = pipes[3].read()
    server.write(b'data: {"choices":[{"delta":{"content":"partial"}}]}\n\n')
    partial = pipes[3].read()[:-5]  # a record not fully arrived: nothing to decrypt yet
    near, far = socket.socketpair()
    try:
        far.sendall(records + partial)

        class Network:  # the attributes of httpcore's TLSinTLSStream, over a plain outer socket
            ssl_obj = client
            _incoming = pipes[0]

            def get_extra_info(self, info: str) -> Any:
                return {"ssl_object": client, "socket": near}.get(info)

        class Response:
            stream = None
            extensions = {"network_stream": Network()}

        near.settimeout(5.0)
        unread = responses_module.unread_bytes(Response())
        assert unread == b"".join(events)
        assert responses_module.unread_text(unread) == [f"t{i} " for i in range(5)]
        assert near.gettimeout() == 5.0  # restored
    finally:
        near.close()
        far.close()
