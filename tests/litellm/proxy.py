"""A real LiteLLM proxy process (`litellm --config ... --port ...`) in front of the scripted provider.

Offline and quiet: telemetry off, the bundled model cost map (no fetch), no database, a master key of its own
(the proxy refuses to start without one). The guardrail is imported by the proxy from this checkout's
`integrations/` (PYTHONPATH), exactly as an operator's `guardrail: sluicegate_litellm.SluicegateGuardrail`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.services.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
MASTER_KEY = "sk-" + "5" * 64  # a test key: long enough for the proxy's weak-key check
STARTUP_TIMEOUT = 240.0  # s: the proxy imports a great deal; on a loaded 2-core machine it took over a minute

CONFIG = """\
model_list:
  - model_name: m
    litellm_params:
      model: openai/m
      api_base: {api_base}
      api_key: sk-provider
  - model_name: unguarded
    litellm_params:
      model: openai/m
      api_base: {api_base}
      api_key: sk-provider
guardrails:
  - guardrail_name: sluicegate
    litellm_params:
      guardrail: sluicegate_litellm.SluicegateGuardrail
      mode: post_call
      default_on: true
litellm_settings:
  num_retries: 0
  request_timeout: 30
"""


def proxy_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "LITELLM_", "OPENAI_"))}
    paths = [str(ROOT / "integrations"), str(ROOT / "src"), str(ROOT)]
    env.update(
        {
            "PYTHONPATH": os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
            "HOME": str(home),
            "LITELLM_TELEMETRY": "False",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "LITELLM_MASTER_KEY": MASTER_KEY,
            "LITELLM_LOG": "ERROR",
            "DISABLE_SCHEMA_UPDATE": "True",
            "NO_DOCS": "True",
            "NO_REDOC": "True",
        }
    )
    return env


class LiteLLMProxy:
    """The proxy process; `url` is its base (`/v1` for the OpenAI SDK), `startup_s` how long it took to listen."""

    def __init__(self, workdir: Path, api_base: str, config: str = CONFIG) -> None:
        self.port = free_port()
        self.config = workdir / "config.yaml"
        self.config.write_text(config.format(api_base=api_base), encoding="utf-8")
        self.log = workdir / "proxy.log"
        self.home = workdir / "home"
        self.home.mkdir(exist_ok=True)
        self.process: subprocess.Popen[bytes] | None = None
        self.startup_s = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        litellm = Path(sys.executable).with_name("litellm")
        started = time.monotonic()
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [str(litellm), "--config", str(self.config), "--port", str(self.port), "--host", "127.0.0.1"],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=proxy_env(self.home),
                cwd=str(self.config.parent),
            )
        deadline = started + STARTUP_TIMEOUT
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the LiteLLM proxy exited:\n{self.log.read_text(errors='replace')[-4000:]}")
            try:
                if httpx.get(self.url + "/health/liveliness", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"the LiteLLM proxy did not start:\n{self.log.read_text(errors='replace')[-4000:]}")
            time.sleep(0.25)
        self.startup_s = time.monotonic() - started

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


@contextmanager
def serve_proxy(workdir: Path, api_base: str) -> Iterator[LiteLLMProxy]:
    proxy = LiteLLMProxy(workdir, api_base)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()
