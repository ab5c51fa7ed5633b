"""Debian's headless Chromium (/usr/bin/chromium) driven by Playwright's Python package: nothing is downloaded.

One browser per test module; each test opens its own context (no shared cookies or cache). Module scope, not
session scope: Playwright's sync API keeps an asyncio loop running in this thread while it is started, and
pytest-asyncio cannot start its own loop for the async tests of other modules until it is stopped. The launch
flags keep the browser off the network and quiet: no component updates, no sync, no background requests.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = os.environ.get("SLUICEGATE_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """A Playwright `Browser` on the system Chromium (an error, never a skip, when it is missing)."""
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} is missing (Debian package chromium; .ci/run installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()
