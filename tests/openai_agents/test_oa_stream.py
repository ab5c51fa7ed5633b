"""`guarded_stream` over a real `Runner.run_streamed` with a scripted Responses-API model: chunk invariance with
the gate and the redactor, nothing unvalidated handed on, tool-call turns, early ends, usage."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agents import Agent, Runner, function_tool
from hypothesis import given
from hypothesis import strategies as st

from sluicegate import Pipeline, Redactor, SentenceGate, drive_text
from sluicegate_openai_agents import guarded_stream
from tests.call.helpers import pieces

from .oa_fakes import ScriptedModel, ToolCall

SOURCES = ["Ada Lovelace published her notes in 1843. Copies are sent by jane.doe@example.com on request."]
EMAIL = "jane.doe@example.com"
ANSWER = (
    f"She published her notes in 1843 [S1]. Copies come from {EMAIL} on request [S1]. "
    "She was paid 2019 pounds [S1]. More text follows here [S1]."
)
LAST_BAD = "She published her notes in 1843 [S1]. She was paid 2019 pounds [S1]."
PLANTED = (EMAIL, "2019")


def make_filter() -> Pipeline:
    return Pipeline(SentenceGate(SOURCES), Redactor())


def oracle(text: str) -> str:
    return "".join(drive_text([text], make_filter()))


def agent_for(model: ScriptedModel, **kwargs: Any) -> Agent[Any]:
    return Agent(name="answer", instructions="Answer from the sources.", model=model, **kwargs)


async def run_guarded(turns: list[Any], **kwargs: Any) -> tuple[list[str], Any, Any, ScriptedModel]:
    model = ScriptedModel(turns)
    result = Runner.run_streamed(agent_for(model, **kwargs), "When?")
    stream = guarded_stream(result, make_filter())
    chunks = [chunk async for chunk in stream]
    return chunks, stream, result, model


def shown(split: list[str]) -> list[str]:
    return asyncio.run(run_guarded([split]))[0]


def test_the_oracle_redacts_and_stops() -> None:
    expected = oracle(ANSWER)
    assert "1843" in expected and "[S1]" not in expected
    assert EMAIL not in expected and "2019" not in expected and "More text" not in expected


@given(st.lists(st.integers(min_value=1, max_value=len(ANSWER) - 1), max_size=40))
def test_gated_text_is_byte_identical_for_every_chunking(cuts: list[int]) -> None:
    chunks = shown(pieces(ANSWER, cuts))
    assert "".join(chunks) == oracle(ANSWER)
    assert all(isinstance(c, str) for c in chunks)
    assert not any(value in chunk for chunk in chunks for value in PLANTED)


@pytest.mark.parametrize("cut", range(1, len(ANSWER)))
def test_every_split_position(cut: int) -> None:
    assert "".join(shown(pieces(ANSWER, [cut]))) == oracle(ANSWER)


async def test_a_stop_cancels_the_run_before_the_model_ran_out() -> None:
    split = [ANSWER[i : i + 2] for i in range(0, len(ANSWER), 2)]
    chunks, stream, result, model = await run_guarded([split])
    assert stream.stopped and stream.outcome.reason == "stopped"
    assert model.closed and model.produced < len(split)
    assert chunks[-1].startswith("\n\n") and result.is_complete
    assert result.final_output is None  # the run never reached its end: no final output was made
    # the model was stopped before its turn ended, so the SDK built nothing from the planted text either
    assert result.new_items == [] and result.raw_responses == []
    assert not any(v in repr(e) for v in PLANTED for e in model.events if e.type != "response.output_text.delta")


async def test_a_stop_in_the_last_sentence_hands_on_nothing_unvalidated() -> None:
    """The violation is judged only when the stream ends, after the SDK has built its events for the whole turn
    (`response.output_item.done`, `response.completed`, `message_output_created` carry the planted value):
    none of them is handed on; the SDK's own result does hold it (what docs/openai_agents.md says not to read)."""
    chunks, stream, result, model = await run_guarded([[LAST_BAD]])
    assert stream.stopped and "2019" not in "".join(chunks)
    assert all(isinstance(c, str) for c in chunks)
    assert any("2019" in json.dumps(e.model_dump()) for e in model.events if e.type == "response.completed")
    assert "2019" in str(result.final_output)


