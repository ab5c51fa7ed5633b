"""docs/sse.md's LangChain recipe: `SourceGate.astream` behind `gated_sse_route`, under uvicorn, read by httpx.

SourceGate numbers the sources and owns the model stream; the endpoint runs the gate (built from the same
texts), so a stop is a `guard` frame, and closing the stream closes the chat model."""

from __future__ import annotations

import json
import time

import httpx
from langchain_core.prompts import ChatPromptTemplate
from lc_fakes import ScriptedChatModel
from starlette.applications import Starlette
from starlette.requests import Request

from sluicegate.sources import gate_factory, source_texts
from sluicegate.sse import PassThrough, SSEParser
from sluicegate.testing import pieces_of
from sluicegate_langchain import SourceGate
from sluicegate_starlette import Answer, ChatRequest, gated_sse_route
from tests.services.uvicorn_server import serve

SOURCES = ["The library opens at 9:00 on weekdays.", "Late fees were abolished in 2021."]
GOOD = "The library opens at 9:00 on weekdays [S1]. Late fees were abolished in 2021 [S2]."
BAD = "The library opens at 9:00 on weekdays [S1]. Late fees were abolished in 2019 [S2]. " * 3
PROMPT = ChatPromptTemplate.from_messages([("system", "Answer from:\n{context}"), ("human", "{question}")])


def app_for(model: ScriptedChatModel) -> Starlette:
    # --- the recipe (docs/sse.md) ---
    chain = SourceGate(bound=PROMPT | model, filter_factory=lambda texts: PassThrough())

    def answer(chat: ChatRequest, request: Request) -> Answer:
        sources = SOURCES  # your retriever's documents, in order
        gate = gate_factory(redact=True, language=chat.language)(source_texts(sources))
        return Answer(chain.astream({"question": chat.question, "sources": sources}), gate)

    return Starlette(routes=[gated_sse_route("/chat", answer)])
    # --- end of recipe ---


def events(url: str) -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    parser = SSEParser()
    with httpx.stream("POST", f"{url}/chat", json={"question": "When?"}, timeout=10) as r:
        assert r.status_code == 200
        out = [e for chunk in r.iter_raw() for e in parser.feed(chunk)]
    return [(e.event, json.loads(e.data)) for e in out]


def test_grounded_answer_through_source_gate() -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4))
    with serve(app_for(model)) as server:
        got = events(server.url)
    text = "".join(p["text"] for n, p in got if n == "delta")
    assert text == "The library opens at 9:00 on weekdays. Late fees were abolished in 2021."
    assert got[-1][0] == "done" and got[-1][1]["reason"] == "complete"
    assert "[S1] The library opens" in model.record.prompts[0]  # SourceGate numbered the sources


def test_a_stop_is_a_guard_frame_and_closes_the_chat_model() -> None:
    model = ScriptedChatModel(pieces=pieces_of(BAD, 4))
    with serve(app_for(model)) as server:
        got = events(server.url)
        deadline = time.monotonic() + 3
        while not model.record.closed and time.monotonic() < deadline:
            time.sleep(0.01)
    assert [n for n, _ in got][-2:] == ["guard", "done"] and got[-1][1]["reason"] == "stopped"
    assert "2019" not in json.dumps(got)
    assert model.record.closed and not model.record.exhausted
    assert model.record.produced < len(pieces_of(BAD, 4))
