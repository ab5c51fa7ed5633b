"""The demo page in via-proxy mode, in a real headless Chromium (Debian's, via Playwright): the browser talks to
`sluicegate proxy`'s app alone (under a real uvicorn on loopback), which streams from the demo's scripted
OpenAI-compatible upstream (another uvicorn); the page reads the proxy's Chat Completions frames itself.

What is sampled: every state of the page's visible text (a MutationObserver on the body, `innerText`, so the
script's own source is not counted), and every byte the page's fetch of /v1/chat/completions received. What the
upstream recorded (pieces produced, closed, whether the proxy disconnected) is read from its in-process state.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest

from tests.proxy.process import proxy_process
from tests.services.ports import free_port, wait_listening
from tests.services.uvicorn_server import UvicornServer, serve

from .test_browser import ROOT, load_demo

# Every state of the visible page (answer, notice, counters), so "never on screen" covers the whole run.
OBSERVE = """() => {
  window.__screens = [document.body.innerText];
  window.__answers = [];
  const box = document.getElementById("answer");
  new MutationObserver(() => {
    window.__screens.push(document.body.innerText);
    window.__answers.push(box.textContent);
  }).observe(document.body, { childList: true, characterData: true, subtree: true });
}"""

# A copy of every byte the page's fetch of the proxy's /v1/chat/completions received.
TEE = """(() => {
  const fetch0 = window.fetch;
  window.__wire = []; window.__wireDone = false;
  window.fetch = async (...args) => {
    const response = await fetch0(...args);
    if (String(args[0]).endsWith("/v1/chat/completions")) {
      const reader = response.clone().body.getReader();
      (async () => {
        try {
          for (;;) { const { value, done } = await reader.read(); if (done) break; window.__wire.push(...value); }
        } finally { window.__wireDone = true; }
      })();
    }
    return response;
  };
})();"""

GROUNDED = "When does the library open?"
INVENTED = "Are there late fees?"
EMAIL = "How do I contact the desk?"
PLANTED = ["jane.doe", "example.com", "@exa", "mple.com"]  # the address and each side of its split


class ViaProxy:
    """The proxy's URL (the browser's one origin), the upstream's, and what the upstream recorded."""

    def __init__(self, proxy: UvicornServer, upstream: UvicornServer, state: dict[str, Any]) -> None:
        self.url = proxy.url
        self.upstream_url = upstream.url
        self.state = state


@dataclass
class ViaProxyURL:
    url: str
    state: dict[str, Any]


@pytest.fixture(scope="module")
def demo() -> ModuleType:
    return load_demo()


@pytest.fixture
def via_proxy(demo: ModuleType, request: pytest.FixtureRequest) -> Iterator[ViaProxy]:
    delay = getattr(request, "param", 0.03)
    app = demo.create_upstream_app(delay=delay)
    with serve(app) as upstream, serve(demo.create_proxy_app(upstream.url)) as proxy:
        yield ViaProxy(proxy, upstream, app.state.demo)


def open_page(page: Any, demo: ViaProxy | ViaProxyURL, *, sources: bool = True) -> None:
    page.add_init_script(TEE)
    page.goto(f"{demo.url}/")
    page.evaluate(OBSERVE)
    if not sources:
        page.uncheck("#sources")


def ask(page: Any, demo: ViaProxy | ViaProxyURL, question: str, *, sources: bool = True) -> bytes:
    """Open the page through the proxy, click `question`, wait for the end; the bytes the page received."""
    open_page(page, demo, sources=sources)
    page.get_by_role("button", name=question).click()
    page.wait_for_function("document.getElementById('reason').textContent !== 'streaming'", timeout=15_000)
    page.wait_for_function("window.__wireDone", timeout=5_000)
    return bytes(page.evaluate("window.__wire"))


def screens(page: Any) -> list[str]:
    return list(page.evaluate("window.__screens")) + [page.evaluate("document.body.innerText")]


