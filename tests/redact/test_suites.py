"""Other projects' test cases for the entities we claim (tests/redact/suites/, origins and licences in its
README), and a corpus of our own: every positive is hidden whole, streamed whole, at several piece sizes and at
every two-part cut, with no partial leak and no chunk dependence; no negative is redacted unless it already was
before issue 27 (`baseline_false_positives.json`, measured on 70dc550); a case we decline is named with its
reason in `exclusions.json` (and in docs/redactor.md's blind spots) and must still be declined, so the list stays
true. The compiled feed and the pure-Python feed give the same steps on every case.
"""

from __future__ import annotations

import json

import pytest

from sluicegate.redaction import Redactor

from .corpus import feed_steps
from .suite_cases import NAMES, SUITES, chunkings, judge, load


class _Python(Redactor):  # neither compiled part: the reference for the compiled feed and the prefilter
    _COMPILED = False
    _NATIVE = False


_BASELINE = json.loads((SUITES / "baseline_false_positives.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", NAMES)
def test_positives_hidden_whole_at_every_cut(name: str) -> None:
    failures = []
    for case in load(name):
        if not case["positive"] or case["excluded"]:
            continue
        verdict = judge(case, cuts=True)
        if verdict.status != "whole" or verdict.chunk_dependent:
            failures.append((verdict.status, verdict.chunk_dependent, case["origin"], case["text"][:120]))
    assert failures == []


@pytest.mark.parametrize("name", NAMES)
def test_negatives_not_redacted_beyond_the_baseline(name: str) -> None:
    known = set(_BASELINE[name])
    failures = []
    for case in load(name):
        if case["positive"]:
            continue
        verdict = judge(case, cuts=True)
        if verdict.chunk_dependent or (verdict.status == "false_positive" and case["text"] not in known):
            failures.append((verdict.status, verdict.chunk_dependent, case["origin"], case["text"][:120]))
    assert failures == []


@pytest.mark.parametrize("name", NAMES)
def test_exclusions_name_real_cases_still_declined(name: str) -> None:
    cases = load(name)
    excluded = json.loads((SUITES / "exclusions.json").read_text(encoding="utf-8")).get(name, {})
    texts = {c["text"] for c in cases if c["positive"]}
    assert set(excluded) <= texts, "an exclusion names no positive case of its suite"
    assert all(reason.strip() for reason in excluded.values())
    caught = [c["text"][:80] for c in cases if c["excluded"] and judge(c).status == "whole"]
    assert caught == [], "a declined case is now caught: update exclusions.json and the blind spots"


@pytest.mark.parametrize("name", NAMES)
def test_compiled_and_python_feeds_agree(name: str) -> None:
    compiled, python = Redactor.factory(), _Python.factory()  # fresh Redactors without compiling them each time
    for case in load(name):
        for pieces in [[case["text"]], *chunkings(case["text"], cuts=False)]:
            assert feed_steps(compiled, pieces) == feed_steps(python, pieces), case["text"][:80]
