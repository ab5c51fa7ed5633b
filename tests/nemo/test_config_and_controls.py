"""Settings enforcement, the ready rail folder, non-streaming generate_async, and the control designs."""

from __future__ import annotations

from pathlib import Path

import pytest
from nemoguardrails import LLMRails, RailsConfig

import sluicegate_nemo as sn
from sluicegate.testing import pieces_of
from tests.nemo.scripted import ScriptedModel, agen
from tests.nemo.test_stream import USER, stream_app, visible
from tests.support import BAD, BAD_RELEASED, GOOD, import_error_without


def _yaml(
    stream_first: str = "false",
    chunk_size: int = 1,
    context_size: int = 0,
    filter: str = "tests.support.make_stop_filter",
) -> str:
    return f"""
import_paths:
  - {sn.RAIL_PATH}
custom_data:
  sluicegate:
    filter: {filter}
rails:
  output:
    flows: [sluicegate output]
    streaming:
      enabled: true
      chunk_size: {chunk_size}
      context_size: {context_size}
      stream_first: {stream_first}
"""


def _config_dir(tmp_path: Path, yaml: str) -> Path:
    (tmp_path / "config.yml").write_text(yaml, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("setting", "kwargs"),
    [
        ("stream_first", {"stream_first": "true"}),
        ("chunk_size", {"chunk_size": 200}),
        ("context_size", {"context_size": 50}),
    ],
)
def test_loading_an_unsafe_config_fails_naming_the_setting(tmp_path: Path, setting: str, kwargs: dict) -> None:
    config = RailsConfig.from_path(str(_config_dir(tmp_path, _yaml(**kwargs))))
    with pytest.raises(sn.UnsafeStreamingConfig, match=rf"rails\.output\.streaming\.{setting}"):
        sn.check_streaming(config)
    with pytest.raises(RuntimeError) as info:  # NeMo wraps what the folder's config.py:init raises
        LLMRails(config)
    assert isinstance(info.value.__cause__, sn.UnsafeStreamingConfig)
    assert f"rails.output.streaming.{setting}" in str(info.value.__cause__)


def test_sluicegate_config_amends_a_user_config_and_forces_the_settings() -> None:
    user = RailsConfig.from_content(
        yaml_content=(
            "rails:\n  output:\n    streaming:\n      enabled: true\n      chunk_size: 200\n      stream_first: true\n"
        )
    )
    merged = sn.sluicegate_config(user)
    streaming = merged.rails.output.streaming
    assert (streaming.enabled, streaming.chunk_size, streaming.context_size, streaming.stream_first) == (
        True,
        1,
        0,
        False,
    )
    assert sn.FLOW_NAME in merged.rails.output.flows


async def test_ready_rail_folder_via_import_paths_streams_and_blocks(tmp_path: Path) -> None:
    rails = LLMRails(RailsConfig.from_path(str(_config_dir(tmp_path, _yaml()))))  # filter from config.yml
    chunks, s = await stream_app(rails, pieces_of(BAD, 5))
    assert visible(chunks) == BAD_RELEASED and s.blocked
    chunks, s = await stream_app(rails, pieces_of(GOOD, 5))
    assert visible(chunks) == GOOD and not s.blocked


async def test_config_file_names_the_ready_gate_over_the_request_sources(tmp_path: Path) -> None:
    yaml = _yaml(filter="sluicegate.sources.request_gate_redacted")
    rails = LLMRails(RailsConfig.from_path(str(_config_dir(tmp_path, yaml))))
    sources = ["Late fees were abolished in 2021.", "Write to help.desk@citylib.example."]
    messages = [{"role": "context", "content": {"sources": sources}}, *USER]
    ok = "Late fees ended in 2021 [S1]. Write to help.desk@citylib.example [S2]. "
    s = sn.guarded_stream(rails, messages=messages, generator=agen(pieces_of(ok, 4)))
    seen = visible([c async for c in s])
    assert "2021" in seen and "help.desk@citylib.example" not in seen and "[S" not in seen and not s.blocked
    s = sn.guarded_stream(rails, messages=messages, generator=agen(pieces_of(ok.replace("2021", "2019"), 4)))
    chunks = [c async for c in s]
    assert visible(chunks) == "" and s.blocked and [v.code for v in s.session.violations] == ["unsupported_value"]


async def test_generate_async_runs_the_whole_string_action(llm_rails: LLMRails, scripted: ScriptedModel) -> None:
    scripted.push([GOOD], [BAD])
    good = await llm_rails.generate_async(messages=USER)
    bad = await llm_rails.generate_async(messages=USER)
    assert good["content"] == GOOD
    assert "2019" not in bad["content"] and "report" not in bad["content"]  # NeMo's refusal, nothing of BAD


async def test_generate_async_without_a_filter_fails_closed() -> None:
    rails = LLMRails(sn.sluicegate_config(), llm=ScriptedModel([GOOD]))
    sn.install(rails, None)
    result = await rails.generate_async(messages=USER)
    assert GOOD not in result["content"]


# --- controls: the same scenario through designs we rejected. They are expected to leak. ---------------------


async def _control(rails: LLMRails, pieces: list[str]) -> list[str]:
    return [c async for c in rails.stream_async(messages=USER, generator=agen(pieces))]


async def test_control_rail_only_design_leaks_the_bad_sentence(rail_only: LLMRails) -> None:
    chunks = await _control(rail_only, pieces_of(BAD, 3))
    assert sn.is_block_frame(chunks[-1])  # it does block in the end...
    assert "2019" in visible(chunks)  # ...after the client already read the forbidden word


async def test_control_stream_first_true_leaks_the_bad_sentence(rail_only_stream_first: LLMRails) -> None:
    chunks = await _control(rail_only_stream_first, pieces_of(BAD, 3))
    assert sn.is_block_frame(chunks[-1])
    assert "2019 only. " in visible(chunks)  # even the batch that triggered the block went out first


def test_import_without_the_extra_names_it() -> None:
    assert 'pip install "sluicegate[nemo]"' in import_error_without("nemoguardrails", "sluicegate_nemo")
