"""The preflight examples run offline; refusals show the fixed text and cost no model call."""

from __future__ import annotations

import re

import pytest

from sluicegate._notices import notice
from tests.support import run_example

DECLINED = notice("en", "declined")
NO_EVIDENCE = notice("en", "refusal")


def _blocks(out: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in re.finditer(r"^(\w[\w ]*): '.*?'\n((?:  .*\n?)*)", out, re.M)}


@pytest.mark.parametrize(
    "name", ["evidence_preflight.py", "langchain_preflight.py", "llamaindex_preflight.py", "nemo_preflight.py"]
)
def test_preflight_example(name: str) -> None:
    blocks = _blocks(run_example(name))
    assert DECLINED in blocks["pattern refusal"]
    assert NO_EVIDENCE in blocks["no evidence"]
    supported = blocks["supported"]
    assert "at ten on Saturdays" in supported and DECLINED not in supported and NO_EVIDENCE not in supported
    if name != "evidence_preflight.py":
        assert re.search(r"(model|LLM) calls: 0", blocks["pattern refusal"])
        assert re.search(r"(model|LLM) calls: 0", blocks["no evidence"])
        assert re.search(r"(model|LLM) calls: 1", supported)
        assert "[S1]" not in supported  # the answer went through the sentence gate


def test_guardrails_refuse_example() -> None:
    blocks = _blocks(run_example("guardrails_refuse.py"))
    assert DECLINED in blocks["pattern refusal"] and "model calls: 0" in blocks["pattern refusal"]
    assert "opens at ten on Saturdays." in blocks["supported"] and "model calls: 1" in blocks["supported"]
