"""`gate_guardrail` on the non-streamed path: a real `Runner.run` with the scripted model (and one with the SDK's
Chat Completions model against the scripted provider): it trips on a stop, passes clean text, and
`guarded_output` is the gated text (markers stripped, values redacted), never the model's own."""

from __future__ import annotations

from typing import Any

import pytest
from agents import Agent, ModelSettings, OpenAIChatCompletionsModel, OutputGuardrailTripwireTriggered, Runner

from sluicegate_openai_agents import Gated, gate_guardrail, gate_text, guarded_output
from tests.services.provider_clients import openai_aclient

from .oa_fakes import ScriptedModel
from .test_oa_stream import ANSWER, EMAIL, make_filter, oracle

PASSING = f"She published her notes in 1843 [S1]. Copies come from {EMAIL} on request [S1]."


def agent(model: Any) -> Agent[Any]:
    return Agent(name="answer", instructions="Answer.", model=model, output_guardrails=[gate_guardrail(make_filter)])


async def test_passes_clean_text_and_records_what_to_show() -> None:
    result = await Runner.run(agent(ScriptedModel([[PASSING]])), "When?")
    assert result.final_output == PASSING  # the SDK keeps the model's own text: never show it
    shown = guarded_output(result)
    assert shown == oracle(PASSING) == gate_text(PASSING, make_filter()).shown
    assert "[S1]" not in shown and EMAIL not in shown and "1843" in shown


async def test_trips_on_a_violation_with_the_gated_text_and_reasons() -> None:
    with pytest.raises(OutputGuardrailTripwireTriggered) as caught:
        await Runner.run(agent(ScriptedModel([[ANSWER]])), "When?")
    info = caught.value.guardrail_result.output.output_info
    assert isinstance(info, Gated) and info.stopped and info.reasons
    assert info.shown == oracle(ANSWER) and "2019" not in info.shown and EMAIL not in info.shown


async def test_a_structured_output_trips_fail_closed() -> None:
    check = gate_guardrail(make_filter)
    out = await check.run(agent=Agent(name="a"), agent_output={"text": "2019"}, context=None)  # type: ignore[arg-type]
    assert out.output.tripwire_triggered and out.output.output_info.reasons == ("not_text",)


async def test_guarded_output_refuses_a_result_without_the_guardrail() -> None:
    result = await Runner.run(Agent(name="a", model=ScriptedModel([[PASSING]])), "When?")
    with pytest.raises(LookupError):
        guarded_output(result)


async def test_with_the_chat_completions_model_over_http(llm_provider: Any) -> None:
    provider, url = llm_provider
    provider.script(["She published", " her notes in 1843 [S1].", " She was paid 2019 pounds [S1]."])
    model = OpenAIChatCompletionsModel(model="m", openai_client=openai_aclient(url))
    bot = Agent(name="a", model=model, model_settings=ModelSettings(), output_guardrails=[gate_guardrail(make_filter)])
    with pytest.raises(OutputGuardrailTripwireTriggered) as caught:
        await Runner.run(bot, "When?")
    assert caught.value.guardrail_result.output.output_info.shown.startswith("She published her notes in 1843.")


def test_without_the_sdk_the_import_error_names_the_extra() -> None:
    from tests.support import import_error_without

    assert 'pip install "sluicegate[openai-agents]"' in import_error_without("agents", "sluicegate_openai_agents")
