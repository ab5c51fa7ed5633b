"""A gated answer streamed to a browser over SSE, with a Stop button that stops the (scripted) model.

    python examples/sse_server.py            # then open http://127.0.0.1:8000/

Offline: the "model" is a scripted provider that streams a fixed answer in small pieces, a few per second.
The page POSTs the question with fetch and reads the stream with sluicegate-client.js. Each answer passes the
sentence gate, then the redactor:
1. a grounded answer: released sentence by sentence, markers removed;
2. an answer that invents a year: the sentences before it are shown, then a fixed notice; the invented
   sentence never reaches the browser (not in the page, not in the bytes it received);
3. an e-mail address split across pieces ("jane.doe@exa" + "mple.com"): the reader sees <EMAIL_ADDRESS>.
The counter under the answer is the number of pieces the provider has produced: press Stop and it stops.
Needs the [server] extra (`pip install -e ".[server]"`; the test venv, `.[dev]`, has it).

Via proxy (docs/proxy.md), the same page and questions through `sluicegate proxy` (the [proxy] extra too):

    python examples/sse_server.py --via-proxy             # the proxy on :8000, a scripted upstream behind it
    python examples/sse_server.py --upstream-only --port 8401 &   # or: the upstream alone, and the command
    sluicegate proxy --upstream http://127.0.0.1:8401 --listen 127.0.0.1:8000

The scripted model is then an OpenAI-compatible upstream (`POST /v1/chat/completions`, streamed
`chat.completion.chunk`s) that also serves the page, the client module and `/provider`, which the proxy
forwards unchanged: the browser talks to the proxy alone. The page sends a Chat Completions request (with
`"sluicegate": {"sources": [...]}` unless the box is unticked) and reads the proxy's frames itself; Stop aborts
the fetch, the proxy closes the upstream, and the model stops (the counter stops, "closed early").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import threading
from collections.abc import AsyncGenerator
from contextlib import suppress
from pathlib import Path
from typing import Any, cast

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / p) for p in ("src", "integrations")]

from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import HTMLResponse, JSONResponse, Response  # noqa: E402
from starlette.routing import Route  # noqa: E402

from sluicegate import Pipeline, Redactor, SentenceGate  # noqa: E402
from sluicegate.prompts import render_prompt  # noqa: E402
from sluicegate.scripted import ScriptedProvider  # noqa: E402
from sluicegate_starlette import Answer, ChatRequest, client_js_route, gated_sse_route  # noqa: E402

SOURCES = [
    "The Riverside Library opens at 9:00 on weekdays and at 10:00 on Saturdays.",
    "Late fees were abolished in 2021. Books can be renewed twice online.",
    "The reference desk answers e-mail at jane.doe@example.com within one working day.",
]
QUESTIONS = {
    "When does the library open?": (
        "The library opens at 9:00 on weekdays [S1]. On Saturdays it opens at 10:00 [S1]. "
        "Books can be renewed twice online [S2]. Late fees were abolished in 2021 [S2]. "
        "The reference desk answers e-mail within one working day [S3]."
    ),
    "Are there late fees?": (
        "Books can be renewed twice online [S2]. Late fees were abolished in 2019 [S2]. "
        "So nothing is owed for old loans [S2]."
    ),
    "How do I contact the desk?": (
        "The reference desk answers questions by e-mail within one working day [S3]. "
        "You can write to jane.doe@exa\x00mple.com [S3]."  # \x00 marks a forced piece boundary
    ),
}
FIRST = "When does the library open?"


def pieces(answer: str, size: int = 5) -> list[str]:
    """Cut into `size`-character pieces, and also at each \\x00 (so the e-mail is split as a model might)."""
    out: list[str] = []
    for part in answer.split("\x00"):
        out += [part[i : i + size] for i in range(0, len(part), size)]
    return out


def provider_route(state: dict[str, Any]) -> Any:
    """`/provider`: how many pieces the latest answer's model has produced, and whether its stream is closed."""

    async def provider_status(request: Request) -> Response:
        provider = state["provider"]
        if provider is None:
            return JSONResponse({"produced": 0, "total": 0, "closed": False, "exhausted": False})
        status = {
            "produced": provider.produced,
            "total": len(provider.pieces),
            "closed": provider.closed,
            "exhausted": provider.exhausted,
        }
        if "disconnected" in state:  # via proxy: the upstream saw its client (the proxy) leave before the end
            status["disconnected"] = state["disconnected"]
        return JSONResponse(status, headers={"Cache-Control": "no-store"})

    return provider_status