async def test_a_tool_call_turn_runs_and_its_arguments_are_never_handed_on() -> None:
    looked_up: list[str] = []

    @function_tool
    def lookup(q: str) -> str:
        """Look a question up in the catalogue."""
        looked_up.append(q)
        return SOURCES[0]

    answer = [ANSWER[i : i + 7] for i in range(0, len(ANSWER), 7)]
    chunks, stream, _, model = await run_guarded(
        [ToolCall("lookup", json.dumps({"q": "paid 2019 secret"})), answer], tools=[lookup]
    )
    assert looked_up == ["paid 2019 secret"] and model.calls == 2
    assert "".join(chunks) == oracle(ANSWER)
    assert not any("secret" in c for c in chunks)
    # usage: the tool turn's provider figure (5) plus the stopped answer turn's byte estimate
    first, second = stream.usage_by_response
    assert first.source == "provider" and first.output_tokens == 5
    assert second.source == "estimate" and second.output_tokens == second.received_bytes > 0
    assert stream.usage.output_tokens == 5 + second.output_tokens


async def test_usage_of_a_stopped_run_is_not_below_what_was_received() -> None:
    split = [ANSWER[i : i + 3] for i in range(0, len(ANSWER), 3)]
    _, stream, result, model = await run_guarded([split])
    received = "".join(e.delta for e in model.events if e.type == "response.output_text.delta")
    assert stream.usage.output_tokens >= len(received.encode()) > 0
    assert stream.usage.output_tokens >= result.context_wrapper.usage.output_tokens  # the SDK counted nothing


async def test_a_completed_run_reports_the_provider_figure() -> None:
    passing = "She published her notes in 1843 [S1]."
    chunks, stream, result, _ = await run_guarded([[passing[:9], passing[9:]]])
    assert "".join(chunks) == "She published her notes in 1843."
    assert stream.usage.source == "provider" and stream.usage.output_tokens == 2
    assert result.context_wrapper.usage.output_tokens == 2


async def test_the_reader_leaving_cancels_the_run_and_closes_the_model() -> None:
    text = "She published her notes in 1843 [S1]. " * 40
    model = ScriptedModel([[text[i : i + 4] for i in range(0, len(text), 4)]])
    result = Runner.run_streamed(agent_for(model), "When?")
    stream = guarded_stream(result, make_filter())
    async for _ in stream:
        break
    await stream.aclose()
    assert model.closed and model.produced < len(text) // 4
    assert stream.outcome.reason == "cancelled" and result.is_complete


async def test_closed_before_the_first_chunk_cancels_the_run() -> None:
    model = ScriptedModel([["She published her notes in 1843 [S1]. "] * 50])
    result = Runner.run_streamed(agent_for(model), "When?")
    stream = guarded_stream(result, make_filter())
    await stream.aclose()
    assert result.is_complete and model.produced < 50


async def test_a_provider_error_releases_only_validated_text_and_is_raised() -> None:
    text = "She published her notes in 1843 [S1]. She was paid 2019 pounds [S1]."
    model = ScriptedModel([[text[i : i + 5] for i in range(0, len(text), 5)]], fail_at=10)
    stream = guarded_stream(Runner.run_streamed(agent_for(model), "When?"), make_filter())
    chunks: list[str] = []
    with pytest.raises(ConnectionError):
        async for chunk in stream:
            chunks.append(chunk)
    assert "".join(chunks) == "She published her notes in 1843."
    assert stream.outcome.reason == "truncated"
