"""The demo page in a real headless Chromium (Debian's, via Playwright): what the reader sees, what the page
received on the wire, and that Stop stops the model on the server."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.services.uvicorn_server import UvicornServer, serve

from .fixtures import FIXTURES

ROOT = Path(__file__).resolve().parents[2]

# Records every state of the answer box, so "never shown" covers the whole run, not just the end.
OBSERVE = """() => {
  window.__states = [];
  const box = document.getElementById("answer");
  new MutationObserver(() => window.__states.push(box.textContent))
    .observe(box, { childList: true, characterData: true, subtree: true });
}"""


# Keeps a copy of every byte the page's fetch of /chat received (a tee of the body), for "never on the wire".
TEE = """(() => {
  const fetch0 = window.fetch;
  window.__wire = []; window.__wireDone = false;
  window.fetch = async (...args) => {
    const response = await fetch0(...args);
    if (String(args[0]).endsWith("/chat")) {
      const reader = response.clone().body.getReader();
      (async () => {
        for (;;) { const { value, done } = await reader.read(); if (done) break; window.__wire.push(...value); }
        window.__wireDone = true;
      })();
    }
    return response;
  };
})();"""


def load_demo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sse_server_demo", ROOT / "examples" / "sse_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def demo() -> ModuleType:
    return load_demo()


@pytest.fixture
def demo_server(demo: ModuleType, request: pytest.FixtureRequest) -> Iterator[UvicornServer]:
    delay = getattr(request, "param", 0.03)
    with serve(demo.create_app(delay=delay)) as running:
        yield running


def ask(page: Any, server: UvicornServer, question: str) -> bytes:
    """Open the page, click `question`, wait for the end; return the bytes the page received from /chat."""
    page.add_init_script(TEE)
    page.goto(f"{server.url}/")
    page.evaluate(OBSERVE)
    page.get_by_role("button", name=question).click()
    page.wait_for_function("document.getElementById('reason').textContent !== 'streaming'", timeout=15_000)
    page.wait_for_function("window.__wireDone", timeout=5_000)
    return bytes(page.evaluate("window.__wire"))


def test_grounded_answer_appears_sentence_by_sentence(browser_page: Any, demo_server: UvicornServer) -> None:
    ask(browser_page, demo_server, "When does the library open?")
    states: list[str] = browser_page.evaluate("window.__states")
    final = browser_page.text_content("#answer")
    assert final.startswith("The library opens at 9:00 on weekdays. On Saturdays it opens at 10:00.")
    assert "[S1]" not in final and final.rstrip().endswith("within one working day.")
    assert len(states) >= 4  # it grew in several steps while the model was still writing
    assert all(final.startswith(s) for s in states)  # only ever appended to, never rewritten
    assert browser_page.text_content("#reason") == "complete"
    assert browser_page.text_content("#notice") == ""


def test_invented_value_is_never_shown_nor_received(browser_page: Any, demo_server: UvicornServer) -> None:
    wire = ask(browser_page, demo_server, "Are there late fees?")
    states: list[str] = browser_page.evaluate("window.__states")
    assert states and not any("2019" in s or "nothing is owed" in s for s in states)
    assert b"2019" not in wire and b"nothing is owed" not in wire and b"event: guard" in wire
    assert browser_page.text_content("#answer").strip() == "Books can be renewed twice online."
    assert "held back" in browser_page.text_content("#notice")
    assert browser_page.text_content("#reason") == "stopped"


def test_split_email_reaches_the_page_redacted(browser_page: Any, demo_server: UvicornServer) -> None:
    wire = ask(browser_page, demo_server, "How do I contact the desk?")
    states: list[str] = browser_page.evaluate("window.__states")
    assert not any("jane.doe" in s or "example.com" in s for s in states)
    assert b"jane.doe" not in wire
    assert browser_page.text_content("#answer").endswith("You can write to <EMAIL_ADDRESS>.")


@pytest.mark.parametrize("demo_server", [0.1], indirect=True)
def test_stop_makes_the_server_close_the_model_stream(browser_page: Any, demo_server: UvicornServer) -> None:
    state = demo_server.server.config.app.state.demo
    browser_page.goto(f"{demo_server.url}/")
    browser_page.get_by_role("button", name="When does the library open?").click()
    browser_page.wait_for_function("document.getElementById('answer').textContent.length > 0", timeout=10_000)
    provider = state["provider"]
    browser_page.click("#stop")
    deadline = time.monotonic() + 10.0
    while not provider.closed and time.monotonic() < deadline:
        time.sleep(0.01)
    # closed long before its end (about 50 pieces 0.1 s apart); no bound in pieces here, which would be a
    # wall-clock margin across Playwright, Chromium and the server (test_server checks the bound exactly)
    assert provider.closed and not provider.exhausted
    assert provider.produced < len(provider.pieces)
    browser_page.wait_for_function("document.getElementById('reason').textContent === 'cancelled'")
    browser_page.wait_for_function("document.getElementById('upstream').textContent === 'closed early'")
    shown = int(browser_page.text_content("#produced"))
    time.sleep(0.5)
    assert int(browser_page.text_content("#produced")) == shown == provider.produced  # generation stopped


@pytest.mark.parametrize("demo_server", [0.1], indirect=True)
def test_stop_leaves_whole_sentences_on_the_screen(browser_page: Any, demo_server: UvicornServer) -> None:
    """Issue 24 part 3: the page showed "The library opens at 9:00 on " while "weekdays." waited for the next
    sentence, and Stop left the half sentence there. Now every state of the answer box is whole sentences, the
    first is the whole first sentence, and Stop leaves whole sentences."""
    browser_page.goto(f"{demo_server.url}/")
    browser_page.evaluate(OBSERVE)
    browser_page.get_by_role("button", name="When does the library open?").click()
    browser_page.wait_for_function("document.getElementById('answer').textContent.length > 0", timeout=10_000)
    browser_page.click("#stop")
    browser_page.wait_for_function("document.getElementById('reason').textContent === 'cancelled'")
    states: list[str] = [s for s in browser_page.evaluate("window.__states") if s.strip()]
    final = browser_page.text_content("#answer")
    assert states and states[0].strip() == "The library opens at 9:00 on weekdays."
    assert all(s.rstrip().endswith(".") for s in states), states
    assert final.rstrip().endswith(".") and not final.rstrip().endswith("2021.")  # stopped before the end


def test_client_parser_matches_the_python_parser_at_every_split(browser_page: Any, demo_server: UvicornServer) -> None:
    """The conformance corpus through sluicegate-client.js's parser and TextDecoder {stream: true}."""
    browser_page.goto(f"{demo_server.url}/")
    cases = {name: list(data) for name, (data, _) in FIXTURES.items()}
    got = browser_page.evaluate(
        """async (cases) => {
      const { SSEParser } = await import("/sluicegate-client.js");
      const out = {};
      for (const [name, bytes] of Object.entries(cases)) {
        const data = new Uint8Array(bytes);
        const results = new Set();
        for (let i = 0; i <= data.length; i++) {
          const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }); // the parser drops one BOM
          const parser = new SSEParser();
          const events = [
            ...parser.feed(decoder.decode(data.slice(0, i), { stream: true })),
            ...parser.feed(decoder.decode(data.slice(i), { stream: true })),
            ...parser.feed(decoder.decode()),
          ];
          results.add(JSON.stringify(events.map((e) => [e.event, e.data, e.id, e.retry])));
        }
        out[name] = [...results];
      }
      return out;
    }""",
        cases,
    )
    for name, (_, expected) in FIXTURES.items():
        want = [[e.event, e.data, e.id, e.retry] for e in expected]
        assert [__import__("json").loads(r) for r in got[name]] == [want], name


