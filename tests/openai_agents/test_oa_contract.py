"""The adapter contract for the OpenAI Agents SDK: `guarded_stream(Runner.run_streamed(agent, ...), filter)` with a
real `Agent` and `Runner`; only the model is scripted (Responses API events, `oa_fakes.ScriptedModel`)."""

from __future__ import annotations

from typing import Any

from agents import Agent, Runner

from sluicegate import SentenceGate
from sluicegate_openai_agents import guarded_stream
from tests.adapter_contract import AdapterContract, Case, Ran, aread
from tests.call.helpers import SOURCES

from .oa_fakes import ScriptedModel


class TestOpenAIAgentsContract(AdapterContract):
    supports_budget = False  # the run's model call is the SDK's; a spend cap is the app's (docs/openai_agents.md)

    def run(self, case: Case) -> Ran:
        model = ScriptedModel([list(case.pieces)], fail_at=case.fail_at)

        async def open_chunks() -> Any:
            agent = Agent(name="answer", instructions="Answer from the sources.", model=model)
            return guarded_stream(Runner.run_streamed(agent, "When?"), SentenceGate(SOURCES))

        shown = aread(open_chunks, case)
        return Ran(shown, model.calls, model.closed, model.produced)
