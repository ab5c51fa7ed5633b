"""docs/sse.md's LlamaIndex recipe: `async_response_gen()` of a `GatedSynthesizer` behind `gated_sse_route`.

The synthesizer labels the nodes and owns the LLM stream; its `filter_factory` hands the labelled texts to the
endpoint's gate and gives the synthesizer a pass-through, so a stop is a `guard` frame."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

import httpx
from li_fakes import ScriptedLLM, make_index
from llama_index.core import get_response_synthesizer
from starlette.applications import Starlette
from starlette.requests import Request

from sluicegate import StreamFilter
from sluicegate.sources import gate_factory
from sluicegate.sse import PassThrough, SSEParser
from sluicegate.testing import pieces_of
from sluicegate_llamaindex import GATED_QA_TEMPLATE, GatedSynthesizer
from sluicegate_starlette import Answer, ChatRequest, gated_sse_route
from tests.services.uvicorn_server import serve

INDEX = make_index()
GOOD = "Revenue was 5 million in 2018 [S1]. Headcount was 42 in 2018 [S2]."
BAD = ("Revenue was 5 million in 2018 [S1]. Headcount was 43 in 2018 [S2]. ") * 3


def app_for(llm: ScriptedLLM) -> Starlette:
    # --- the recipe (docs/sse.md) ---
    async def answer(chat: ChatRequest, request: Request) -> Answer:
        gates: list[StreamFilter] = []

        def endpoint_gate(texts: Sequence[str]) -> StreamFilter:
            gates.append(gate_factory(redact=True, language=chat.language)(texts))  # the labelled node texts
            return PassThrough()  # the endpoint gates; the synthesizer only labels and streams

        inner = get_response_synthesizer(
            llm=llm, streaming=True, response_mode="compact", text_qa_template=GATED_QA_TEMPLATE
        )
        synthesizer = GatedSynthesizer(inner, filter_factory=endpoint_gate)
        engine = INDEX.as_query_engine(llm=llm, similarity_top_k=2, response_synthesizer=synthesizer)
        response = await engine.aquery(chat.question)
        return Answer(response.async_response_gen(), gates[0])

    return Starlette(routes=[gated_sse_route("/chat", answer)])
    # --- end of recipe ---


def events(url: str) -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    parser = SSEParser()
    with httpx.stream("POST", f"{url}/chat", json={"question": "Revenue?"}, timeout=10) as r:
        assert r.status_code == 200
        out = [e for chunk in r.iter_raw() for e in parser.feed(chunk)]
    return [(e.event, json.loads(e.data)) for e in out]


def test_grounded_answer_through_the_synthesizer() -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 4))
    with serve(app_for(llm)) as server:
        got = events(server.url)
    text = "".join(p["text"] for n, p in got if n == "delta")
    assert text == "Revenue was 5 million in 2018. Headcount was 42 in 2018."
    assert got[-1] == ("done", got[-1][1]) and got[-1][1]["reason"] == "complete"


def test_a_stop_is_a_guard_frame_and_closes_the_llm() -> None:
    llm = ScriptedLLM(pieces=pieces_of(BAD, 4))
    with serve(app_for(llm)) as server:
        got = events(server.url)
        deadline = time.monotonic() + 3
        while not llm.record.closed and time.monotonic() < deadline:
            time.sleep(0.01)
    assert [n for n, _ in got][-2:] == ["guard", "done"] and got[-1][1]["reason"] == "stopped"
    assert "43" not in json.dumps(got)
    assert llm.record.closed and not llm.record.exhausted and llm.record.produced < len(pieces_of(BAD, 4))
