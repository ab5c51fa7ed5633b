"""The app the server, nginx and browser tests talk to: gated_sse_route over scripted providers.

Each question names a script; the app keeps every provider it opened (`app.state.providers`) and every
outcome `on_done` saw (`app.state.outcomes`), so a test can check that the provider really stopped.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request

from sluicegate import Outcome, Redactor, SentenceGate
from sluicegate.scripted import ScriptedProvider
from sluicegate_starlette import Answer, ChatRequest, client_js_route, gated_sse_route

from .support import GROUNDED, INVENTED, SOURCES, gate

Script = Callable[[], ScriptedProvider]


def sentences(text: str) -> list[str]:
    """The answer cut after each sentence: one piece per sentence, as a slow model would send it."""
    return re.findall(r".*?\]\.\s*|.+$", text)


SCRIPTS: dict[str, Script] = {
    "grounded": lambda: ScriptedProvider.of(GROUNDED, 6, delay=0.002),
    "invented": lambda: ScriptedProvider.of(INVENTED, 6, delay=0.002),
    "email": lambda: ScriptedProvider(["You can write to jane.doe@exa", "mple.com for help. The desk answers."]),
    "slow": lambda: ScriptedProvider(sentences(GROUNDED + " " + GROUNDED), delay=0.3),  # 6 sentences, one per 0.3 s
    "long": lambda: ScriptedProvider.of(GROUNDED * 20, 4, delay=0.05),
    "idle": lambda: ScriptedProvider(["The library opens at 9:00 on weekdays [S1]. ", "x"], hold_at=1),
    "fail_early": lambda: ScriptedProvider(["never"], fail_at=0),
    "fail_late": lambda: ScriptedProvider.of(GROUNDED, 9, fail_at=7),
}


def make_app(
    scripts: dict[str, Script] = SCRIPTS, *, middleware: list[Middleware] | None = None, **options: Any
) -> Starlette:
    providers: list[ScriptedProvider] = []
    outcomes: list[Outcome] = []
    lock = threading.Lock()

    def answer(chat: ChatRequest, request: Request) -> Answer:
        if chat.question == "raise":
            raise ConnectionError("could not reach the provider")
        provider = scripts[chat.question]()
        with lock:
            providers.append(provider)
        if chat.question == "email":
            return Answer(provider.stream(), Redactor())
        if chat.question == "slow":  # the gate alone: one delta per sentence, so arrival maps to pieces
            return Answer(provider.stream(), SentenceGate(SOURCES))
        return Answer(provider.stream(), gate())

    def on_done(request: Request, outcome: Outcome) -> None:
        with lock:
            outcomes.append(outcome)

    options.setdefault("on_done", on_done)
    app = Starlette(
        routes=[gated_sse_route("/chat", answer, **options), client_js_route()], middleware=middleware or []
    )
    app.state.providers = providers
    app.state.outcomes = outcomes
    return app