def create_app(*, delay: float = 0.12, ping_interval: float = 15.0) -> Starlette:
    """The demo app: `/` (the page), `/chat` (the gated SSE endpoint), `/provider` (the live piece count)."""
    state: dict[str, Any] = {"provider": None, "prompt": None}

    def answer(chat: ChatRequest, request: Request) -> Answer:
        script = QUESTIONS.get(chat.question, QUESTIONS[FIRST])
        provider = ScriptedProvider(pieces(script), delay=delay)
        state["provider"] = provider
        gate = SentenceGate(SOURCES, language=chat.language)
        # What a real provider is sent: sluicegate's prompt for this gate (its token, its markers), the sources
        # numbered as the gate numbers them (`prompt.messages()`). The scripted provider ignores it.
        state["prompt"] = render_prompt(SOURCES, chat.question, gate=gate)
        return Answer(provider.stream(), Pipeline(gate, Redactor()))

    async def page(request: Request) -> Response:
        return HTMLResponse(render_page(SSE_HEADING, SSE_INTRO, SSE_SCRIPT))

    routes = [
        Route("/", page),
        Route("/provider", provider_route(state)),
        gated_sse_route("/chat", answer, ping_interval=ping_interval),
        client_js_route(),
    ]
    app = Starlette(routes=routes)
    app.state.demo = state
    return app


# -- via proxy: the same page, the browser's request through `sluicegate proxy` to an OpenAI-compatible upstream --


def chat_chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> bytes:
    """One Chat Completions stream frame, as the API writes it (`delta=None`: no choice, the usage chunk)."""
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    frame = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": "scripted-demo"}
    return b"data: " + json.dumps({**frame, "choices": choices, **extra}).encode() + b"\n\n"


class ScriptedChatEndpoint:
    """`POST /v1/chat/completions` of a scripted OpenAI-compatible model (raw ASGI): the answer to the last user
    message, one `delta.content` per piece. A waiter on `receive()` sees `http.disconnect` the moment the proxy
    closes its connection, and the model stops there (its `ScriptedProvider` is closed): what `/provider` shows."""

    def __init__(self, state: dict[str, Any], delay: float) -> None:
        self.state = state
        self.delay = delay

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            request = json.loads(body)
            question = request["messages"][-1]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            response = JSONResponse({"error": {"message": "a Chat Completions body is needed"}}, status_code=400)
            await response(scope, receive, send)
            return
        provider = ScriptedProvider(pieces(QUESTIONS.get(question, QUESTIONS[FIRST])), delay=self.delay)
        self.state["provider"] = provider
        self.state["disconnected"] = False  # set when the proxy closed the connection before the end
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        gone = asyncio.ensure_future(self._disconnected(receive))
        stream = cast(AsyncGenerator[str, None], provider.stream())  # an async generator: it has aclose()
        completed = False
        try:
            await send({"type": "http.response.body", "body": chat_chunk({"role": "assistant"}), "more_body": True})
            while True:
                step = asyncio.ensure_future(anext(stream))
                await asyncio.wait({step, gone}, return_when=asyncio.FIRST_COMPLETED)
                if gone.done():
                    step.cancel()  # the model stops mid-piece: ScriptedProvider.stream's `finally` closes it
                    with suppress(asyncio.CancelledError, StopAsyncIteration):
                        await step
                    return
                try:
                    piece = step.result()
                except StopAsyncIteration:
                    break
                await send({"type": "http.response.body", "body": chat_chunk({"content": piece}), "more_body": True})
            tail = chat_chunk({}, "stop")
            if (request.get("stream_options") or {}).get("include_usage"):
                n = provider.produced
                tail += chat_chunk(None, usage={"prompt_tokens": 50, "completion_tokens": n, "total_tokens": 50 + n})
            await send({"type": "http.response.body", "body": tail + b"data: [DONE]\n\n", "more_body": False})
            completed = True
        except OSError:
            pass  # the connection went away while writing
        finally:
            if self.state["provider"] is provider:  # not an answer the page has already left for another
                self.state["disconnected"] = not completed
            gone.cancel()
            await stream.aclose()

    @staticmethod
    async def _disconnected(receive: Any) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass


def create_upstream_app(*, delay: float = 0.12) -> Starlette:
    """The scripted upstream the proxy stands in front of: the model (`/v1/chat/completions`), and the page,
    the client module and `/provider` (the proxy forwards these paths unchanged, so the browser talks to the
    proxy alone)."""
    state: dict[str, Any] = {"provider": None, "disconnected": False}

    async def page(request: Request) -> Response:
        sources = json.dumps(SOURCES).replace("<", "\\u003c")
        return HTMLResponse(
            render_page(PROXY_HEADING, PROXY_INTRO, PROXY_SCRIPT.replace("{sources}", sources), PROXY_OPTIONS)
        )

    routes = [
        Route("/", page),
        Route("/provider", provider_route(state)),
        Route("/v1/chat/completions", ScriptedChatEndpoint(state, delay), methods=["POST"]),
        client_js_route(),
    ]
    app = Starlette(routes=routes)
    app.state.demo = state
    return app


