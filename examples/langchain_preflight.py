"""LangChain, offline: PreflightGate (refusal rules, evidence threshold) in front of SourceGate, over a real
InMemoryVectorStore with sluicegate's hashing embedding; the chat model is scripted and counts its calls.

    pip install "sluicegate[langchain]"
    python examples/langchain_preflight.py
"""

from __future__ import annotations

import os

os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")
os.environ.setdefault("LANGSMITH_TRACING", "false")

from typing import Any  # noqa: E402

from _preflight_show import ANSWER, QUESTIONS, SOURCES  # noqa: E402
from _show import pieces  # noqa: E402
from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import Embeddings  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate  # noqa: E402
from langchain_core.runnables import RunnablePassthrough  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore  # noqa: E402

from sluicegate.evidence import HashingEmbedding  # noqa: E402
from sluicegate_langchain import PreflightGate, SourceGate  # noqa: E402


class HashingEmbeddings(Embeddings):
    """A stand-in embedding with no learned meaning (a threshold on it is a default, not a calibration)."""

    inner = HashingEmbedding(2048)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.inner.embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed(text)


class ScriptedChatModel(BaseChatModel):
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        self.calls += 1
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=ANSWER))])

    def _stream(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any):
        self.calls += 1
        for piece in pieces(ANSWER, 5):
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))


class GuardEvents(BaseCallbackHandler):
    def __init__(self) -> None:
        self.got: list[dict] = []

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        if name == "guard":
            self.got.append(data)


store = InMemoryVectorStore(HashingEmbeddings())
store.add_documents([Document(page_content=t, id=f"s{i}") for i, t in enumerate(SOURCES, start=1)])
prompt = ChatPromptTemplate.from_messages(
    [
        ("system", "Answer only from the numbered sources; cite each sentence, e.g. [S1].\n\n{context}"),
        ("human", "{question}"),
    ]
)
model = ScriptedChatModel()
chain = RunnablePassthrough.assign(
    answer=PreflightGate(SourceGate(prompt | model), vectorstore=store, score_kind="cosine")
)

if __name__ == "__main__":
    for label, question in QUESTIONS:
        events = GuardEvents()
        before = model.calls
        answer = "".join(
            c["answer"] for c in chain.stream({"question": question}, config={"callbacks": [events]}) if "answer" in c
        )
        print(f"{label}: {question!r}")
        print(f"  reader sees: {answer!r}")
        print(f"  guard events: {events.got}")
        print(f"  model calls: {model.calls - before}")
