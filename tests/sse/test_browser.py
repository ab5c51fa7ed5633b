"""The demo page in a real headless Chromium (Debian's, via Playwright): what the reader sees, what the page
received on the wire, and that Stop stops the model on the server."""

from __future__ import annotations

import importlib.util
import json
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sluicegate.sse import SSEEventTooLarge, SSEParser
from tests.services.uvicorn_server import UvicornServer, serve

from .fixtures import FIXTURES
from .test_vectors import CASES as VECTOR_CASES
from .test_vectors import reads as vector_reads

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
    """The conformance corpus through sluicegate-client.js's parser, fed bytes (its TextDecoder {stream: true})."""
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
          const parser = new SSEParser(); // fed bytes: it decodes them as streamAnswer does
          const events = [...parser.feed(data.slice(0, i)), ...parser.feed(data.slice(i)), ...parser.close()];
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


# Issue 24's rules (docs/sse.md "The parser"), through sluicegate-client.js's parser fed raw bytes, compared
# with SSEParser on the same reads: the events each read returned (so a CR-terminated event must come out of
# the read that ends it), the last event ID and reconnection time after the stream, and whether the size limit
# tripped (with the events completed before it in the same read).
def _hex(data: bytes) -> list[list[Any]]:
    return [[data.hex(), 1]]


RULE_CASES: dict[str, dict[str, Any]] = {
    # a. the last event ID is committed at dispatch: a block cut off by the end leaves it; seeding
    "a: id in a block cut off by the end": {"parts": _hex(b"id: 1\ndata: a\n\nid: 2\ndata: b")},
    "a: id in a block cut off after its blank-less data": {"parts": _hex(b"id: 1\ndata: a\n\nid: 2\n")},
    "a: id committed by a block without data": {"parts": _hex(b"id: 7\n\ndata: x\n\nid\n\ndata: y\n\n")},
    "a: seeded, kept until the stream sets another": {
        "parts": _hex(b"data: a\n\nid: 9\ndata: b\n\nid: 10\ndata: c"),
        "last_event_id": "8",
    },
    # b. retry: ASCII digits, leading zeros, at most 2^63 - 1; anything else ignored, never an error
    "b: retry values": {
        "parts": _hex(
            b"retry: 02000\ndata: a\n\nretry: 9223372036854775807\ndata: b\n\nretry: 9223372036854775808\n"
            b"data: c\n\nretry: 00000000000000000000000000001\ndata: d\n\nretry: 1e3\ndata: e\n\n"
            b"retry: \xef\xbc\x91\ndata: f\n\nretry:  5\ndata: g\n\nretry\ndata: h\n\n"
        )
    },
    "b: 5000-digit retry ignored, the rest of the read kept": {
        "parts": [[b"retry: ".hex(), 1], ["39", 5000], [b"\ndata: a\n\ndata: b\n\n".hex(), 1]],
        "sizes": [0, 1000, 7],
    },
    # c. invalid UTF-8 is U+FFFD (one per maximal ill-formed subsequence), the same for every cut
    "c: invalid bytes, split across reads": {
        "parts": _hex(
            b"data: a\xffb\xfe\n\ndata: \xe2\x82\n\ndata: \xf0\x9f\x98x\n\ndata: \xed\xa0\x80\n\n"
            b"data: \xc0\xaf\xe0\x80\xaf\n\ndata: \xf4\x90\x80\x80\xf8\x88\x80\x80\x80\n\n"
            b"data: \xf0\x9f\x98\x80 \xd9\x81\xd8\xa7\n\nevent: \x80\ndata: \xc2\n\n"
        )
    },
    "c: a trailing invalid byte after a complete event": {"parts": _hex(b"data: a\n\n\xff")},
    "c: a character cut off by the end": {"parts": _hex(b"data: a\n\ndata: \xe2\x82")},
    "c: invalid bytes in an id and a BOM": {"parts": _hex(b"\xef\xbb\xbfid: \xff\ndata: a\n\n")},
    # d. the limit counts the whole event (data bytes, one per joining LF, and the line being read, any
    # line), whatever the read sizes; small limit here, at every split
    "d: small limit, data lines add up": {
        "parts": _hex(b"data: ok\n\ndata: 12345\ndata: 12345\ndata: 12345\n\ndata: never\n\n"),
        "max_event_bytes": 16,
    },
    "d: small limit, a long comment line": {
        "parts": _hex(b"data: ok\n\n: a comment much longer than sixteen bytes\ndata: never\n\n"),
        "max_event_bytes": 16,
    },
    "d: small limit, multibyte data counted in bytes": {
        "parts": _hex("data: ok\n\ndata: ééé\n\ndata: éééééééé\n\n".encode()),
        "max_event_bytes": 12,
    },
    "d: small limit, exactly at the limit passes": {
        "parts": _hex(b"data: 1234567890\n\n:123456789012345\n\ndata: a\n\n"),
        "max_event_bytes": 16,
    },
    # f. a CR ends its line at once: a CR-terminated event is dispatched by the read that ends it
    "f: CR line ends": {"parts": _hex(b"data: a\r\rdata: b\r\n\r\ndata: c\r\r\ndata: d\n\r\n\rdata: e\r\r")},
}