def create_proxy_app(upstream: str) -> Starlette:
    """`sluicegate proxy`'s app with its embedded defaults (passthrough auth, redactor; the gate with sources).
    Imported here: the plain demo needs only the [server] extra, this mode the [proxy] one too."""
    from sluicegate_proxy import config_from
    from sluicegate_proxy import create_app as create_proxy

    return create_proxy(config_from({}, upstream=upstream))


def render_page(heading: str, intro: str, script: str, options: str = "") -> str:
    """The one page of both modes, with its mode's words, options and script."""
    buttons = "".join(f"<button class=q type=button>{q}</button>" for q in QUESTIONS)
    parts = {"{heading}": heading, "{intro}": intro, "{options}": options, "{script}": script, "{buttons}": buttons}
    page = PAGE
    for key, value in parts.items():
        page = page.replace(key, value)
    return page


SSE_HEADING = "A gated answer, streamed"
SSE_INTRO = """Pick a question. The scripted model streams its answer in small pieces; the gate releases whole checked
sentences and the redactor replaces personal data. Stop cancels the request, and the server stops the model."""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>sluicegate: a gated answer over SSE</title>
<style>
 body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
 #answer { min-height: 6rem; border: 1px solid #ccc; padding: .75rem; white-space: pre-wrap; }
 #notice { color: #8a3b00; margin-top: .5rem; }
 .meta { color: #555; font-size: .9rem; margin-top: .5rem; }
 button { margin: .2rem .3rem .2rem 0; }
</style></head>
<body>
<h1>{heading}</h1>
<p>{intro}</p>
<div>{buttons}</div>{options}
<p><button id=stop type=button disabled>Stop</button></p>
<div id=answer aria-live=polite></div>
<div id=notice></div>
<div class=meta>Pieces produced by the model: <span id=produced>0</span> / <span id=total>0</span>
 &middot; model stream <span id=upstream>idle</span> &middot; end: <span id=reason>-</span></div>
{script}
</body></html>
"""

SSE_SCRIPT = """<script type=module>
import { streamAnswer } from "/sluicegate-client.js";
const $ = (id) => document.getElementById(id);
let run = null;
let asked = 0; // which question is current
async function poll() {
  try {
    const s = await (await fetch("/provider", { cache: "no-store" })).json();
    $("produced").textContent = s.produced; $("total").textContent = s.total;
    $("upstream").textContent = s.closed ? (s.exhausted ? "finished" : "closed early") : (s.total ? "open" : "idle");
  } catch {}
  setTimeout(poll, 100);
}
poll();
for (const button of document.querySelectorAll("button.q")) {
  button.addEventListener("click", () => {
    if (run) run.abort();
    $("answer").textContent = ""; $("notice").textContent = ""; $("reason").textContent = "streaming";
    $("stop").disabled = false;
    // An aborted run still calls its onDone ("cancelled") later: only the current run may touch the page.
    const token = ++asked;
    const mine = (fn) => (arg) => { if (token === asked) fn(arg); };
    run = streamAnswer("/chat", { question: button.textContent, language: "en", history: [] }, {
      onDelta: mine((text) => { $("answer").append(text); }),
      onGuard: mine(({ notice }) => { $("notice").textContent = notice; }),
      onError: mine(({ message }) => { $("notice").textContent = message; }),
      onDone: mine(({ reason }) => { $("reason").textContent = reason; $("stop").disabled = true; }),
    });
  });
}
$("stop").addEventListener("click", () => { if (run) run.abort(); });
</script>"""

PROXY_HEADING = "A gated answer, streamed via <code>sluicegate proxy</code>"
PROXY_INTRO = """The same questions, asked the way any OpenAI client asks: the page POSTs a Chat Completions request
(<code>"stream": true</code>) to <code>sluicegate proxy</code>, which streams it from a scripted OpenAI-compatible
model. The page reads the proxy's frames itself (<code>choices[0].delta.content</code>, <code>finish_reason</code>,
<code>[DONE]</code>). With sources in the body the answer passes the gate, then the redactor; without, the
redactor alone. Stop aborts the fetch: the proxy closes its connection to the model, and the model stops."""
PROXY_OPTIONS = """
<p><label><input id=sources type=checkbox checked> send the sources
 (<code>"sluicegate": {"sources": [...]}</code> in the body)</label></p>"""

PROXY_SCRIPT = """<script type=module>
// The proxy's OpenAI Chat Completions stream, read with fetch + ReadableStream. The events are cut by the client
// module's SSEParser (the one streamAnswer uses, checked against other parsers' vectors); streamAnswer itself
// reads sluicegate's own events, not OpenAI frames.
import { SSEParser } from "/sluicegate-client.js";
const SOURCES = {sources};
const $ = (id) => document.getElementById(id);
let controller = null;
let asked = 0; // which question is current
async function poll() {
  try {
    const r = await fetch("/provider", { cache: "no-store" });
    if (!r.ok) throw new Error(`HTTP ${r.status}`); // the upstream is gone: the proxy answers 502
    const s = await r.json();
    $("produced").textContent = s.produced; $("total").textContent = s.total;
    const early = s.disconnected ? "closed early: the proxy disconnected" : "closed early";
    $("upstream").textContent = s.closed ? (s.exhausted ? "finished" : early) : (s.total ? "open" : "idle");
  } catch { $("upstream").textContent = "unreachable"; }
  setTimeout(poll, 100);
}
poll();

