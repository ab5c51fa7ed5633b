"""Design (b): a GatedLLM sends sluicegate's prompt for the stream's gate before the prompt NeMo built."""

from __future__ import annotations

from typing import Any

from nemoguardrails import LLMRails

import sluicegate_nemo as sn
from sluicegate.prompts import PromptSettings, system_prompt
from sluicegate.sources import gate_from
from sluicegate.testing import pieces_of
from tests.nemo.scripted import ScriptedModel
from tests.nemo.test_stream import visible

SOURCES = ["The library opens at nine on weekdays.", "Late fees were abolished in 2021."]
ANSWER = "The library opens at nine [S1]."


class Recording(ScriptedModel):
    def __init__(self, *scripts: list[str]) -> None:
        super().__init__(*scripts)
        self.prompts: list[Any] = []

    async def stream_async(self, prompt: Any, **kwargs: Any):  # type: ignore[override]
        self.prompts.append(prompt)
        async for chunk in super().stream_async(prompt, **kwargs):
            yield chunk


def _messages(question: str) -> list[dict]:
    return [{"role": "context", "content": {"sources": SOURCES}}, {"role": "user", "content": question}]


async def test_nemos_model_call_gets_the_gates_prompt_and_numbered_sources() -> None:
    model = Recording(pieces_of(ANSWER, 4))
    rails = LLMRails(sn.sluicegate_config(), llm=sn.GatedLLM(model))
    sn.install(rails, gate_from("sources", language="fr", refusal_token="AUCUNE"))
    chunks = [c async for c in sn.guarded_stream(rails, messages=_messages("Quand ouvre-t-elle ?"))]
    assert visible(chunks) == "The library opens at nine."
    sent = model.prompts[0]
    text = sent if isinstance(sent, str) else sent[0]["content"]
    assert text.startswith(system_prompt(settings=PromptSettings("fr", "AUCUNE", 2)))
    assert "Sources :\n[S1] The library opens at nine on weekdays.\n\n[S2] Late fees were abolished in 2021." in text
    assert "Quand ouvre-t-elle" in str(sent)  # NeMo's own prompt (the conversation) follows


async def test_prompt_false_sends_nemos_prompt_alone() -> None:
    model = Recording(pieces_of(ANSWER, 4))
    rails = LLMRails(sn.sluicegate_config(), llm=sn.GatedLLM(model, prompt=False))
    sn.install(rails, gate_from("sources"))
    [c async for c in sn.guarded_stream(rails, messages=_messages("When does it open?"))]
    assert "NO_ANSWER" not in str(model.prompts[0]) and "When does it open?" in str(model.prompts[0])
