"""Debian's Chromium, headless, driven by Playwright's Python package with the system browser.

Nothing is downloaded: Playwright launches `/usr/bin/chromium` (`executable_path`), never a browser build of
its own. One browser per test module (`chromium`); each test gets a fresh context and page (`browser_page`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(path):
        raise RuntimeError("chromium is not installed (Debian package chromium; .ci/run installs it)")
    return path


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A headless Chromium `playwright.sync_api.Browser` for one test module.

    Module scope, not session: while Playwright's sync API is running it holds an event loop on the main
    thread, and asyncio tests (pytest-asyncio) in other modules would fail with "cannot be called from a
    running event loop". Keep browser tests in modules of their own (sync tests only).
    """
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    from playwright.sync_api import sync_playwright

    # A home of its own: Chromium writes crash-report settings and dconf caches under $HOME, and another suite
    # may have pointed HOME into the source tree.
    home = tmp_path_factory.mktemp("chromium-home")
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home)}
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_FLAGS, env=env
        )
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


@pytest.fixture
def browser_page(chromium: Any) -> Iterator[Any]:
    """A fresh page in its own context (no shared cookies or cache), closed after the test."""
    context = chromium.new_context()
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()
