"""sluicegate's system prompt (`sluicegate.prompts`) as a LangChain `ChatPromptTemplate`.

`SourceGate(model)` puts it in front of a bare chat model by default, filled from its gate's language and
refusal token; `SourceGate(prompt | model)` keeps the user's prompt. `gated_prompt(...) | model` uses it
explicitly.
"""

from __future__ import annotations

from typing import Any

from langchain_core.prompts import ChatPromptTemplate

from sluicegate.prompts import PromptSettings, template_prompt


def gated_prompt(
    *,
    gate: Any = None,
    settings: PromptSettings | None = None,
    language: str | None = None,
    subject: str | None = None,
    context_key: str = "context",
    question_key: str = "question",
) -> ChatPromptTemplate:
    """The rules in the system message; the numbered sources (`{context}`) and the question in the human one.

    `gate`/`settings`: the filter (or settings) whose language and refusal token the prompt must name.
    """
    p = template_prompt(
        gate=gate, settings=settings, language=language, subject=subject, context=context_key, question=question_key
    )
    return ChatPromptTemplate.from_messages([("system", p.system), ("human", p.user)])
