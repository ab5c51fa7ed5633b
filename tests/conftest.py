"""Test settings: Hypothesis profiles and offline/telemetry switches for every framework we touch."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Offline always: no framework may phone home or download anything during tests.
os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")
os.environ.setdefault("LANGSMITH_TRACING", "false")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

settings.register_profile(
    "ci", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# The other Pythons of CI's matrix: the same tests, fewer (still derandomized) examples; the deep search runs once,
# on the README's Python.
settings.register_profile(
    "ci-matrix", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
pytest_plugins = [
    "tests.services.redis_server",
    "tests.services.nginx",
    "tests.services.browser",
    "tests.services.stop_checks",
    "tests.services.replay_upstream",
]
