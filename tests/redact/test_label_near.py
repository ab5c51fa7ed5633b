"""The compiled feed's label pre-check (`Detector.near`, `labels.label_near`, `_native.c`) against the engine.

The compiled feed skips a candidate start `v` of a label detector at one of its `near` characters when no label
word's tail occurs in the `LOOKBEHIND` characters before it: with more than `near_k` characters after `v` it
takes the engine's answer there to be "no match"; with fewer it answers as the engine did for the same text
`view[v:]` at an earlier such start. Both must hold wherever the engine is asked, so: at every such start with no
tail before it, the engine finds no match (more than `near_k` after it) or an open one that the same text after a
different label-less context gives too; the C check agrees with the Python reference; and the outputs are
unchanged (test_oracle.py, test_native.py compare the paths).
"""

from __future__ import annotations

import random

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath, labels
from sluicegate.redaction.detector import LOOKBEHIND
from sluicegate.redaction.reach import before_behind
from sluicegate.redaction.registry import BUILTIN
from tests.benchmarks.corpora27 import CORPORA

from .suite_cases import NAMES, load

_NEAR = tuple(d for d in BUILTIN if d.near is not None)
_WORDS = [w for w, _ in labels.words()][:40] + list(labels.CAMEL_WORDS) + ["api_key", "ApiKey", "db_pass", "x"]
_PIECES = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(
        [":", "=", "==", ":=", "=>", ",", "(", ")", '"', "'", "`", " ", "  ", "\t", "\n", "[25]", "<", ">", "@"]
    ),
    st.sampled_from(["string", "const", "var", "&str", "sku", "qty", "SKU-1234", "s3cr3tVALUE9", "_prod", "1"]),
    st.text(st.sampled_from(list("aZ0_-.é密 :=\"',(")), max_size=4),
)


def _check(text: str) -> int:
    """Assert the claim at every `near` start of `text` with no tail before it; return how many were checked."""
    checked = 0
    for d in _NEAR:
        assert d.near_k is not None
        for v, ch in enumerate(text):
            if ch not in d.near or labels.label_near(text, v, LOOKBEHIND):
                continue
            checked += 1
            m = d.compiled.match(text, v, partial=True)
            if len(text) - v > d.near_k:
                assert m is None, (d.pattern[:40], text, v)
            else:  # open before its lookbehind: the same after any context with no label in it
                assert m is None or m.partial, (text, v)
                tail = text[v:]
                for ctx in ("", "x" * LOOKBEHIND, "\n{ 12, "):
                    other = d.compiled.match(ctx + tail, len(ctx), partial=True)
                    assert (other is None) == (m is None), (text, v, ctx)
    return checked


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=16).map("".join))
def test_no_start_without_a_label_tail(text: str) -> None:
    _check(text)


def test_on_the_corpora_and_the_suites() -> None:
    checked = 0
    for make in CORPORA.values():
        checked += _check(make(6000))
    for name in NAMES:
        for case in load(name):
            checked += _check(case["text"])
    assert checked > 1000


def test_tails_are_in_every_label_word() -> None:
    """Each label word (in the forms the pattern takes: case, `_`/`-`/space joints or none) holds a tail."""
    rng = random.Random(5)
    for word in [w for w, _ in labels.words()] + list(labels.CAMEL_WORDS):
        parts = [p for p in regex.split(r"[_ \-]", word) if p]
        for _ in range(4):
            form = rng.choice(["", "_", "-", " "]).join(parts)
            form = "".join(c.upper() if rng.random() < 0.5 else c for c in form)
            assert labels.label_near(form, len(form), LOOKBEHIND), form
    # An ASCII text never matches a non-ASCII tail character case-insensitively (the check lowercases ASCII only).
    for t in labels.tails():
        for ch in t:
            if not ch.isascii():
                assert not any(regex.fullmatch(f"(?i){regex.escape(ch)}", chr(a)) for a in range(128)), ch


def test_before_behind() -> None:
    assert before_behind(r"ab(?<=b)c") == 4
    assert before_behind(r"a|b(?<=b)") is None  # `a` ends without a lookbehind
    assert before_behind(r"a(?<=a)|\"b", first="a") == 3  # the alternative at `"` is left out
    assert before_behind(r"x\s{0,3}(?:\"(?<=x)|y(?<=y))") == 7
    assert before_behind(r"(?:a(?<=a))+") is None


@pytest.mark.skipif(fastpath.native is None, reason="the compiled feed is not built (SLUICEGATE_PURE or no compiler)")
@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_the_compiled_check_is_the_reference(text: str) -> None:
    quick = Redactor()._quick_native
    assert quick is not None
    feed = quick.__self__  # type: ignore[attr-defined]
    for v in range(len(text) + 1):
        assert feed.label_near(text, v) >= labels.label_near(text, v, LOOKBEHIND), (text, v)
