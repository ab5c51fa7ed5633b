"""Shared NeMo objects: LLMRails construction is the slow part, so each config is built once per session."""

from __future__ import annotations

import os

os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")  # no usage POST, no heartbeat thread

import pytest
from nemoguardrails import LLMRails, RailsConfig

import sluicegate_nemo as sn
from tests.nemo.scripted import ScriptedModel
from tests.support import make_stop_filter


@pytest.fixture(scope="session")
def app_rails() -> LLMRails:
    """Design (a): the app owns the model stream and passes it as `generator=`."""
    rails = LLMRails(sn.sluicegate_config())
    sn.install(rails, make_stop_filter)
    return rails


@pytest.fixture(scope="session")
def scripted() -> ScriptedModel:
    return ScriptedModel()


@pytest.fixture(scope="session")
def llm_rails(scripted: ScriptedModel) -> LLMRails:
    """Design (b): NeMo calls the model, wrapped in GatedLLM."""
    rails = LLMRails(sn.sluicegate_config(), llm=sn.GatedLLM(scripted))
    sn.install(rails, make_stop_filter)
    return rails


# The rejected design, kept as a control: the rail itself feeds each window to a per-stream filter.
CONTROL_COLANG = """
define subflow shadow output
  $outcome = execute shadow_check(text=$bot_message)
  if $outcome.is_blocked
    bot refuse to respond
    stop
"""


def control_rails(stream_first: bool) -> LLMRails:
    yaml = (
        "rails:\n  output:\n    flows: [shadow output]\n    streaming:\n      enabled: true\n"
        f"      chunk_size: 1\n      context_size: 0\n      stream_first: {str(stream_first).lower()}\n"
    )
    from nemoguardrails.actions.rail_outcome import RailOutcome

    shadows: dict[str, object] = {}

    async def shadow_check(text: str = "", context: dict | None = None, **kwargs: object) -> RailOutcome:
        key = (context or {}).get("stream", "")
        filt = shadows.setdefault(key, make_stop_filter())
        step = filt.feed(text)  # type: ignore[attr-defined]
        return RailOutcome.block(reason="shadow") if step.stopped else RailOutcome.allow()

    rails = LLMRails(RailsConfig.from_content(colang_content=CONTROL_COLANG, yaml_content=yaml))
    rails.register_action(shadow_check, name="shadow_check")
    return rails


@pytest.fixture(scope="session")
def rail_only() -> LLMRails:
    return control_rails(stream_first=False)


@pytest.fixture(scope="session")
def rail_only_stream_first() -> LLMRails:
    return control_rails(stream_first=True)