MIB = 1 << 20
# d. at the default limit (1 MiB, as DEFAULT_MAX_EVENT_BYTES), in one read, 64 KiB, 1 KiB and 7-byte reads
BIG_CASES: dict[str, dict[str, Any]] = {
    "d: a data line of exactly the default limit passes": {
        "parts": [[b"data: ".hex(), 1], ["78", MIB - 6], [b"\n\ndata: next\n\n".hex(), 1]],
    },
    "d: one byte over the default limit, one data line": {
        "parts": [[b"data: ok\n\ndata: ".hex(), 1], ["78", MIB], [b"\n\ndata: never\n\n".hex(), 1]],
    },
    "d: 2 MiB comment line": {"parts": [[b"data: ok\n\n:".hex(), 1], ["78", 2 * MIB], [b"\n\n".hex(), 1]]},
    "d: many short data lines over the default limit": {
        "parts": [[b"data: ok\n\n".hex(), 1], [b"data: 0123456789\n".hex(), MIB // 10], [b"\n".hex(), 1]],
    },
}
for _case in BIG_CASES.values():
    _case.update(sizes=[0, 65536, 1024, 7], every_split=False)


def _case_bytes(case: dict[str, Any]) -> bytes:
    return b"".join(bytes.fromhex(h) * n for h, n in case["parts"])


def _chunkings(data: bytes, case: dict[str, Any]) -> list[list[bytes]]:
    """The same list of reads the page builds (RUN_CASES below): explicit reads, then fixed read sizes (0 is
    the whole stream in one read), then a cut at every position."""
    out: list[list[bytes]] = []
    if "reads" in case:
        at, reads = 0, []
        for n in case["reads"]:
            reads.append(data[at : at + n])
            at += n
        out.append(reads)
    for size in case.get("sizes", [0, 1]):
        step = size or max(len(data), 1)
        out.append([data[i : i + step] for i in range(0, len(data), step)] or [b""])
    if case.get("every_split", True):
        out += [[data[:i], data[i:]] for i in range(len(data) + 1)]
    return out


def _python_outcome(case: dict[str, Any], reads: list[bytes]) -> list[Any]:
    kwargs: dict[str, Any] = {}
    if "max_event_bytes" in case:
        kwargs["max_event_bytes"] = case["max_event_bytes"]
    if "last_event_id" in case:
        kwargs["last_event_id"] = case["last_event_id"]
    parser = SSEParser(**kwargs)
    per_read: list[list[list[Any]]] = []
    too_large = False
    try:
        for chunk in reads:
            per_read.append([[e.event, e.data, e.id, e.retry] for e in parser.feed(chunk)])
        per_read.append([[e.event, e.data, e.id, e.retry] for e in parser.close()])
    except SSEEventTooLarge as exc:
        per_read.append([[e.event, e.data, e.id, e.retry] for e in exc.events])
        too_large = True
    return [per_read, parser.last_event_id, parser.reconnection_time, too_large]


RUN_CASES = """async (cases) => {
  const { SSEParser, SSEParseError } = await import("/sluicegate-client.js");
  const unhex = (h) => new Uint8Array(h.match(/../g)?.map((b) => parseInt(b, 16)) ?? []);
  const out = {};
  for (const [name, c] of Object.entries(cases)) {
    const pieces = c.parts.map(([h, n]) => [unhex(h), n]);
    const total = pieces.reduce((s, [b, n]) => s + b.length * n, 0);
    const data = new Uint8Array(total);
    let at = 0;
    for (const [b, n] of pieces) for (let k = 0; k < n; k++) { data.set(b, at); at += b.length; }
    const chunkings = [];
    if (c.reads) {
      let p = 0;
      chunkings.push(c.reads.map((n) => { const r = data.slice(p, p + n); p += n; return r; }));
    }
    for (const size of c.sizes ?? [0, 1]) {
      const step = size || Math.max(data.length, 1);
      const reads = [];
      for (let i = 0; i < data.length; i += step) reads.push(data.subarray(i, i + step));
      chunkings.push(reads.length ? reads : [new Uint8Array(0)]);
    }
    if (c.every_split ?? true) {
      for (let i = 0; i <= data.length; i++) chunkings.push([data.slice(0, i), data.slice(i)]);
    }
    out[name] = chunkings.map((reads) => {
      const options = {};
      if ("max_event_bytes" in c) options.maxEventBytes = c.max_event_bytes;
      if ("last_event_id" in c) options.lastEventId = c.last_event_id;
      const parser = new SSEParser(options);
      const perRead = [];
      const row = (events) => events.map((e) => [e.event, e.data, e.id, e.retry]);
      let tooLarge = false;
      try {
        for (const chunk of reads) perRead.push(row(parser.feed(chunk)));
        perRead.push(row(parser.close()));
      } catch (err) {
        if (!(err instanceof SSEParseError)) return ["threw", String(err)];
        perRead.push(row(err.events ?? []));
        tooLarge = true;
      }
      return [perRead, parser.lastEventId, parser.reconnectionTime, tooLarge];
    });
  }
  return JSON.stringify(out); // one string: Playwright serialising ~20 000 outcomes value by value was slow
}"""


def _as_float(value: Any) -> Any:
    """A retry over 2^53 is a JS Number (the nearest double): compare both sides as doubles."""
    return None if value is None else float(value)


def _normalise(outcome: list[Any]) -> list[Any]:
    if len(outcome) != 4:
        return outcome
    per_read, last_id, reconnect, too_large = outcome
    per_read = [[[e, d, i, _as_float(r)] for e, d, i, r in read] for read in per_read]
    return [per_read, last_id, _as_float(reconnect), too_large]


def _compare_with_python(page: Any, cases: dict[str, dict[str, Any]]) -> None:
    got = json.loads(page.evaluate(RUN_CASES, cases))
    failures = []
    for name, case in cases.items():
        data = _case_bytes(case)
        want = [_normalise(_python_outcome(case, reads)) for reads in _chunkings(data, case)]
        have = [_normalise(o) for o in got[name]]
        assert len(have) == len(want), name
        bad = [i for i, (h, w) in enumerate(zip(have, want, strict=True)) if h != w]
        if bad:
            i = bad[0]
            failures.append(
                f"{name}: {len(bad)}/{len(want)} chunkings differ; first, {i}: {have[i]!r:.300} != {want[i]!r:.300}"
            )
    assert not failures, "\n".join(failures)


def test_client_parser_matches_the_python_parser_on_issue_24_rules(
    browser_page: Any, demo_server: UvicornServer
) -> None:
    """a (last event ID at dispatch, seeding), b (retry), c (U+FFFD, split-invariant), d (the whole event
    counted, small limit), f (CR dispatches at once): whole, in 1-byte reads and at every split."""
    browser_page.goto(f"{demo_server.url}/")
    _compare_with_python(browser_page, RULE_CASES)


def test_client_parser_limit_does_not_depend_on_read_sizes(browser_page: Any, demo_server: UvicornServer) -> None:
    """d at the default limit (1 MiB, the Python parser's DEFAULT_MAX_EVENT_BYTES): one read, 64 KiB, 1 KiB and
    7-byte reads give what SSEParser gives."""
    browser_page.goto(f"{demo_server.url}/")
    _compare_with_python(browser_page, BIG_CASES)


def test_client_parser_runs_the_other_parsers_vectors(browser_page: Any, demo_server: UvicornServer) -> None:
    """tests/sse/vectors/ (156 vectors from nine suites, origins in its README) through the client parser: in
    the suite's own reads, whole, in 1-byte reads and at every split, the same as SSEParser (which meets each
    vector's expectations, tests/sse/test_vectors.py)."""
    browser_page.goto(f"{demo_server.url}/")
    cases: dict[str, dict[str, Any]] = {}
    for suite, vector in VECTOR_CASES:
        chunks = vector_reads(vector)
        case: dict[str, Any] = {"parts": _hex(b"".join(chunks)), "reads": [len(c) for c in chunks]}
        if "max_event_bytes" in vector:
            case["max_event_bytes"] = vector["max_event_bytes"]
        if "seed_last_event_id" in vector:
            case["last_event_id"] = vector["seed_last_event_id"]
        cases[f"{suite}:{vector['name']}"] = case
    assert len(cases) == len(VECTOR_CASES) >= 150
    _compare_with_python(browser_page, cases)


# streamAnswer on a stream of chosen bytes: the page's fetch answers with a real Response built from them, in the
# given reads (a ReadableStream), so what is checked is the client's own decoding and error path.
CANNED = """async ([reads, options]) => {
  const { streamAnswer } = await import("/sluicegate-client.js");
  window.fetch = async () => new Response(new ReadableStream({
    start(controller) {
      for (const hex of reads) controller.enqueue(new Uint8Array(hex.match(/../g).map((b) => parseInt(b, 16))));
      controller.close();
    },
  }), { status: 200, headers: { "Content-Type": "text/event-stream; charset=utf-8" } });
  const seen = [];
  const run = streamAnswer("/chat", {}, {
    ...options,
    onDelta: (text) => seen.push(["delta", text]),
    onError: (e) => seen.push(["error", e.code]),
    onDone: (d) => seen.push(["done", d.reason]),
  });
  await run.done;
  return seen;
}"""


def test_stream_answer_reads_invalid_utf8_as_replacement_characters(
    browser_page: Any, test_app_server: UvicornServer
) -> None:
    """c: a byte our server never sends (a broken proxy) is U+FFFD in the text, not the end of the answer; a
    character split across reads stays whole."""
    browser_page.goto(f"{test_app_server.url}/sluicegate-client.js")
    frames = b'event: delta\ndata: {"text":"a\xffb \xd9' + b'\x81"}\n\nevent: done\ndata: {"reason":"complete"}\n\n'
    reads = [frames[:28].hex(), frames[28:].hex()]
    assert browser_page.evaluate(CANNED, [reads, {}]) == [["delta", "a\ufffdb \u0641"], ["done", "complete"]]


def test_stream_answer_keeps_the_events_before_an_oversized_one(
    browser_page: Any, test_app_server: UvicornServer
) -> None:
    """d: the read that completes a delta and then overflows the limit still delivers that delta, then
    bad_stream; the limit counts bytes (here 64), not characters."""
    browser_page.goto(f"{test_app_server.url}/sluicegate-client.js")
    for text in ["x" * 100, "é" * 30]:  # over 64 as characters and as bytes; over 64 only as bytes
        stream = 'event: delta\ndata: {"text":"ok"}\n\nevent: delta\ndata: {"text":"' + text + '"}\n\n'
        seen = browser_page.evaluate(CANNED, [[stream.encode().hex()], {"maxEventBytes": 64}])
        assert seen == [["delta", "ok"], ["error", "bad_stream"]], text[:1]
