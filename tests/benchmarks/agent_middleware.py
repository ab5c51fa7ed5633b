"""LangChain's own `PIIMiddleware` beside sluicegate's `GateMiddleware`, on the same create_agent inputs.

    python tests/benchmarks/agent_middleware.py           # or section 7 of run_all.py
    python tests/benchmarks/agent_middleware.py --quick   # three chunkings each (a smoke run)

A scripted chat model (no network) streams answers carrying planted e-mail addresses, one of them 144
characters long (past PIIMiddleware's 128-character look-back), at several chunkings. Both middlewares are
asked to redact e-mail addresses in the model's output (`PIIMiddleware("email", strategy="redact",
apply_to_output=True)`; `GateMiddleware(filter_factory=lambda texts: Redactor())`). For each surface a user
reads we print:

- leaks: runs where any 6 characters of a planted address are visible in the text;
- variant: runs whose shown text differs from that middleware's own output for the whole answer in one piece
  (not chunk-invariant);
- first visible: model characters streamed before the first visible character (mean over chunkings), and the
  wall time to it in ms (mean).

Surfaces: `stream_events(version="v3")` text deltas (where PIIMiddleware redacts in flight), `stream(...,
stream_mode="messages")` (v1 callbacks) and the final state's AI message.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")
os.environ.setdefault("LANGSMITH_TRACING", "false")
ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "integrations")]
warnings.simplefilter("ignore")

from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import PIIMiddleware  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.language_models.chat_models import generate_from_stream  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage  # noqa: E402
from langchain_core.outputs import ChatGenerationChunk, ChatResult  # noqa: E402

from sluicegate import Redactor  # noqa: E402
from sluicegate_langchain import GateMiddleware  # noqa: E402

SHORT = "jane.doe@example.com"
LONG = "a" * 60 + "." + "b" * 40 + "@" + "c" * 30 + ".example.com"
FILLER = "The reading room is quiet in the morning and busy after lunch. " * 3
ANSWERS = {
    "short": f"{FILLER}Write to {SHORT} for details, please.",
    "long": f"Write to {LONG} for details. {FILLER}",
}
INPUT = {"messages": [("user", "Whom do I write to?")]}


def chunkings(text: str, quick: bool = False) -> dict[str, list[str]]:
    sizes = (7,) if quick else (1, 3, 7, 16)
    out = {f"size {n}": [text[i : i + n] for i in range(0, len(text), n)] for n in sizes}
    cut = text.index(".co") + 3  # right after "...example.co", before the final "m"
    out["split after .co"] = [text[:cut], text[cut:]]
    out["whole"] = [text]
    return out


class Scripted(BaseChatModel):
    pieces: list[str]
    streamed: int = 0

    @property
    def _llm_type(self) -> str:
        return "bench-scripted"

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Iterator[ChatGenerationChunk]:
        for piece in self.pieces:
            self.streamed += len(piece)
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
        yield ChatGenerationChunk(message=AIMessageChunk(content="", response_metadata={"finish_reason": "stop"}))

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        return generate_from_stream(self._stream(messages, stop))


def middleware(name: str) -> Any:
    if name == "PIIMiddleware":
        return PIIMiddleware("email", strategy="redact", apply_to_output=True, apply_to_input=False)
    return GateMiddleware(filter_factory=lambda texts: Redactor())


def run(name: str, surface: str, pieces: list[str]) -> tuple[str, int | None, float | None]:
    """Shown text, model characters streamed before the first visible one, ms to it."""
    model = Scripted(pieces=pieces)
    agent = create_agent(model, [], middleware=[middleware(name)])
    text, first_pos, first_ms = "", None, None
    t0 = time.perf_counter()

    def seen(delta: str) -> None:
        nonlocal text, first_pos, first_ms
        if delta and first_pos is None:
            first_pos, first_ms = model.streamed, (time.perf_counter() - t0) * 1000
        text += delta

    if surface == "v3 events":
        for event in agent.stream_events(INPUT, version="v3"):
            if event.get("method") == "messages":
                data = event["params"]["data"][0]
                if data.get("event") == "content-block-delta" and data["delta"].get("type") == "text-delta":
                    seen(data["delta"]["text"])
    elif surface == "messages mode":
        for msg, meta in agent.stream(INPUT, stream_mode="messages"):
            if meta.get("langgraph_node") == "model" and isinstance(msg, AIMessageChunk):
                seen(msg.text)
    else:
        state = agent.invoke(INPUT)
        seen("".join(m.text for m in state["messages"] if isinstance(m, AIMessage)))
    return text, first_pos, first_ms


def leaked(text: str) -> bool:
    """Any 6 characters of a planted address visible (PIIMiddleware's split runs show `aaaaaa[REDACTED_EMAIL]`
    `ample.com`): pieces that also occur in the surrounding text do not count."""
    context = FILLER + " Write to  for details, please."
    return any(
        address[i : i + 6] in text and address[i : i + 6] not in context
        for address in (SHORT, LONG)
        for i in range(len(address) - 5)
    )


HEADER = "| middleware | surface | answer | runs | leaks | variant | first visible (model chars) | first visible (ms) |"


def table(quick: bool = False) -> tuple[str, dict[str, float]]:
    """The markdown table, and {"<middleware>|<surface>|<answer>|leaks": n, ...|variant: n} for run_all."""
    lines = [HEADER, "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    facts: dict[str, float] = {}
    for surface in ("v3 events", "messages mode", "final state"):
        for name in ("PIIMiddleware", "GateMiddleware"):
            for label, answer in ANSWERS.items():
                whole = run(name, surface, [answer])[0]
                rows = [run(name, surface, split) for split in chunkings(answer, quick).values()]
                leaks = sum(leaked(t) for t, _, _ in rows)
                variant = sum(t != whole for t, _, _ in rows)
                pos = [p for _, p, _ in rows if p is not None]
                ms = [m for _, _, m in rows if m is not None]
                mean_pos = f"{sum(pos) / len(pos):.0f}" if pos else "-"
                mean_ms = f"{sum(ms) / len(ms):.1f}" if ms else "-"
                lines.append(
                    f"| {name} | {surface} | {label} | {len(rows)} | {leaks} | {variant} | {mean_pos} | {mean_ms} |"
                )
                facts[f"{name}|{surface}|{label}|leaks"] = leaks
                facts[f"{name}|{surface}|{label}|variant"] = variant
    return "\n".join(lines), facts


def main(argv: list[str] | None = None) -> None:
    quick = "--quick" in (argv if argv is not None else sys.argv[1:])
    print(table(quick)[0])


if __name__ == "__main__":
    main()
