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
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

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


def pieces(answer: str, size: int = 5) -> list[str]:
    """Cut into `size`-character pieces, and also at each \\x00 (so the e-mail is split as a model might)."""
    out: list[str] = []
    for part in answer.split("\x00"):
        out += [part[i : i + size] for i in range(0, len(part), size)]
    return out


def create_app(*, delay: float = 0.12, ping_interval: float = 15.0) -> Starlette:
    """The demo app: `/` (the page), `/chat` (the gated SSE endpoint), `/provider` (the live piece count)."""
    state: dict[str, Any] = {"provider": None, "prompt": None}

    def answer(chat: ChatRequest, request: Request) -> Answer:
        script = QUESTIONS.get(chat.question, QUESTIONS["When does the library open?"])
        provider = ScriptedProvider(pieces(script), delay=delay)
        state["provider"] = provider
        gate = SentenceGate(SOURCES, language=chat.language)
        # What a real provider is sent: sluicegate's prompt for this gate (its token, its markers), the sources
        # numbered as the gate numbers them (`prompt.messages()`). The scripted provider ignores it.
        state["prompt"] = render_prompt(SOURCES, chat.question, gate=gate)
        return Answer(provider.stream(), Pipeline(gate, Redactor()))

    async def provider_status(request: Request) -> Response:
        provider = state["provider"]
        if provider is None:
            return JSONResponse({"produced": 0, "total": 0, "closed": False, "exhausted": False})
        return JSONResponse(
            {
                "produced": provider.produced,
                "total": len(provider.pieces),
                "closed": provider.closed,
                "exhausted": provider.exhausted,
            },
            headers={"Cache-Control": "no-store"},
        )

    async def page(request: Request) -> Response:
        buttons = "".join(f"<button class=q type=button>{q}</button>" for q in QUESTIONS)
        return HTMLResponse(PAGE.replace("{buttons}", buttons))

    routes = [
        Route("/", page),
        Route("/provider", provider_status),
        gated_sse_route("/chat", answer, ping_interval=ping_interval),
        client_js_route(),
    ]
    app = Starlette(routes=routes)
    app.state.demo = state
    return app


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
<h1>A gated answer, streamed</h1>
<p>Pick a question. The scripted model streams its answer in small pieces; the gate releases whole checked
sentences and the redactor replaces personal data. Stop cancels the request, and the server stops the model.</p>
<div>{buttons}</div>
<p><button id=stop type=button disabled>Stop</button></p>
<div id=answer aria-live=polite></div>
<div id=notice></div>
<div class=meta>Pieces produced by the model: <span id=produced>0</span> / <span id=total>0</span>
 &middot; model stream <span id=upstream>idle</span> &middot; end: <span id=reason>-</span></div>
<script type=module>
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
</script>
</body></html>
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--delay", type=float, default=0.12, help="seconds between the model's pieces")
    args = parser.parse_args()
    import uvicorn

    print(f"sluicegate SSE demo on http://127.0.0.1:{args.port}/  (Ctrl-C to stop)")
    uvicorn.run(create_app(delay=args.delay), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
