"""Other projects' test cases (tests/redact/suites/, origins in its README) and how a case is judged.

A positive case names value spans: each must be hidden whole (`whole`), never in part (`partial`: some of its
characters shown); a negative case must come out unchanged. A case is streamed whole, at several piece sizes
and (in the test) at every two-part cut; any chunking whose output differs from the whole string's is
`chunk_dependent`, which the contract forbids. Values are replaced by a sentinel of the same length, so output
positions are input positions; after a fail-closed stop everything not released counts as hidden.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sluicegate.redaction import Redactor

SUITES = Path(__file__).parent / "suites"
NAMES = ("presidio", "detect_secrets", "gitleaks", "llm_stream_guardrails", "own")
SENTINEL = "\x00"
SIZES = (1, 3, 7, 16)


def _hide(entity: str, raw: str) -> str:
    return SENTINEL * len(raw)


def load(name: str) -> list[dict[str, Any]]:
    """A suite's cases, each with `excluded` set to the reason when the exclusions file names it."""
    cases: list[dict[str, Any]] = json.loads((SUITES / f"{name}.json").read_text(encoding="utf-8"))
    excluded: dict[str, str] = json.loads((SUITES / "exclusions.json").read_text(encoding="utf-8")).get(name, {})
    for case in cases:
        case["excluded"] = excluded.get(case["text"])
    return cases


# One factory for every run: each call is a fresh Redactor with its own state, the same output as
# `Redactor(operator=_hide)` (tests/redact/test_factory.py), without compiling the detectors again for each of the
# thousands of chunkings (that was most of these suites' time).
_MAKE = Redactor.factory(operator=_hide)


def run(chunks: Iterable[str]) -> tuple[str, bool]:
    """(released text with values as sentinels, stopped)."""
    r = _MAKE()
    out = []
    for chunk in chunks:
        step = r.feed(chunk)
        out.append(step.text)
        if step.stopped:
            return "".join(out), True
    step = r.flush()
    out.append(step.text)
    return "".join(out), step.stopped


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


# Every two-part cut of a case up to this long; a longer one (a 32 KB data URL, a PEM block) is cut at 64 places
# spread over it, so the suites run in seconds, not minutes.
CUT_ALL = 256


def chunkings(text: str, *, cuts: bool) -> list[list[str]]:
    out = [pieces(text, n) for n in SIZES if n < len(text)]
    if cuts:
        at = range(1, len(text)) if len(text) <= CUT_ALL else sorted({1 + k * (len(text) - 2) // 63 for k in range(64)})
        out += [[text[:i], text[i:]] for i in at]
    return out


@dataclass
class Verdict:
    status: str  # whole / partial / missed for a positive; clean / false_positive for a negative
    chunk_dependent: bool


def judge(case: dict[str, Any], *, cuts: bool = False) -> Verdict:
    text: str = case["text"]
    whole, stopped = run([text])
    dependent = any(run(c) != (whole, stopped) for c in chunkings(text, cuts=cuts))
    hidden = [i >= len(whole) or whole[i] == SENTINEL for i in range(len(text))]
    if not case["positive"]:
        return Verdict("clean" if not any(hidden) else "false_positive", dependent)
    spans: Sequence[Sequence[int]] = case["spans"] or [(0, len(text))]
    status = "whole"
    for start, end in spans:
        shown = sum(not hidden[i] for i in range(start, end))
        if shown == end - start:
            status = "missed" if status == "whole" else status
        elif shown:
            return Verdict("partial", dependent)
    if status == "missed" and any(all(hidden[s:e]) for s, e in spans):
        status = "partial"  # one value hidden, another shown
    return Verdict(status, dependent)
