"""Test settings: Hypothesis profiles and offline/telemetry switches for every framework we touch."""

from __future__ import annotations

import os

import pytest
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


def matrix_examples(explicit: int) -> int:
    """A test's own `max_examples` on the matrix: the same fifth as the profile's (500 -> 100), never below the
    profile's 100 nor above the test's own count. A test that asks for more than the default (a deep search: 2000,
    400) would otherwise run its whole 3.11 search on every other Python too, which the profile is there to avoid."""
    deep, matrix = settings.get_profile("ci").max_examples, settings.get_profile("ci-matrix").max_examples
    return min(explicit, max(matrix, explicit * matrix // deep))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under ci-matrix only, a test's explicit `@settings(max_examples=N)` is scaled like the profile's count."""
    if os.environ.get("HYPOTHESIS_PROFILE") != "ci-matrix":
        return
    for item in items:
        test = getattr(item, "function", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)  # where @settings/@given keep them
        if own is None or getattr(test, "_matrix_scaled", False):
            continue
        test._hypothesis_internal_use_settings = settings(own, max_examples=matrix_examples(own.max_examples))  # type: ignore[union-attr]
        test._matrix_scaled = True  # type: ignore[union-attr]


pytest_plugins = [
    "tests.services.redis_server",
    "tests.services.nginx",
    "tests.services.browser",
    "tests.services.stop_checks",
    "tests.services.replay_upstream",
]
