"""The "What you get back" sections of the guides: each shows a snippet from docs/snippets/ and what it prints.

The test runs each snippet offline (the examples' scripted models, on PYTHONPATH=examples) and checks that the
guide shows the snippet verbatim and, right after it, exactly the output it prints.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.support import ROOT

GUIDES = {
    "core": "docs/gate.md",
    "call": "docs/guarded_call.md",
    "langchain": "docs/langchain.md",
    "llamaindex": "docs/llamaindex.md",
    "nemo": "docs/nemo.md",
    "guardrails": "docs/guardrails.md",
}
BLOCK = re.compile(r"```python\n(.*?)```\n\nIt prints:\n\n```text\n(.*?)```", re.S)


def _run(snippet: str) -> str:
    env = dict(os.environ)
    home = ROOT / "tests" / "guardrails" / "home"  # Guardrails AI offline: metrics off, no nltk download
    env.update(
        # this tree's packages first (not the ones the venv has installed from another checkout)
        PYTHONPATH=os.pathsep.join([str(ROOT / "examples"), str(ROOT), str(ROOT / "src"), str(ROOT / "integrations")]),
        HOME=str(home),
        NLTK_DATA=str(home / "nltk_data"),
        LITELLM_LOCAL_MODEL_COST_MAP="True",
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
def test_guide_shows_the_snippet_and_what_it_prints(snippet: str) -> None:
    code = (ROOT / "docs" / "snippets" / f"{snippet}_get_back.py").read_text(encoding="utf-8")
    guide = (ROOT / GUIDES[snippet]).read_text(encoding="utf-8")
    section = guide.split("## What you get back", 1)
    assert len(section) == 2, f"{GUIDES[snippet]} has no 'What you get back' section"
    shown = [(c, out) for c, out in BLOCK.findall(section[1]) if c == code]
    assert shown, f"{GUIDES[snippet]} does not show docs/snippets/{snippet}_get_back.py verbatim"
    assert shown[0][1] == _run(snippet)
