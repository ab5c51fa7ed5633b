"""Fail closed when no filter ran: a plain model behind guarded_stream, or a config whose `models:` names the model.

The rail only turns "gate stopped" into NeMo's block frame; it never judges streamed text itself. So a stream
whose text did not go through the filter upstream (no `generator=`, no `GatedLLM`) must be refused up front,
and the rail must block it if it gets that far anyway.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from nemoguardrails import LLMRails, RailsConfig
from nemoguardrails.llm.providers import register_chat_provider

import sluicegate_nemo as sn
from sluicegate.testing import pieces_of
from sluicegate_nemo.stream import with_session_id
from tests.nemo.scripted import ScriptedModel, agen
from tests.nemo.test_stream import USER, visible
from tests.support import BAD, BAD_RELEASED, GOOD, make_stop_filter

# The model a `models:` block names: NeMo's default framework builds it as `provider(model=<name>, **params)`.
CONFIGURED = ScriptedModel()
register_chat_provider("sluicegate-scripted", lambda model, **kwargs: CONFIGURED)

MODELS_YAML = f"""
models:
  - type: main
    engine: sluicegate-scripted
    model: scripted-1
import_paths:
  - {sn.RAIL_PATH}
custom_data:
  sluicegate:
    filter: tests.support.make_stop_filter
rails:
  output:
    flows: [sluicegate output]
    streaming: {{enabled: true, chunk_size: 1, context_size: 0, stream_first: false}}
"""


@pytest.fixture()
def models_rails(tmp_path: Path) -> LLMRails:
    (tmp_path / "config.yml").write_text(MODELS_YAML, encoding="utf-8")
    return LLMRails(RailsConfig.from_path(str(tmp_path)))


async def test_plain_llm_without_a_generator_is_refused_up_front() -> None:
    model = ScriptedModel([BAD])
    rails = LLMRails(sn.sluicegate_config(), llm=model)  # GatedLLM forgotten
    sn.install(rails, make_stop_filter)
    with pytest.raises(sn.UngatedStream, match="gate_llm"):
        sn.guarded_stream(rails, messages=USER)
    assert model.pulled == 0


async def test_rail_blocks_a_session_stream_the_filter_never_saw(app_rails: LLMRails) -> None:
    """A session exists (its id is in the context) but the text bypassed gated(): nothing may pass."""
    session = sn.StreamSession(make_stop_filter())
    messages = with_session_id(USER, session)
    chunks = [c async for c in app_rails.stream_async(messages=messages, generator=agen(pieces_of(BAD, 3)))]
    assert visible(chunks) == "" and sn.is_block_frame(chunks[-1])
    assert not any("2019" in c or "report" in c for c in chunks)


async def test_config_file_models_route_is_refused_until_gated(models_rails: LLMRails) -> None:
    assert models_rails.llm is CONFIGURED
    with pytest.raises(sn.UngatedStream):
        sn.guarded_stream(models_rails, messages=USER)
    sn.gate_llm(models_rails)
    sn.gate_llm(models_rails)  # idempotent: never double-wrapped
    assert isinstance(models_rails.llm, sn.GatedLLM) and models_rails.llm.inner is CONFIGURED
    CONFIGURED.push(pieces_of(BAD, 4), pieces_of(GOOD, 4))
    s = sn.guarded_stream(models_rails, messages=USER)
    chunks = [c async for c in s]
    assert visible(chunks) == BAD_RELEASED and sn.is_block_frame(chunks[-1]) and s.blocked
    assert not any("2019" in c for c in chunks) and s.outcome.reason == "stopped"
    s = sn.guarded_stream(models_rails, messages=USER)
    chunks = [c async for c in s]
    assert visible(chunks) == GOOD and not s.blocked


def test_gate_llm_without_a_model_names_the_problem() -> None:
    rails = LLMRails(sn.sluicegate_config())
    with pytest.raises(ValueError, match="no main model"):
        sn.gate_llm(rails)
