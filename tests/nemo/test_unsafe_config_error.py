"""Issue 11, NeMo: loading a config that would show unvalidated text fails with a first line that names the
setting and the fix (NeMo wraps what the rail folder's init raises in "Failed to initialize configuration
module at ...", so the chained cause alone was not enough)."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest
from nemoguardrails import LLMRails, RailsConfig

from tests.nemo.test_config_and_controls import _config_dir, _yaml
from tests.support import ROOT


def test_loading_an_unsafe_config_logs_the_setting_and_the_fix_first(tmp_path: Path, caplog) -> None:
    config = RailsConfig.from_path(str(_config_dir(tmp_path, _yaml(stream_first="true"))))
    with caplog.at_level(logging.ERROR), pytest.raises(RuntimeError):
        LLMRails(config)
    record = next(r for r in caplog.records if "rails.output.streaming.stream_first" in r.getMessage())
    assert record.levelno == logging.ERROR
    assert "sluicegate_config()" in record.getMessage() and "must be false" in record.getMessage()


def test_the_first_line_a_user_reads_names_the_setting(tmp_path: Path) -> None:
    """A script with no logging set up, as a new user writes it: the first stderr line names the setting."""
    folder = _config_dir(tmp_path, _yaml(chunk_size=200))
    script = f"from nemoguardrails import LLMRails, RailsConfig\nLLMRails(RailsConfig.from_path({str(folder)!r}))\n"
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=240, env=_env()
    )
    assert proc.returncode != 0
    first = next(line for line in proc.stderr.splitlines() if line.strip())
    assert "rails.output.streaming.chunk_size is 200, must be 1" in first, proc.stderr[-2000:]
    assert "sluicegate_config()" in first


def _env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env