// One answer: each read's frames are applied together. A stop's notice is the last delta before
// finish_reason "content_filter": it goes under the answer, not into it.
async function ask(question, signal, mine) {
  const body = { model: "scripted-demo", stream: true, messages: [{ role: "user", content: question }] };
  if ($("sources").checked) body.sluicegate = { sources: SOURCES, language: "en" };
  const response = await fetch("/v1/chat/completions", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal,
  });
  if (!response.ok) {
    const error = await response.json().catch(() => ({}));
    mine(() => { $("notice").textContent = error.error?.message ?? `HTTP ${response.status}`; })();
    return "error";
  }
  const parser = new SSEParser();
  const reader = response.body.getReader();
  let finish = null, last = null, done = false;
  for (;;) {
    const { value, done: end } = await reader.read();
    const texts = [];
    let stopped = false; // finish_reason "content_filter" came in this read
    for (const event of end ? parser.close() : parser.feed(value)) {
      if (event.data === "[DONE]") { done = true; continue; }
      const frame = JSON.parse(event.data);
      if (frame.error) { mine(() => { $("notice").textContent = frame.error.message; })(); finish = "error"; continue; }
      const choice = frame.choices?.[0];
      if (!choice) continue; // the usage chunk
      if (choice.delta?.content) texts.push(choice.delta.content);
      if (choice.finish_reason) { finish = choice.finish_reason; stopped = finish === "content_filter"; }
    }
    mine(() => {
      if (stopped) {
        const notice = texts.length ? texts.pop() : (last?.remove(), last?.data ?? "");
        $("notice").textContent = notice.trim();
      }
      for (const text of texts) { last = document.createTextNode(text); $("answer").append(last); }
    })();
    if (end) break;
  }
  return done ? finish : `${finish ?? "cut"} (no [DONE])`;
}

for (const button of document.querySelectorAll("button.q")) {
  button.addEventListener("click", () => {
    if (controller) controller.abort();
    controller = new AbortController();
    $("answer").textContent = ""; $("notice").textContent = ""; $("reason").textContent = "streaming";
    $("stop").disabled = false;
    const token = ++asked;
    const mine = (fn) => () => { if (token === asked) fn(); };
    ask(button.textContent, controller.signal, mine)
      .then((reason) => reason, (err) => (err.name === "AbortError" ? "cancelled" : `failed: ${err.message}`))
      .then((reason) => mine(() => { $("reason").textContent = reason; $("stop").disabled = true; })());
  });
}
$("stop").addEventListener("click", () => { if (controller) controller.abort(); });
</script>"""


def serve_in_thread(app: Any, host: str = "127.0.0.1", port: int = 0) -> tuple[str, Any]:
    """`app` under uvicorn in a daemon thread, on a loopback socket bound here (port 0: a free one); its URL
    and the `uvicorn.Server` (set `should_exit` to stop it)."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="scripted-upstream", daemon=True).start()
    return f"http://{host}:{sock.getsockname()[1]}", server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8000, help="the port the browser opens")
    parser.add_argument("--delay", type=float, default=0.12, help="seconds between the model's pieces")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--via-proxy",
        action="store_true",
        help="serve `sluicegate proxy` on --port, in front of the scripted OpenAI-compatible upstream (loopback)",
    )
    mode.add_argument(
        "--upstream-only",
        action="store_true",
        help="serve only the scripted upstream on --port, to run `sluicegate proxy --upstream ...` in front of it",
    )
    args = parser.parse_args()
    import uvicorn

    url = f"http://127.0.0.1:{args.port}/"
    if args.upstream_only:
        print(f"scripted OpenAI-compatible upstream on {url}: run `sluicegate proxy --upstream {url.rstrip('/')}`")
        app = create_upstream_app(delay=args.delay)
    elif args.via_proxy:
        upstream, _ = serve_in_thread(create_upstream_app(delay=args.delay))
        print(f"sluicegate proxy on {url} in front of the scripted upstream {upstream}  (Ctrl-C to stop)", flush=True)
        app = create_proxy_app(upstream)
    else:
        print(f"sluicegate SSE demo on {url}  (Ctrl-C to stop)", flush=True)
        app = create_app(delay=args.delay)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
