"""NeMo with the real SentenceGate / Redactor. PENDING: these run once those filters land on main
(`git merge main`); until then they are skipped with the reason below, and nothing else depends on them."""

from __future__ import annotations

import pytest
from nemoguardrails import LLMRails

import sluicegate
import sluicegate_nemo as sn
from sluicegate.testing import pieces_of, run_filter
from tests.nemo.scripted import ScriptedModel, agen
from tests.nemo.test_stream import USER, visible

needs_gate = pytest.mark.skipif(not hasattr(sluicegate, "SentenceGate"), reason="PENDING: SentenceGate not on main yet")
needs_redactor = pytest.mark.skipif(not hasattr(sluicegate, "Redactor"), reason="PENDING: Redactor not on main yet")

SOURCES = ["The library opens at nine on weekdays.", "Late fees were abolished in 2021."]
GATE_OK = "The library opens at nine [S1]. Late fees ended in 2021 [S2]. "
GATE_BAD = "The library opens at nine [S1]. Late fees ended in 2019 [S2]. Ask the desk [S1]."
PII = "Write to jane.doe@example.com today. The desk is open. "


async def _stream(rails: LLMRails, make, text: str, size: int):
    s = sn.guarded_stream(rails, messages=USER, generator=agen(pieces_of(text, size)), filter=make())
    return [c async for c in s], s


@needs_gate
@pytest.mark.parametrize("size", [1, 3, 7])
@pytest.mark.parametrize("text", [GATE_OK, GATE_BAD])
async def test_sentence_gate_through_nemo_matches_the_whole_string(app_rails: LLMRails, text: str, size: int) -> None:
    make = lambda: sluicegate.SentenceGate(SOURCES)  # noqa: E731
    whole = run_filter(make, [text])
    chunks, s = await _stream(app_rails, make, text, size)
    assert visible(chunks) == whole.text and s.blocked == whole.stopped
    assert "2019" not in visible(chunks)


@needs_redactor
@pytest.mark.parametrize("size", [1, 3, 7])
async def test_redactor_through_nemo_redacts_pii(app_rails: LLMRails, size: int) -> None:
    make = lambda: sluicegate.Redactor()  # noqa: E731
    chunks, s = await _stream(app_rails, make, PII, size)
    assert visible(chunks) == run_filter(make, [PII]).text
    assert "jane.doe@example.com" not in "".join(chunks)


@needs_redactor
async def test_generate_async_applies_the_redaction_as_a_transform() -> None:
    rails = LLMRails(sn.sluicegate_config(), llm=ScriptedModel([PII]))
    sn.install(rails, lambda context: sluicegate.Redactor())
    result = await rails.generate_async(messages=USER)
    assert result["content"] == run_filter(sluicegate.Redactor, [PII]).text
    assert "jane.doe@example.com" not in result["content"]
