"""The SSE endpoint with the docs' natural recipe, `Answer(<the SDK's stream object>, filter)`, closes the provider.

Two real servers on loopback: the app (`gated_sse_route`) and the scripted provider, both under uvicorn; the
browser side is httpx. The gate stops, or the HTTP client leaves (after the first delta, or while the gate holds
a long sentence): the provider must see its connection closed within a piece, garbage collection off.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from sluicegate import Outcome
from sluicegate_starlette import Answer, gated_sse_route
from tests.services.provider_clients import ASYNC_OPENERS
from tests.services.stop_checks import FIRST, HELD_TOKENS, MODES, SCRIPTS, check, make_filter, wait_tokens
from tests.services.uvicorn_server import serve

pytestmark = pytest.mark.usefixtures("no_gc")
CLIENTS = ["openai", "anthropic", "anthropic-manager", "litellm"]


@pytest.fixture(scope="module")
def app(llm_provider: Any) -> Iterator[tuple[str, list[Outcome], dict[str, str]]]:
    _, provider_url = llm_provider
    outcomes: list[Outcome] = []
    chosen = {"client": "openai"}

    async def answer(chat: Any, request: Any) -> Answer:
        return Answer(await ASYNC_OPENERS[chosen["client"]](provider_url), make_filter())

    async def on_done(request: Any, outcome: Outcome) -> None:
        outcomes.append(outcome)

    starlette = Starlette(routes=[gated_sse_route("/chat", answer, on_done=on_done)])
    with serve(starlette) as server:
        yield server.url, outcomes, chosen


def _events(response: httpx.Response) -> Iterator[tuple[str, dict[str, Any]]]:
    event = None
    for line in response.iter_lines():
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event is not None:
            yield event, json.loads(line[6:])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("client", CLIENTS)
def test_endpoint(llm_provider: Any, app: Any, client: str, mode: str) -> None:
    provider, _ = llm_provider
    url, outcomes, chosen = app
    chosen["client"] = client
    provider.script(SCRIPTS[mode])
    number = len(provider.generations) + 1
    seen = len(outcomes)
    body = {"question": "When is the library open?"}
    with httpx.Client(timeout=10) as http, http.stream("POST", url + "/chat", json=body) as response:
        assert response.status_code == 200
        events = _events(response)
        assert next(events) == ("delta", {"text": FIRST})
        if mode == "stop":
            rest = list(events)
            assert [e for e, _ in rest] == ["guard", "done"] and rest[-1][1]["reason"] == "stopped"
        else:
            if mode == "held":
                wait_tokens(provider, 3 + HELD_TOKENS, number)
            left = time.monotonic()
    gen = provider.generations[number - 1]
    deadline = time.monotonic() + 5
    while len(outcomes) <= seen and time.monotonic() < deadline:
        time.sleep(0.005)
    outcome = outcomes[seen]
    if mode == "stop":
        check(gen, mode, usage=outcome.usage)
    else:
        assert outcome.reason == "cancelled"
        check(gen, mode, left=left, usage=outcome.usage)
