"""One provider and one LiteLLM proxy process for a test module (the proxy takes long to start)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.services.llm_provider import ScriptedProvider, serve_provider

from .proxy import LiteLLMProxy, serve_proxy


@pytest.fixture(scope="module")
def provider_and_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ScriptedProvider, LiteLLMProxy]]:
    workdir = Path(tmp_path_factory.mktemp("litellm"))
    with serve_provider(interval=0.01) as (provider, url), serve_proxy(workdir, url + "/v1") as proxy:
        yield provider, proxy
