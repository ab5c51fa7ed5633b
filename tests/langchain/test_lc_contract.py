"""The adapter contract for LangChain: `PreflightGate(SourceGate(prompt | model, cap=...))` in a real LCEL chain
with a real InMemoryVectorStore, sync (`stream`) and async (`astream`); only the chat model is scripted."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.vectorstores import InMemoryVectorStore
from lc_fakes import ScriptedChatModel

from sluicegate.evidence import HashingEmbedding
from sluicegate_langchain import PreflightGate, SourceGate
from tests.adapter_contract import AdapterContract, Case, Ran, aread, read
from tests.call.helpers import SOURCES

PROMPT = ChatPromptTemplate.from_messages(
    [("system", "Answer only from the numbered sources; cite them as [S1].\n\n{context}"), ("human", "{question}")]
)


class _Embeddings(Embeddings):
    def __init__(self) -> None:
        self.inner = HashingEmbedding(2048)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.inner.embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed(text)


class FailingChatModel(ScriptedChatModel):
    """The scripted model, whose provider connection resets instead of piece `fail_at`; counts its runs."""

    fail_at: int | None = None
    runs: int = 0

    def _items(self) -> Iterator[tuple[str | None, ChatGenerationChunk]]:
        self.runs += 1
        for i, item in enumerate(super()._items()):
            if i == self.fail_at:
                raise ConnectionError("provider went away")
            yield item


def _chain(case: Case) -> tuple[Any, FailingChatModel, dict[str, Any]]:
    model = FailingChatModel(pieces=case.pieces, fail_at=case.fail_at)
    answer = SourceGate(PROMPT | model, cap=case.budget)
    if case.question is None:
        return answer, model, {"question": "q", "sources": SOURCES}
    store = InMemoryVectorStore(_Embeddings())
    store.add_documents([Document(page_content=t, id=f"doc{i}") for i, t in enumerate(SOURCES, start=1)])
    return PreflightGate(answer, vectorstore=store), model, {"question": case.question}


def _ran(shown: str, model: FailingChatModel) -> Ran:
    return Ran(shown, model.runs, model.record.closed, model.record.produced)


class TestLangChainContract(AdapterContract):
    supports_preflight = True

    def run(self, case: Case) -> Ran:
        runnable, model, inp = _chain(case)
        return _ran(read(runnable.stream(inp), case), model)


class TestLangChainAsyncContract(AdapterContract):
    supports_preflight = True

    def run(self, case: Case) -> Ran:
        runnable, model, inp = _chain(case)

        async def open_chunks() -> Any:
            return runnable.astream(inp)

        return _ran(aread(open_chunks, case), model)
