"""NeMo with the real SentenceGate / Redactor."""

from __future__ import annotations

import pytest
from nemoguardrails import LLMRails

import sluicegate
import sluicegate_nemo as sn
from sluicegate.sources import gate_from
from sluicegate.testing import pieces_of, run_filter
from tests.nemo.scripted import ScriptedModel, agen
from tests.nemo.test_stream import USER, visible

SOURCES = ["The library opens at nine on weekdays.", "Late fees were abolished in 2021."]
GATE_OK = "The library opens at nine [S1]. Late fees ended in 2021 [S2]. "
GATE_BAD = "The library opens at nine [S1]. Late fees ended in 2019 [S2]. Ask the desk [S1]."
PII = "Write to jane.doe@example.com today. The desk is open. "


async def _stream(rails: LLMRails, make, text: str, size: int):
    s = sn.guarded_stream(rails, messages=USER, generator=agen(pieces_of(text, size)), filter=make())
    return [c async for c in s], s


@pytest.mark.parametrize("size", [1, 3, 7])
@pytest.mark.parametrize("text", [GATE_OK, GATE_BAD])
async def test_sentence_gate_through_nemo_matches_the_whole_string(app_rails: LLMRails, text: str, size: int) -> None:
    make = lambda: sluicegate.SentenceGate(SOURCES)  # noqa: E731
    whole = run_filter(make, [text])
    chunks, s = await _stream(app_rails, make, text, size)
    assert visible(chunks) == whole.text and s.blocked == whole.stopped
    assert "2019" not in visible(chunks)


@pytest.mark.parametrize("size", [1, 3, 7])
async def test_redactor_through_nemo_redacts_pii(app_rails: LLMRails, size: int) -> None:
    make = lambda: sluicegate.Redactor()  # noqa: E731
    chunks, s = await _stream(app_rails, make, PII, size)
    assert visible(chunks) == run_filter(make, [PII]).text
    assert "jane.doe@example.com" not in "".join(chunks)


async def test_generate_async_applies_the_redaction_as_a_transform() -> None:
    rails = LLMRails(sn.sluicegate_config(), llm=ScriptedModel([PII]))
    sn.install(rails, lambda context: sluicegate.Redactor())
    result = await rails.generate_async(messages=USER)
    # NeMo strips the surrounding whitespace of a non-streamed bot message; the redaction itself is exact.
    assert result["content"] == run_filter(sluicegate.Redactor, [PII]).text.strip()
    assert "jane.doe@example.com" not in result["content"]


@pytest.mark.parametrize("text", [GATE_OK, GATE_BAD])
async def test_per_request_sources_from_the_context_message(text: str) -> None:
    rails = LLMRails(sn.sluicegate_config())
    sn.install(rails, gate_from("sources", redact=True))
    messages = [{"role": "context", "content": {"sources": SOURCES}}, *USER]
    s = sn.guarded_stream(rails, messages=messages, generator=agen(pieces_of(text, 3)))
    chunks = [c async for c in s]
    whole = run_filter(lambda: gate_from("sources", redact=True)({"sources": SOURCES}), [text])
    assert visible(chunks) == whole.text and s.blocked == whole.stopped and "[S" not in visible(chunks)
    with pytest.raises(ValueError, match="'sources'"):
        sn.guarded_stream(rails, messages=USER, generator=agen([text]))  # no sources: refused, nothing streamed
