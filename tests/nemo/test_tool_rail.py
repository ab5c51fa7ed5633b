"""The sluicegate tool output rail in a real LLMRails (passthrough mode) with a scripted tool-calling model."""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")

import pytest
from nemoguardrails import LLMRails, RailsConfig
from nemoguardrails.types import LLMResponse, ToolCall, ToolCallFunction

import sluicegate_nemo as sn
from tests.lifecycle.helpers import TOOLS, TRANSFER_ARGS


class ToolModel:
    """A scripted NeMo `LLMModel` answering with one tool call (only the model is fake)."""

    model_name = "scripted-tools"
    provider_name: str | None = "test"
    provider_url: str | None = None

    def __init__(self) -> None:
        self.arguments: dict[str, Any] = {}

    async def generate_async(self, prompt: Any, *, stop: Any = None, **kwargs: Any) -> LLMResponse:
        call = ToolCall(id="call_1", function=ToolCallFunction(name="transfer", arguments=self.arguments))
        return LLMResponse(content="", tool_calls=[call], finish_reason="tool_calls")

    async def stream_async(self, prompt: Any, *, stop: Any = None, **kwargs: Any) -> Any:
        raise NotImplementedError


@pytest.fixture(scope="module")
def setup() -> tuple[LLMRails, ToolModel, sn.ToolCallRail]:
    model = ToolModel()
    rails = LLMRails(sn.tool_rail_config(), llm=model)

    def limit(t: Any) -> None:
        if t.amount_cents > 200_000:
            raise ValueError("over the limit")

    rail = sn.install_tool_rail(rails, TOOLS, rules={"transfer": limit})
    return rails, model, rail


async def ask(setup: tuple[LLMRails, ToolModel, sn.ToolCallRail], arguments: dict[str, Any]) -> Any:
    rails, model, _ = setup
    model.arguments = arguments
    return await rails.generate_async(messages=[{"role": "user", "content": "pay the rent"}])


async def test_valid_call_passes(setup: Any) -> None:
    message = await ask(setup, TRANSFER_ARGS)
    assert message["tool_calls"][0]["function"]["arguments"] == TRANSFER_ARGS
    assert setup[2].rejections == ()


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({**TRANSFER_ARGS, "amount_cents": "125000"}, "schema"),  # no coercion
        ({**TRANSFER_ARGS, "approved": True}, "schema"),  # extra="forbid"
        ({}, "schema"),  # what NeMo's client makes of truncated arguments
        ({**TRANSFER_ARGS, "amount_cents": 900_000}, "business_rule"),
        ({**TRANSFER_ARGS, "amount_cents": float("nan")}, "non_finite_number"),
    ],
)
async def test_rejected_calls_are_withheld(setup: Any, arguments: dict[str, Any], code: str) -> None:
    message = await ask(setup, arguments)
    assert not message.get("tool_calls")
    assert [r.code for r in setup[2].rejections] == [code]


def test_abort_in_a_tool_rail_does_not_withhold_calls() -> None:
    """Why the rail replaces $tool_calls instead of aborting: NeMo returns aborted calls anyway (0.24.1)."""
    import asyncio

    colang = """
define subflow refuse all tool calls
  abort
"""
    yaml = "passthrough: true\nrails:\n  tool_output:\n    flows:\n      - refuse all tool calls\n"
    model = ToolModel()
    model.arguments = TRANSFER_ARGS
    rails = LLMRails(RailsConfig.from_content(yaml_content=yaml, colang_content=colang), llm=model)
    message = asyncio.run(rails.generate_async(messages=[{"role": "user", "content": "pay"}]))
    assert message["tool_calls"]  # the "blocked" call still comes back: fail-open, pinned here


def test_install_needs_the_rail_in_the_config() -> None:
    rails = LLMRails(RailsConfig.from_content(yaml_content="passthrough: true\n"), llm=ToolModel())
    with pytest.raises(ValueError, match="tool_rail_config"):
        sn.install_tool_rail(rails, TOOLS)


async def test_arguments_the_rail_cannot_read_are_withheld_not_passed_through(setup: Any) -> None:
    """If the rail's action raised, NeMo would go on with the calls unvalidated (as with an abort): fail open.
    Arguments that are not JSON (here a set, as a client-side parse could hand over) must be withheld."""
    message = await ask(setup, {**TRANSFER_ARGS, "memo": {"not", "json"}})
    assert not message.get("tool_calls")
    assert [r.code for r in setup[2].rejections] == ["invalid_json"]
