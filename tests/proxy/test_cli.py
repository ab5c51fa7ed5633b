"""`sluicegate proxy` as a command: a real process on a loopback port, in front of the scripted upstream."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from sluicegate.cli import main
from sluicegate.cli._proxy import parse_listen
from tests.dialects import streams
from tests.proxy.process import proxy_process
from tests.proxy.upstream import Upstream, events_of

ROOT = Path(__file__).resolve().parents[2]


def test_core_imports_no_web_stack() -> None:
    code = (
        "import sys, sluicegate, sluicegate.dialects, sluicegate.cli, sluicegate.cli._proxy;"
        "print(sorted(m for m in ('starlette', 'httpx', 'uvicorn') if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "integrations")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]"


def test_listen_parsing() -> None:
    assert parse_listen("127.0.0.1:8400") == ("127.0.0.1", 8400)
    assert parse_listen("[::1]:9000") == ("::1", 9000)
    with pytest.raises(ValueError):
        parse_listen("8400")


def test_bad_config_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "sluicegate.toml"
    bad.write_text('[upstream]\napi_key = "sk-x"\n')
    assert main(["proxy", "--upstream", "http://127.0.0.1:1", "--config", str(bad)]) == 2
    assert "client_keys" in capsys.readouterr().err
    assert main(["proxy"]) == 2  # no upstream at all


def test_the_command_serves(upstream_server: tuple[Upstream, str], tmp_path: Path) -> None:
    upstream, url = upstream_server
    config = tmp_path / "sluicegate.toml"
    config.write_text("[limits]\nmax_body_bytes = 4096\n")
    with proxy_process(url, config) as base:
        assert httpx.get(base + "/healthz", timeout=5).status_code == 200
        upstream.play(events_of(streams.chat(streams.pieces(streams.WITH_SECRET))))
        r = httpx.post(base + "/v1/chat/completions", json=streams.request_body("chat", stream=False), timeout=10)
        assert r.status_code == 200 and streams.SECRET not in r.text and "<OPENAI_KEY>" in r.text
        big = streams.request_body("chat", question="x" * 5000)
        assert httpx.post(base + "/v1/chat/completions", json=big, timeout=5).status_code == 413
