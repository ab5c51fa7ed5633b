"""A LangChain RAG chain whose answer streams through the sluicegate SentenceGate, offline.

The chat model is scripted (it streams the planted answer of examples/_show.py in small pieces, one of its
sentences citing a figure that is in no source), so this runs without a network or an API key. It prints what
the reader sees, chunk by chunk, then how far the model got before the gate cancelled it and what the stop cost.

    pip install "sluicegate[langchain]"
    python examples/langchain_gate.py
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")
os.environ.setdefault("LANGSMITH_TRACING", "false")

from _show import PLANTED, QUESTION, SOURCES, pieces  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate  # noqa: E402
from langchain_core.runnables import RunnableLambda, RunnablePassthrough  # noqa: E402

from sluicegate_langchain import SourceGate, UsageCallbackHandler, assign  # noqa: E402

ANSWER = PLANTED  # its third sentence cites [S1] for a figure in no source


class ScriptedChatModel(BaseChatModel):
    """Streams ANSWER in 5-character pieces and counts them (a stand-in for a real provider)."""

    produced: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=ANSWER))])

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Iterator[ChatGenerationChunk]:
        for piece in pieces(ANSWER, 5):
            self.produced += 1
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))


def retrieve(question: str) -> list[Document]:
    return [Document(page_content=text) for text in SOURCES]


prompt = ChatPromptTemplate.from_messages(
    [
        ("system", "Answer only from the numbered sources and cite each sentence, e.g. [S1].\n\n{context}"),
        ("human", "{question}"),
    ]
)
model = ScriptedChatModel()
rag = RunnablePassthrough.assign(sources=RunnableLambda(lambda x: retrieve(x["question"]))) | assign(
    answer=SourceGate(prompt | model)
)

if __name__ == "__main__":
    usage = UsageCallbackHandler()
    print("reader sees:")
    for chunk in rag.stream({"question": QUESTION}, config={"callbacks": [usage]}):
        if "answer" in chunk:
            print(f"  {chunk['answer']!r}")
    total = len(pieces(ANSWER, 5))
    print(f"model pieces produced: {model.produced} of {total}")
    for run in usage.runs:
        print(f"usage: {run.usage.output_tokens} output tokens ({run.usage.source}), run ended by {run.ended}")