def _until(condition: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_the_page_and_its_client_come_through_the_proxy(via_proxy: ViaProxy, demo: ModuleType) -> None:
    """The browser's one origin is the proxy: the page, the client module and /provider are forwarded."""
    import httpx

    for path in ("/", "/sluicegate-client.js", "/provider"):
        through, direct = httpx.get(via_proxy.url + path), httpx.get(via_proxy.upstream_url + path)
        assert through.status_code == 200 and through.content == direct.content, path
    assert b"/v1/chat/completions" in httpx.get(via_proxy.url + "/").content


def test_grounded_answer_through_the_proxy(browser_page: Any, via_proxy: ViaProxy) -> None:
    wire = ask(browser_page, via_proxy, GROUNDED)
    final = browser_page.text_content("#answer")
    assert final.startswith("The library opens at 9:00 on weekdays. On Saturdays it opens at 10:00.")
    assert final.rstrip().endswith("within one working day.") and "[S1]" not in final
    assert b'"finish_reason":"stop"' in wire and wire.endswith(b"data: [DONE]\n\n")
    answers = {a for a in browser_page.evaluate("window.__answers") if a}
    assert len(answers) >= 4  # it grew in several steps while the model was still writing
    assert all(final.startswith(a) for a in answers)  # only ever appended to, never rewritten
    assert browser_page.text_content("#reason") == "stop"
    assert browser_page.text_content("#notice") == ""
    browser_page.wait_for_function("document.getElementById('upstream').textContent === 'finished'")
    assert via_proxy.state["provider"].exhausted and not via_proxy.state["disconnected"]


@pytest.mark.parametrize("sources", [True, False], ids=["gate+redactor", "redactor alone"])
def test_split_email_is_never_on_screen(
    browser_page: Any, via_proxy: ViaProxy, demo: ModuleType, sources: bool
) -> None:
    script = demo.pieces(demo.QUESTIONS[EMAIL])
    cut = [i for i, piece in enumerate(script) if piece.endswith("@exa")]
    assert cut and script[cut[0] + 1].startswith("mple")  # the model sends the address in two deltas
    wire = ask(browser_page, via_proxy, EMAIL, sources=sources)
    seen = screens(browser_page)
    assert len(seen) > 3 and not [s for s in seen if any(v in s for v in PLANTED)]
    assert not any(v.encode() in wire for v in PLANTED)
    final = browser_page.text_content("#answer")
    assert final.endswith("You can write to <EMAIL_ADDRESS>." if sources else "You can write to <EMAIL_ADDRESS> [S3].")
    assert browser_page.text_content("#reason") == "stop"


def test_gate_stop_shows_the_notice_and_closes_the_model(browser_page: Any, via_proxy: ViaProxy) -> None:
    wire = ask(browser_page, via_proxy, INVENTED)
    seen = screens(browser_page)
    assert seen and not [s for s in seen if "2019" in s or "nothing is owed" in s]
    assert b"2019" not in wire and b"nothing is owed" not in wire
    assert b'"finish_reason":"content_filter"' in wire and wire.endswith(b"data: [DONE]\n\n")
    assert browser_page.text_content("#answer").strip() == "Books can be renewed twice online."
    notice = browser_page.text_content("#notice")
    assert "held back" in notice and notice.encode() in wire.replace(b"\\n", b"")
    assert browser_page.text_content("#reason") == "content_filter"
    provider = via_proxy.state["provider"]
    # the upstream notices the closed socket a moment after the page's end
    _until(lambda: provider.closed and via_proxy.state["disconnected"])
    assert provider.closed and not provider.exhausted and via_proxy.state["disconnected"]  # the proxy closed it
    browser_page.wait_for_function(
        "document.getElementById('upstream').textContent === 'closed early: the proxy disconnected'"
    )


def test_without_sources_the_gate_is_off(browser_page: Any, via_proxy: ViaProxy) -> None:
    """The same question without `"sluicegate": {"sources": ...}`: the redactor alone, which checks no facts."""
    ask(browser_page, via_proxy, INVENTED, sources=False)
    assert "abolished in 2019 [S2]" in browser_page.text_content("#answer")
    assert browser_page.text_content("#reason") == "stop"
    assert via_proxy.state["provider"].exhausted


@pytest.mark.parametrize("via_proxy", [0.1], indirect=True)
def test_stop_aborts_the_fetch_and_the_model_stops(browser_page: Any, via_proxy: ViaProxy) -> None:
    open_page(browser_page, via_proxy)
    browser_page.get_by_role("button", name=GROUNDED).click()
    browser_page.wait_for_function("document.getElementById('answer').textContent.length > 0", timeout=10_000)
    provider = via_proxy.state["provider"]
    browser_page.click("#stop")
    _until(lambda: provider.closed and via_proxy.state["disconnected"])
    # about 45 pieces 0.1 s apart: closed long before the end (no bound in pieces: a wall-clock margin across
    # Playwright, Chromium and two servers; tests/proxy/test_closes_upstream.py checks the bound exactly)
    assert provider.closed and not provider.exhausted and via_proxy.state["disconnected"]
    assert provider.produced < len(provider.pieces)
    browser_page.wait_for_function("document.getElementById('reason').textContent === 'cancelled'")
    browser_page.wait_for_function(
        "document.getElementById('upstream').textContent === 'closed early: the proxy disconnected'"
    )
    shown = int(browser_page.text_content("#produced"))
    time.sleep(0.5)
    assert int(browser_page.text_content("#produced")) == shown == provider.produced  # generation stopped
    assert int(browser_page.text_content("#total")) == len(provider.pieces)
    assert not [s for s in screens(browser_page) if "[S" in s]  # markers never shown, even mid-answer


# The page's reader on chosen reads of real proxy bytes: the page's fetch of /v1/chat/completions answers with a
# Response built from them (a ReadableStream, one enqueue per read); the other paths go to the proxy as usual.
CANNED = """(reads) => {
  const fetch0 = window.fetch;
  window.fetch = async (...args) => {
    if (!String(args[0]).endsWith("/v1/chat/completions")) return fetch0(...args);
    return new Response(new ReadableStream({
      start(controller) {
        for (const hex of reads) controller.enqueue(new Uint8Array(hex.match(/../g).map((b) => parseInt(b, 16))));
        controller.close();
      },
    }), { status: 200, headers: { "Content-Type": "text/event-stream" } });
  };
}"""


def _outcome(page: Any) -> tuple[str, str, str]:
    return page.text_content("#answer"), page.text_content("#notice"), page.text_content("#reason")


def test_the_page_shows_the_same_for_any_cut_of_the_proxy_stream(browser_page: Any, via_proxy: ViaProxy) -> None:
    """The proxy's bytes of a gate stop, given to the page whole, in 1-byte reads, cut at every event boundary
    and inside the notice's and the finish's frames: the same answer, notice and end each time (the notice
    and its `content_filter` finish may arrive in different reads)."""
    wire = ask(browser_page, via_proxy, INVENTED)
    want = _outcome(browser_page)
    assert want[2] == "content_filter" and "held back" in want[1]
    notice_at = wire.index(b"held back")
    finish_at = wire.index(b'"content_filter"')
    cuts = {m + 2 for m in range(len(wire)) if wire.startswith(b"\n\n", m)} | {notice_at, finish_at}
    chunkings = [[wire], [wire[i : i + 1] for i in range(len(wire))]]
    chunkings += [[wire[:c], wire[c:]] for c in sorted(cuts) if 0 < c < len(wire)]
    assert len(chunkings) >= 8
    for n, reads in enumerate(chunkings):
        browser_page.evaluate(CANNED, [r.hex() for r in reads])
        browser_page.get_by_role("button", name=INVENTED).click()
        browser_page.wait_for_function("document.getElementById('reason').textContent !== 'streaming'")
        assert _outcome(browser_page) == want, (n, [len(r) for r in reads][:4])


def _wait_closed(url: str, timeout: float = 10.0) -> dict[str, Any]:
    """`/provider` (through the proxy) until the model's stream is closed."""
    import httpx

    deadline = time.monotonic() + timeout
    while True:
        status: dict[str, Any] = httpx.get(url + "/provider").json()
        if status["closed"] or time.monotonic() > deadline:
            return status
        time.sleep(0.02)


def test_the_command_via_proxy(browser_page: Any) -> None:
    """`python examples/sse_server.py --via-proxy` as users run it (its own process: the proxy on --port, the
    scripted upstream on a loopback port of its own): the split e-mail arrives redacted, Stop stops the model."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "integrations")])}
    command = [sys.executable, str(ROOT / "examples" / "sse_server.py"), "--via-proxy", "--port", str(port)]
    proc = subprocess.Popen([*command, "--delay", "0.05"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, timeout=60)
        url = f"http://127.0.0.1:{port}"
        browser_page.goto(f"{url}/")
        browser_page.evaluate(OBSERVE)
        browser_page.get_by_role("button", name=EMAIL).click()
        browser_page.wait_for_function("document.getElementById('reason').textContent === 'stop'", timeout=15_000)
        assert browser_page.text_content("#answer").endswith("You can write to <EMAIL_ADDRESS>.")
        assert not [s for s in screens(browser_page) if any(v in s for v in PLANTED)]
        browser_page.get_by_role("button", name=GROUNDED).click()
        browser_page.wait_for_function("document.getElementById('answer').textContent.length > 0", timeout=10_000)
        browser_page.click("#stop")
        status = _wait_closed(url)
        assert status["closed"] and not status["exhausted"] and status["produced"] < status["total"]
        browser_page.wait_for_function(
            "document.getElementById('upstream').textContent === 'closed early: the proxy disconnected'"
        )
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert b"sluicegate proxy on" in out and b"scripted upstream http://127.0.0.1:" in out


def test_the_real_proxy_command_in_front_of_the_upstream(browser_page: Any, demo: ModuleType, tmp_path: Any) -> None:
    """`sluicegate proxy --upstream URL` (the command, its own process, an empty config: the embedded
    defaults) in front of the demo's upstream (`--upstream-only`'s app): the same page, the same guarantees."""
    config = tmp_path / "sluicegate.toml"
    config.write_text("")
    app = demo.create_upstream_app(delay=0.1)
    with serve(app) as upstream, proxy_process(upstream.url, config) as url:
        state: dict[str, Any] = app.state.demo
        ask(browser_page, ViaProxyURL(url, state), INVENTED)
        assert browser_page.text_content("#answer").strip() == "Books can be renewed twice online."
        assert "held back" in browser_page.text_content("#notice")
        assert not [s for s in screens(browser_page) if "2019" in s]
        browser_page.get_by_role("button", name=GROUNDED).click()
        browser_page.wait_for_function("document.getElementById('answer').textContent.length > 0", timeout=10_000)
        provider = state["provider"]
        browser_page.click("#stop")
        _until(lambda: provider.closed and state["disconnected"])
        assert provider.closed and not provider.exhausted and state["disconnected"]
        assert provider.produced < len(provider.pieces)


def test_an_unreachable_upstream_is_a_clear_error_on_the_page(browser_page: Any, demo: ModuleType) -> None:
    """The upstream gone after the page loaded: the proxy answers 502 in the Chat Completions error shape before
    the first byte, and the page says so (`end: error`) instead of showing an empty answer."""
    app = demo.create_upstream_app(delay=0.01)
    upstream = UvicornServer(app)
    upstream.start()
    with serve(demo.create_proxy_app(upstream.url)) as proxy:
        try:
            open_page(browser_page, ViaProxyURL(proxy.url, app.state.demo))
        finally:
            upstream.stop()
        browser_page.get_by_role("button", name=GROUNDED).click()
        browser_page.wait_for_function("document.getElementById('reason').textContent !== 'streaming'")
        assert browser_page.text_content("#reason") == "error"
        assert "upstream could not be reached" in browser_page.text_content("#notice")
        assert browser_page.text_content("#answer") == ""
        browser_page.wait_for_function("document.getElementById('upstream').textContent === 'unreachable'")