CALL = """async ([url, body]) => {
  const { streamAnswer } = await import("/sluicegate-client.js");
  const seen = [];
  const run = streamAnswer(url, body, {
    onDelta: (text) => seen.push(["delta", text]),
    onGuard: (g) => seen.push(["guard", g.reasons]),
    onError: (e) => seen.push(["error", e.code, e.status ?? null, e.message]),
    onDone: (d) => seen.push(["done", d.reason]),
  });
  await run.done;
  return seen;
}"""


@pytest.fixture
def test_app_server() -> Iterator[UvicornServer]:
    from .app import make_app

    with serve(make_app()) as running:
        yield running


def test_client_reports_statuses_and_error_events(browser_page: Any, test_app_server: UvicornServer) -> None:
    browser_page.goto(f"{test_app_server.url}/sluicegate-client.js")  # any page of the origin will do
    late = browser_page.evaluate(CALL, ["/chat", {"question": "fail_late"}])
    assert late[-2][:2] == ["error", "upstream_error"] and late[-1] == ["done", "truncated"]
    assert [k for k, *_ in late[:-2]] == ["delta"] * (len(late) - 2)
    early = browser_page.evaluate(CALL, ["/chat", {"question": "fail_early"}])
    assert early == [["error", "http_502", 502, "The answer was cut off because the model provider failed."]]
    invalid = browser_page.evaluate(CALL, ["/chat", {"nope": 1}])
    assert len(invalid) == 1 and invalid[0][:3] == ["error", "http_422", 422]
    stopped = browser_page.evaluate(CALL, ["/chat", {"question": "invented"}])
    assert stopped[-2][0] == "guard" and stopped[-1] == ["done", "stopped"]


@pytest.mark.parametrize("demo_server", [0.1], indirect=True)
def test_a_second_question_is_not_ended_by_the_first_ones_abort(browser_page: Any, demo_server: UvicornServer) -> None:
    """Asking again aborts the running answer; that answer's late onDone ('cancelled') must not mark the new
    one as ended (Stop disabled while it still streams, a wrong end reason)."""
    browser_page.goto(f"{demo_server.url}/")
    browser_page.get_by_role("button", name="When does the library open?").click()
    browser_page.wait_for_function("document.getElementById('answer').textContent.length > 0", timeout=10_000)
    browser_page.get_by_role("button", name="Are there late fees?").click()
    browser_page.wait_for_function(
        "document.getElementById('answer').textContent.startsWith('Books can be renewed')", timeout=10_000
    )
    assert browser_page.text_content("#reason") == "streaming"
    assert browser_page.is_enabled("#stop")
    browser_page.wait_for_function("document.getElementById('reason').textContent === 'stopped'", timeout=15_000)
