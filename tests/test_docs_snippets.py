"""The "What you get back" sections of the guides: each shows a snippet from docs/snippets/ and what it prints.

The test runs each snippet offline (the examples' scripted models, on PYTHONPATH=examples) and checks that the
guide shows the snippet verbatim and, right after it, exactly the output it prints.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.offline_home import make_offline_home
from tests.support import ROOT

GUIDES = {
    "core": "docs/gate.md",
    "call": "docs/guarded_call.md",
    "langchain": "docs/langchain.md",
    "langchain_agents": "docs/langchain_agents.md",
    "llamaindex": "docs/llamaindex.md",
    "nemo": "docs/nemo.md",
    "guardrails": "docs/guardrails.md",
    "openai_agents": "docs/openai_agents.md",
}
BLOCK = re.compile(r"```python\n(.*?)```\n\nIt prints:\n\n```text\n(.*?)```", re.S)


def _run(snippet: str, home: Path) -> str:
    env = dict(os.environ)
    env.update(make_offline_home(home))  # Guardrails AI offline: metrics off, no nltk download
    env.update(
        # this checkout's core and adapters first (as pytest.ini does), not the installed ones
        PYTHONPATH=os.pathsep.join([str(ROOT / "examples"), str(ROOT / "src"), str(ROOT / "integrations"), str(ROOT)]),
        LANGCHAIN_TRACING_V2="false",
        LANGSMITH_TRACING="false",
    )
    proc = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "snippets" / f"{snippet}_get_back.py")],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.parametrize("snippet", list(GUIDES))
def test_guide_shows_the_snippet_and_what_it_prints(snippet: str, tmp_path: Path) -> None:
    code = (ROOT / "docs" / "snippets" / f"{snippet}_get_back.py").read_text(encoding="utf-8")
    guide = (ROOT / GUIDES[snippet]).read_text(encoding="utf-8")
    section = guide.split("## What you get back", 1)
    assert len(section) == 2, f"{GUIDES[snippet]} has no 'What you get back' section"
    shown = [(c, out) for c, out in BLOCK.findall(section[1]) if c == code]
    assert shown, f"{GUIDES[snippet]} does not show docs/snippets/{snippet}_get_back.py verbatim"
    assert shown[0][1] == _run(snippet, tmp_path / "home")
