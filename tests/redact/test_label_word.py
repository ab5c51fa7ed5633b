"""The compiled feed's sharper label check of stop 34 (issue 27): a label tail counts only where a whole form of a
label word ends in it (`labels.forms()`), within the label gap before the start (`wholedb.label_gap`).

Why it is sound: a label detector's match at v passes a lookbehind holding a label word that ends at or after
v - gap (the gap read off the pattern), in one of the forms `labels.word_pattern` accepts; in an ASCII window
such a word is one of those forms, lowercased (a form holding another character is kept as its tail alone, and a
window holding one is always asked, as before). So the claims test_label_near.py checks for "no tail" must hold
for "no word within the gap": checked here with its own checks (and test_feed_lean.py's for the rest), on
generated texts that put words that only end like a label (`export`, `support`) and labels at the gap's edge
before every operator, the corpora and the suites; the C check against the Python reference; and the streams
(tests/redact/test_check_feed.py).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath, labels
from sluicegate.redaction.detector import LOOKBEHIND
from sluicegate.redaction.registry import BUILTIN
from sluicegate.redaction.wholedb import label_gap
from tests.benchmarks import corpus as C
from tests.benchmarks.corpora27 import CORPORA

from . import test_feed_lean, test_label_near
from .suite_cases import NAMES, load

_GAP = max(g for d in BUILTIN if d.near is not None and (g := label_gap(d)) is not None)


def _word_near(text: str, v: int) -> bool:
    return labels.label_word_near(text, v, LOOKBEHIND, _GAP)


def test_a_form_outside_ascii_whose_letter_lies_before_the_window_is_still_a_word() -> None:
    # `número do passaporte` ends 70 characters before v: its `ú` is 89 before, outside the 80-character window,
    # which is then ASCII; whatever the gap, a label word may end there (with the form left out it said no)
    text = "número do passaporte" + " " * 70 + ": x"
    v = text.index(": x")
    assert text[v - LOOKBEHIND : v].isascii()
    assert labels.label_word_near(text, v, LOOKBEHIND, None)


def test_the_gap_and_the_forms() -> None:
    assert _GAP == 51
    forms = labels.forms()
    assert set(forms) <= labels.tails()
    assert "passport" in forms["port"] and "export" not in forms["port"]
    assert {"api_key", "api-key", "api key", "apikey"} <= set(forms["_key"]) | set(forms["ikey"]) | set(
        forms["-key"]
    ) | set(forms[" key"])
    assert all(f.isascii() for fs in forms.values() for f in fs)
    # a form outside ASCII is kept as its longest ASCII suffix (its non-ASCII character may lie before the window)
    assert "port" not in forms["port"] and "ro de passeport" in forms["port"]
    assert all(
        len(f) >= labels.TAIL or f in {w.lower() for w, _ in labels.words()} for fs in forms.values() for f in fs
    )
    text = '{"tags": ["export"], "id": 7, "customer": {"email": "x"}}'
    v = text.index(": 7")
    assert labels.label_near(text, v, LOOKBEHIND) and not _word_near(text, v)
    assert _word_near('{"passport": 7', 11)
    far = '"password"' + " " * 60 + ": x"
    assert labels.label_near(far, far.index(":"), LOOKBEHIND) and not _word_near(far, far.index(":"))


_PIECES = st.one_of(
    test_label_near._PIECES,
    st.sampled_from(["export", "support", "Passport", "token_count", "tokens", "xpassword", "ikey", "_key", "oken"]),
    st.sampled_from([" " * 20, "x" * 30, "-" * 45, '"' + "a" * 44 + '"', "\t" * 9]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=18).map("".join))
def test_no_start_without_a_label_word_within_the_gap(text: str) -> None:
    test_label_near._check(text, _word_near)
    test_label_near._check_rest(text, _word_near)
    test_feed_lean._rest_asks(text, _word_near)


def test_on_the_corpora_and_the_suites() -> None:
    checked = rest = 0
    texts = [make(6000) for make in CORPORA.values()] + [C.planted(6000).text, C.prose(6000)]
    texts += [case["text"] for name in NAMES for case in load(name)]
    for text in texts:
        checked += test_label_near._check(text, _word_near)
        rest += test_label_near._check_rest(text, _word_near)
        test_feed_lean._rest_asks(text, _word_near)
    assert checked > 1000
    assert rest > 1000


@pytest.mark.skipif(fastpath.native is None, reason="the compiled feed is not built (SLUICEGATE_PURE or no compiler)")
@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_the_compiled_check_is_the_reference(text: str) -> None:
    quick = Redactor()._quick_native
    assert quick is not None
    feed = quick.__self__  # type: ignore[attr-defined]
    for v in range(len(text) + 1):
        assert feed.label_near(text, v) == _word_near(text, v), (text, v)


def test_the_compiled_check_is_the_reference_on_the_corpora() -> None:
    quick = Redactor()._quick_native
    assert quick is not None
    feed = quick.__self__  # type: ignore[attr-defined]
    for make in CORPORA.values():
        text = make(8000)
        for v, ch in enumerate(text):
            if ch in ':=>,("':
                assert feed.label_near(text, v) == _word_near(text, v), (text[v - 90 : v], v)


# Labels as far before their operator as the patterns allow: the longest suffix (`labels.SUFFIX`), a type, an
# array size, quotes and spaces.
EDGE = [
    "api_key_abcdefghij_klmnopqrst = s3cr3tvalue9 ok",
    'password_abcdefghij-klmnopqrst: "s3cr3t value" ok',
    'const apiKey_abcdefghij_klmnopqrst: string = "s3cr3tvalue"',
    'char secret_key_abcdefghij_klmnopqrst[1234]  := "x y"',
    'System.setProperty("token_abcdefghij_klmnopqrst12",  "s3cr3tvalue")',
]


def test_labels_at_the_gaps_edge() -> None:
    for text in EDGE:
        test_label_near._check(text, _word_near)
        test_label_near._check_rest(text, _word_near)
    # Not vacuous: a gap shorter than the patterns allow breaks the claim on these texts.
    with pytest.raises(AssertionError):
        for text in EDGE:
            test_label_near._check(text, lambda t, v: labels.label_word_near(t, v, LOOKBEHIND, 30))
